// A read-only, time-limited connection to a profiler's SQLite file.
#include "importer/SourceDb.h"

#include "importer/ImportError.h"
#include "importer/InputFiles.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <memory>

namespace pto::importer {
namespace {

constexpr std::int64_t kQueryLimitMs = 20'000;

std::int64_t nowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int progress(void* deadline) {
    return nowMs() > *static_cast<std::int64_t*>(deadline) ? 1 : 0;
}

std::string uriOf(const std::filesystem::path& path) {
    std::string uri = "file:";
    for (char c : std::filesystem::absolute(path).string()) {
        if (c == '%' || c == '?' || c == '#')
            uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
        else
            uri += c;
    }
    return uri + "?immutable=1";
}

} // namespace

bool DbRow::isNull(int column) const {
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}
bool DbRow::isInteger(int column) const {
    return sqlite3_column_type(m_stmt, column) == SQLITE_INTEGER;
}
bool DbRow::isText(int column) const {
    return sqlite3_column_type(m_stmt, column) == SQLITE_TEXT;
}
bool DbRow::isReal(int column) const {
    return sqlite3_column_type(m_stmt, column) == SQLITE_FLOAT;
}
std::int64_t DbRow::integer(int column) const {
    return sqlite3_column_int64(m_stmt, column);
}
double DbRow::real(int column) const {
    return sqlite3_column_double(m_stmt, column);
}
std::string DbRow::text(int column) const {
    const auto* text = sqlite3_column_text(m_stmt, column);
    return text ? std::string(reinterpret_cast<const char*>(text)) : std::string();
}

SourceDb::SourceDb(const std::filesystem::path& path) : m_name(path.string()) {
    if (pathKind(path) != PathKind::File)
        throw ImportError(fmt::format("{}: not a regular file", m_name));
    int rc = sqlite3_open_v2(uriOf(path).c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                             nullptr);
    if (rc != SQLITE_OK) fail(rc, "cannot open");
    sqlite3_progress_handler(m_db, 1000, progress, &m_deadlineMs);
}

SourceDb::~SourceDb() {
    sqlite3_close_v2(m_db);
}

void SourceDb::fail(int rc, std::string_view doing) const {
    std::string reason = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    switch (rc & 0xff) {
    case SQLITE_NOTADB:
        throw ImportError(
            fmt::format("{}: byte 0: not an SQLite database; expected a profiler "
                        ".db (ascend_pytorch_profiler_N.db, msprof_N.db, analysis.db)",
                        m_name));
    case SQLITE_CORRUPT:
        throw ImportError(
            fmt::format("{}: the database is corrupt or truncated ({})", m_name, reason));
    case SQLITE_INTERRUPT:
        throw ImportError(fmt::format("{}: a query ran longer than {} s; expected plain tables",
                                      m_name, kQueryLimitMs / 1000));
    default:
        throw ImportError(fmt::format("{}: {}: {}", m_name, doing, reason));
    }
}

bool SourceDb::hasTable(std::string_view table) {
    bool found = false;
    forEach(fmt::format("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '{}'", table),
            [&](const DbRow&) { found = true; });
    return found;
}

bool SourceDb::hasColumn(std::string_view table, std::string_view column) {
    bool found = false;
    forEach(fmt::format("SELECT 1 FROM pragma_table_info('{}') WHERE name = '{}'", table, column),
            [&](const DbRow&) { found = true; });
    return found;
}

void SourceDb::forEach(const std::string& sql, const std::function<void(const DbRow&)>& row) {
    m_deadlineMs = nowMs() + kQueryLimitMs;
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(m_db, sql.c_str(), int(sql.size()), &stmt, nullptr);
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
    if (rc != SQLITE_OK) fail(rc, fmt::format("cannot read ({})", sql));
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) row(DbRow(stmt));
    if (rc != SQLITE_DONE) fail(rc, "cannot read");
}

} // namespace pto::importer
