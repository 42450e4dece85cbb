// The fixed part of a task's time: what it pays whatever its size — the GM latency of the
// transfers it waits for one after another before its first compute (fill) and after its last
// (drain). The rules use it to say what splitting or merging tasks really changes.
#pragma once

#include "profiler/RunModel.h"

namespace pto::prof {

struct TaskFixedCost {
    double fill = 0;  ///< latency of the loads it waits for before computing, cycles
    double drain = 0; ///< latency of the stores after its last compute, cycles
    double total() const { return fill + drain; }
};

/// fill = min(first compute − start, the latency its fill transfers showed — each one's duration
/// less its bytes at its path's rate, at most hbm.latency), drain likewise after the last
/// compute; a task that computes nothing pays its first load and last store at the GM latency
/// (at most its duration).
TaskFixedCost fixedCostOf(const TaskRun& t, const ArchPeaks& peaks);

/// The GM latency a task's transfers on `pipe` pay, summed: transfers × GM latency, at most the
/// pipe's busy time.
double transferLatencyOn(const TaskRun& t, PipeId pipe, const ArchPeaks& peaks);

} // namespace pto::prof
