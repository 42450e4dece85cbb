// A run's outputs (the tensor table of its trace) against golden .npy files, and the rows that
// store comparison results in the trace's diff table.
#pragma once

#include "trace_db/Rows.h"
#include "validate/Diagnosis.h"
#include "validate/TensorCompare.h"

#include <filesystem>
#include <optional>
#include <span>
#include <vector>

namespace pto {

// Reads an .npy file as a tensor without an extra copy of its data (the large-file path of
// `pto diff`). Throws NpyError for unreadable, malformed or unsupported files.
TensorData loadTensorFile(const std::filesystem::path& path);

struct OutputComparison {
    TensorComparison comparison;
    std::filesystem::path golden;       // the .npy it was compared with
    std::optional<int64_t> stageId;     // the root (parse) stage of the trace
    std::optional<int64_t> nodeId;      // the Tensor op that produced the output
    std::string producer;               // its mnemonic, e.g. "matmul"
    std::optional<Diagnosis> diagnosis; // the error pattern, for a failing output when asked
};

// Runs the error-pattern diagnosis on a comparison made with `policy` (its tolerance, class
// and K), with `layout` as the tiling (may be null).
Diagnosis diagnoseComparison(const TensorComparison& c, const TensorView& actual,
                             const TensorView& golden, const ComparePolicy& policy,
                             const TileLayout* layout);

// Compares every output stored in `trace` (tensor rows of role output) with
// `goldenDir`/<name>.npy; the tolerance class and K come from the op that produced each output
// in the program recorded in the trace (meta program_text: the op as written, the i-th output
// row being the i-th result), `policy` gives the rest. Throws
// std::invalid_argument (missing golden, output not stored, shape mismatch), NpyError and
// TraceError for bad input. With `diagnose`, each failing output gets its error pattern, with
// the tiling the trace records (validate/TraceTiles.h).
std::vector<OutputComparison> diffTraceOutputs(const std::filesystem::path& trace,
                                               const std::filesystem::path& goldenDir,
                                               const ComparePolicy& policy, bool diagnose = false);

// The diff-table row of a tensor comparison (kind tensor), its detail holding the tolerance,
// the checks and `extraDetail` merged in.
tracedb::DiffRow tensorDiffRow(const TensorComparison& c, std::optional<int64_t> stageId,
                               std::optional<int64_t> nodeId, const nlohmann::json& extraDetail);

// Stores rows in the diff table of an existing trace (TraceWriter::append, then commit); a row
// replaces the earlier rows of its kind and name, so comparing the outputs again leaves one
// verdict per output, the latest.
void storeDiffRows(const std::filesystem::path& trace, std::span<const tracedb::DiffRow> rows);

} // namespace pto
