// Builds the long-form `metric` rows the analyses store in the trace file.
#pragma once

#include "trace_db/Rows.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto::prof {

/// Rows of one analysis; entity ids follow docs/PROFILER.md (core: the core's track id,
/// task: the Exec-stage node id, tensor_op: the parsed program's node id, loop_op: an op of an
/// unrolled loop's body, the node id of its first copy in the stage of its `stage` row,
/// src_line: the line).
class MetricList {
public:
    MetricList(std::vector<tracedb::MetricRow>& rows, std::string analysis)
        : m_rows(rows), m_analysis(std::move(analysis)) {}

    void value(std::string_view entity, std::optional<std::int64_t> id, std::string_view key,
               double v) {
        m_rows.push_back({m_analysis, std::string(entity), id, std::string(key), v, {}});
    }
    void text(std::string_view entity, std::optional<std::int64_t> id, std::string_view key,
              std::string t) {
        m_rows.push_back(
            {m_analysis, std::string(entity), id, std::string(key), std::nullopt, std::move(t)});
    }

private:
    std::vector<tracedb::MetricRow>& m_rows;
    std::string m_analysis;
};

} // namespace pto::prof
