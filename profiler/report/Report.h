// The profile of a run as a report: text for the terminal, Markdown, or JSON — the summary,
// the top Tensor ops by cycles and the findings (`pto report`).
#pragma once

#include "profiler/Profile.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pto::prof {

enum class ReportFormat { Text, Markdown, Json };

struct ReportOptions {
    ReportFormat format = ReportFormat::Text;
    int topOps = 10; ///< Tensor ops listed by cycles
};

/// The report as JSON (also the source of the text and Markdown renderings).
nlohmann::json reportJson(const Profile& profile, int topOps = 10);
std::string renderReport(const Profile& profile, const ReportOptions& options);
/// A finding's estimated gain as every view words it: "9159 cycles (76.1% of the run; range
/// 0–9388 cycles, 0.00–5.22 us)" (ns for a measured trace).
std::string gainText(const Profile& profile, const Finding& finding);

} // namespace pto::prof
