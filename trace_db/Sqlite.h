// Thin RAII wrappers over the SQLite C API that turn every error into a TraceError naming the
// trace.
#pragma once

#include "trace_db/Enums.h"
#include "trace_db/QueryResult.h"
#include "trace_db/TraceError.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace pto::tracedb {

template <typename T>
concept IsOptional = std::is_same_v<T, std::optional<typename T::value_type>>;

/// One connection. `tracePath` is the file named in error messages: for a writer that is the
/// trace being produced, not the temp file the connection really has open.
class SqliteDb {
public:
    SqliteDb(const std::filesystem::path& file, int openFlags, std::string tracePath);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    sqlite3* handle() const { return m_db; }
    const std::string& tracePath() const { return m_tracePath; }

    /// Runs one or more statements that return no rows.
    void exec(std::string_view sql);
    /// First column of the first row of a single statement (0 when there is no row).
    std::int64_t queryInt(std::string_view sql);
    bool hasTable(std::string_view name);
    /// Closes now and reports a failure (the destructor closes silently).
    void close();

    /// Throws the TraceError for SQLite result code `rc`; `doing` says what was attempted.
    [[noreturn]] void fail(int rc, std::string_view doing) const;

private:
    sqlite3* m_db = nullptr;
    std::string m_tracePath;
};

/// One prepared statement. Bound text and blobs are not copied: they must stay alive until
/// the statement has been stepped.
class Statement {
public:
    Statement(SqliteDb& db, std::string_view sql);
    ~Statement();
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    /// Prepares the first statement of `sql` and advances `sql` past it; nullopt when only
    /// whitespace and comments remain. A prepare error is thrown.
    static std::optional<Statement> prepareNext(SqliteDb& db, std::string_view& sql);

    /// Binds values to parameters 1..N in order.
    template <typename... Ts> void bindAll(const Ts&... values) { bindFrom(1, values...); }
    /// Binds values to parameters first..first+N-1 (one row of a multi-row INSERT).
    template <typename... Ts> void bindFrom(int first, const Ts&... values) {
        int index = first;
        (bind(index++, values), ...);
    }
    /// int64/int, double, string (empty = NULL), string_view (always text), optional (nullopt
    /// = NULL), trace enums (their stored name), byte vectors (empty = NULL), nullptr.
    template <typename T> void bind(int index, const T& value);

    /// Steps once; true when a row is available.
    bool step();
    void reset();
    /// Steps a statement that returns no rows, then resets it.
    void run();

    /// Reads columns 0..N-1 of the current row into `out...`, the inverse of bindAll.
    template <typename... Ts> void readAll(Ts&... out) const {
        int column = 0;
        (read(column++, out), ...);
    }
    template <typename T> void read(int column, T& out) const;

    int columnCount() const;
    std::string columnName(int column) const;
    SqlValue value(int column) const;
    bool isReadOnly() const;
    std::string sql() const;

private:
    Statement(SqliteDb& db, sqlite3_stmt* stmt) : m_db(&db), m_stmt(stmt) {}

    void bindInt(int index, std::int64_t value);
    void bindReal(int index, double value);
    void bindText(int index, std::string_view value);
    void bindBlob(int index, const std::vector<std::byte>& value);
    void bindNull(int index);
    void check(int rc, std::string_view doing) const;

    bool isNull(int column) const;
    std::int64_t columnInt(int column) const;
    double columnReal(int column) const;
    std::string columnText(int column) const;
    std::vector<std::byte> columnBlob(int column) const;
    [[noreturn]] void failBadEnum(std::string_view what, const std::string& text) const;

    SqliteDb* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
};

template <typename T> void Statement::bind(int index, const T& value) {
    if constexpr (std::is_same_v<T, std::nullptr_t>) {
        bindNull(index);
    } else if constexpr (std::is_integral_v<T>) {
        bindInt(index, static_cast<std::int64_t>(value));
    } else if constexpr (std::is_floating_point_v<T>) {
        bindReal(index, static_cast<double>(value));
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (value.empty())
            bindNull(index);
        else
            bindText(index, value);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
        bindText(index, value);
    } else if constexpr (std::is_same_v<T, std::vector<std::byte>>) {
        if (value.empty())
            bindNull(index);
        else
            bindBlob(index, value);
    } else if constexpr (TraceEnum<T>) {
        bindText(index, enumName(value));
    } else {
        static_assert(IsOptional<T>, "Statement::bind: unsupported parameter type");
        if (value)
            bind(index, *value);
        else
            bindNull(index);
    }
}

template <typename T> void Statement::read(int column, T& out) const {
    if constexpr (std::is_same_v<T, std::int64_t>) {
        out = columnInt(column);
    } else if constexpr (std::is_same_v<T, double>) {
        out = columnReal(column);
    } else if constexpr (std::is_same_v<T, std::string>) {
        out = columnText(column);
    } else if constexpr (std::is_same_v<T, std::vector<std::byte>>) {
        out = columnBlob(column);
    } else if constexpr (TraceEnum<T>) {
        std::string text = columnText(column);
        std::optional<T> parsed = parseEnum<T>(text);
        if (!parsed) failBadEnum(EnumTraits<T>::kWhat, text);
        out = *parsed;
    } else {
        static_assert(IsOptional<T>, "Statement::read: unsupported column type");
        if (isNull(column)) {
            out.reset();
        } else {
            typename T::value_type inner{};
            read(column, inner);
            out = std::move(inner);
        }
    }
}

} // namespace pto::tracedb
