// Flows (flag set → wait, task → dependent task) with both ends placed on tracks and in time,
// for the arrows the timeline draws on demand.
#pragma once

#include <cstdint>
#include <vector>

namespace pto::tracedb {
class TraceReader;
}

namespace pto::gui {

struct TimelineFlow {
    std::int64_t id = 0;
    bool dependency = false; ///< kind 'dep' (task → task); otherwise 'flag'
    std::int64_t fromSlice = 0;
    std::int64_t fromTrack = 0;
    std::int64_t fromCycle = 0; ///< end of the source slice
    std::int64_t toSlice = 0;
    std::int64_t toTrack = 0;
    std::int64_t toCycle = 0; ///< start of the target slice
};

/// Flows that start or end at `sliceId`.
std::vector<TimelineFlow> flowsOfSlice(const tracedb::TraceReader& reader, std::int64_t sliceId);
/// Every flow with an end in [t0, t1), at most `limit`, by id.
std::vector<TimelineFlow> flowsIn(const tracedb::TraceReader& reader, std::int64_t t0,
                                  std::int64_t t1, std::int64_t limit = 20000);

} // namespace pto::gui
