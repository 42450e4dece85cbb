// The embedded schema.sql, split into the part run at creation and the part run at commit.
#pragma once

#include <string_view>

namespace pto::tracedb {

class SqliteDb;

/// The whole of trace_db/schema.sql as compiled into this build.
std::string_view schemaSql();
/// Tables and views: run once when a trace is created.
std::string_view schemaCreateSql();
/// Indexes and summaries (below the '-- @finalize' line): run by every commit.
std::string_view schemaFinalizeSql();

/// `column` of `table` was added to schema.sql after `version`, so a file of that version
/// lacks it: the layout check lets it be missing and the reader reads it as NULL (not
/// recorded). The same list drives migrateSchema.
bool addedAfter(std::string_view table, std::string_view column, int version);

void createSchema(SqliteDb& db);
void finalizeSchema(SqliteDb& db);
/// The statements of schemaFinalizeSql() that index `table` (`CREATE INDEX … ON table(…)`).
void finalizeIndexesOf(SqliteDb& db, std::string_view table);
/// Brings a file of an older schema version (from `PRAGMA user_version`) up to this build's,
/// for TraceWriter::append. Schema 1 → 2 adds instr.flops, gm_bytes and src_dtype as NULL
/// (not recorded): the costs of instructions written before them stay unknown; 2 → 3 adds
/// track.stream_id and thread_id as NULL (a simulated track has neither).
void migrateSchema(SqliteDb& db, int fromVersion);
/// Drops the indexes finalizeSchema builds, so appended rows insert at bulk speed.
void dropFinalizeIndexes(SqliteDb& db);

} // namespace pto::tracedb
