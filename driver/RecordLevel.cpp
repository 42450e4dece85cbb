// The record levels of a compile's trace (driver/RecordLevel.h).
#include "driver/RecordLevel.h"

#include "compiler/StageRecorder.h"
#include "compiler/passes/DefaultVecTiles.h"
#include "trace_db/TraceWriter.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

namespace pto {

std::optional<RecordLevel> parseRecordLevel(std::string_view name) {
    if (name == "all") return RecordLevel::All;
    if (name == "levels") return RecordLevel::Levels;
    if (name == "final") return RecordLevel::Final;
    if (name == "none") return RecordLevel::None;
    return std::nullopt;
}

std::string_view recordLevelName(RecordLevel level) {
    switch (level) {
    case RecordLevel::All:
        return "all";
    case RecordLevel::Levels:
        return "levels";
    case RecordLevel::Final:
        return "final";
    case RecordLevel::None:
        return "none";
    }
    return "all";
}

std::vector<PassTiming> compileRecorded(CompileState& state, const CompileOptions& options,
                                        tracedb::TraceWriter* trace, RecordLevel level,
                                        const PassManagerOptions& pmOptions,
                                        std::span<StageObserver* const> observers,
                                        PendingRecording* pending) {
    if (!trace || level == RecordLevel::All)
        return compileProgram(state, options, trace, pmOptions, observers, {}, pending);
    // Before the compile: a recording left pending owns the writer when it returns.
    trace->setMeta("record_level", std::string(recordLevelName(level)));
    if (level == RecordLevel::Levels || level == RecordLevel::Final) {
        RecordLimits limits;
        limits.fullStageNodes = 0; // only the last stage of each level in full
        limits.finalStagesOnly = level == RecordLevel::Final;
        return compileProgram(state, options, trace, pmOptions, observers, limits, pending);
    }
    recordProgramMeta(*trace, state, options); // the program, but no stage
    return compileProgram(state, options, nullptr, pmOptions, observers);
}

namespace {

bool hasDefaultVecTiles(const CompileState& state, const TargetInfo& target) {
    const auto tiles = planDefaultVecTiles(state.tensor, target);
    return std::any_of(tiles.begin(), tiles.end(), [](const auto& t) { return t.has_value(); });
}

} // namespace

std::vector<PassTiming> compileWithTileFallback(CompileState& state, CompileOptions& options,
                                                std::optional<tracedb::TraceWriter>& writer,
                                                RecordLevel level,
                                                const PassManagerOptions& pmOptions,
                                                std::span<StageObserver* const> observers,
                                                PendingRecording* pending) {
    const CompileState initial = state;
    try {
        return compileRecorded(state, options, writer ? &*writer : nullptr, level, pmOptions,
                               observers, pending);
    } catch (const NoFitError&) {
        if (!observers.empty() || !pmOptions.stopAfter.empty() || options.target.tileShrink != 0 ||
            !hasDefaultVecTiles(state, options.target))
            throw;
        const std::exception_ptr first = std::current_exception();
        for (int shrink = 1; shrink <= 3; ++shrink) {
            CompileOptions smaller = options;
            smaller.target.tileShrink = shrink;
            CompileState trial = initial;
            try {
                compileProgram(trial, smaller);
            } catch (const NoFitError&) {
                continue;
            }
            if (writer) { // the failed compile's stages are in it
                const std::filesystem::path path = writer->path();
                writer.reset();
                writer.emplace(tracedb::TraceWriter::create(path));
            }
            state = initial;
            options = smaller;
            return compileRecorded(state, options, writer ? &*writer : nullptr, level, pmOptions,
                                   observers, pending);
        }
        std::rethrow_exception(first);
    }
}

std::string tileShrinkNote(int tileShrink) {
    return fmt::format("the default vec tiles did not fit on chip; compiled with their budgets "
                       "divided by {}",
                       1 << tileShrink);
}

} // namespace pto
