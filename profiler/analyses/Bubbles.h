// Bubbles per core: where the time a core did not spend running tasks went (waiting for the
// scheduler, for a predecessor task, after its last task), and the waits inside its tasks
// (flags, barriers, GM bandwidth) — PyPTO swimlane-style bubble analysis.
#pragma once

#include "profiler/RunModel.h"

#include <vector>

namespace pto::prof {

struct CoreBubbles {
    std::int64_t busy = 0;           ///< cycles running tasks
    std::int64_t scheduler = 0;      ///< idle with a task ready (dispatch cost, scheduling order)
    std::int64_t predecessor = 0;    ///< idle until a predecessor of its next task finished
    std::int64_t tail = 0;           ///< idle after its last task to the end of the run
    std::int64_t unused = 0;         ///< the whole run, for a core that ran no task
    std::int64_t flagWait = 0;       ///< pipe-cycles waiting on flags inside tasks
    std::int64_t barrierWait = 0;    ///< pipe-cycles waiting on barriers inside tasks
    std::int64_t bandwidthStall = 0; ///< pipe-cycles of GM transfers throttled by bandwidth
    int tasks = 0;
};

struct Bubbles {
    std::vector<CoreBubbles> cores; ///< parallel to RunModel::cores
    CoreBubbles total;              ///< summed over cores
};

Bubbles analyzeBubbles(const RunModel& model);
void appendMetrics(const Bubbles& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows);

} // namespace pto::prof
