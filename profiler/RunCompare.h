// Comparison of two runs (`pto compare`, `pto whatif`): run time, per Tensor op and per core
// deltas, and the ops whose bound class changed.
#pragma once

#include "profiler/Profile.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace pto::prof {

struct Delta {
    double a = 0, b = 0;
    double diff() const { return b - a; }
    double ratio() const { return a != 0 ? b / a : 0; } ///< b ÷ a
};

struct OpDelta {
    std::string op; ///< "add %c"
    std::int64_t line = 0;
    Delta span;   ///< first instruction start to last end, cycles
    Delta cycles; ///< instruction cycles over all pipes and cores
    std::string boundA, boundB;
    bool onlyInA = false, onlyInB = false;
    int indexA = -1, indexB = -1; ///< into RunModel::tensorOps of each run (-1: not in it)
};

struct CoreDelta {
    std::string core; ///< "AIV 3"
    Delta busy;       ///< cycles running tasks
    Delta tasks;
};

struct RunComparison {
    /// Both runs measured (`pto import`): times are ns from the first kernel start to the last
    /// end, the files hold no GM bytes and no Tensor ops, and the "cores" are stream tracks.
    bool measured = false;
    Delta totalCycles; ///< the run's time, in timeUnit()
    Delta timeUs;      ///< the run's time in µs, each at its own clock (runs may differ in it)
    bool sameClock = true;
    Delta tasks;
    Delta gmBytes;
    std::string boundA, boundB;
    std::vector<OpDelta> ops; ///< in program order of run A, then ops only in B
    /// Why `ops` is empty although both runs have ops: one of them has no op cycles
    /// (--trace tasks); empty otherwise.
    std::string opsNotRecorded;
    std::vector<CoreDelta> cores; ///< cores busy in either run
    std::string_view timeUnit() const { return measured ? "ns" : "cycles"; }
    /// Both runs have ops and none of B's matches one of A's (kind, name, line): two different
    /// programs, whose per-op table is all "gone" and "new".
    bool noOpInCommon() const;
    /// What the comparison says of noOpInCommon(), "" otherwise.
    std::string differentProgramsNote() const;
    /// A's time over B's in µs — not in cycles, which runs at different clocks do not share.
    double speedup() const { return timeUs.b > 0 ? timeUs.a / timeUs.b : 0.0; }
};

/// Ops are matched by (kind, name, source line) — the same program compiled twice gives the
/// same keys; cores by name. Both runs are simulated or both measured.
RunComparison compareRuns(const Profile& a, const Profile& b);

nlohmann::json comparisonJson(const RunComparison& c, const std::string& nameA,
                              const std::string& nameB);
std::string comparisonText(const RunComparison& c, const std::string& nameA,
                           const std::string& nameB);

} // namespace pto::prof
