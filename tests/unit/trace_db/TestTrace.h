// Shared helpers for the trace_db tests: a scratch directory and a small trace using every table.
#pragma once

#include "tests/support/Process.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace pto::tracedb::test {

/// The TraceError message of `action`, or "" when it did not throw.
std::string errorOf(const std::function<void()>& action);

/// The TraceError message of opening `path` with the reader, or "" when it opened.
std::string openError(const std::filesystem::path& path);

/// A fresh directory under the system temp dir, removed with everything in it (tests/support).
using TempDir = ::pto::test::TempDir;

/// Ids of a few rows of the sample trace that tests look up.
struct SampleIds {
    std::int64_t tensorStage = 0;
    std::int64_t tileStage = 0;
    std::int64_t blockStage = 0;
    std::int64_t execStage = 0;
    std::int64_t ptoStage = 0;
    std::int64_t cubePipeTrack = 0; ///< AIC0 / M
    std::int64_t firstInstr = 0;    ///< TLOAD of the cube block
    std::int64_t firstInstrSlice = 0;
};

/// Writes and commits a small but complete trace (every table, every enum value): a tensor
/// program "x @ w, then exp", lowered through all five levels and run on one AIC and one AIV.
SampleIds writeSampleTrace(const std::filesystem::path& path);

/// Rows of track_summary that differ from a GROUP BY over slice (0 when it is exact).
std::int64_t staleTrackSummaryRows(const std::filesystem::path& trace);

std::string readBytes(const std::filesystem::path& path);
void writeBytes(const std::filesystem::path& path, const std::string& bytes);

} // namespace pto::tracedb::test
