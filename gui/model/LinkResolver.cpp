// Provenance links for the shared selection: entity → Tensor op → derived entities.
#include "gui/model/LinkResolver.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

namespace pto::gui {
namespace {

std::int64_t intOf(const tracedb::SqlValue& value) {
    const auto* number = std::get_if<std::int64_t>(&value);
    return number ? *number : -1;
}

} // namespace

LinkResolver::LinkResolver(const tracedb::TraceReader& reader)
    : m_reader(reader), m_provenance(reader) {}

void LinkResolver::loadInstrs() {
    if (m_instrsLoaded) return;
    m_instrsLoaded = true;
    m_reader.query("SELECT id, tile_stage_id, tile_op_id FROM instr WHERE tile_op_id IS NOT NULL",
                   [this](auto, auto row) {
                       const std::int64_t op = m_provenance.rootOf(intOf(row[1]), intOf(row[2]));
                       m_instrOp.emplace(intOf(row[0]), op);
                       return true;
                   });
}

std::int64_t LinkResolver::tensorOpOfInstr(std::int64_t instrId) {
    loadInstrs();
    const auto it = m_instrOp.find(instrId);
    return it == m_instrOp.end() ? -1 : it->second;
}

std::int64_t LinkResolver::tensorOpOfNode(std::int64_t stageId, std::int64_t nodeId) {
    if (stageId == rootStage()) return nodeId;
    return m_provenance.rootOf(stageId, nodeId);
}

std::int64_t LinkResolver::tensorOpOf(const EntityRef& ref) {
    switch (ref.kind) {
    case EntityRef::Kind::Node:
        return tensorOpOfNode(ref.stageId, ref.id);
    case EntityRef::Kind::Instr:
        return tensorOpOfInstr(ref.id);
    case EntityRef::Kind::Slice: {
        std::int64_t instr = -1;
        m_reader.query(fmt::format("SELECT instr_id FROM slice WHERE id = {}", ref.id),
                       [&](auto, auto row) {
                           instr = intOf(row[0]);
                           return false;
                       });
        return instr < 0 ? -1 : tensorOpOfInstr(instr);
    }
    case EntityRef::Kind::Track:
    case EntityRef::Kind::None:
        break;
    }
    return -1;
}

std::vector<std::int64_t> LinkResolver::nodesOf(std::int64_t tensorOp, std::int64_t stageId) {
    if (stageId == rootStage()) return {tensorOp};
    std::vector<std::int64_t> ids;
    m_reader.query(fmt::format("SELECT id FROM node WHERE stage_id = {} ORDER BY id", stageId),
                   [&](auto, auto row) {
                       const std::int64_t id = intOf(row[0]);
                       if (m_provenance.rootOf(stageId, id) == tensorOp) ids.push_back(id);
                       return true;
                   });
    return ids;
}

std::vector<std::int64_t> LinkResolver::instrsOf(std::int64_t tensorOp) {
    loadInstrs();
    std::vector<std::int64_t> ids;
    for (const auto& [instr, op] : m_instrOp)
        if (op == tensorOp) ids.push_back(instr);
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::vector<std::int64_t> LinkResolver::slicesOf(std::int64_t tensorOp) {
    loadInstrs();
    std::vector<std::int64_t> ids;
    m_reader.query("SELECT id, instr_id FROM slice WHERE instr_id IS NOT NULL",
                   [&](auto, auto row) {
                       const auto it = m_instrOp.find(intOf(row[1]));
                       if (it != m_instrOp.end() && it->second == tensorOp)
                           ids.push_back(intOf(row[0]));
                       return true;
                   });
    std::sort(ids.begin(), ids.end());
    return ids;
}

} // namespace pto::gui
