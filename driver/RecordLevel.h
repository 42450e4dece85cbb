// How much of a compile goes into the trace file (`--record` of pto compile and pto run):
// every pass's stage, the last stage of each level in full, only those, or none.
#pragma once

#include "compiler/Pipeline.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

namespace tracedb {
class TraceWriter;
}

/// all     every pass's stage (intermediate stages over 20 000 nodes as stage rows only): what
///         every pto-studio view can show, including the IR diff of each pass — the default;
/// levels  the first stage (parse) and the last stage of each level in full (Tensor, Tile,
///         Block, Exec, PTO), every other pass as its stage row only (name, time, counts, and
///         its text when small): provenance stays complete, the graph view offers those six
///         stages;
/// final   the parsed program and the last stage of the Tile, Block, Exec and PTO levels in
///         full, nothing of the other passes (no stage row, no text): the stages a run's
///         instructions lead back through, and nothing the views would list as not recorded
///         (with --stop-after, a level the compile did not finish has no stage);
/// none    no stage at all, only the program meta; `pto run` then records no simulated run
///         either (its slices would name instructions the file does not hold).
enum class RecordLevel { All, Levels, Final, None };

std::optional<RecordLevel> parseRecordLevel(std::string_view name);
std::string_view recordLevelName(RecordLevel level);
/// What --record accepts, for messages: "all, levels, final, none".
inline constexpr std::string_view kRecordLevelNames = "all, levels, final, none";

/// compileProgram with the stages recorded into `trace` (when not null) as `level` asks; with
/// `pending`, the recording is left running there (compileProgram).
std::vector<PassTiming> compileRecorded(CompileState& state, const CompileOptions& options,
                                        tracedb::TraceWriter* trace, RecordLevel level,
                                        const PassManagerOptions& pmOptions = {},
                                        std::span<StageObserver* const> observers = {},
                                        PendingRecording* pending = nullptr);

/// compileRecorded, and when that fails for lack of on-chip memory (NoFitError) in a program
/// that has default-tiled vector ops, the compile is tried untraced with the default tiles'
/// budgets halved, quartered and divided by 8 (TargetInfo::tileShrink); the first that compiles
/// is recorded again into a fresh `writer` (same path), and `state` and `options` then hold that
/// compile. A program that fits keeps its tiles: nothing that compiled before changes. Not with
/// observers or a stop point (they have seen the failed compile's stages); if no retry
/// compiles, the first error is thrown. `pending` as in compileRecorded.
std::vector<PassTiming> compileWithTileFallback(CompileState& state, CompileOptions& options,
                                                std::optional<tracedb::TraceWriter>& writer,
                                                RecordLevel level,
                                                const PassManagerOptions& pmOptions = {},
                                                std::span<StageObserver* const> observers = {},
                                                PendingRecording* pending = nullptr);

/// What pto compile and pto run print when compileWithTileFallback shrank the default tiles.
std::string tileShrinkNote(int tileShrink);

} // namespace pto
