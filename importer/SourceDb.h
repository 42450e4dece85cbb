// A read-only connection to a profiler's SQLite file, treated as untrusted: opened immutable
// (nothing written beside it), tables only (a view in a table's place counts as missing), and
// every query stopped after a time limit. Errors are ImportError naming the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace pto::importer {

/// One row of a query: typed access to its columns.
class DbRow {
public:
    explicit DbRow(sqlite3_stmt* stmt) : m_stmt(stmt) {}
    bool isNull(int column) const;
    /// The value is stored as an integer (not NULL, text, a real or a blob).
    bool isInteger(int column) const;
    bool isText(int column) const;
    bool isReal(int column) const;
    std::int64_t integer(int column) const;
    double real(int column) const;
    std::string text(int column) const;

private:
    sqlite3_stmt* m_stmt;
};

class SourceDb {
public:
    explicit SourceDb(const std::filesystem::path& path);
    ~SourceDb();
    SourceDb(const SourceDb&) = delete;
    SourceDb& operator=(const SourceDb&) = delete;

    const std::string& name() const { return m_name; }
    /// A plain table (not a view) of that name exists.
    bool hasTable(std::string_view table);
    bool hasColumn(std::string_view table, std::string_view column);
    /// Runs `sql` and calls `row` for each result row.
    void forEach(const std::string& sql, const std::function<void(const DbRow&)>& row);

private:
    [[noreturn]] void fail(int rc, std::string_view doing) const;

    sqlite3* m_db = nullptr;
    std::string m_name;
    std::int64_t m_deadlineMs = 0;
};

} // namespace pto::importer
