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
    recordProgramMeta(*trace, state, options);
    std::vector<StageObserver*> all(observers.begin(), observers.end());
    std::optional<StageRecorder> recorder;
    if (level == RecordLevel::Levels) {
        RecordLimits limits;
        limits.fullStageNodes = 0; // only the last stage of each level in full
        recorder.emplace(*trace, options.target, limits);
        all.push_back(&*recorder);
    }
    auto timings = compileProgram(state, options, nullptr, pmOptions, all);
    trace->setMeta("record_level", std::string(recordLevelName(level)));
    return timings;
}

} // namespace pto
