// `pto import`: reads Ascend profiler output (an ASCEND_PROFILER_OUTPUT folder or one of its
// files) and writes a measured trace file of the project's schema (docs/IMPORT.md).
#pragma once

#include "importer/TraceBuilder.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pto::importer {

/// The kinds of input pto import reads.
enum class InputKind { Folder, KernelCsv, StepCsv, TraceViewJson, ProfilerDb };

/// Which files of `path` would be read, and as what; ImportError when none.
struct InputPlan {
    std::string format; ///< meta source_format: "torch_npu text", "torch_npu db", "msprof csv", …
    std::filesystem::path traceView, kernelCsv, stepCsv, profilerDb, analysisDb;
    /// Text files beside the folder's profiler .db: compared with it, not read
    /// (checkTextBesideDb, importer/TextBesideDb.h).
    std::vector<std::filesystem::path> notRead;
};
InputPlan planImport(const std::filesystem::path& path);

/// Reads `plan`'s files into one model (trace_view kernels merged with kernel_details rows).
ImportModel readInputs(const InputPlan& plan);

/// planImport + readInputs + writeMeasuredTrace.
ImportSummary importProfile(const std::filesystem::path& input,
                            const std::filesystem::path& output);

} // namespace pto::importer
