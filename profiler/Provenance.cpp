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

std::optional<std::int64_t> ProvenanceResolver::parentOf(std::int64_t stageId,
                                                         std::int64_t nodeId) {
    if (auto it = m_parents.find(stageId); it != m_parents.end()) {
        const auto p = it->second.find(nodeId);
        return p == it->second.end() ? std::nullopt : std::optional<std::int64_t>(p->second);
    }
    // One lookup through the (stage_id, id) primary key: no stage-wide load for one node.
    std::optional<std::int64_t> parent;
    forEachRow(
        m_reader,
        fmt::format("SELECT parent_id FROM node WHERE stage_id = {} AND id = {}", stageId, nodeId),
        [&](auto row) {
            if (!cellNull(row[0])) parent = cellInt(row[0]);
        });
    return parent;
}

void ProvenanceResolver::loadAncestry(std::int64_t stageId) {
    // Bounded by the number of stages: each step moves one stage up.
    for (std::size_t steps = 0; steps <= m_parentStage.size(); ++steps) {
        const auto it = m_parentStage.find(stageId);
        if (it == m_parentStage.end()) return;
        parents(stageId);
        stageId = it->second;
    }
}

std::optional<std::int64_t> ProvenanceResolver::findRoot(std::int64_t stageId,
                                                         std::int64_t nodeId) {
    if (stageId == m_root) return nodeId;
    auto& memo = m_memo[stageId];
    if (auto it = memo.find(nodeId); it != memo.end()) return it->second;
    std::optional<std::int64_t> root;
    const auto stage = m_parentStage.find(stageId);
    // Recursion depth is bounded by the stage count: each step moves one stage up.
    if (stage != m_parentStage.end())
        if (const auto parent = parentOf(stageId, nodeId)) root = findRoot(stage->second, *parent);
    m_memo[stageId].emplace(nodeId, root);
    return root;
}

std::int64_t ProvenanceResolver::rootOf(std::int64_t stageId, std::int64_t nodeId) {
    if (!m_parents.contains(stageId)) loadAncestry(stageId);
    return findRoot(stageId, nodeId).value_or(-1);
}

} // namespace pto::prof
