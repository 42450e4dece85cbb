// The fixed part of a task's time, from its fill and drain transfers (analyses/FixedCost.h).
#include "profiler/analyses/FixedCost.h"

#include <algorithm>

namespace pto::prof {

TaskFixedCost fixedCostOf(const TaskRun& t, const ArchPeaks& peaks) {
    const double latency = peaks.gmLatencyCycles, duration = double(t.duration());
    TaskFixedCost c;
    if (t.computeStart < 0) {
        c.fill = std::min(duration, latency * double(std::min<std::int64_t>(t.gmTransfers, 2)));
        return c;
    }
    c.fill = std::min(double(t.computeStart - t.start), t.fillLatency);
    c.drain = std::min(double(t.end - t.computeEnd), t.drainLatency);
    c.fill = std::max(0.0, c.fill);
    c.drain = std::max(0.0, c.drain);
    return c;
}

double transferLatencyOn(const TaskRun& t, PipeId pipe, const ArchPeaks& peaks) {
    const std::size_t p = std::size_t(pipe);
    return std::min(double(t.busy[p]), peaks.gmLatencyCycles * double(t.gmTransfersOnPipe[p]));
}

} // namespace pto::prof
