// Reads and caches the raw slices of visible time windows for the timeline canvas.
#include "gui/model/TimelineSliceCache.h"

#include "trace_db/Sqlite.h"
#include "trace_db/TraceFile.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <string>

namespace pto::gui {

class TimelineSliceCache::Connection {
public:
    explicit Connection(const std::filesystem::path& path)
        : m_db(tracedb::readOnlyUri(path),
               SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, path.string()) {
        // A slice starting before t0 - max_dur cannot reach t0, so the index bounds the scan.
        m_stmt = prepare(
            fmt::format(
                "SELECT s.id, s.ts, s.dur, s.name_id, s.depth, s.category, s.instr_id FROM slice s "
                "WHERE s.track_id = ?1 AND s.ts < ?3 AND s.ts >= ?2 - coalesce((SELECT max_dur "
                "FROM "
                "track_summary WHERE track_id = ?1), 0) AND (s.ts + s.dur > ?2 OR s.ts >= ?2) AND "
                "s.depth BETWEEN 0 AND {} ORDER BY s.ts, s.depth",
                TimelineSlice::kMaxDepth)
                .c_str());
    }
    ~Connection() { sqlite3_finalize(m_stmt); }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    void read(std::int64_t track, std::int64_t t0, std::int64_t t1, std::vector<TimelineSlice>& out,
              std::chrono::milliseconds budget) {
        // The GUI thread reads through this: a read over its budget (only a hostile file, e.g.
        // a view in place of the slice table) fails instead of freezing the window, and so
        // does every later read, at once.
        if (!m_overBudget.empty()) throw tracedb::TraceError(m_overBudget);
        m_deadline = budget.count() > 0 ? Clock::now() + budget : Clock::time_point::max();
        sqlite3_progress_handler(m_db.handle(), kProgressSteps, &pastDeadline, &m_deadline);
        sqlite3_reset(m_stmt);
        sqlite3_bind_int64(m_stmt, 1, track);
        sqlite3_bind_int64(m_stmt, 2, t0);
        sqlite3_bind_int64(m_stmt, 3, t1);
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(m_stmt)) == SQLITE_ROW) {
            TimelineSlice s;
            s.id = sqlite3_column_int64(m_stmt, 0);
            s.ts = sqlite3_column_int64(m_stmt, 1);
            s.dur = sqlite3_column_int64(m_stmt, 2);
            s.nameId = static_cast<std::int32_t>(sqlite3_column_int64(m_stmt, 3));
            s.depth = static_cast<std::int16_t>(sqlite3_column_int64(m_stmt, 4));
            const auto* category = sqlite3_column_text(m_stmt, 5);
            const char c = category ? static_cast<char>(category[0]) : 'i';
            s.category = c == 't'   ? TimelineSlice::Category::Task
                         : c == 's' ? TimelineSlice::Category::Stall
                         : c == 'w' ? TimelineSlice::Category::Wait
                                    : TimelineSlice::Category::Instr;
            s.instrId = sqlite3_column_type(m_stmt, 6) == SQLITE_NULL
                            ? -1
                            : sqlite3_column_int64(m_stmt, 6);
            out.push_back(s);
        }
        if (rc == SQLITE_INTERRUPT && Clock::now() > m_deadline) {
            m_overBudget = fmt::format("trace '{}': reading the slices of a timeline window took "
                                       "over {} ms; the timeline reads no more slices from it",
                                       m_db.tracePath(), budget.count());
            throw tracedb::TraceError(m_overBudget);
        }
        if (rc != SQLITE_DONE) m_db.fail(rc, "reading the slices of a timeline window");
    }

    sqlite3* handle() const { return m_db.handle(); }

private:
    using Clock = std::chrono::steady_clock;
    static constexpr int kProgressSteps = 10000;

    static int pastDeadline(void* deadline) {
        return Clock::now() > *static_cast<const Clock::time_point*>(deadline) ? 1 : 0;
    }

    sqlite3_stmt* prepare(const char* sql) {
        sqlite3_stmt* raw = nullptr;
        if (int rc = sqlite3_prepare_v2(m_db.handle(), sql, -1, &raw, nullptr); rc != SQLITE_OK)
            m_db.fail(rc, "preparing the timeline window query");
        return raw;
    }

    tracedb::SqliteDb m_db;
    sqlite3_stmt* m_stmt = nullptr;
    Clock::time_point m_deadline = Clock::time_point::max();
    std::string m_overBudget; ///< why reads stopped, empty while they work
};

TimelineSliceCache::TimelineSliceCache() = default;
TimelineSliceCache::~TimelineSliceCache() = default;

void TimelineSliceCache::open(const std::filesystem::path& trace) {
    clear();
    m_connection.reset();
    if (!trace.empty()) m_connection = std::make_unique<Connection>(trace);
}

sqlite3* TimelineSliceCache::connection() const {
    return m_connection ? m_connection->handle() : nullptr;
}

void TimelineSliceCache::clear() {
    m_windows.clear();
}

std::vector<TimelineSlice> TimelineSliceCache::read(std::int64_t trackId, std::int64_t t0,
                                                    std::int64_t t1) {
    std::vector<TimelineSlice> out;
    if (m_connection) m_connection->read(trackId, t0, t1, out, m_budget);
    return out;
}

const std::vector<TimelineSlice>* TimelineSliceCache::find(std::int64_t trackId, std::int64_t t0,
                                                           std::int64_t t1) const {
    const auto it = m_windows.find(trackId);
    if (it == m_windows.end()) return nullptr;
    const Window& window = it->second;
    const std::int64_t span = std::max<std::int64_t>(1, t1 - t0);
    const bool covers = window.lo <= t0 && t1 <= window.hi && window.hi > window.lo;
    return covers && window.hi - window.lo <= 8 * span ? &window.slices : nullptr;
}

const std::vector<TimelineSlice>& TimelineSliceCache::slices(std::int64_t trackId, std::int64_t t0,
                                                             std::int64_t t1) {
    if (const auto* cached = find(trackId, t0, t1)) return *cached;
    if (m_windows.size() >= 1024) m_windows.clear(); // bounded: a window per track at most
    const std::int64_t span = std::max<std::int64_t>(1, t1 - t0);
    std::vector<TimelineSlice> slices;
    if (m_connection) m_connection->read(trackId, t0 - span, t1 + span, slices, m_budget);
    ++m_reads;
    // Stored only once read whole, so a failed read leaves no partial window behind.
    Window& window = m_windows[trackId];
    window = {t0 - span, t1 + span, std::move(slices)};
    return window.slices;
}

} // namespace pto::gui
