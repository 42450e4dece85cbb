// Keeps user SQL read-only: refuses statements that write, attach databases or set pragmas.
#pragma once

#include "trace_db/Sqlite.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto::tracedb {

/// The reader's connection is already opened read-only with `query_only` set; this is the
/// layer that gives a clear message before anything runs. It checks every statement of a
/// multi-statement string with sqlite3_stmt_readonly, and an SQLite authorizer denies what
/// that check lets through: ATTACH/DETACH, REINDEX and pragmas other than read-only
/// introspection.
class ReadOnlyGuard {
public:
    /// Installs the authorizer on `db` for the guard's lifetime.
    explicit ReadOnlyGuard(SqliteDb& db);
    ~ReadOnlyGuard();
    ReadOnlyGuard(const ReadOnlyGuard&) = delete;
    ReadOnlyGuard& operator=(const ReadOnlyGuard&) = delete;

    /// Prepares all statements of `sql`, or throws
    /// "pto query is read-only: statement N would modify the file" (or the other reason).
    std::vector<Statement> prepareAll(std::string_view sql);

private:
    static int authorize(void* self, int action, const char* arg1, const char* arg2,
                         const char* database, const char* trigger);
    std::optional<Statement> prepareOne(std::string_view& sql, int number);
    [[noreturn]] void refuse(int number, std::string_view reason) const;

    SqliteDb& m_db;
    std::string m_denial; ///< set by authorize() while a statement is being prepared
};

} // namespace pto::tracedb
