// What a simulation run does besides timing: functional execution, how much trace it writes,
// the uninitialised-read and overlapping-buffer checks and the safety bound on simulated time.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pto::sim {

/// How much of the run goes into the trace (each level includes the ones before).
enum class TraceLevel : unsigned char {
    None,         ///< nothing
    Tasks,        ///< one slice per task on its core's task track, task dependency flows
    Instructions, ///< + one slice per instruction on its (core, pipe) track
    Full,         ///< + flag waits, barrier waits, bandwidth and dispatch stalls, flag flows,
                  ///<   HBM/L2 bandwidth and L2 hit-rate counters
};

/// "none", "tasks", "instructions", "full".
std::string_view traceLevelName(TraceLevel level);
std::optional<TraceLevel> parseTraceLevel(std::string_view name);

struct SimOptions {
    /// Skip the numerics (no GM image, no outputs): timing only, for big shapes.
    bool timingOnly = false;
    TraceLevel traceLevel = TraceLevel::Instructions;
    /// Fault on reading on-chip bytes no instruction wrote (functional mode only).
    bool checkUninitialized = false;
    /// Fault (OverlapFault) when two pipes of a core touch the same on-chip bytes at
    /// overlapping times, one writing: a hazard the flags did not order. Timing-only too.
    bool checkHazards = true;
    /// Safety bound: a run still going at this cycle stops with SimLimitExceeded.
    int64_t maxCycles = int64_t(1) << 42;
    /// The .pto file the program came from, for fault messages ("" = unknown).
    std::string sourceFile;
};

/// The run passed SimOptions::maxCycles (a safety bound, not a fault of the program).
class SimLimitExceeded : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace pto::sim
