// Refusing to write an output over a file of another kind or over an input (see ReplaceGuard.h).
#include "trace_db/ReplaceGuard.h"

#include "trace_db/Sqlite.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceFile.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <string>

namespace pto::tracedb {
namespace {

bool holdsTable(const std::filesystem::path& path, std::string_view table) {
    try {
        SqliteDb db(readOnlyUri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path.string());
        return db.hasTable(table);
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace

void requireReplaceable(const std::filesystem::path& path, std::string_view what,
                        std::string_view ownTable) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) return;
    if (std::filesystem::is_regular_file(path, error) &&
        std::filesystem::file_size(path, error) == 0)
        return;
    const bool sqlite = isSqliteFile(path);
    if (sqlite && holdsTable(path, ownTable)) return;
    throw TraceError(fmt::format("'{}' exists and is not a {} ({}): it is not replaced; remove it "
                                 "or give another output path",
                                 path.string(), what,
                                 !std::filesystem::is_regular_file(path, error)
                                     ? "not a regular file"
                                 : sqlite ? "an SQLite database of another kind"
                                          : "its first bytes are not SQLite's"));
}

void requireNotInput(const std::filesystem::path& output, const std::filesystem::path& input,
                     std::string_view role) {
    std::error_code error; // an output that does not exist yet is not the input
    if (output.empty() || !std::filesystem::equivalent(output, input, error)) return;
    throw TraceError(fmt::format("-o '{}' is {} ('{}'): it is not replaced; give another output "
                                 "path",
                                 output.string(), role, input.string()));
}

} // namespace pto::tracedb
