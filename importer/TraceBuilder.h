// Writes an ImportModel as a measured trace file (docs/TRACE_SCHEMA.md, "Measured traces"):
// kernels as task slices on per-stream, per-core-type core tracks, other slices on their own
// lanes, launch flows, counters, steps, and the problems counted in `stats`.
#pragma once

#include "importer/ImportModel.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pto::importer {

/// What was written, for the command's summary.
struct ImportSummary {
    std::int64_t kernels = 0;
    std::int64_t kernelNs = 0; ///< sum of kernel durations
    std::int64_t kernelTracks = 0;
    std::int64_t spans = 0;
    std::int64_t flows = 0;
    std::int64_t counters = 0;
    std::int64_t problems = 0; ///< sum of the data_loss and error stats (the warnings)
    std::int64_t notes = 0;    ///< sum of the info stats (input deliberately not imported)
    std::int64_t rowsRead = 0;
    /// The problems to print: every data_loss or error stat ("warning: …") and the info
    /// stats about inputs not used ("note: …"), each with its first place and count.
    std::vector<std::string> said;
};

/// Writes `model` to `output` through TraceWriter (temp file + rename: `output` holds the
/// previous file or a complete new one). `meta` entries of the model are added. The args of
/// the model's kernels and spans are moved into the file (left empty).
ImportSummary writeMeasuredTrace(ImportModel& model, const std::filesystem::path& output);

} // namespace pto::importer
