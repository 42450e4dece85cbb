// Checks shared by TraceReader::open and TraceWriter::append: is this a trace we can read?
#pragma once

#include <filesystem>

namespace pto::tracedb {

class SqliteDb;

/// Throws "cannot open trace '<path>': no such file" (or "is a directory", or an empty file).
void requireExistingFile(const std::filesystem::path& path);

/// Throws unless the open database is a finished PTO Studio trace of a schema version this
/// build reads (not SQLite, corrupt or truncated, another application's database, written by
/// a newer PTO Studio). Returns the file's schema version.
int checkTraceFile(SqliteDb& db);

} // namespace pto::tracedb
