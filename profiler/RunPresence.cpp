// Refusing a trace that holds no run (see RunPresence.h).
#include "profiler/RunPresence.h"

#include "profiler/MeasuredRun.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::prof {

void failNoRun(const tracedb::TraceReader& reader) {
    const std::string path = reader.path().string();
    if (isMeasuredTrace(reader)) // pto import of step times alone (step_trace_time.csv)
        throw tracedb::TraceError(
            fmt::format("'{}' is a measured trace with no device kernels (imported from step times "
                        "only: pto query '{}' \"SELECT * FROM metric\" shows them); import the "
                        "profiler's folder or kernel_details.csv for kernels",
                        path, path));
    if (reader.meta("sim_total_cycles"))
        throw tracedb::TraceError(
            fmt::format("'{}' holds no simulated tasks (recorded with --trace none: only its total "
                        "cycles, in pto info); run it again with --trace tasks or more",
                        path));
    throw tracedb::TraceError(fmt::format(
        "'{}' holds no simulated run (no core tracks): run it with `pto run` first", path));
}

void requireRun(const tracedb::TraceReader& reader) {
    const auto tracks = reader.tracks();
    if (std::none_of(tracks.begin(), tracks.end(),
                     [](const tracedb::TrackRow& t) { return t.kind == tracedb::TrackKind::Core; }))
        failNoRun(reader);
}

} // namespace pto::prof
