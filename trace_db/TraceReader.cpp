// Reads a trace file: typed accessors per table and a read-only SQL query entry point.
#include "trace_db/TraceReader.h"

#include "trace_db/ClockRate.h"
#include "trace_db/DictText.h"
#include "trace_db/ReadOnlyGuard.h"
#include "trace_db/RowCodec.h"
#include "trace_db/Schema.h"
#include "trace_db/Sqlite.h"
#include "trace_db/TraceFile.h"
#include "trace_db/TraceLayout.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <sstream>

namespace pto::tracedb {
namespace {

namespace fs = std::filesystem;

class QueryBudget;

constexpr int kOpenFlags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
constexpr std::int64_t kMinTime = std::numeric_limits<std::int64_t>::min();

std::int64_t saturatingSub(std::int64_t a, std::int64_t b) {
    std::int64_t result = 0;
    return __builtin_sub_overflow(a, b, &result) ? kMinTime : result;
}

/// Runs `sql` with `params` bound and reads every row as a Row.
template <typename Row, typename... Params>
std::vector<Row> readRows(SqliteDb& db, const std::string& sql, const Params&... params) {
    Statement statement(db, sql);
    statement.bindAll(params...);
    std::vector<Row> rows;
    while (statement.step()) rows.push_back(readRow<Row>(statement));
    return rows;
}

template <typename Compact>
auto expandRows(const std::vector<Compact>& rows, const DictText& dict) {
    std::vector<decltype(expandRow(rows.front(), dict))> out;
    out.reserve(rows.size());
    for (const Compact& row : rows) out.push_back(expandRow(row, dict));
    return out;
}

std::vector<SqlValue> readValues(const Statement& statement) {
    std::vector<SqlValue> values;
    values.reserve(static_cast<std::size_t>(statement.columnCount()));
    for (int column = 0; column < statement.columnCount(); ++column)
        values.push_back(statement.value(column));
    return values;
}

std::vector<std::string> columnNames(const Statement& statement) {
    std::vector<std::string> names;
    for (int column = 0; column < statement.columnCount(); ++column)
        names.push_back(statement.columnName(column));
    return names;
}

} // namespace

class TraceReader::Impl {
public:
    explicit Impl(const fs::path& path)
        : m_path(path), m_db(readOnlyUri(path), kOpenFlags, path.string()) {
        sqlite3_db_config(m_db.handle(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
        m_schemaVersion = checkTraceFile(m_db);
        shadowViews(m_db, m_schemaVersion);
        m_db.exec("PRAGMA query_only = 1");
        m_guard.emplace(m_db);
    }

    const fs::path& path() const { return m_path; }
    int schemaVersion() const { return m_schemaVersion; }
    /// Files of schema 4 keep node and instr text in dict (compactedTables()).
    bool isCompact() const { return m_schemaVersion >= kCompactSince; }
    const DictText& dict() {
        std::call_once(m_dictRead, [&] {
            if (isCompact()) m_dict = readDict(m_db);
        });
        return m_dict;
    }
    SqliteDb& db() { return m_db; }
    ReadOnlyGuard& guard() { return *m_guard; }
    /// The innermost query() call's budget (a row callback may query again).
    QueryBudget* activeBudget = nullptr;

    /// Earliest start a slice overlapping t0 can have on this track (from track_summary).
    std::optional<std::int64_t> earliestOverlappingStart(std::int64_t trackId, std::int64_t t0);

private:
    fs::path m_path;
    SqliteDb m_db;
    std::optional<ReadOnlyGuard> m_guard; // after m_db: removed before the connection closes
    int m_schemaVersion = 0;
    std::once_flag m_dictRead;
    DictText m_dict;
};

namespace {

/// Installs the progress handler for one limited query() call and, when it ends, puts back
/// the enclosing call's (a row callback may run a query of its own).
class QueryBudget {
public:
    QueryBudget(SqliteDb& db, const QueryLimits& limits, QueryBudget*& active)
        : m_db(db), m_limits(limits), m_active(active), m_outer(active),
          m_start(std::chrono::steady_clock::now()), m_deadline(m_start + limits.timeout) {
        m_active = this;
        install();
    }
    ~QueryBudget() {
        m_active = m_outer;
        if (m_outer)
            m_outer->install();
        else
            sqlite3_progress_handler(m_db.handle(), 0, nullptr, nullptr);
    }
    QueryBudget(const QueryBudget&) = delete;
    QueryBudget& operator=(const QueryBudget&) = delete;

    /// Throws QueryInterrupted when this budget stopped the statement; else returns.
    void throwIfStopped() const {
        if (!m_stopped) return;
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        bool timeout = *m_stopped == QueryInterrupted::Reason::Timeout;
        throw QueryInterrupted(
            *m_stopped, seconds,
            fmt::format("query {} after {:.1f} s{}", timeout ? "interrupted" : "cancelled", seconds,
                        timeout
                            ? fmt::format(" (time limit {:.3g} s)",
                                          std::chrono::duration<double>(m_limits.timeout).count())
                            : ""));
    }

private:
    void install() {
        sqlite3_progress_handler(m_db.handle(), QueryLimits::kProgressSteps,
                                 &QueryBudget::onProgress, this);
    }
    static int onProgress(void* self) {
        auto* budget = static_cast<QueryBudget*>(self);
        if (budget->m_limits.cancel && budget->m_limits.cancel->cancelled())
            budget->m_stopped = QueryInterrupted::Reason::Cancelled;
        else if (budget->m_limits.timeout.count() > 0 &&
                 std::chrono::steady_clock::now() >= budget->m_deadline)
            budget->m_stopped = QueryInterrupted::Reason::Timeout;
        return budget->m_stopped ? 1 : 0;
    }

    SqliteDb& m_db;
    QueryLimits m_limits;
    QueryBudget*& m_active;
    QueryBudget* m_outer;
    std::chrono::steady_clock::time_point m_start, m_deadline;
    std::optional<QueryInterrupted::Reason> m_stopped;
};

/// Runs `run` under `limits`; an interrupt the limits caused comes out as QueryInterrupted.
template <typename Run>
void runLimited(SqliteDb& db, const QueryLimits& limits, QueryBudget*& active, Run run) {
    if (!limits.active()) {
        run();
        return;
    }
    QueryBudget budget(db, limits, active);
    try {
        run();
    } catch (const TraceError&) {
        budget.throwIfStopped();
        throw;
    }
}

/// QueryLimits::oneResultSet: a second statement with columns is refused before any runs.
void requireOneResultSet(const std::vector<Statement>& statements) {
    std::size_t first = 0;
    for (std::size_t i = 0; i < statements.size(); ++i) {
        if (statements[i].columnCount() == 0) continue;
        if (!first) {
            first = i + 1;
            continue;
        }
        throw TraceError(fmt::format(
            "pto query prints one result: statements {} and {} both return rows; run each in "
            "its own pto query (or join them into one SELECT, e.g. with UNION ALL)",
            first, i + 1));
    }
}

} // namespace

std::optional<std::int64_t> TraceReader::Impl::earliestOverlappingStart(std::int64_t trackId,
                                                                        std::int64_t t0) {
    Statement statement(m_db, "SELECT max_dur FROM track_summary WHERE track_id = ?");
    statement.bindAll(trackId);
    if (!statement.step()) return std::nullopt;
    std::int64_t maxDur = 0;
    statement.read(0, maxDur);
    return saturatingSub(t0, maxDur);
}

TraceReader::TraceReader(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
TraceReader::TraceReader(TraceReader&& other) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&& other) noexcept = default;
TraceReader::~TraceReader() = default;

TraceReader TraceReader::open(const fs::path& path) {
    requireExistingFile(path);
    return TraceReader(std::make_unique<Impl>(path));
}

const fs::path& TraceReader::path() const {
    return m_impl->path();
}
int TraceReader::schemaVersion() const {
    return m_impl->schemaVersion();
}

std::optional<std::string> TraceReader::meta(std::string_view key) const {
    Statement statement(m_impl->db(), "SELECT value FROM meta WHERE key = ?");
    statement.bindAll(key);
    if (!statement.step()) return std::nullopt;
    std::string value;
    statement.read(0, value);
    return value;
}

std::optional<double> TraceReader::clockHz() const {
    const std::optional<std::string> text = meta("clock_hz");
    return text ? parseClockHz(*text) : std::nullopt;
}

std::vector<std::pair<std::string, std::string>> TraceReader::allMeta() const {
    Statement statement(m_impl->db(), "SELECT key, value FROM meta ORDER BY key");
    std::vector<std::pair<std::string, std::string>> entries;
    while (statement.step()) {
        auto& [key, value] = entries.emplace_back();
        statement.readAll(key, value);
    }
    return entries;
}

std::optional<std::string> TraceReader::stringOf(std::int64_t id) const {
    Statement statement(m_impl->db(), "SELECT str FROM string WHERE id = ?");
    statement.bindAll(id);
    if (!statement.step()) return std::nullopt;
    std::string text;
    statement.read(0, text);
    return text;
}

std::unordered_map<std::int64_t, std::string> TraceReader::strings() const {
    Statement statement(m_impl->db(), "SELECT id, str FROM string");
    std::unordered_map<std::int64_t, std::string> result;
    while (statement.step()) {
        std::int64_t id = 0;
        std::string text;
        statement.readAll(id, text);
        result.emplace(id, std::move(text));
    }
    return result;
}

std::vector<StageRow> TraceReader::stages() const {
    return readRows<StageRow>(m_impl->db(), selectSql<StageRow>() + " ORDER BY ord, id");
}

const DictText& TraceReader::dict() const {
    return m_impl->dict();
}

std::vector<NodeRow> TraceReader::nodes(std::int64_t stageId) const {
    if (m_impl->isCompact())
        return expandRows(
            readRows<NodeDataRow>(m_impl->db(),
                                  selectSql<NodeDataRow>() + " WHERE stage_id = ? ORDER BY id",
                                  stageId),
            dict());
    return readRows<NodeRow>(m_impl->db(), selectSql<NodeRow>() + " WHERE stage_id = ? ORDER BY id",
                             stageId);
}

std::vector<EdgeRow> TraceReader::edges(std::int64_t stageId) const {
    return readRows<EdgeRow>(m_impl->db(),
                             selectSql<EdgeRow>() + " WHERE stage_id = ? ORDER BY rowid", stageId);
}

std::vector<BufferRow> TraceReader::buffers(std::int64_t stageId) const {
    return readRows<BufferRow>(m_impl->db(),
                               selectSql<BufferRow>() + " WHERE stage_id = ? ORDER BY id", stageId);
}

std::vector<InstrRow> TraceReader::instrs() const {
    if (m_impl->isCompact())
        return expandRows(
            readRows<InstrDataRow>(m_impl->db(), selectSql<InstrDataRow>() +
                                                     " ORDER BY stage_id, block_id, idx, id"),
            dict());
    return readRows<InstrRow>(m_impl->db(), selectSql<InstrRow>(schemaVersion()) +
                                                " ORDER BY stage_id, block_id, idx, id");
}

std::vector<InstrRow> TraceReader::instrs(std::int64_t stageId, std::int64_t blockId) const {
    if (m_impl->isCompact())
        return expandRows(
            readRows<InstrDataRow>(m_impl->db(),
                                   selectSql<InstrDataRow>() +
                                       " WHERE stage_id = ? AND block_id = ? ORDER BY idx, id",
                                   stageId, blockId),
            dict());
    return readRows<InstrRow>(m_impl->db(),
                              selectSql<InstrRow>(schemaVersion()) +
                                  " WHERE stage_id = ? AND block_id = ? ORDER BY idx, id",
                              stageId, blockId);
}

std::vector<TrackRow> TraceReader::tracks() const {
    return readRows<TrackRow>(m_impl->db(), selectSql<TrackRow>(schemaVersion()) + " ORDER BY id");
}

std::vector<SliceRow> TraceReader::slices(std::int64_t trackId, std::int64_t t0,
                                          std::int64_t t1) const {
    // The index on (track_id, ts) bounds the scan from both sides: no slice of this track
    // lasts longer than max_dur, so none starting before t0 - max_dur reaches t0.
    std::optional<std::int64_t> from = m_impl->earliestOverlappingStart(trackId, t0);
    if (!from) return {};
    return readRows<SliceRow>(m_impl->db(),
                              selectSql<SliceRow>() +
                                  " WHERE track_id = ? AND ts >= ? AND ts < ?"
                                  " AND (ts + dur > ? OR ts >= ?) ORDER BY ts, depth, id",
                              trackId, *from, t1, t0, t0);
}

std::vector<CounterRow> TraceReader::counters(std::int64_t trackId, std::int64_t t0,
                                              std::int64_t t1) const {
    return readRows<CounterRow>(m_impl->db(),
                                selectSql<CounterRow>() +
                                    " WHERE track_id = ? AND ts >= ? AND ts < ? ORDER BY ts, rowid",
                                trackId, t0, t1);
}

std::vector<FlowRow> TraceReader::flows() const {
    return readRows<FlowRow>(m_impl->db(), selectSql<FlowRow>() + " ORDER BY id");
}

std::vector<ArgRow> TraceReader::args(std::int64_t argSetId) const {
    return readRows<ArgRow>(m_impl->db(),
                            selectSql<ArgRow>() + " WHERE arg_set_id = ? ORDER BY rowid", argSetId);
}

std::vector<TensorRow> TraceReader::tensors(TensorData data) const {
    using Codec = RowCodec<TensorRow>;
    std::string columns(data == TensorData::Load ? Codec::kColumns : Codec::kColumnsWithoutData);
    return readRows<TensorRow>(m_impl->db(), "SELECT " + columns + " FROM tensor ORDER BY id");
}

std::vector<std::byte> TraceReader::tensorData(std::int64_t tensorId) const {
    Statement statement(m_impl->db(), "SELECT data FROM tensor WHERE id = ?");
    statement.bindAll(tensorId);
    if (!statement.step())
        throw TraceError(
            fmt::format("trace '{}' has no tensor with id {}", path().string(), tensorId));
    std::vector<std::byte> data;
    statement.read(0, data);
    return data;
}

std::vector<DiffRow> TraceReader::diffs() const {
    return readRows<DiffRow>(m_impl->db(), selectSql<DiffRow>() + " ORDER BY id");
}

std::vector<MetricRow> TraceReader::metrics() const {
    return readRows<MetricRow>(m_impl->db(), selectSql<MetricRow>() + " ORDER BY rowid");
}

std::vector<MetricRow> TraceReader::metrics(std::string_view analysis) const {
    return readRows<MetricRow>(
        m_impl->db(), selectSql<MetricRow>() + " WHERE analysis = ? ORDER BY rowid", analysis);
}

std::vector<StatRow> TraceReader::stats() const {
    return readRows<StatRow>(m_impl->db(), selectSql<StatRow>() + " ORDER BY rowid");
}

QueryResult TraceReader::query(std::string_view sql) const {
    return query(sql, QueryLimits{});
}

void TraceReader::query(std::string_view sql, const RowCallback& onRow) const {
    query(sql, onRow, QueryLimits{});
}

QueryResult TraceReader::query(std::string_view sql, const QueryLimits& limits) const {
    QueryResult result;
    std::vector<Statement> statements = m_impl->guard().prepareAll(sql);
    if (limits.oneResultSet) requireOneResultSet(statements);
    runLimited(m_impl->db(), limits, m_impl->activeBudget, [&] {
        for (Statement& statement : statements) {
            if (statement.columnCount() > 0) result = QueryResult{columnNames(statement), {}};
            while (statement.step())
                if (statement.columnCount() > 0) result.rows.push_back(readValues(statement));
        }
    });
    return result;
}

void TraceReader::query(std::string_view sql, const RowCallback& onRow,
                        const QueryLimits& limits) const {
    std::vector<Statement> statements = m_impl->guard().prepareAll(sql);
    if (limits.oneResultSet) requireOneResultSet(statements);
    runLimited(m_impl->db(), limits, m_impl->activeBudget, [&] {
        for (Statement& statement : statements) {
            std::vector<std::string> columns = columnNames(statement);
            while (statement.step())
                if (!onRow(columns, readValues(statement))) return;
        }
    });
}

void TraceReader::verifyIntegrity() const {
    // The first problems name the damage; a flipped page can add hundreds of "never used" ones.
    Statement statement(m_impl->db(), "PRAGMA quick_check(3)");
    std::vector<std::string> problems;
    while (statement.step()) {
        std::string text;
        statement.read(0, text);
        if (text == "ok") continue;
        // One problem per line, after a "*** in database main ***" line.
        const std::size_t before = problems.size();
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);)
            if (!line.empty() && !line.starts_with("*** ")) problems.push_back(std::move(line));
        if (problems.size() == before) problems.push_back(std::move(text));
    }
    if (!problems.empty())
        throw TraceError(
            fmt::format("trace '{}' is corrupt: {}", path().string(), fmt::join(problems, "; ")));
}

void TraceReader::interrupt() const noexcept {
    sqlite3_interrupt(m_impl->db().handle());
}

} // namespace pto::tracedb
