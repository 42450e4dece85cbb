// Chrome export slice events: chunks formatted on worker threads, written in order.
// Rows come straight from the slice b-tree (SqliteBtree.h), or through SQL as a fallback.
#include "profiler/export/ChromeSlices.h"

#include "profiler/SqlRows.h"
#include "profiler/export/SliceFormat.h"
#include "profiler/export/SqliteBtree.h"
#include "trace_db/Sqlite.h"
#include "trace_db/TraceFile.h"

#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace pto::prof::chrome {
namespace {

constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();

// One range of work units (b-tree leaves, or slice ids for SQL) formatted as ",\n{…}" per
// slice, with each track's first and last ts so the writer can count slices that go back in
// time across chunks.
struct Chunk {
    std::int64_t lo = 0, hi = 0; // units in [lo, hi)
    RawBuffer out;
    std::int64_t rows = 0, outOfOrder = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> span; // per track: first, last ts
    std::exception_ptr error;                                // what formatting threw
    bool done = false;
};

void addRow(Chunk& c, const SliceTables& t, const SliceRecord& s) {
    if (!t.exported(s.track) || !t.window.overlaps(s.ts, s.dur)) return;
    auto& span = c.span[std::size_t(s.track)];
    if (span.first == kNone) span.first = s.ts;
    if (span.second != kNone && s.ts < span.second) ++c.outOfOrder;
    span.second = s.ts;
    formatSlice(c.out, t, s);
    ++c.rows;
}

// Columns of the slice table as trace_db's schema.sql declares them, in order.
const std::vector<std::string> kSliceColumns = {"id",      "ts",        "dur",   "track_id",
                                                "name_id", "category",  "depth", "instr_id",
                                                "task_id", "arg_set_id"};

// Leaves [lo, hi) of the slice b-tree (the fast path).
class BtreeChunkReader {
public:
    BtreeChunkReader(const BtreeTable& table, const SliceTables& t) : m_table(table), m_t(t) {}
    void format(Chunk& c) {
        SliceRecord s;
        m_table.scan(std::size_t(c.lo), std::size_t(c.hi), m_scratch,
                     [&](std::int64_t rowid, const BtreeRecord& r) {
                         s.id = r.isNull(0) ? rowid : r.integer(0);
                         s.ts = r.integer(1);
                         s.dur = r.integer(2);
                         s.track = r.integer(3);
                         s.name = r.integer(4);
                         s.category = r.text(5);
                         s.hasInstr = !r.isNull(7);
                         s.instr = r.integer(7);
                         s.hasTask = !r.isNull(8);
                         s.task = r.integer(8);
                         s.hasArgSet = !r.isNull(9);
                         s.argSet = r.integer(9);
                         addRow(c, m_t, s);
                     });
    }

private:
    const BtreeTable& m_table;
    const SliceTables& m_t;
    std::vector<unsigned char> m_scratch;
};

// Slice ids [lo, hi) through SQL, on its own connection (files the b-tree reader declines).
class SqlChunkReader {
public:
    SqlChunkReader(const std::filesystem::path& path, const SliceTables& t)
        : m_db(tracedb::readOnlyUri(path),
               SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, path.string()),
          m_t(t) {
        const char* sql = "SELECT id, ts, dur, track_id, name_id, category, instr_id, task_id, "
                          "arg_set_id FROM slice WHERE id >= ?1 AND id < ?2";
        if (int rc = sqlite3_prepare_v2(m_db.handle(), sql, -1, &m_stmt, nullptr); rc != SQLITE_OK)
            m_db.fail(rc, "preparing the slice export");
    }
    ~SqlChunkReader() { sqlite3_finalize(m_stmt); }
    SqlChunkReader(const SqlChunkReader&) = delete;
    SqlChunkReader& operator=(const SqlChunkReader&) = delete;

    void format(Chunk& c) {
        sqlite3_reset(m_stmt);
        sqlite3_bind_int64(m_stmt, 1, c.lo);
        sqlite3_bind_int64(m_stmt, 2, c.hi);
        SliceRecord s;
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(m_stmt)) == SQLITE_ROW) {
            s.id = sqlite3_column_int64(m_stmt, 0);
            s.ts = sqlite3_column_int64(m_stmt, 1);
            s.dur = sqlite3_column_int64(m_stmt, 2);
            s.track = sqlite3_column_int64(m_stmt, 3);
            s.name = sqlite3_column_int64(m_stmt, 4);
            auto* cat = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, 5));
            s.category = cat ? std::string_view(cat, std::size_t(sqlite3_column_bytes(m_stmt, 5)))
                             : std::string_view();
            s.hasInstr = sqlite3_column_type(m_stmt, 6) != SQLITE_NULL;
            s.instr = sqlite3_column_int64(m_stmt, 6);
            s.hasTask = sqlite3_column_type(m_stmt, 7) != SQLITE_NULL;
            s.task = sqlite3_column_int64(m_stmt, 7);
            s.hasArgSet = sqlite3_column_type(m_stmt, 8) != SQLITE_NULL;
            s.argSet = sqlite3_column_int64(m_stmt, 8);
            addRow(c, m_t, s);
        }
        if (rc != SQLITE_DONE) m_db.fail(rc, "reading slices");
    }

private:
    tracedb::SqliteDb m_db;
    const SliceTables& m_t;
    sqlite3_stmt* m_stmt = nullptr;
};

// How the work is cut: `units` from `first`, `perChunk` to a chunk; makeWorker() gives each
// worker thread its own chunk formatter.
struct WorkPlan {
    std::int64_t first = 0, units = 0, perChunk = 1;
    std::function<std::function<void(Chunk&)>()> makeWorker;
};

// Formats the plan's chunks on worker threads (at most 2 chunks per worker in memory) and
// writes them to `sink` in order on this thread.
void runPlan(const WorkPlan& plan, const SliceTables& tables, JsonSink& sink,
             const ProgressFn& progress, ExportCounts& counts) {
    std::size_t chunks = std::size_t((plan.units + plan.perChunk - 1) / plan.perChunk);
    unsigned workers = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
    std::size_t window = 2 * workers;
    std::vector<std::unique_ptr<Chunk>> pending(chunks), spare; // spare: buffers to reuse
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t nextToFormat = 0, written = 0;
    auto work = [&] {
        std::function<void(Chunk&)> format;
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
            chunk->lo = plan.first + std::int64_t(index) * plan.perChunk;
            chunk->hi = std::min(chunk->lo + plan.perChunk, plan.first + plan.units);
            chunk->span.assign(tables.laneOf.size(), {kNone, kNone});
            try {
                if (!format) format = plan.makeWorker();
                format(*chunk);
            } catch (...) {
                chunk->error = std::current_exception();
            }
            {
                std::lock_guard lock(mutex);
                chunk->done = true;
            }
            changed.notify_all();
        }
    };
    // Before the workers start: a failed write throws here, not past threads left unjoined
    // (std::terminate: `pto export -o /dev/full` aborted).
    sink.flush();
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < workers; ++i) threads.emplace_back(work);
    std::vector<std::int64_t> lastTs(tables.laneOf.size(), kNone);
    std::exception_ptr error; // the first failure: the rest is drained, not written
    for (std::size_t i = 0; i < chunks; ++i) {
        std::unique_ptr<Chunk> chunk;
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return pending[i] && pending[i]->done; });
            chunk = std::move(pending[i]);
        }
        if (!error && chunk->error) error = chunk->error;
        if (!error) {
            const char* data = chunk->out.data();
            std::size_t size = chunk->out.size();
            if (size && sink.empty()) ++data, --size; // no comma before the first element
            try {
                sink.writeRaw(data, size, chunk->rows);
            } catch (...) {
                error = std::current_exception();
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
            chunk->error = nullptr;
            spare.push_back(std::move(chunk));
        }
        changed.notify_all();
        if (progress) progress(0.95 * double(i + 1) / double(chunks));
    }
    for (auto& t : threads) t.join();
    if (error) std::rethrow_exception(error);
}

} // namespace

// Slices in id order = the file's insertion order (a sequential scan; ordering by the
// (track_id, ts) index instead costs a table seek per row, 3× the whole export). The simulator
// inserts each track's slices in time order; slices that go back in time on their track are
// counted (viewers sort X events themselves). The b-tree reader skips SQLite's VM and column
// API, which was ≈ 60 % of the export's CPU; files it declines are read through SQL.
void writeSlices(const tracedb::TraceReader& reader, JsonSink& sink, const Places& places,
                 const std::unordered_map<std::int64_t, std::string>& names, const Clock& clock,
                 const TimeWindow& window, const ProgressFn& progress, ExportCounts& counts) {
    SliceTables tables = sliceTables(reader, places, names, clock);
    tables.window = window;
    WorkPlan plan;
    std::unique_ptr<BtreeTable> btree = BtreeTable::open(reader.path(), "slice", kSliceColumns);
    if (btree) {
        plan.units = std::int64_t(btree->leafCount());
        plan.perChunk = 256; // ≈ 25 k slices of ≈ 40 bytes, 5 MB of JSON
        plan.makeWorker = [&] {
            auto r = std::make_shared<BtreeChunkReader>(*btree, tables);
            return std::function<void(Chunk&)>([r](Chunk& c) { r->format(c); });
        };
    } else {
        std::int64_t hi = -1;
        forEachRow(reader, "SELECT min(id), max(id) FROM slice", [&](auto row) {
            plan.first = cellInt(row[0]);
            hi = cellInt(row[1], -1);
        });
        plan.units = std::max<std::int64_t>(0, hi - plan.first + 1);
        plan.perChunk = 1 << 16;
        plan.makeWorker = [&] {
            auto r = std::make_shared<SqlChunkReader>(reader.path(), tables);
            return std::function<void(Chunk&)>([r](Chunk& c) { r->format(c); });
        };
    }
    if (plan.units > 0) runPlan(plan, tables, sink, progress, counts);
}

} // namespace pto::prof::chrome
