// Formatting and gain helpers shared by the rule files (internal to profiler/rules).
#pragma once

#include "profiler/Profile.h"
#include "profiler/rules/Finding.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace pto::prof {

inline std::string percent(double ratio) {
    return fmt::format("{:.0f}%", ratio * 100);
}

/// A time of the run in its unit (cycles, or ns for a measured trace) and in microseconds.
inline std::string cyclesText(const Profile& p, double cycles) {
    return fmt::format("{:.0f} {} ({:.2f} us)", cycles, p.model.timeUnit(),
                       cycles * 1e6 / p.model.peaks.clockHz);
}

/// A sum of busy or wait time over pipes, tasks or cores: "2296711 pipe-cycles". Never in µs —
/// it is lane time, not wall-clock time, and can be many times the run.
inline std::string pipeCyclesText(const Profile& p, double pipeCycles) {
    return fmt::format("{:.0f} pipe-{}", pipeCycles, p.model.timeUnit());
}

/// Fills the gain fields and the severity from an expected gain and its range.
inline void setGain(const Profile& p, Finding& f, double expected, double low, double high) {
    double total = double(std::max<std::int64_t>(p.model.totalCycles, 1));
    f.gainCycles = std::clamp(expected, 0.0, total);
    f.gainLow = std::clamp(low, 0.0, f.gainCycles);
    f.gainHigh = std::clamp(high, f.gainCycles, total);
    f.gainFraction = f.gainCycles / total;
    f.severity = severityForGain(f.gainFraction);
}

} // namespace pto::prof
