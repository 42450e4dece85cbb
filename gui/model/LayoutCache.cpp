// Sidecar SQLite cache of layouts: one table of serialized boxes and splines per key.
#include "gui/model/LayoutCache.h"

#include <QByteArray>
#include <QDataStream>
#include <QIODevice>

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>
#include <unordered_map>

namespace pto::gui {

struct LayoutMemory {
    std::unordered_map<std::string, LayoutResult> layouts;
};

namespace {

/// Far above any dot layout (2 500 nodes, 10 000 edges: about 2 MB).
constexpr int kMaxBlobBytes = 64 << 20;
/// Virtual machine steps a cache statement may take: a sidecar is small, so this only stops a
/// forged one (a view or trigger that never ends).
constexpr int kProgressSteps = 100000;
constexpr int kMaxProgressCalls = 1000;

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS gui_layout(key TEXT PRIMARY KEY, data BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS gui_meta(key TEXT PRIMARY KEY, value TEXT);";

QByteArray serialize(const LayoutResult& r) {
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out << qint32(kLayoutVersion) << QString::fromStdString(r.engine) << r.bounds
        << quint32(r.nodes.size());
    for (const QRectF& box : r.nodes) out << box;
    out << quint32(r.edges.size());
    for (const auto& e : r.edges) {
        out << quint32(e.size());
        for (const QPointF& p : e) out << p;
    }
    return bytes;
}

/// Serialized sizes (QDataStream writes qreal as a double).
constexpr qint64 kRectBytes = 4 * 8;
constexpr qint64 kPointBytes = 2 * 8;
/// Positions come from Graphviz in points: anything beyond this is not a layout of ours.
constexpr double kMaxCoordinate = 1e9;

bool sane(double v) {
    return std::isfinite(v) && std::abs(v) <= kMaxCoordinate;
}
bool sane(const QPointF& p) {
    return sane(p.x()) && sane(p.y());
}
bool sane(const QRectF& r) {
    return sane(r.x()) && sane(r.y()) && sane(r.width()) && sane(r.height());
}

/// Reads `count` values of `bytesEach` bytes after checking that many bytes are left, so a
/// forged count can never make us allocate more than the blob holds.
template <typename T>
bool readArray(QDataStream& in, std::vector<T>& out, quint32 count, qint64 bytesEach) {
    if (in.status() != QDataStream::Ok || qint64(count) > in.device()->bytesAvailable() / bytesEach)
        return false;
    out.resize(count);
    for (T& value : out) {
        in >> value;
        if (!sane(value)) return false;
    }
    return in.status() == QDataStream::Ok;
}

/// The layout in `bytes`, when it is well-formed and has exactly the job's node and edge
/// counts (the trace's own graph bounds them); anything else is ignored and recomputed.
std::optional<LayoutResult> deserialize(const QByteArray& bytes, std::size_t nodes,
                                        std::size_t edges) {
    QDataStream in(bytes);
    qint32 version = 0;
    QString engine;
    LayoutResult r;
    quint32 count = 0;
    in >> version >> engine >> r.bounds >> count;
    if (version != kLayoutVersion || in.status() != QDataStream::Ok || !sane(r.bounds) ||
        count != nodes || !readArray(in, r.nodes, count, kRectBytes))
        return std::nullopt;
    in >> count;
    if (in.status() != QDataStream::Ok || count != edges ||
        qint64(count) > in.device()->bytesAvailable() / 4)
        return std::nullopt;
    r.edges.resize(count);
    for (auto& e : r.edges) {
        quint32 points = 0;
        in >> points;
        if (!readArray(in, e, points, kPointBytes)) return std::nullopt;
    }
    if (in.status() != QDataStream::Ok || !in.atEnd()) return std::nullopt;
    r.engine = engine.toStdString();
    r.ok = true;
    return r;
}

/// Progress handler: stops a statement after kMaxProgressCalls calls (counted per statement
/// by the caller resetting the counter).
int stopRunaway(void* calls) {
    return ++*static_cast<int*>(calls) > kMaxProgressCalls ? 1 : 0;
}

/// True when the sidecar is empty or holds only our two tables (and their indexes).
bool hasOnlyOurTables(sqlite3* db) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM sqlite_master WHERE NOT (type = 'table' AND "
                           "name IN ('gui_layout', 'gui_meta')) AND NOT (type = 'index' AND "
                           "tbl_name IN ('gui_layout', 'gui_meta'))",
                           -1, &stmt, nullptr) != SQLITE_OK)
        return false;
    const bool ok = sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_int64(stmt, 0) == 0;
    sqlite3_finalize(stmt);
    return ok;
}

std::string traceIdentity(const std::filesystem::path& trace) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(trace, ec);
    const auto time = std::filesystem::last_write_time(trace, ec);
    return fmt::format("{}:{}", ec ? 0 : size, ec ? 0 : time.time_since_epoch().count());
}

} // namespace

std::string layoutCacheKey(std::int64_t stageId, std::uint64_t visibleHash, bool leftToRight) {
    return fmt::format("{}:{:016x}:{}:v{}", stageId, visibleHash, leftToRight ? "LR" : "TB",
                       kLayoutVersion);
}

std::filesystem::path layoutCachePath(const std::filesystem::path& trace) {
    return std::filesystem::path(trace.string() + ".layout-cache");
}

LayoutCache::LayoutCache(const std::filesystem::path& trace)
    : m_memory(std::make_unique<LayoutMemory>()) {
    if (!open(trace) && m_db) {
        sqlite3_close(m_db);
        m_db = nullptr;
    }
}

LayoutCache::~LayoutCache() {
    if (m_db) sqlite3_close(m_db);
}

bool LayoutCache::open(const std::filesystem::path& trace) {
    const auto path = layoutCachePath(trace);
    if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
        m_problem = fmt::format("cannot write the layout cache '{}': {}; layouts are kept in "
                                "memory only",
                                path.string(), m_db ? sqlite3_errmsg(m_db) : "out of memory");
        return false;
    }
    sqlite3_busy_timeout(m_db, 2000);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_progress_handler(m_db, kProgressSteps, &stopRunaway, &m_progressCalls);
    if (!hasOnlyOurTables(m_db)) {
        m_problem = fmt::format("layout cache '{}' is not one pto-studio wrote (not SQLite, or "
                                "it holds views, triggers or other tables); it is ignored and "
                                "layouts are kept in memory only",
                                path.string());
        return false;
    }
    char* error = nullptr;
    if (sqlite3_exec(m_db, kSchema, nullptr, nullptr, &error) != SQLITE_OK) {
        m_problem = fmt::format("layout cache '{}' is unusable ({}); layouts are kept in memory "
                                "only",
                                path.string(), error ? error : "unknown error");
        sqlite3_free(error);
        return false;
    }
    // A rewritten trace (new compile or run) invalidates every layout.
    const std::string identity = traceIdentity(trace);
    sqlite3_stmt* stmt = nullptr;
    std::string stored;
    sqlite3_prepare_v2(m_db, "SELECT value FROM gui_meta WHERE key = 'trace'", -1, &stmt, nullptr);
    if (stmt && sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
        stored = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    if (stored != identity) {
        const std::string sql = fmt::format(
            "DELETE FROM gui_layout; INSERT OR REPLACE INTO gui_meta VALUES('trace', '{}');",
            identity);
        sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr);
    }
    return true;
}

std::optional<LayoutResult> LayoutCache::find(const std::string& key, std::size_t nodes,
                                              std::size_t edges) {
    if (auto it = m_memory->layouts.find(key); it != m_memory->layouts.end())
        if (it->second.nodes.size() == nodes && it->second.edges.size() == edges) return it->second;
    if (!m_db) return std::nullopt;
    m_progressCalls = 0;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, "SELECT data FROM gui_layout WHERE key = ?", -1, &stmt, nullptr) !=
        SQLITE_OK)
        return std::nullopt;
    sqlite3_bind_text(stmt, 1, key.c_str(), int(key.size()), SQLITE_TRANSIENT);
    std::optional<LayoutResult> result;
    if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_type(stmt, 0) == SQLITE_BLOB &&
        sqlite3_column_bytes(stmt, 0) <= kMaxBlobBytes) {
        const auto* data = static_cast<const char*>(sqlite3_column_blob(stmt, 0));
        result = deserialize(QByteArray(data, sqlite3_column_bytes(stmt, 0)), nodes, edges);
    }
    sqlite3_finalize(stmt);
    if (result) m_memory->layouts.emplace(key, *result);
    return result;
}

void LayoutCache::store(const std::string& key, const LayoutResult& result) {
    // The layered layout is recomputed faster than its (large) blob would be read back.
    if (!result.ok || result.engine == "layered") return;
    m_memory->layouts.insert_or_assign(key, result);
    if (!m_db) return;
    const QByteArray bytes = serialize(result);
    m_progressCalls = 0;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, "INSERT OR REPLACE INTO gui_layout VALUES(?, ?)", -1, &stmt,
                           nullptr) != SQLITE_OK)
        return;
    sqlite3_bind_text(stmt, 1, key.c_str(), int(key.size()), SQLITE_TRANSIENT);
    sqlite3_bind_blob(stmt, 2, bytes.constData(), int(bytes.size()), SQLITE_TRANSIENT);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
}

} // namespace pto::gui
