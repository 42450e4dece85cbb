// Checks shared by TraceReader::open and TraceWriter::append: is this a trace we can read?
#pragma once

#include <filesystem>
#include <string>

namespace pto::tracedb {

class SqliteDb;

/// Throws "cannot open trace '<path>': no such file" (or "is a directory", "not a regular
/// file (a FIFO)", or an empty file). A FIFO or device would block or stream forever in
/// open(), so nothing else is ever opened.
void requireExistingFile(const std::filesystem::path& path);

/// Whether `path` is a regular file that starts with SQLite's header (a trace, a tune file or
/// another application's database); false for anything else, missing files included.
bool isSqliteFile(const std::filesystem::path& path);

/// The SQLite URI the reader opens `path` with: "file:<absolute path>?immutable=1", so SQLite
/// takes no locks and creates no -journal, -wal or -shm file beside the trace. A WAL-mode
/// file is read the same way when its "-wal" file is absent or empty (everything is in the
/// main file); one whose "-wal" still holds changes is refused with a message saying how to
/// fold them in. Expects requireExistingFile to have passed.
std::string readOnlyUri(const std::filesystem::path& path);

/// Throws unless the open database is a finished PTO Studio trace of a schema version this
/// build reads (not SQLite, corrupt or truncated, another application's database, written by
/// a newer PTO Studio) whose tables are real tables with the columns of schema.sql (a view,
/// a virtual table, a generated column or a missing column is refused, naming the table).
/// Returns the file's schema version.
int checkTraceFile(SqliteDb& db);

} // namespace pto::tracedb
