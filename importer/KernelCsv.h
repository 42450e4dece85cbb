// Reader of per-kernel CSV files: torch_npu's kernel_details.csv and msprof's op_summary_*.csv
// (one row per device task with times, shapes and per-pipe times and ratios).
#pragma once

#include "importer/ImportModel.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace pto::importer {

/// Adds every row of the file to `model`: compute tasks as kernels, HCCL rows as spans of the
/// "Communication" lane. ImportError for a malformed file.
void readKernelCsv(const std::filesystem::path& path, ImportModel& model);

/// The track core type of an Ascend core/task type: AI_CORE → AIC, AI_VECTOR_CORE → AIV,
/// others unchanged (MIX_AIC, MIX_AIV, AI_CPU, DSA_SQE, …).
std::string coreTypeOf(std::string_view ascend);
/// Whether a row of this core type is a communication op rather than a compute kernel.
bool isCommunication(std::string_view ascend);

} // namespace pto::importer
