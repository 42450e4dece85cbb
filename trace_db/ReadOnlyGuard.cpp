// Keeps user SQL read-only: refuses statements that write, attach databases or set pragmas.
#include "trace_db/ReadOnlyGuard.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <span>
#include <utility>

namespace pto::tracedb {
namespace {

/// Pragmas that only report; a value argument is allowed only where it names a table/index
/// (or limits the number of problems a check lists).
constexpr std::array<std::string_view, 16> kReportingPragmas{
    "application_id", "collation_list", "compile_options", "data_version",
    "database_list",  "encoding",       "freelist_count",  "function_list",
    "module_list",    "page_count",     "page_size",       "pragma_list",
    "query_only",     "schema_version", "table_list",      "user_version"};
constexpr std::array<std::string_view, 10> kTableArgumentPragmas{
    "table_info", "table_xinfo",      "index_list",        "index_info",      "index_xinfo",
    "table_list", "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check"};

bool contains(std::span<const std::string_view> names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

/// Empty when the pragma may run, else why not.
std::string pragmaDenial(std::string_view name, const char* argument) {
    if (contains(kTableArgumentPragmas, name)) return {};
    if (contains(kReportingPragmas, name) && argument == nullptr) return {};
    if (argument != nullptr) return fmt::format("would change setting '{}'", name);
    return fmt::format("runs PRAGMA {}, which is not a read-only report", name);
}

} // namespace

ReadOnlyGuard::ReadOnlyGuard(SqliteDb& db) : m_db(db) {
    sqlite3_set_authorizer(m_db.handle(), &ReadOnlyGuard::authorize, this);
}

ReadOnlyGuard::~ReadOnlyGuard() {
    sqlite3_set_authorizer(m_db.handle(), nullptr, nullptr);
}

int ReadOnlyGuard::authorize(void* self, int action, const char* arg1, const char* arg2,
                             const char* /*database*/, const char* /*trigger*/) {
    auto* guard = static_cast<ReadOnlyGuard*>(self);
    if (action == SQLITE_ATTACH || action == SQLITE_DETACH) {
        guard->m_denial = "would attach or detach a database";
        return SQLITE_DENY;
    }
    if (action == SQLITE_REINDEX) {
        guard->m_denial = "would modify the file";
        return SQLITE_DENY;
    }
    if (action == SQLITE_PRAGMA) {
        std::string denial = pragmaDenial(arg1 ? arg1 : "", arg2);
        if (denial.empty()) return SQLITE_OK;
        guard->m_denial = std::move(denial);
        return SQLITE_DENY;
    }
    return SQLITE_OK;
}

std::vector<Statement> ReadOnlyGuard::prepareAll(std::string_view sql) {
    std::vector<Statement> statements;
    for (int number = 1;; ++number) {
        std::optional<Statement> statement = prepareOne(sql, number);
        if (!statement) break;
        if (!statement->isReadOnly()) refuse(number, "would modify the file");
        statements.push_back(std::move(*statement));
    }
    return statements;
}

std::optional<Statement> ReadOnlyGuard::prepareOne(std::string_view& sql, int number) {
    m_denial.clear();
    try {
        return Statement::prepareNext(m_db, sql);
    } catch (const TraceError&) {
        if (!m_denial.empty()) refuse(number, m_denial);
        throw;
    }
}

void ReadOnlyGuard::refuse(int number, std::string_view reason) const {
    throw TraceError(fmt::format("pto query is read-only: statement {} {}", number, reason));
}

} // namespace pto::tracedb
