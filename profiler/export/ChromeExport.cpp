// Chrome trace event JSON of a trace: metadata, flows, counters; slices via ChromeSlices.cpp.
#include "profiler/export/ChromeExport.h"

#include "profiler/RunClock.h"
#include "profiler/SqlRows.h"
#include "profiler/export/ChromeJson.h"
#include "profiler/export/ChromeSlices.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

namespace pto::prof {
namespace {

using namespace chrome;

// pid = the nearest core or chip ancestor (or the track itself); tid = the track.
Places placeTracks(const std::vector<tracedb::TrackRow>& tracks,
                   const std::unordered_map<std::int64_t, std::string>& names) {
    std::unordered_map<std::int64_t, const tracedb::TrackRow*> byId;
    for (const auto& t : tracks) byId[t.id] = &t;
    Places places;
    for (const auto& t : tracks) {
        const tracedb::TrackRow* p = &t;
        for (int guard = 0; guard < 64 && p->kind != tracedb::TrackKind::Core &&
                            p->kind != tracedb::TrackKind::Chip && p->parentId;
             ++guard) {
            auto it = byId.find(*p->parentId);
            if (it == byId.end()) break;
            p = it->second;
        }
        auto name = names.find(t.nameId);
        places[t.id] = {p->id, t.id, t.kind, name == names.end() ? "" : name->second};
    }
    return places;
}

void writeMetadata(JsonSink& sink, const std::vector<tracedb::TrackRow>& tracks,
                   const Places& places, ExportCounts& counts) {
    auto meta = [&](std::string_view what, std::int64_t pid, std::int64_t tid, auto value) {
        sink.next();
        auto& b = sink.buf();
        fmt::format_to(std::back_inserter(b),
                       R"({{"ph":"M","pid":{},"tid":{},"name":"{}","args":{{)", pid, tid, what);
        if constexpr (std::is_integral_v<decltype(value)>)
            fmt::format_to(std::back_inserter(b), R"("sort_index":{}}}}})", value);
        else {
            b.append(std::string_view(R"("name":)"));
            appendJsonString(b, value);
            b.append(std::string_view("}}"));
        }
        ++counts.metadata;
    };
    std::int64_t order = 0;
    for (const auto& t : tracks) {
        const TrackPlace& place = places.at(t.id);
        if (t.kind == tracedb::TrackKind::Counter) continue;
        if (place.pid == t.id) { // a process: the chip or a core
            meta("process_name", place.pid, 0, std::string_view(place.name));
            meta("process_sort_index", place.pid, 0, order++);
            meta("thread_name", place.pid, t.id,
                 std::string_view(t.kind == tracedb::TrackKind::Core ? "tasks" : place.name));
            meta("thread_sort_index", place.pid, t.id, std::int64_t(-1));
        } else {
            meta("thread_name", place.pid, t.id, std::string_view(place.name));
            meta("thread_sort_index", place.pid, t.id, t.sortIndex);
        }
    }
}

void writeFlows(const tracedb::TraceReader& reader, JsonSink& sink, const Places& places,
                const Clock& clock, const TimeWindow& window, ExportCounts& counts) {
    forEachRow(
        reader,
        "SELECT f.id, f.kind, so.ts, so.track_id, si.ts, si.track_id FROM flow f "
        "JOIN slice so ON so.id = f.slice_out JOIN slice si ON si.id = f.slice_in "
        "ORDER BY f.id",
        [&](auto row) {
            auto from = places.find(cellInt(row[3])), to = places.find(cellInt(row[5]));
            if (from == places.end() || to == places.end()) return;
            if (!window.contains(cellInt(row[2])) || !window.contains(cellInt(row[4]))) return;
            std::string kind = cellText(row[1]);
            for (int end = 0; end < 2; ++end) {
                const TrackPlace& p = end ? to->second : from->second;
                sink.next();
                auto& b = sink.buf();
                fmt::format_to(
                    std::back_inserter(b),
                    R"({{"ph":"{}","id":{},"pid":{},"tid":{},"name":"{}","cat":"{}","bp":"e","ts":)",
                    end ? "f" : "s", cellInt(row[0]), p.pid, p.tid, kind, kind);
                Clock::appendUs(b, clock.ns(cellInt(row[end ? 4 : 2])));
                b.push_back('}');
            }
            ++counts.flows;
        });
}

void writeCounters(const tracedb::TraceReader& reader, JsonSink& sink, const Places& places,
                   const Clock& clock, const TimeWindow& window, ExportCounts& counts) {
    forEachRow(reader, "SELECT track_id, ts, value FROM counter ORDER BY track_id, ts",
               [&](auto row) {
                   auto place = places.find(cellInt(row[0]));
                   if (place == places.end() || !window.contains(cellInt(row[1]))) return;
                   double v = cellReal(row[2]);
                   sink.next();
                   auto& b = sink.buf();
                   fmt::format_to(std::back_inserter(b), R"({{"ph":"C","pid":{},"tid":0,"name":)",
                                  place->second.pid);
                   appendJsonString(b, place->second.name);
                   b.append(std::string_view(R"(,"ts":)"));
                   Clock::appendUs(b, clock.ns(cellInt(row[1])));
                   fmt::format_to(std::back_inserter(b), R"(,"args":{{"value":{}}},"cycle":{}}})",
                                  std::isfinite(v) ? v : 0.0, cellInt(row[1]));
                   ++counts.counters;
               });
}

} // namespace

ExportCounts exportChromeJson(const tracedb::TraceReader& reader, std::FILE* out,
                              const ProgressFn& progress, const TimeWindow& window) {
    ExportCounts counts;
    const double hz = runClockHz(reader);
    Clock clock(hz);
    auto tracks = reader.tracks();
    auto names = reader.strings();
    Places places = placeTracks(tracks, names);
    JsonSink sink(out);
    sink.buf().append(std::string_view(R"({"displayTimeUnit":"ns","traceEvents":[)"));
    writeMetadata(sink, tracks, places, counts);
    writeSlices(reader, sink, places, names, clock, window, progress, counts);
    writeFlows(reader, sink, places, clock, window, counts);
    writeCounters(reader, sink, places, clock, window, counts);
    fmt::format_to(std::back_inserter(sink.buf()),
                   "\n],\"otherData\":{{\"clock_hz\":{},\"source\":", hz);
    appendJsonString(sink.buf(), reader.path().string());
    if (!window.whole())
        fmt::format_to(std::back_inserter(sink.buf()), ",\"window_cycles\":[{},{}]", window.from,
                       window.to);
    sink.buf().append(std::string_view("}}\n"));
    sink.flush();
    counts.bytes = sink.bytesWritten();
    if (progress) progress(1.0);
    return counts;
}

} // namespace pto::prof
