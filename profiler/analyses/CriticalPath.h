// The critical path of the run through the exec graph: the chain of tasks (linked by a
// dependency or by waiting for the same core) that ends with the last task to finish.
#pragma once

#include "profiler/RunModel.h"

#include <string>
#include <vector>

namespace pto::prof {

enum class PathLink { Start, Dependency, Core };
std::string_view pathLinkName(PathLink link);

struct PathStep {
    std::int64_t task = 0;
    PathLink via = PathLink::Start; ///< what it waited for before it could start
    std::int64_t gap = 0;           ///< cycles from that event (or the run's start) to its start
};

struct CriticalPath {
    std::vector<PathStep> steps; ///< first task to last
    std::int64_t length = 0;     ///< end of the last task, from the run's start
    std::int64_t taskCycles = 0; ///< time the path's tasks ran
    std::int64_t gapCycles = 0;  ///< dispatch and scheduling gaps along it
    /// Per task (parallel to RunModel::tasks): how much later it could have started without
    /// delaying the end, ignoring core contention. 0 on the path.
    std::vector<std::int64_t> slack;
};

CriticalPath analyzeCriticalPath(const RunModel& model);
void appendMetrics(const CriticalPath& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows);

} // namespace pto::prof
