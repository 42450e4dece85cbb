// A simulator-shaped synthetic trace for benchmarks: 24 AIC + 48 AIV cores with their pipe
// tracks, each pipe streaming back-to-back instruction slices with instr and task ids.
#pragma once

#include <cstdint>
#include <filesystem>

namespace pto::bench {

/// Writes a trace of `slices` instruction slices to `path` with TraceWriter.
void writeSimShapedTrace(const std::filesystem::path& path, std::int64_t slices);

/// The trace of `slices` slices in the temp directory, written on first use and kept
/// (pto-bench-export-<slices>.db, shared by the benchmarks that read such a trace).
std::filesystem::path simShapedTrace(std::int64_t slices);

} // namespace pto::bench
