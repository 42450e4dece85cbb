// Checks shared by TraceReader::open and TraceWriter::append: is this a trace we can read?
#include "trace_db/TraceFile.h"

#include "trace_db/SchemaVersion.h"
#include "trace_db/Sqlite.h"
#include "trace_db/TraceError.h"

#include <fmt/format.h>

#include <system_error>

namespace pto::tracedb {

void requireExistingFile(const std::filesystem::path& path) {
    std::error_code error;
    auto status = std::filesystem::status(path, error);
    if (!std::filesystem::exists(status))
        throw TraceError(fmt::format("cannot open trace '{}': no such file", path.string()));
    if (std::filesystem::is_directory(status))
        throw TraceError(fmt::format("cannot open trace '{}': is a directory", path.string()));
    // SQLite would take an empty file for an empty database.
    if (std::filesystem::file_size(path, error) == 0 && !error)
        throw TraceError(fmt::format("'{}' is not a PTO Studio trace (empty file)", path.string()));
}

int checkTraceFile(SqliteDb& db) {
    // The first read of the header is where SQLite reports a file that is not a database
    // (NOTADB) or shorter than its header says (CORRUPT); SqliteDb::fail words both.
    auto version = static_cast<int>(db.queryInt("PRAGMA user_version"));
    bool isOurs = db.queryInt("PRAGMA application_id") == kApplicationId;
    bool hasMeta = db.hasTable("meta");
    const std::string& path = db.tracePath();
    if (!isOurs && !hasMeta)
        throw TraceError(fmt::format(
            "'{}' is not a PTO Studio trace (an SQLite database without a meta table)", path));
    if (version > kSchemaVersion)
        throw TraceError(fmt::format("trace '{}' was written by a newer PTO Studio (schema {}); "
                                     "this build reads up to {} — upgrade",
                                     path, version, kSchemaVersion));
    if (version < 1 || !hasMeta)
        throw TraceError(fmt::format("'{}' is not a PTO Studio trace (schema version {}{})", path,
                                     version, hasMeta ? "" : ", no meta table"));
    return version;
}

} // namespace pto::tracedb
