// Links any selected entity to its Tensor op and back to everything that op caused, through
// the provenance chain of the trace (node.parent_id, instr.tile_op_id, slice.instr_id).
#pragma once

#include "gui/model/SelectionModel.h"
#include "profiler/Provenance.h"
#include "trace_db/TraceReader.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace pto::gui {

/// Works on one reader (one thread). Maps are built on first use and kept.
class LinkResolver {
public:
    explicit LinkResolver(const tracedb::TraceReader& reader);

    /// The stage of the parsed program (the Tensor ops); -1 for an empty trace.
    std::int64_t rootStage() const { return m_provenance.rootStage(); }

    /// The Tensor op (a node id of rootStage()) an entity derives from; -1 when it has none
    /// (a task slice, a block function, a track) or the chain breaks.
    std::int64_t tensorOpOf(const EntityRef& ref);
    std::int64_t tensorOpOfInstr(std::int64_t instrId);
    std::int64_t tensorOpOfNode(std::int64_t stageId, std::int64_t nodeId);

    /// Nodes of `stageId` derived from Tensor op `tensorOp`, ascending.
    std::vector<std::int64_t> nodesOf(std::int64_t tensorOp, std::int64_t stageId);
    /// Instructions derived from `tensorOp`, ascending.
    std::vector<std::int64_t> instrsOf(std::int64_t tensorOp);
    /// Timeline slices of those instructions, ascending.
    std::vector<std::int64_t> slicesOf(std::int64_t tensorOp);

private:
    void loadInstrs();

    const tracedb::TraceReader& m_reader;
    prof::ProvenanceResolver m_provenance;
    bool m_instrsLoaded = false;
    std::unordered_map<std::int64_t, std::int64_t> m_instrOp; ///< instr id → Tensor op
};

} // namespace pto::gui
