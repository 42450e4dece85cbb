// Small helpers to read TraceReader::query cells as numbers and text (internal to profiler).
#pragma once

#include "trace_db/QueryResult.h"
#include "trace_db/TraceReader.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pto::prof {

inline std::int64_t cellInt(const tracedb::SqlValue& v, std::int64_t fallback = 0) {
    if (auto* i = std::get_if<std::int64_t>(&v)) return *i;
    if (auto* d = std::get_if<double>(&v)) return std::int64_t(*d);
    return fallback;
}

inline double cellReal(const tracedb::SqlValue& v, double fallback = 0) {
    if (auto* d = std::get_if<double>(&v)) return *d;
    if (auto* i = std::get_if<std::int64_t>(&v)) return double(*i);
    return fallback;
}

inline bool cellNull(const tracedb::SqlValue& v) {
    return std::holds_alternative<std::monostate>(v);
}

inline std::string cellText(const tracedb::SqlValue& v) {
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (auto* d = std::get_if<double>(&v)) return std::to_string(*d);
    return {};
}

/// Thrown by CellSum when integers overflow 64 bits (the caller names the trace).
struct CellSumOverflow : std::overflow_error {
    CellSumOverflow() : std::overflow_error("integer overflow") {}
};

/// A sum of cells as SQLite's sum() makes it, for sums moved out of SQL: integers exactly (an
/// overflow throws, as sum() failed with "integer overflow" — a damaged trace's durations must
/// not wrap into nonsense), REAL cells in floating point; the total then reads as cellInt reads
/// a REAL sum (truncated). NULL and text cells add nothing.
class CellSum {
public:
    void add(const tracedb::SqlValue& v) {
        if (auto* i = std::get_if<std::int64_t>(&v)) {
            if (__builtin_add_overflow(m_integer, *i, &m_integer)) throw CellSumOverflow();
        } else if (auto* d = std::get_if<double>(&v)) {
            m_real += *d;
            m_anyReal = true;
        }
    }
    std::int64_t value() const {
        return m_anyReal ? cellInt(tracedb::SqlValue(double(m_integer) + m_real)) : m_integer;
    }

private:
    std::int64_t m_integer = 0;
    double m_real = 0;
    bool m_anyReal = false;
};

/// Streams the rows of `sql` to `f(row)` (a span of cells).
template <typename F>
void forEachRow(const tracedb::TraceReader& reader, std::string_view sql, F&& f) {
    reader.query(sql, [&](std::span<const std::string>, std::span<const tracedb::SqlValue> row) {
        f(row);
        return true;
    });
}

/// The first column of every row of `sql`, as integers.
inline std::vector<std::int64_t> intColumn(const tracedb::TraceReader& reader,
                                           std::string_view sql) {
    std::vector<std::int64_t> values;
    forEachRow(reader, sql, [&](auto row) { values.push_back(cellInt(row[0])); });
    return values;
}

} // namespace pto::prof
