// Reader of the profilers' SQLite exports: torch_npu's ascend_pytorch_profiler_N.db and
// msprof's msprof_N.db (kernels with their PMU figures, host API calls, launch flows, steps)
// and analysis.db (per-step time figures).
#pragma once

#include "importer/ImportModel.h"

#include <filesystem>

namespace pto::importer {

/// Adds what the file holds to `model`; ImportError when it is not SQLite, is corrupt, or has
/// neither a TASK table nor a StepTraceTime table.
void readProfilerDb(const std::filesystem::path& path, ImportModel& model);

} // namespace pto::importer
