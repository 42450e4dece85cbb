// Chrome trace event JSON of a trace file's timeline — opens in Perfetto and chrome://tracing.
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <cstdio>
#include <functional>

namespace pto::prof {

struct ExportCounts {
    std::int64_t slices = 0, flows = 0, counters = 0, metadata = 0;
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
ExportCounts exportChromeJson(const tracedb::TraceReader& reader, std::FILE* out,
                              const ProgressFn& progress = {});

} // namespace pto::prof
