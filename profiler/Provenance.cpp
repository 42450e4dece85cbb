// Provenance walk from any stage's node to the parsed program's op.
#include "profiler/Provenance.h"

#include "profiler/SqlRows.h"

#include <fmt/format.h>

namespace pto::prof {

ProvenanceResolver::ProvenanceResolver(const tracedb::TraceReader& reader) : m_reader(reader) {
    for (const tracedb::StageRow& s : reader.stages()) {
        if (s.parentStageId)
            m_parentStage[s.id] = *s.parentStageId;
        else if (m_root < 0)
            m_root = s.id;
    }
}

const std::unordered_map<std::int64_t, std::int64_t>&
ProvenanceResolver::parents(std::int64_t stageId) {
    auto it = m_parents.find(stageId);
    if (it != m_parents.end()) return it->second;
    auto& map = m_parents[stageId];
    forEachRow(m_reader,
               fmt::format("SELECT id, parent_id FROM node WHERE stage_id = {} AND parent_id "
                           "IS NOT NULL",
                           stageId),
               [&](auto row) { map.emplace(cellInt(row[0]), cellInt(row[1])); });
    return map;
}

std::int64_t ProvenanceResolver::rootOf(std::int64_t stageId, std::int64_t nodeId) {
    auto& memo = m_memo[stageId];
    if (auto it = memo.find(nodeId); it != memo.end()) return it->second;
    std::int64_t stage = stageId, id = nodeId;
    // Bounded by the number of stages: each step moves one stage up.
    for (std::size_t steps = 0; stage != m_root && steps <= m_parentStage.size(); ++steps) {
        auto ps = m_parentStage.find(stage);
        if (ps == m_parentStage.end()) {
            id = -1;
            break;
        }
        const auto& map = parents(stage);
        auto p = map.find(id);
        if (p == map.end()) {
            id = -1;
            break;
        }
        id = p->second;
        stage = ps->second;
    }
    if (stage != m_root) id = -1;
    memo.emplace(nodeId, id);
    return id;
}

} // namespace pto::prof
