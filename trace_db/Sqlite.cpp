// Thin RAII wrappers over the SQLite C API that turn every error into a TraceError naming the
// trace.
#include "trace_db/Sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <utility>

namespace pto::tracedb {
namespace {

/// Process-wide settings, made before SQLite initialises itself (later they are refused, and
/// harmlessly ignored): no memory statistics, which nothing reads and which cost a global
/// mutex on every allocation SQLite makes — a few per inserted row.
void configureSqliteOnce() {
    static const bool configured = [] {
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
        return true;
    }();
    (void)configured;
}

} // namespace

SqliteDb::SqliteDb(const std::filesystem::path& file, int openFlags, std::string tracePath)
    : m_tracePath(std::move(tracePath)) {
    configureSqliteOnce();
    int rc = sqlite3_open_v2(file.c_str(), &m_db, openFlags, nullptr);
    if (rc != SQLITE_OK) {
        std::string reason = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw TraceError(fmt::format("cannot open trace '{}': {}", m_tracePath, reason));
    }
    sqlite3_extended_result_codes(m_db, 1);
}

SqliteDb::~SqliteDb() {
    sqlite3_close_v2(m_db);
}

void SqliteDb::exec(std::string_view sql) {
    std::string text(sql);
    int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(rc, "cannot run SQL");
}

std::int64_t SqliteDb::queryInt(std::string_view sql) {
    Statement statement(*this, sql);
    std::int64_t value = 0;
    if (statement.step()) statement.read(0, value);
    return value;
}

bool SqliteDb::hasTable(std::string_view name) {
    Statement statement(*this, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?");
    statement.bind(1, name);
    return statement.step();
}

void SqliteDb::close() {
    int rc = sqlite3_close(m_db);
    if (rc != SQLITE_OK) fail(rc, "cannot close");
    m_db = nullptr;
}

void SqliteDb::fail(int rc, std::string_view doing) const {
    int primary = rc & 0xff;
    if (primary == SQLITE_NOTADB)
        throw TraceError(
            fmt::format("'{}' is not a PTO Studio trace (not an SQLite database)", m_tracePath));
    std::string reason = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    if (primary == SQLITE_CORRUPT)
        throw TraceError(
            fmt::format("trace '{}' is corrupt or truncated ({})", m_tracePath, reason));
    throw TraceError(fmt::format("trace '{}': {}: {}", m_tracePath, doing, reason));
}

Statement::Statement(SqliteDb& db, std::string_view sql) : m_db(&db) {
    int rc = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
    if (rc != SQLITE_OK) db.fail(rc, fmt::format("cannot prepare '{}'", sql));
}

Statement::~Statement() {
    sqlite3_finalize(m_stmt);
}

Statement::Statement(Statement&& other) noexcept
    : m_db(other.m_db), m_stmt(std::exchange(other.m_stmt, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(m_stmt);
        m_db = other.m_db;
        m_stmt = std::exchange(other.m_stmt, nullptr);
    }
    return *this;
}

std::optional<Statement> Statement::prepareNext(SqliteDb& db, std::string_view& sql) {
    while (!sql.empty()) {
        sqlite3_stmt* stmt = nullptr;
        const char* tail = nullptr;
        int rc =
            sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt, &tail);
        if (rc != SQLITE_OK) db.fail(rc, "cannot prepare statement");
        std::size_t consumed = tail ? static_cast<std::size_t>(tail - sql.data()) : sql.size();
        sql.remove_prefix(consumed == 0 ? sql.size() : consumed);
        if (stmt) return Statement(db, stmt);
    }
    return std::nullopt;
}

bool Statement::step() {
    int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    check(rc, fmt::format("cannot run '{}'", sql()));
    return false;
}

void Statement::reset() {
    sqlite3_reset(m_stmt);
}

void Statement::run() {
    int rc = sqlite3_step(m_stmt);
    sqlite3_reset(m_stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) check(rc, fmt::format("cannot run '{}'", sql()));
}

int Statement::columnCount() const {
    return sqlite3_column_count(m_stmt);
}

std::string Statement::columnName(int column) const {
    const char* name = sqlite3_column_name(m_stmt, column);
    return name ? name : "";
}

SqlValue Statement::value(int column) const {
    switch (sqlite3_column_type(m_stmt, column)) {
    case SQLITE_INTEGER:
        return columnInt(column);
    case SQLITE_FLOAT:
        return columnReal(column);
    case SQLITE_TEXT:
        return columnText(column);
    case SQLITE_BLOB:
        return BlobSize{static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))};
    default:
        return std::monostate{};
    }
}

bool Statement::isReadOnly() const {
    return sqlite3_stmt_readonly(m_stmt) != 0;
}

std::string Statement::sql() const {
    const char* text = sqlite3_sql(m_stmt);
    return text ? text : "";
}

void Statement::bindInt(int index, std::int64_t value) {
    check(sqlite3_bind_int64(m_stmt, index, value), "cannot bind");
}

void Statement::bindReal(int index, double value) {
    check(sqlite3_bind_double(m_stmt, index, value), "cannot bind");
}

void Statement::bindText(int index, std::string_view value) {
    check(
        sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_STATIC, SQLITE_UTF8),
        "cannot bind");
}

void Statement::bindBlob(int index, const std::vector<std::byte>& value) {
    check(sqlite3_bind_blob64(m_stmt, index, value.data(), value.size(), SQLITE_STATIC),
          "cannot bind");
}

void Statement::bindNull(int index) {
    check(sqlite3_bind_null(m_stmt, index), "cannot bind");
}

void Statement::check(int rc, std::string_view doing) const {
    if (rc != SQLITE_OK) m_db->fail(rc, doing);
}

bool Statement::isNull(int column) const {
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

std::int64_t Statement::columnInt(int column) const {
    return sqlite3_column_int64(m_stmt, column);
}

double Statement::columnReal(int column) const {
    return sqlite3_column_double(m_stmt, column);
}

std::string Statement::columnText(int column) const {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    if (!text) return {};
    return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)));
}

std::vector<std::byte> Statement::columnBlob(int column) const {
    const auto* data = static_cast<const std::byte*>(sqlite3_column_blob(m_stmt, column));
    auto size = static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column));
    if (!data) return {};
    return std::vector<std::byte>(data, data + size);
}

void Statement::failBadEnum(std::string_view what, const std::string& text) const {
    throw TraceError(
        fmt::format("trace '{}' holds an unknown {} '{}'", m_db->tracePath(), what, text));
}

} // namespace pto::tracedb
