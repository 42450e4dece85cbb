// Reader of torch_npu's trace_view.json (Chrome trace events): host ops, device kernels and
// tasks, launch flows, counters and the ProfilerStep markers.
#pragma once

#include "importer/ImportModel.h"

#include <filesystem>

namespace pto::importer {

/// Adds the events of the file to `model`. ImportError (file, byte offset, what was expected)
/// when it is not a JSON array of events or an object with "traceEvents".
void readTraceViewJson(const std::filesystem::path& path, ImportModel& model);

/// Whether an Ascend Hardware task type is a compute kernel (the rest are copies, waits,
/// event records, …).
bool isKernelTaskType(std::string_view taskType);

} // namespace pto::importer
