// Chrome trace event JSON of a trace file's timeline — opens in Perfetto and chrome://tracing.
#pragma once

#include "trace_db/TraceReader.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>

namespace pto::prof {

/// The part of a run an export keeps, in the trace's cycles: slices that overlap [from, to)
/// (an instant: at a time inside it), flows whose two ends both start inside it, counter
/// samples inside it. The whole run by default.
struct TimeWindow {
    std::int64_t from = std::numeric_limits<std::int64_t>::min();
    std::int64_t to = std::numeric_limits<std::int64_t>::max();
    bool whole() const {
        return from == std::numeric_limits<std::int64_t>::min() &&
               to == std::numeric_limits<std::int64_t>::max();
    }
    bool contains(std::int64_t ts) const { return ts >= from && ts < to; }
    bool overlaps(std::int64_t ts, std::int64_t dur) const {
        return ts < to && (ts >= from || ts + std::max<std::int64_t>(dur, 0) > from);
    }
};

struct ExportCounts {
    std::int64_t slices = 0, flows = 0, counters = 0, metadata = 0;
    std::int64_t bytes = 0; ///< of JSON written
    /// Slices that start before the previous slice of their track in the file's order.
    std::int64_t outOfOrder = 0;
};

/// Called now and then with the share of the work done, in [0, 1].
using ProgressFn = std::function<void(double)>;

/// Writes {"traceEvents":[…],"displayTimeUnit":"ns","otherData":{…}}: cores (and the chip) as
/// processes, their pipe and task lanes as threads, named and ordered by metadata events
/// (process_name, process_sort_index, thread_name, thread_sort_index); one "X" event per slice
/// ("i" for instants) with ts/dur in µs and the cycles in args; flows as "s"/"f" pairs bound
/// to their slices ("bp":"e"); counter samples as "C" events. Slices are written in the
/// file's insertion order, which is time order per track for simulator traces (see
/// ExportCounts::outOfOrder; viewers sort X events themselves). Throws TraceError on a read error,
/// std::runtime_error on a write error.
/// `window`: the part of the run written (otherData.window_cycles names it when not whole).
ExportCounts exportChromeJson(const tracedb::TraceReader& reader, std::FILE* out,
                              const ProgressFn& progress = {}, const TimeWindow& window = {});

} // namespace pto::prof
