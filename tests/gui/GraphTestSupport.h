// Helpers of the graph view tests: stages picked and facts counted with SQL on the trace.
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <set>
#include <string>

namespace pto::test {

/// One integer from SQL (the first cell of the first row); -1 when NULL or no row.
inline std::int64_t sqlInt(const tracedb::TraceReader& reader, const std::string& sql) {
    auto r = reader.query(sql);
    if (r.rows.empty() || r.rows[0].empty()) return -1;
    const auto* v = std::get_if<std::int64_t>(&r.rows[0][0]);
    return v ? *v : -1;
}

/// The integers of SQL's first column.
inline std::set<std::int64_t> sqlInts(const tracedb::TraceReader& reader, const std::string& sql) {
    std::set<std::int64_t> out;
    for (const auto& row : reader.query(sql).rows)
        if (const auto* v = std::get_if<std::int64_t>(&row[0])) out.insert(*v);
    return out;
}

/// The last Tile stage recorded in full (the one instructions refer to).
inline std::int64_t lastTileStage(const tracedb::TraceReader& reader) {
    return sqlInt(reader, "SELECT max(stage_id) FROM node WHERE stage_id IN (SELECT id FROM "
                          "stage WHERE level = 'tile')");
}

} // namespace pto::test
