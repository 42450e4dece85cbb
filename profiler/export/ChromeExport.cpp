// Streams slices, flows and counters of a trace as Chrome trace event JSON.
#include "profiler/export/ChromeExport.h"

#include "profiler/SqlRows.h"
#include "trace_db/Sqlite.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace pto::prof {
namespace {

// Appends `s` as a JSON string (quotes included).
void appendJsonString(fmt::memory_buffer& out, std::string_view s) {
    out.push_back('"');
    for (char c : s) {
        switch (c) {
        case '"':
            out.append(std::string_view("\\\""));
            break;
        case '\\':
            out.append(std::string_view("\\\\"));
            break;
        case '\n':
            out.append(std::string_view("\\n"));
            break;
        case '\t':
            out.append(std::string_view("\\t"));
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                fmt::format_to(std::back_inserter(out), "\\u{:04x}", int(c));
            else
                out.push_back(c);
        }
    }
    out.push_back('"');
}

// Buffered writer that flushes to the file every megabyte.
class JsonSink {
public:
    explicit JsonSink(std::FILE* file) : m_file(file) {}
    fmt::memory_buffer& buf() { return m_buf; }
    // Starts a new element of the traceEvents array.
    void next() {
        if (m_count++) m_buf.push_back(',');
        m_buf.push_back('\n');
        if (m_buf.size() > (1u << 20)) flush();
    }
    void flush() {
        write(m_buf.data(), m_buf.size());
        m_buf.clear();
    }
    // Writes bytes straight to the file (after flush()); `elements` array elements among them.
    void writeRaw(const char* data, std::size_t size, std::int64_t elements) {
        write(data, size);
        m_count += elements;
    }
    bool empty() const { return m_count == 0; }

private:
    void write(const char* data, std::size_t size) {
        if (size && std::fwrite(data, 1, size, m_file) != size)
            throw std::runtime_error("cannot write the Chrome trace (disk full?)");
    }

    std::FILE* m_file;
    fmt::memory_buffer m_buf;
    std::int64_t m_count = 0;
};

// Cycle → microseconds, written with nanosecond resolution from integer arithmetic; the same
// rounding for every timestamp, so ts stays monotonic and adjacent slices never overlap.
class Clock {
public:
    explicit Clock(double hz) : m_nsPerCycle(1e9 / hz) {}
    std::int64_t ns(std::int64_t cycles) const {
        double v = double(cycles) * m_nsPerCycle;
        return std::int64_t(v >= 0 ? v + 0.5 : v - 0.5);
    }
    static void appendUs(fmt::memory_buffer& out, std::int64_t ns) {
        if (ns < 0) out.push_back('-'), ns = -ns;
        fmt::format_to(std::back_inserter(out), "{}.{:03}", ns / 1000, ns % 1000);
    }

private:
    double m_nsPerCycle;
};

struct TrackPlace {
    std::int64_t pid = 0, tid = 0;
    tracedb::TrackKind kind = tracedb::TrackKind::Pipe;
    std::string name;
};

using Places = std::unordered_map<std::int64_t, TrackPlace>;

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

std::unordered_map<std::int64_t, std::string> loadArgs(const tracedb::TraceReader& reader) {
    std::unordered_map<std::int64_t, std::string> args;
    forEachRow(reader, "SELECT arg_set_id, key, int_value, string_value, real_value FROM args",
               [&](auto row) {
                   fmt::memory_buffer b;
                   b.push_back(',');
                   appendJsonString(b, cellText(row[1]));
                   b.push_back(':');
                   if (!cellNull(row[2]))
                       fmt::format_to(std::back_inserter(b), "{}", cellInt(row[2]));
                   else if (!cellNull(row[4]) && std::isfinite(cellReal(row[4])))
                       fmt::format_to(std::back_inserter(b), "{}", cellReal(row[4]));
                   else
                       appendJsonString(b, cellText(row[3]));
                   args[cellInt(row[0])].append(b.data(), b.size());
               });
    return args;
}

// Per-id lookup tables (ids are dense from 1): JSON-escaped names, "pid":P,"tid":T fragments.
std::vector<std::string> denseTable(const std::unordered_map<std::int64_t, std::string>& map) {
    std::int64_t maxId = 0;
    for (const auto& [id, text] : map) maxId = std::max(maxId, id);
    std::vector<std::string> table(std::size_t(std::min<std::int64_t>(maxId, 1 << 26) + 1));
    for (const auto& [id, text] : map)
        if (id >= 0 && std::size_t(id) < table.size()) table[std::size_t(id)] = text;
    return table;
}

// A growing output buffer written through a cursor: the slice loop's formatting without
// per-append capacity checks (one reserve per row).
class RawBuffer {
public:
    void reserve(std::size_t bytes) {
        std::size_t used = size();
        if (used + bytes <= m_cap) return;
        std::size_t cap = std::max(m_cap * 2, used + bytes);
        std::unique_ptr<char[]> grown(new char[cap]); // not zero-filled
        if (used) std::memcpy(grown.get(), m_data.get(), used);
        m_data = std::move(grown);
        m_cap = cap;
        m_at = m_data.get() + used;
    }
    void clear() { m_at = m_data.get(); }
    std::size_t size() const { return std::size_t(m_at - m_data.get()); }
    const char* data() const { return m_data.get(); }
    template <std::size_t N> void put(const char (&literal)[N]) {
        std::memcpy(m_at, literal, N - 1);
        m_at += N - 1;
    }
    void put(std::string_view s) {
        std::memcpy(m_at, s.data(), s.size());
        m_at += s.size();
    }
    void putInt(std::int64_t v) { m_at = std::to_chars(m_at, m_at + 24, v).ptr; }
    // Nanoseconds as microseconds with three decimals.
    void putUs(std::int64_t ns) {
        if (ns < 0) *m_at++ = '-', ns = -ns;
        putInt(ns / 1000);
        m_at[0] = '.';
        m_at[1] = char('0' + ns / 100 % 10);
        m_at[2] = char('0' + ns / 10 % 10);
        m_at[3] = char('0' + ns % 10);
        m_at += 4;
    }

private:
    std::unique_ptr<char[]> m_data;
    std::size_t m_cap = 0;
    char* m_at = nullptr;
};

// What the slice loop needs, shared read-only by the worker threads.
struct SliceTables {
    std::vector<std::string> nameOf; // name id → JSON string
    std::vector<std::string> laneOf; // track id → "pid":P,"tid":T,"ts":
    std::unordered_map<std::int64_t, std::string> args;
    std::size_t rowBytes = 512;
    Clock clock{1e9};
};

// One range of slice ids formatted as ",\n{…}" per slice, with each track's first and last ts
// so the writer can count slices that go back in time across chunks.
struct Chunk {
    std::int64_t lo = 0, hi = 0; // ids in [lo, hi)
    RawBuffer out;
    std::int64_t rows = 0, outOfOrder = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> span; // per track: first, last ts
    std::string error;
    bool done = false;
};

class ChunkFormatter {
public:
    ChunkFormatter(const std::filesystem::path& path, const SliceTables& t)
        : m_db(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, path.string()), m_t(t) {
        m_db.exec("PRAGMA mmap_size = 17179869184");
        // Without args rows the arg_set_id column is not read at all.
        const char* sql = t.args.empty()
                              ? "SELECT id, ts, dur, track_id, name_id, category, instr_id, "
                                "task_id FROM slice WHERE id >= ?1 AND id < ?2"
                              : "SELECT id, ts, dur, track_id, name_id, category, instr_id, "
                                "task_id, arg_set_id FROM slice WHERE id >= ?1 AND id < ?2";
        sqlite3_stmt* raw = nullptr;
        if (int rc = sqlite3_prepare_v2(m_db.handle(), sql, -1, &raw, nullptr); rc != SQLITE_OK)
            m_db.fail(rc, "preparing the slice export");
        m_stmt.reset(raw);
    }

    void format(Chunk& c) {
        sqlite3_stmt* s = m_stmt.get();
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, c.lo);
        sqlite3_bind_int64(s, 2, c.hi);
        constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
        c.span.assign(m_t.laneOf.size(), {kNone, kNone});
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            std::int64_t track = sqlite3_column_int64(s, 3);
            if (track <= 0 || std::size_t(track) >= m_t.laneOf.size() ||
                m_t.laneOf[std::size_t(track)].empty())
                continue;
            std::int64_t ts = sqlite3_column_int64(s, 1), dur = sqlite3_column_int64(s, 2);
            auto& span = c.span[std::size_t(track)];
            if (span.first == kNone) span.first = ts;
            if (span.second != kNone && ts < span.second) ++c.outOfOrder;
            span.second = ts;
            formatRow(c.out, s, track, ts, dur);
            ++c.rows;
        }
        if (rc != SQLITE_DONE) m_db.fail(rc, "reading slices");
    }

private:
    void formatRow(RawBuffer& out, sqlite3_stmt* s, std::int64_t track, std::int64_t ts,
                   std::int64_t dur) {
        std::int64_t t0 = m_t.clock.ns(ts);
        out.reserve(m_t.rowBytes);
        out.put(dur > 0 ? std::string_view(",\n{\"ph\":\"X\",")
                        : std::string_view(",\n{\"ph\":\"i\",\"s\":\"t\","));
        out.put(m_t.laneOf[std::size_t(track)]);
        out.putUs(t0);
        if (dur > 0) {
            out.put(",\"dur\":");
            out.putUs(m_t.clock.ns(ts + dur) - t0);
        }
        out.put(",\"name\":");
        std::int64_t name = sqlite3_column_int64(s, 4);
        if (name > 0 && std::size_t(name) < m_t.nameOf.size() &&
            !m_t.nameOf[std::size_t(name)].empty())
            out.put(m_t.nameOf[std::size_t(name)]);
        else
            out.put("\"\"");
        out.put(",\"cat\":\"");
        if (auto* cat = reinterpret_cast<const char*>(sqlite3_column_text(s, 5)))
            out.put(std::string_view(
                cat, std::min<std::size_t>(16, std::size_t(sqlite3_column_bytes(s, 5)))));
        out.put("\",\"args\":{\"slice_id\":");
        out.putInt(sqlite3_column_int64(s, 0));
        out.put(",\"cycle\":");
        out.putInt(ts);
        out.put(",\"dur_cycles\":");
        out.putInt(dur);
        // NULL reads as 0: ask for the type only then.
        if (std::int64_t instr = sqlite3_column_int64(s, 6);
            instr || sqlite3_column_type(s, 6) != SQLITE_NULL) {
            out.put(",\"instr_id\":");
            out.putInt(instr);
        }
        if (std::int64_t task = sqlite3_column_int64(s, 7);
            task || sqlite3_column_type(s, 7) != SQLITE_NULL) {
            out.put(",\"task_id\":");
            out.putInt(task);
        }
        if (!m_t.args.empty() && sqlite3_column_type(s, 8) != SQLITE_NULL)
            if (auto a = m_t.args.find(sqlite3_column_int64(s, 8)); a != m_t.args.end())
                out.put(a->second);
        out.put("}}");
    }

    tracedb::SqliteDb m_db;
    const SliceTables& m_t;
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> m_stmt{nullptr, sqlite3_finalize};
};

SliceTables sliceTables(const tracedb::TraceReader& reader, const Places& places,
                        const std::unordered_map<std::int64_t, std::string>& names,
                        const Clock& clock) {
    SliceTables t;
    t.clock = clock;
    t.args = loadArgs(reader);
    std::unordered_map<std::int64_t, std::string> escapedNames, lanes;
    std::size_t longest = 0, longestArgs = 0;
    for (const auto& [id, text] : names) {
        fmt::memory_buffer b;
        appendJsonString(b, text);
        escapedNames[id] = fmt::to_string(b);
        longest = std::max(longest, b.size());
    }
    for (const auto& [id, place] : places)
        lanes[id] = fmt::format(R"("pid":{},"tid":{},"ts":)", place.pid, place.tid);
    for (const auto& [id, text] : t.args) longestArgs = std::max(longestArgs, text.size());
    t.nameOf = denseTable(escapedNames);
    t.laneOf = denseTable(lanes);
    t.rowBytes = 512 + longest + longestArgs;
    return t;
}

// The hot loop: slices straight from SQLite's C API, in the file's insertion order (a
// sequential scan; ordering by the (track_id, ts) index instead costs a table seek per row,
// 3× the whole export). Ranges of slice ids are formatted by worker threads, each with its
// own read-only connection, and written in order by this thread; at most 2 chunks per worker
// are in memory. The simulator inserts each track's slices in time order; slices that go back
// in time on their track are counted (viewers sort X events themselves).
void writeSlices(const tracedb::TraceReader& reader, JsonSink& sink, const Places& places,
                 const std::unordered_map<std::int64_t, std::string>& names, const Clock& clock,
                 const ProgressFn& progress, ExportCounts& counts) {
    std::int64_t lo = 0, hi = -1;
    forEachRow(reader, "SELECT min(id), max(id) FROM slice", [&](auto row) {
        lo = cellInt(row[0]);
        hi = cellInt(row[1], -1);
    });
    if (hi < lo) return;
    const SliceTables tables = sliceTables(reader, places, names, clock);
    constexpr std::int64_t kChunkIds = 1 << 16;
    std::size_t chunks = std::size_t((hi - lo) / kChunkIds + 1);
    unsigned workers = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
    std::size_t window = 2 * workers;
    std::vector<std::unique_ptr<Chunk>> pending(chunks), spare; // spare: buffers to reuse
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t nextToFormat = 0, written = 0;
    auto work = [&] {
        std::optional<ChunkFormatter> formatter;
        for (;;) {
            std::size_t index;
            Chunk* chunk;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] {
                    return nextToFormat >= chunks || nextToFormat < written + window;
                });
                if (nextToFormat >= chunks) return;
                index = nextToFormat++;
                if (spare.empty()) {
                    pending[index] = std::make_unique<Chunk>();
                } else {
                    pending[index] = std::move(spare.back());
                    spare.pop_back();
                }
                chunk = pending[index].get();
            }
            chunk->lo = lo + std::int64_t(index) * kChunkIds;
            chunk->hi = chunk->lo + kChunkIds;
            try {
                if (!formatter) formatter.emplace(reader.path(), tables);
                formatter->format(*chunk);
            } catch (const std::exception& e) {
                chunk->error = e.what();
            }
            {
                std::lock_guard lock(mutex);
                chunk->done = true;
            }
            changed.notify_all();
        }
    };
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < workers; ++i) threads.emplace_back(work);
    constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
    std::vector<std::int64_t> lastTs(tables.laneOf.size(), kNone);
    sink.flush();
    std::string error;
    for (std::size_t i = 0; i < chunks; ++i) {
        std::unique_ptr<Chunk> chunk;
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return pending[i] && pending[i]->done; });
            chunk = std::move(pending[i]);
        }
        if (error.empty() && !chunk->error.empty()) error = chunk->error;
        if (error.empty()) {
            const char* data = chunk->out.data();
            std::size_t size = chunk->out.size();
            if (size && sink.empty()) ++data, --size; // no comma before the first element
            try {
                sink.writeRaw(data, size, chunk->rows);
            } catch (const std::exception& e) {
                error = e.what();
            }
            counts.slices += chunk->rows;
            counts.outOfOrder += chunk->outOfOrder;
            for (std::size_t t = 0; t < lastTs.size(); ++t) {
                auto [first, last] = chunk->span[t];
                if (first == kNone) continue;
                if (lastTs[t] != kNone && first < lastTs[t]) ++counts.outOfOrder;
                lastTs[t] = last;
            }
        }
        {
            std::lock_guard lock(mutex);
            written = i + 1;
            chunk->out.clear();
            chunk->rows = chunk->outOfOrder = 0;
            chunk->done = false;
            chunk->error.clear();
            spare.push_back(std::move(chunk));
        }
        changed.notify_all();
        if (progress) progress(0.95 * double(i + 1) / double(chunks));
    }
    for (auto& t : threads) t.join();
    if (!error.empty()) throw std::runtime_error(error);
}

void writeFlows(const tracedb::TraceReader& reader, JsonSink& sink, const Places& places,
                const Clock& clock, ExportCounts& counts) {
    forEachRow(
        reader,
        "SELECT f.id, f.kind, so.ts, so.track_id, si.ts, si.track_id FROM flow f "
        "JOIN slice so ON so.id = f.slice_out JOIN slice si ON si.id = f.slice_in "
        "ORDER BY f.id",
        [&](auto row) {
            auto from = places.find(cellInt(row[3])), to = places.find(cellInt(row[5]));
            if (from == places.end() || to == places.end()) return;
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
                   const Clock& clock, ExportCounts& counts) {
    forEachRow(reader, "SELECT track_id, ts, value FROM counter ORDER BY track_id, ts",
               [&](auto row) {
                   auto place = places.find(cellInt(row[0]));
                   if (place == places.end()) return;
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
                              const ProgressFn& progress) {
    ExportCounts counts;
    double hz = std::atof(reader.meta("clock_hz").value_or("0").c_str());
    Clock clock(hz > 0 ? hz : 1e9);
    auto tracks = reader.tracks();
    auto names = reader.strings();
    Places places = placeTracks(tracks, names);
    JsonSink sink(out);
    sink.buf().append(std::string_view(R"({"displayTimeUnit":"ns","traceEvents":[)"));
    writeMetadata(sink, tracks, places, counts);
    writeSlices(reader, sink, places, names, clock, progress, counts);
    writeFlows(reader, sink, places, clock, counts);
    writeCounters(reader, sink, places, clock, counts);
    fmt::format_to(std::back_inserter(sink.buf()),
                   "\n],\"otherData\":{{\"clock_hz\":{},\"source\":", hz > 0 ? hz : 1e9);
    appendJsonString(sink.buf(), reader.path().string());
    sink.buf().append(std::string_view("}}\n"));
    sink.flush();
    if (progress) progress(1.0);
    return counts;
}

} // namespace pto::prof
