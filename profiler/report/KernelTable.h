// The top device kernels of a measured trace by time, with their bound class and busiest pipe
// (a section of `pto report` for traces from `pto import`).
#pragma once

#include "profiler/Profile.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pto::prof {

nlohmann::json topKernelsJson(const Profile& profile, int top);
std::string renderTopKernelsText(const nlohmann::json& kernels);
/// "MTE2 66%" of a top_kernels entry, "-" for a kernel without pipe ratios.
std::string busiestPipeText(const nlohmann::json& kernel);
std::string renderTopKernelsMarkdown(const nlohmann::json& kernels);

} // namespace pto::prof
