// The record levels of a compile's trace (driver/RecordLevel.h).
#include "driver/RecordLevel.h"

#include "compiler/StageRecorder.h"

namespace pto {

std::optional<RecordLevel> parseRecordLevel(std::string_view name) {
    if (name == "all") return RecordLevel::All;
    if (name == "levels") return RecordLevel::Levels;
    if (name == "none") return RecordLevel::None;
    return std::nullopt;
}

std::string_view recordLevelName(RecordLevel level) {
    switch (level) {
    case RecordLevel::All:
        return "all";
    case RecordLevel::Levels:
        return "levels";
    case RecordLevel::None:
        return "none";
    }
    return "all";
}

std::vector<PassTiming> compileRecorded(CompileState& state, const CompileOptions& options,
                                        tracedb::TraceWriter* trace, RecordLevel level,
                                        const PassManagerOptions& pmOptions,
                                        std::span<StageObserver* const> observers) {
    if (!trace || level == RecordLevel::All)
        return compileProgram(state, options, trace, pmOptions, observers);
    std::vector<PassTiming> timings;
    if (level == RecordLevel::Levels) {
        RecordLimits limits;
        limits.fullStageNodes = 0; // only the last stage of each level in full
        timings = compileProgram(state, options, trace, pmOptions, observers, limits);
    } else {
        recordProgramMeta(*trace, state, options); // the program, but no stage
        timings = compileProgram(state, options, nullptr, pmOptions, observers);
    }
    trace->setMeta("record_level", std::string(recordLevelName(level)));
    return timings;
}

} // namespace pto
