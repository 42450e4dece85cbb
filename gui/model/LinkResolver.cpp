// Provenance links for the shared selection: entity → Tensor op → derived entities.
#include "gui/model/LinkResolver.h"

#include "profiler/DictCells.h"
#include "profiler/SqlRows.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_set>

namespace pto::gui {
namespace {

using prof::cellInt;
using prof::cellNull;

constexpr std::size_t kInChunk = 500;     ///< ids per `IN (...)` list
constexpr std::size_t kScanAbove = 20000; ///< more instructions: scan the slices once

std::int64_t intOr(const tracedb::SqlValue& value, std::int64_t fallback = -1) {
    return cellNull(value) ? fallback : cellInt(value, fallback);
}

/// Runs `sqlPrefix (ids...)` over `ids` in chunks, handing every row to `onRow`.
template <typename F>
void forEachChunk(const tracedb::TraceReader& reader, std::string_view sqlPrefix,
                  std::span<const std::int64_t> ids, F&& onRow) {
    for (std::size_t at = 0; at < ids.size(); at += kInChunk) {
        const auto chunk = ids.subspan(at, std::min(kInChunk, ids.size() - at));
        prof::forEachRow(reader, fmt::format("{} ({})", sqlPrefix, fmt::join(chunk, ",")), onRow);
    }
}

} // namespace

// Schema 4 keeps instructions in instr_data behind the view `instr`; the columns read here are
// plain in both, and a statement over the view parses its definition on every prepare (a click
// 16 → 49 µs), so the table is read directly.
LinkResolver::LinkResolver(const tracedb::TraceReader& reader)
    : m_reader(reader), m_provenance(reader),
      m_instrTable(prof::keepsTextInDict(reader) ? "instr_data" : "instr") {}

std::optional<std::int64_t> LinkResolver::rootOf(std::int64_t stageId, std::int64_t nodeId) {
    return m_provenance.findRoot(stageId, nodeId);
}

void LinkResolver::loadInstrs() {
    if (m_instrsLoaded) return;
    m_instrsLoaded = true;
    for (std::int64_t stage : prof::intColumn(
             m_reader, fmt::format("SELECT DISTINCT tile_stage_id FROM {} WHERE tile_stage_id "
                                   "IS NOT NULL",
                                   m_instrTable)))
        m_provenance.loadAncestry(stage);
    prof::forEachRow(m_reader,
                     fmt::format("SELECT id, stage_id, block_id, tile_stage_id, tile_op_id FROM {} "
                                 "ORDER BY id",
                                 m_instrTable),
                     [this](auto row) {
                         const std::int64_t id = cellInt(row[0]);
                         if (m_blockStage < 0) m_blockStage = cellInt(row[1]);
                         m_instrBlock.emplace(id, cellInt(row[2]));
                         if (cellNull(row[3]) || cellNull(row[4])) return;
                         const NodeKey tile{cellInt(row[3]), cellInt(row[4])};
                         m_instrTileOp.emplace(id, tile);
                         const auto op = rootOf(tile.stageId, tile.id);
                         if (!op) return;
                         m_instrOp.emplace(id, *op);
                         m_opInstrs[*op].push_back(id);
                     });
}

const std::unordered_map<std::int64_t, std::vector<std::int64_t>>&
LinkResolver::nodesByRoot(std::int64_t stageId) {
    if (auto it = m_byRoot.find(stageId); it != m_byRoot.end()) return it->second;
    auto& map = m_byRoot[stageId];
    m_provenance.loadAncestry(stageId);
    prof::forEachRow(m_reader,
                     fmt::format("SELECT id FROM node WHERE stage_id = {} ORDER BY id", stageId),
                     [&](auto row) {
                         const std::int64_t id = cellInt(row[0]);
                         if (const auto root = rootOf(stageId, id)) map[*root].push_back(id);
                     });
    return map;
}

std::int64_t LinkResolver::tensorOpOfInstr(std::int64_t instrId) {
    if (m_instrsLoaded) {
        const auto it = m_instrOp.find(instrId);
        return it == m_instrOp.end() ? -1 : it->second;
    }
    const NodeKey tile = tileOpOfInstr(instrId);
    return tile.valid() ? tensorOpOfNode(tile.stageId, tile.id) : -1;
}

std::int64_t LinkResolver::tensorOpOfNode(std::int64_t stageId, std::int64_t nodeId) {
    return rootOf(stageId, nodeId).value_or(-1);
}

std::int64_t LinkResolver::tensorOpOf(const EntityRef& ref) {
    switch (ref.kind) {
    case EntityRef::Kind::Node:
        return tensorOpOfNode(ref.stageId, ref.id);
    case EntityRef::Kind::Instr:
        return tensorOpOfInstr(ref.id);
    case EntityRef::Kind::Slice: {
        const std::int64_t instr = instrOfSlice(ref.id);
        return instr < 0 ? -1 : tensorOpOfInstr(instr);
    }
    case EntityRef::Kind::Track:
    case EntityRef::Kind::None:
        break;
    }
    return -1;
}

bool LinkResolver::isRootLoop(std::int64_t rootOp) {
    if (!m_rootLoops)
        m_rootLoops = prof::intColumn(
            m_reader, fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = 'for' ORDER "
                                  "BY id",
                                  rootStage()));
    return std::binary_search(m_rootLoops->begin(), m_rootLoops->end(), rootOp);
}

NodeKey LinkResolver::firstCopyOf(const prof::NodeRef& body, std::int64_t loop) {
    const NodeKey key{body.stageId, body.id};
    if (const auto it = m_firstCopy.find(key); it != m_firstCopy.end()) return it->second;
    // The copies share the loop, kind and source position (and the name when the position is
    // unknown), as the profiler's LoopBodyOps groups them: the candidates are the stage's nodes
    // at that position, each checked to be a body op of the same loop.
    std::string kind, name;
    std::int64_t line = 0, col = 0;
    prof::forEachRow(m_reader,
                     fmt::format("SELECT kind, name, coalesce(src_line, 0), coalesce(src_col, 0) "
                                 "FROM node WHERE stage_id = {} AND id = {}",
                                 body.stageId, body.id),
                     [&](auto row) {
                         kind = prof::cellText(row[0]);
                         name = prof::cellText(row[1]);
                         line = cellInt(row[2]);
                         col = cellInt(row[3]);
                     });
    const bool byName = line <= 0 || col <= 0;
    std::vector<std::int64_t> copies;
    prof::forEachRow(m_reader,
                     fmt::format("SELECT id, kind, name FROM node WHERE stage_id = {} AND "
                                 "coalesce(src_line, 0) = {} AND coalesce(src_col, 0) = {} "
                                 "ORDER BY id",
                                 body.stageId, line, col),
                     [&](auto row) {
                         if (prof::cellText(row[1]) != kind) return;
                         if (byName && prof::cellText(row[2]) != name) return;
                         copies.push_back(cellInt(row[0]));
                     });
    NodeKey first = key;
    std::vector<NodeKey> members{key};
    for (std::int64_t id : copies) {
        if (id == body.id) continue;
        const auto copyBody = m_provenance.loopBodyOf(body.stageId, id);
        if (!copyBody || copyBody->stageId != body.stageId || copyBody->id != id) continue;
        if (rootOf(body.stageId, id) != loop) continue;
        members.push_back({body.stageId, id});
        first = std::min(first, members.back());
    }
    for (const NodeKey& member : members) m_firstCopy.emplace(member, first);
    return first;
}

NodeKey LinkResolver::programOpOfNode(std::int64_t stageId, std::int64_t nodeId) {
    const auto root = rootOf(stageId, nodeId);
    if (!root) return {};
    if (isRootLoop(*root))
        if (const auto body = m_provenance.loopBodyOf(stageId, nodeId))
            return firstCopyOf(*body, *root);
    return {rootStage(), *root};
}

NodeKey LinkResolver::programOpOfInstr(std::int64_t instrId) {
    const NodeKey tile = tileOpOfInstr(instrId);
    return tile.valid() ? programOpOfNode(tile.stageId, tile.id) : NodeKey{};
}

NodeKey LinkResolver::programOpOf(const EntityRef& ref) {
    switch (ref.kind) {
    case EntityRef::Kind::Node:
        return programOpOfNode(ref.stageId, ref.id);
    case EntityRef::Kind::Instr:
        return programOpOfInstr(ref.id);
    case EntityRef::Kind::Slice: {
        const std::int64_t instr = instrOfSlice(ref.id);
        return instr < 0 ? NodeKey{} : programOpOfInstr(instr);
    }
    case EntityRef::Kind::Track:
    case EntityRef::Kind::None:
        break;
    }
    return {};
}

std::string LinkResolver::opText(const NodeKey& node) const {
    std::string text;
    prof::forEachRow(m_reader,
                     fmt::format("SELECT kind, name FROM node WHERE stage_id = {} AND id = {}",
                                 node.stageId, node.id),
                     [&](auto row) {
                         text = prof::cellText(row[0]);
                         const std::string name = prof::cellText(row[1]);
                         if (!name.empty() && name != text) text += " " + name;
                     });
    return text;
}

std::vector<std::int64_t> LinkResolver::nodesOf(std::int64_t tensorOp, std::int64_t stageId) {
    if (stageId == rootStage()) return {tensorOp};
    const auto& map = nodesByRoot(stageId);
    const auto it = map.find(tensorOp);
    return it == map.end() ? std::vector<std::int64_t>{} : it->second;
}

std::vector<std::int64_t> LinkResolver::instrsOf(std::int64_t tensorOp) {
    loadInstrs();
    const auto it = m_opInstrs.find(tensorOp);
    return it == m_opInstrs.end() ? std::vector<std::int64_t>{} : it->second;
}

std::vector<std::int64_t> LinkResolver::slicesOf(std::int64_t tensorOp) {
    const std::vector<std::int64_t> instrs = instrsOf(tensorOp);
    return slicesOfInstrs(instrs);
}

NodeKey LinkResolver::tileOpOfInstr(std::int64_t instrId) {
    if (m_instrsLoaded) {
        const auto it = m_instrTileOp.find(instrId);
        return it == m_instrTileOp.end() ? NodeKey{} : it->second;
    }
    NodeKey tile;
    prof::forEachRow(m_reader,
                     fmt::format("SELECT tile_stage_id, tile_op_id FROM {} WHERE id = {} AND "
                                 "tile_op_id IS NOT NULL",
                                 m_instrTable, instrId),
                     [&](auto row) {
                         tile = {intOr(row[0]), intOr(row[1])};
                     });
    return tile;
}

std::int64_t LinkResolver::instrOfSlice(std::int64_t sliceId) const {
    std::int64_t instr = -1;
    prof::forEachRow(m_reader, fmt::format("SELECT instr_id FROM slice WHERE id = {}", sliceId),
                     [&](auto row) { instr = intOr(row[0]); });
    return instr;
}

std::vector<std::int64_t> LinkResolver::instrsOfTileOp(std::int64_t tileStage,
                                                       std::int64_t tileOp) {
    return prof::intColumn(m_reader, fmt::format("SELECT id FROM {} WHERE tile_stage_id = {} "
                                                 "AND tile_op_id = {} ORDER BY id",
                                                 m_instrTable, tileStage, tileOp));
}

std::vector<std::int64_t> LinkResolver::blocksOfTileOp(std::int64_t tileStage,
                                                       std::int64_t tileOp) {
    return prof::intColumn(m_reader,
                           fmt::format("SELECT DISTINCT block_id FROM {} WHERE tile_stage_id = "
                                       "{} AND tile_op_id = {} ORDER BY block_id",
                                       m_instrTable, tileStage, tileOp));
}

std::vector<std::int64_t> LinkResolver::blocksOf(std::int64_t tensorOp) {
    std::set<std::int64_t> blocks;
    for (std::int64_t instr : instrsOf(tensorOp)) blocks.insert(m_instrBlock.at(instr));
    return {blocks.begin(), blocks.end()};
}

std::int64_t LinkResolver::blockStage() {
    loadInstrs();
    return m_blockStage;
}

std::vector<std::int64_t>
LinkResolver::slicesOfInstrs(std::span<const std::int64_t> instrIds) const {
    std::vector<std::int64_t> ids;
    if (instrIds.size() <= kScanAbove) {
        forEachChunk(m_reader, "SELECT id FROM slice WHERE instr_id IS NOT NULL AND instr_id IN",
                     instrIds, [&](auto row) { ids.push_back(cellInt(row[0])); });
        std::sort(ids.begin(), ids.end());
        return ids;
    }
    // Many instructions: one sequential pass beats that many index probes (5x at 627 k).
    const std::unordered_set<std::int64_t> wanted(instrIds.begin(), instrIds.end());
    prof::forEachRow(m_reader, "SELECT id, instr_id FROM slice WHERE instr_id IS NOT NULL",
                     [&](auto row) {
                         if (wanted.count(cellInt(row[1]))) ids.push_back(cellInt(row[0]));
                     });
    std::sort(ids.begin(), ids.end());
    return ids;
}

CycleRange LinkResolver::timeRangeOf(std::span<const std::int64_t> sliceIds) const {
    CycleRange range{std::numeric_limits<std::int64_t>::max(),
                     std::numeric_limits<std::int64_t>::min()};
    forEachChunk(m_reader, "SELECT ts, ts + dur FROM slice WHERE id IN", sliceIds, [&](auto row) {
        range.begin = std::min(range.begin, cellInt(row[0]));
        range.end = std::max(range.end, cellInt(row[1]));
    });
    if (range.begin > range.end) return {};
    range.end = std::max(range.end, range.begin + 1); // an instant still shows
    return range;
}

} // namespace pto::gui
