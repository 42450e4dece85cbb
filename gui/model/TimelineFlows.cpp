// Reads flows with their ends' tracks and times.
#include "gui/model/TimelineFlows.h"

#include "trace_db/TraceReader.h"

#include <fmt/format.h>

#include <string>

namespace pto::gui {
namespace {

std::vector<TimelineFlow> readFlows(const tracedb::TraceReader& reader, const std::string& where) {
    std::vector<TimelineFlow> flows;
    reader.query("SELECT f.id, f.kind = 'dep', f.slice_out, o.track_id, o.ts + o.dur, "
                 "f.slice_in, i.track_id, i.ts FROM flow f JOIN slice o ON o.id = f.slice_out "
                 "JOIN slice i ON i.id = f.slice_in WHERE " +
                     where,
                 [&](auto, auto row) {
                     auto v = [&](int k) { return std::get<std::int64_t>(row[std::size_t(k)]); };
                     flows.push_back({v(0), v(1) != 0, v(2), v(3), v(4), v(5), v(6), v(7)});
                     return true;
                 });
    return flows;
}

} // namespace

std::vector<TimelineFlow> flowsOfSlice(const tracedb::TraceReader& reader, std::int64_t sliceId) {
    return readFlows(reader,
                     fmt::format("f.slice_out = {0} OR f.slice_in = {0} ORDER BY f.id", sliceId));
}

std::vector<TimelineFlow> flowsIn(const tracedb::TraceReader& reader, std::int64_t t0,
                                  std::int64_t t1, std::int64_t limit) {
    return readFlows(reader, fmt::format("((o.ts + o.dur >= {0} AND o.ts + o.dur < {1}) OR "
                                         "(i.ts >= {0} AND i.ts < {1})) ORDER BY f.id LIMIT {2}",
                                         t0, t1, limit));
}

} // namespace pto::gui
