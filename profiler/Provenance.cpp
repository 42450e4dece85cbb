// Provenance walk from any stage's node to the parsed program's op.
#include "profiler/Provenance.h"

#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace pto::prof {

ProvenanceResolver::ProvenanceResolver(const tracedb::TraceReader& reader) : m_reader(reader) {
    const std::vector<tracedb::StageRow> stages = reader.stages();
    for (const tracedb::StageRow& s : stages) {
        if (s.parentStageId)
            m_parentStage[s.id] = *s.parentStageId;
        else if (m_root < 0)
            m_root = s.id;
    }
    cutCycles(stages);
}

void ProvenanceResolver::cutCycles(const std::vector<tracedb::StageRow>& stages) {
    enum class Mark { OnPath, Done };
    std::unordered_map<std::int64_t, Mark> marks;
    std::vector<std::int64_t> path;
    for (const tracedb::StageRow& s : stages) {
        path.clear();
        std::int64_t at = s.id;
        bool reachedTop = false;
        while (!marks.contains(at)) {
            marks.emplace(at, Mark::OnPath);
            path.push_back(at);
            const auto parent = m_parentStage.find(at);
            if (parent == m_parentStage.end()) {
                reachedTop = true;
                break;
            }
            at = parent->second;
        }
        // Walking up met a stage of this very walk: the last one's parent link closes a loop.
        if (!reachedTop && marks.at(at) == Mark::OnPath) {
            m_parentStage.erase(path.back());
            m_cyclicStages.push_back(path.back());
        }
        for (std::int64_t stage : path) marks[stage] = Mark::Done;
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

std::optional<std::int64_t>* ProvenanceResolver::memoOf(std::int64_t stageId, std::int64_t nodeId) {
    const auto stage = m_memo.find(stageId);
    if (stage == m_memo.end()) return nullptr;
    const auto node = stage->second.find(nodeId);
    return node == stage->second.end() ? nullptr : &node->second;
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
    // Iterative, one stage up per step; cutCycles() made the stage chain loop-free, and the
    // step bound holds even so.
    std::vector<std::pair<std::int64_t, std::int64_t>> walked;
    std::optional<std::int64_t> root;
    for (std::size_t steps = 0; steps <= m_parentStage.size(); ++steps) {
        if (stageId == m_root) {
            root = nodeId;
            break;
        }
        if (const auto* known = memoOf(stageId, nodeId)) {
            root = *known;
            break;
        }
        walked.emplace_back(stageId, nodeId);
        const auto stage = m_parentStage.find(stageId);
        if (stage == m_parentStage.end()) break;
        const auto parent = parentOf(stageId, nodeId);
        if (!parent) break;
        stageId = stage->second;
        nodeId = *parent;
    }
    for (const auto& [stage, node] : walked) m_memo[stage].emplace(node, root);
    return root;
}

bool ProvenanceResolver::isLoop(std::int64_t stageId, std::int64_t nodeId) {
    auto it = m_loops.find(stageId);
    if (it == m_loops.end())
        it = m_loops
                 .emplace(stageId, intColumn(m_reader, fmt::format("SELECT id FROM node WHERE "
                                                                   "stage_id = {} AND kind = "
                                                                   "'for' ORDER BY id",
                                                                   stageId)))
                 .first;
    return std::binary_search(it->second.begin(), it->second.end(), nodeId);
}

std::optional<NodeRef> ProvenanceResolver::loopBodyOf(std::int64_t stageId, std::int64_t nodeId) {
    // Up the chain to the root, a node already answered or a break; then back down: a node's
    // answer is its parent's, else itself when its parent is a loop and it is not one.
    std::vector<NodeRef> path{{stageId, nodeId}};
    std::optional<NodeRef> top; // the answer of path.back()
    bool known = false;
    for (std::size_t steps = 0; steps <= m_parentStage.size(); ++steps) {
        const NodeRef at = path.back();
        if (const auto stage = m_bodyMemo.find(at.stageId); stage != m_bodyMemo.end())
            if (const auto node = stage->second.find(at.id); node != stage->second.end()) {
                top = node->second;
                known = true;
                break;
            }
        if (at.stageId == m_root) break;
        const auto stage = m_parentStage.find(at.stageId);
        if (stage == m_parentStage.end()) break;
        const auto parent = parentOf(at.stageId, at.id);
        if (!parent) break;
        path.push_back({stage->second, *parent});
    }
    if (!known) m_bodyMemo[path.back().stageId].emplace(path.back().id, top);
    for (std::size_t i = path.size() - 1; i-- > 0;) {
        const NodeRef &node = path[i], &parent = path[i + 1];
        if (!top && isLoop(parent.stageId, parent.id) && !isLoop(node.stageId, node.id)) top = node;
        m_bodyMemo[node.stageId].emplace(node.id, top);
    }
    return top;
}

std::int64_t ProvenanceResolver::rootOf(std::int64_t stageId, std::int64_t nodeId) {
    if (!m_parents.contains(stageId)) loadAncestry(stageId);
    return findRoot(stageId, nodeId).value_or(-1);
}

} // namespace pto::prof
