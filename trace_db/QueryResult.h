// Values and results of TraceReader::query, the generic read-only SQL entry point.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace pto::tracedb {

/// A BLOB cell is reported by size only; fetch tensor data with TraceReader::tensorData.
struct BlobSize {
    std::size_t bytes = 0;
    bool operator==(const BlobSize&) const = default;
};

/// One cell: NULL, INTEGER, REAL, TEXT or the size of a BLOB.
using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string, BlobSize>;

/// Columns and rows of the last statement that produced columns.
struct QueryResult {
    std::vector<std::string> columns;
    std::vector<std::vector<SqlValue>> rows;
};

/// Called once per result row with that statement's column names; return false to stop.
using RowCallback =
    std::function<bool(std::span<const std::string> columns, std::span<const SqlValue> row)>;

} // namespace pto::tracedb
