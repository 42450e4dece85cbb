// Sidecar SQLite cache of layouts: one table of serialized boxes and splines per key.
#include "gui/model/LayoutCache.h"

#include <QByteArray>
#include <QDataStream>
#include <QIODevice>

#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <unordered_map>

namespace pto::gui {

struct LayoutMemory {
    std::unordered_map<std::string, LayoutResult> layouts;
};

namespace {

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

std::optional<LayoutResult> deserialize(const QByteArray& bytes) {
    QDataStream in(bytes);
    qint32 version = 0;
    QString engine;
    LayoutResult r;
    quint32 count = 0;
    in >> version >> engine >> r.bounds >> count;
    if (version != kLayoutVersion || in.status() != QDataStream::Ok) return std::nullopt;
    r.nodes.resize(count);
    for (QRectF& box : r.nodes) in >> box;
    in >> count;
    r.edges.resize(count);
    for (auto& e : r.edges) {
        quint32 points = 0;
        in >> points;
        if (in.status() != QDataStream::Ok || points > 1u << 20) return std::nullopt;
        e.resize(points);
        for (QPointF& p : e) in >> p;
    }
    if (in.status() != QDataStream::Ok) return std::nullopt;
    r.engine = engine.toStdString();
    r.ok = true;
    return r;
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

std::optional<LayoutResult> LayoutCache::find(const std::string& key) {
    if (auto it = m_memory->layouts.find(key); it != m_memory->layouts.end()) return it->second;
    if (!m_db) return std::nullopt;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, "SELECT data FROM gui_layout WHERE key = ?", -1, &stmt, nullptr) !=
        SQLITE_OK)
        return std::nullopt;
    sqlite3_bind_text(stmt, 1, key.c_str(), int(key.size()), SQLITE_TRANSIENT);
    std::optional<LayoutResult> result;
    if (sqlite3_step(stmt) == SQLITE_ROW) {
        const auto* data = static_cast<const char*>(sqlite3_column_blob(stmt, 0));
        result = deserialize(QByteArray(data, sqlite3_column_bytes(stmt, 0)));
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
