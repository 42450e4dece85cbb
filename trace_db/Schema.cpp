// The embedded schema.sql, split into the part run at creation and the part run at commit.
#include "trace_db/Schema.h"

#include "trace_db/SchemaSql.h"
#include "trace_db/Sqlite.h"
#include "trace_db/TraceError.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace pto::tracedb {
namespace {

constexpr std::string_view kFinalizeMarker = "\n-- @finalize\n";
constexpr std::size_t kFinalizeAt = generated::kSchemaSql.find(kFinalizeMarker);
static_assert(kFinalizeAt != std::string_view::npos,
              "trace_db/schema.sql must contain a '-- @finalize' line");

/// A column schema.sql has that files of versions before `since` lack.
struct AddedColumn {
    std::string_view table;
    std::string_view column;
    std::string_view sqlType;
    int since;
};

/// Every column added after schema 1, oldest first.
constexpr AddedColumn kAddedColumns[] = {
    {"instr", "flops", "REAL", 2},        {"instr", "gm_bytes", "INTEGER", 2},
    {"instr", "src_dtype", "TEXT", 2},    {"track", "stream_id", "INTEGER", 3},
    {"track", "thread_id", "INTEGER", 3},
};

constexpr CompactedTable kCompactedTables[] = {{"node", "node_data"}, {"instr", "instr_data"}};

constexpr std::string_view kDictSuffix = "_dict";

/// The statement of schemaCreateSql() that starts with `head` (e.g. "CREATE VIEW node AS"),
/// up to its closing ";\n".
std::string_view createStatement(std::string_view head) {
    const std::string_view sql = schemaCreateSql();
    const std::size_t begin = sql.find(fmt::format("\n{}", head));
    const std::size_t end = begin == std::string_view::npos ? begin : sql.find(";\n", begin);
    if (end == std::string_view::npos)
        throw TraceError(fmt::format("schema.sql has no statement '{}'", head));
    return sql.substr(begin + 1, end - begin - 1);
}

std::vector<std::string> columnNames(SqliteDb& db, std::string_view table) {
    Statement statement(db, "SELECT name FROM pragma_table_info(?) ORDER BY cid");
    statement.bindAll(table);
    std::vector<std::string> names;
    while (statement.step()) {
        std::string name;
        statement.read(0, name);
        names.push_back(std::move(name));
    }
    return names;
}

/// Moves the rows of the plain table `compacted.table` into `compacted.data`, interning the text
/// of each <column>_dict column into dict, and puts the view in the table's place.
void compactTable(SqliteDb& db, const CompactedTable& compacted) {
    db.exec(createStatement(fmt::format("CREATE TABLE {}(", compacted.data)));
    std::string columns, values;
    for (const std::string& column : columnNames(db, compacted.data)) {
        columns += fmt::format("{}{}", columns.empty() ? "" : ", ", column);
        values += values.empty() ? "" : ", ";
        if (!column.ends_with(kDictSuffix)) {
            values += "t." + column;
            continue;
        }
        const std::string text = column.substr(0, column.size() - kDictSuffix.size());
        db.exec(fmt::format("INSERT OR IGNORE INTO dict(str) SELECT {0} FROM {1} "
                            "WHERE {0} IS NOT NULL AND {0} != ''",
                            text, compacted.table));
        values += fmt::format("(SELECT id FROM dict WHERE str = t.{})", text);
    }
    db.exec(fmt::format("INSERT INTO {}({}) SELECT {} FROM {} t", compacted.data, columns, values,
                        compacted.table));
    db.exec(fmt::format("DROP TABLE {}", compacted.table));
    db.exec(createStatement(fmt::format("CREATE VIEW {} AS", compacted.table)));
}

} // namespace

std::span<const CompactedTable> compactedTables() {
    return kCompactedTables;
}

bool tableAddedAfter(std::string_view name, int version) {
    if (version >= kCompactSince) return false;
    return name == "dict" ||
           std::any_of(std::begin(kCompactedTables), std::end(kCompactedTables),
                       [&](const CompactedTable& compacted) { return compacted.data == name; });
}

bool addedAfter(std::string_view table, std::string_view column, int version) {
    return std::any_of(
        std::begin(kAddedColumns), std::end(kAddedColumns), [&](const AddedColumn& added) {
            return added.since > version && added.table == table && added.column == column;
        });
}

std::string_view schemaSql() {
    return generated::kSchemaSql;
}

std::string_view schemaCreateSql() {
    return generated::kSchemaSql.substr(0, kFinalizeAt);
}

std::string_view schemaFinalizeSql() {
    return generated::kSchemaSql.substr(kFinalizeAt + kFinalizeMarker.size());
}

void createSchema(SqliteDb& db) {
    db.exec(schemaCreateSql());
}

void finalizeSchema(SqliteDb& db) {
    db.exec(schemaFinalizeSql());
}

void finalizeIndexesOf(SqliteDb& db, std::string_view table) {
    const std::string on = fmt::format(" ON {}(", table);
    std::string_view sql = schemaFinalizeSql();
    while (!sql.empty()) {
        const std::size_t end = std::min(sql.find(';'), sql.size());
        const std::string_view statement = sql.substr(0, end);
        if (statement.find("CREATE INDEX") != std::string_view::npos &&
            statement.find(on) != std::string_view::npos)
            db.exec(statement);
        sql.remove_prefix(std::min(end + 1, sql.size()));
    }
}

void migrateSchema(SqliteDb& db, int fromVersion) {
    for (const AddedColumn& added : kAddedColumns)
        if (fromVersion < added.since)
            db.exec(fmt::format("ALTER TABLE {} ADD COLUMN {} {}", added.table, added.column,
                                added.sqlType));
    if (fromVersion >= kCompactSince) return;
    db.exec(createStatement("CREATE TABLE dict("));
    for (const CompactedTable& compacted : kCompactedTables) compactTable(db, compacted);
}

void dropFinalizeIndexes(SqliteDb& db) {
    // Explicit indexes have SQL in sqlite_schema; automatic ones (PRIMARY KEY, UNIQUE) do not.
    std::vector<std::string> names;
    Statement list(db, "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL");
    while (list.step()) {
        std::string name;
        list.read(0, name);
        names.push_back(std::move(name));
    }
    for (const std::string& name : names) db.exec("DROP INDEX \"" + name + "\"");
}

} // namespace pto::tracedb
