// The tables and views of schema.sql as an open file must have them: checked, and shadowed.
#pragma once

namespace pto::tracedb {

class SqliteDb;

/// Throws a TraceError naming the table unless every table of schema.sql is, in the file, a
/// real (not virtual) table, found once, with every column schema.sql gives it and no hidden
/// or generated column; a file of an older `version` may lack the columns added after it. A view in
/// its place could run any SQL (an endless recursive view hangs every reader); a foreign layout
/// would fail later with a less useful message.
void checkTableLayout(SqliteDb& db, int version);

/// Creates TEMP views with schema.sql's definitions of every view. TEMP names come first in
/// SQLite's lookup, so they shadow the file's own views, whose SQL comes from whoever wrote
/// the file. Run before the connection is made query_only. A view that a file of an older
/// `version` has as a plain table (node and instr before schema 4) is left to that table.
void shadowViews(SqliteDb& db, int version);

} // namespace pto::tracedb
