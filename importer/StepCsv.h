// Reader of step_trace_time.csv: per training step, how its time split into computing,
// communication, free time, … (microseconds).
#pragma once

#include "importer/ImportModel.h"

#include <filesystem>

namespace pto::importer {

void readStepCsv(const std::filesystem::path& path, ImportModel& model);

} // namespace pto::importer
