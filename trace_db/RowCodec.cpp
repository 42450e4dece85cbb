// Insert SQL built from each codec's column list, and the codec of the args table.
#include "trace_db/RowCodec.h"

#include "trace_db/Schema.h"

#include <variant>

namespace pto::tracedb {

std::string insertSql(std::string_view table, std::string_view columns, int rows) {
    std::string group = "(?";
    for (int i = 1; i < columnCount(columns); ++i) group += ", ?";
    group += ")";
    std::string sql = "INSERT INTO " + std::string(table) + "(" + std::string(columns) + ") VALUES";
    for (int row = 0; row < rows; ++row) sql += (row == 0 ? "" : ", ") + group;
    return sql;
}

std::string columnsAsOf(std::string_view table, std::string_view columns, int version) {
    std::string list;
    while (!columns.empty()) {
        const std::size_t comma = columns.find(", ");
        const std::string_view column = columns.substr(0, comma);
        list += list.empty() ? "" : ", ";
        list += addedAfter(table, column, version) ? "NULL" : column;
        columns.remove_prefix(comma == std::string_view::npos ? columns.size() : comma + 2);
    }
    return list;
}

void RowCodec<ArgRow>::bind(Statement& statement, const ArgRow& row, int first) {
    statement.bindFrom(first, row.argSetId, std::string_view(row.key), nullptr, nullptr, nullptr);
    if (const auto* value = std::get_if<std::int64_t>(&row.value))
        statement.bind(first + 2, *value);
    else if (const auto* text = std::get_if<std::string>(&row.value))
        statement.bind(first + 3, std::string_view(*text));
    else
        statement.bind(first + 4, std::get<double>(row.value));
}

ArgRow RowCodec<ArgRow>::read(const Statement& statement) {
    ArgRow row;
    std::optional<std::int64_t> intValue;
    std::optional<std::string> stringValue;
    std::optional<double> realValue;
    statement.readAll(row.argSetId, row.key, intValue, stringValue, realValue);
    if (intValue)
        row.value = *intValue;
    else if (realValue)
        row.value = *realValue;
    else
        row.value = stringValue.value_or(std::string());
    return row;
}

} // namespace pto::tracedb
