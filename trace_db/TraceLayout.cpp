// The tables and views of schema.sql as an open file must have them: checked, and shadowed.
#include "trace_db/TraceLayout.h"

#include "trace_db/Schema.h"
#include "trace_db/Sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace pto::tracedb {
namespace {

struct TableLayout {
    std::string name;
    std::vector<std::string> columns;
};

/// What schema.sql creates, read back from an in-memory database built from it.
struct SchemaLayout {
    std::vector<TableLayout> tables;
    std::vector<TableLayout> views;       ///< the same order as tempViewSql
    std::vector<std::string> tempViewSql; ///< "CREATE TEMP VIEW ..." of every view
};

std::vector<std::string> textColumn(SqliteDb& db, std::string_view sql, std::string_view arg) {
    Statement statement(db, sql);
    if (!arg.empty()) statement.bindAll(arg);
    std::vector<std::string> values;
    while (statement.step()) {
        std::string value;
        statement.read(0, value);
        values.push_back(std::move(value));
    }
    return values;
}

SchemaLayout readSchemaLayout() {
    SqliteDb db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "schema.sql");
    createSchema(db);
    SchemaLayout layout;
    for (std::string& table :
         textColumn(db, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid", {})) {
        std::vector<std::string> columns =
            textColumn(db, "SELECT name FROM pragma_table_info(?)", table);
        layout.tables.push_back({std::move(table), std::move(columns)});
    }
    constexpr std::string_view kCreateView = "CREATE VIEW ";
    for (std::string& view :
         textColumn(db, "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY rowid", {})) {
        const std::string sql =
            textColumn(db, "SELECT sql FROM sqlite_schema WHERE name = ?", view).at(0);
        if (!sql.starts_with(kCreateView))
            throw TraceError("schema.sql: a view must start with 'CREATE VIEW '");
        layout.tempViewSql.push_back("CREATE TEMP VIEW " + sql.substr(kCreateView.size()));
        std::vector<std::string> columns =
            textColumn(db, "SELECT name FROM pragma_table_info(?)", view);
        layout.views.push_back({std::move(view), std::move(columns)});
    }
    return layout;
}

const SchemaLayout& expectedLayout() {
    static const SchemaLayout layout = readSchemaLayout();
    return layout;
}

bool sameLetter(char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
}

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), text.begin(), sameLetter);
}

/// SQLite's names are case-insensitive (ASCII).
bool sameName(std::string_view a, std::string_view b) {
    return a.size() == b.size() && startsWithNoCase(a, b);
}

[[noreturn]] void refuse(const SqliteDb& db, std::string_view table, std::string_view why) {
    throw TraceError(fmt::format("trace '{}' is not a usable PTO Studio trace: table '{}' {}",
                                 db.tracePath(), table, why));
}

/// The one schema entry named `table` (names are case-insensitive in SQLite) is a plain table.
void checkIsPlainTable(SqliteDb& db, const std::string& table) {
    Statement statement(db, "SELECT type, coalesce(sql, '') FROM sqlite_schema "
                            "WHERE name = ? COLLATE NOCASE");
    statement.bindAll(std::string_view(table));
    int entries = 0;
    std::string type, sql;
    while (statement.step()) {
        statement.readAll(type, sql);
        ++entries;
    }
    if (entries == 0) refuse(db, table, "is missing");
    if (entries > 1) refuse(db, table, fmt::format("is defined {} times", entries));
    if (type != "table")
        refuse(db, table,
               fmt::format("is a {}, not a table (a trace is read from tables only)", type));
    if (startsWithNoCase(sql, "CREATE VIRTUAL TABLE"))
        refuse(db, table, "is a virtual table, not a plain table");
}

/// Every column schema.sql gives `expected` (as of `version`) exists, and none is hidden or
/// generated.
void checkColumns(SqliteDb& db, const TableLayout& expected, int version) {
    Statement statement(db, "SELECT name, hidden FROM pragma_table_xinfo(?)");
    statement.bindAll(std::string_view(expected.name));
    std::vector<std::string> present;
    while (statement.step()) {
        std::string name;
        std::int64_t hidden = 0;
        statement.readAll(name, hidden);
        if (hidden != 0)
            refuse(db, expected.name,
                   fmt::format("has a generated or hidden column '{}' (computed on every read)",
                               name));
        present.push_back(std::move(name));
    }
    for (const std::string& column : expected.columns)
        if (!addedAfter(expected.name, column, version) &&
            std::none_of(present.begin(), present.end(),
                         [&](const std::string& name) { return sameName(name, column); }))
            refuse(db, expected.name, fmt::format("has no column '{}'", column));
}

/// A view of schema.sql that is a plain table in a file of `version` (node and instr before
/// schema 4).
bool isTableIn(std::string_view view, int version) {
    if (version >= kCompactSince) return false;
    const auto compacted = compactedTables();
    return std::any_of(compacted.begin(), compacted.end(),
                       [&](const CompactedTable& c) { return c.table == view; });
}

} // namespace

void checkTableLayout(SqliteDb& db, int version) {
    const SchemaLayout& layout = expectedLayout();
    for (const TableLayout& table : layout.tables) {
        if (tableAddedAfter(table.name, version)) continue;
        checkIsPlainTable(db, table.name);
        checkColumns(db, table, version);
    }
    for (const TableLayout& view : layout.views) {
        if (!isTableIn(view.name, version)) continue;
        checkIsPlainTable(db, view.name);
        checkColumns(db, view, version);
    }
}

void shadowViews(SqliteDb& db, int version) {
    db.exec("PRAGMA temp_store = MEMORY");
    const SchemaLayout& layout = expectedLayout();
    for (std::size_t i = 0; i < layout.views.size(); ++i)
        if (!isTableIn(layout.views[i].name, version)) db.exec(layout.tempViewSql[i]);
}

} // namespace pto::tracedb
