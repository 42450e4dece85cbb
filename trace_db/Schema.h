// The embedded schema.sql, split into the part run at creation and the part run at commit.
#pragma once

#include <span>
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

/// A table of schemas 1-3 that schema 4 stores compactly: `data` holds its rows with the
/// repeated text as ids of table `dict` (columns named <column>_dict), and a view named `table`
/// reads them back with the old columns, so readers query `table` in every version.
struct CompactedTable {
    std::string_view table;
    std::string_view data;
};
/// The schema that introduced dict, node_data and instr_data.
inline constexpr int kCompactSince = 4;
std::span<const CompactedTable> compactedTables();
/// Table `name` of schema.sql is missing from a file of schema `version` (dict, node_data and
/// instr_data before schema 4; the file has the plain tables node and instr instead).
bool tableAddedAfter(std::string_view name, int version);

void createSchema(SqliteDb& db);
void finalizeSchema(SqliteDb& db);
/// The statements of schemaFinalizeSql() that index `table` (`CREATE INDEX … ON table(…)`).
void finalizeIndexesOf(SqliteDb& db, std::string_view table);
/// Brings a file of an older schema version (from `PRAGMA user_version`) up to this build's,
/// for TraceWriter::append. Schema 1 → 2 adds instr.flops, gm_bytes and src_dtype as NULL
/// (not recorded): the costs of instructions written before them stay unknown; 2 → 3 adds
/// track.stream_id and thread_id as NULL (a simulated track has neither); 3 → 4 moves the rows
/// of node and instr into node_data and instr_data, their text into dict, and makes node and
/// instr views (compactedTables()).
void migrateSchema(SqliteDb& db, int fromVersion);
/// Drops the indexes finalizeSchema builds, so appended rows insert at bulk speed.
void dropFinalizeIndexes(SqliteDb& db);

} // namespace pto::tracedb
