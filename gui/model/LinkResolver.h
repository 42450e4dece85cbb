// Links any selected entity to its Tensor op and back to everything that op caused, through
// the provenance chain of the trace (node.parent_id, instr.tile_op_id, slice.instr_id).
#pragma once

#include "gui/model/SelectionModel.h"
#include "profiler/Provenance.h"
#include "trace_db/TraceReader.h"

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace pto::gui {

/// A node of one stage: (stage id, node id); {-1, -1} when there is none.
struct NodeKey {
    std::int64_t stageId = -1;
    std::int64_t id = -1;
    bool valid() const { return stageId >= 0 && id != -1; }
    bool operator==(const NodeKey&) const = default;
    auto operator<=>(const NodeKey&) const = default;
};

/// A time range on the timeline, cycles, [begin, end); empty when begin >= end.
struct CycleRange {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    bool empty() const { return begin >= end; }
};

/// Works on one reader (one thread). A single lookup (a slice, an instruction, a node → its
/// Tensor op) goes through primary keys and indexes, point queries only. Bulk questions build
/// an index on first use, each in one pass over its table (parents of a stage and its
/// ancestors; all instructions), and keep it. Slices of a few instructions come through the
/// trace's slice(instr_id) index; of more than 20 000, from one pass over the slice table.
class LinkResolver {
public:
    explicit LinkResolver(const tracedb::TraceReader& reader);

    /// The stage of the parsed program (the Tensor ops); -1 for an empty trace.
    std::int64_t rootStage() const { return m_provenance.rootStage(); }

    /// The Tensor op (a node id of rootStage()) an entity derives from; -1 when it has none
    /// (a task slice, a block function, a track) or the chain breaks. Note that argument 0 of
    /// the program is node -1 as well; rootOf() tells the two apart.
    std::int64_t tensorOpOf(const EntityRef& ref);
    std::int64_t tensorOpOfInstr(std::int64_t instrId);
    std::int64_t tensorOpOfNode(std::int64_t stageId, std::int64_t nodeId);

    /// The root-stage node (stageId, nodeId) derives from; nullopt when the chain breaks
    /// (a node made from many parents, a stage not recorded in full).
    std::optional<std::int64_t> rootOf(std::int64_t stageId, std::int64_t nodeId);

    /// The op of the program as the user wrote it that an entity derives from: what the op
    /// table lists, the timeline colours and highlights. A Tensor op (a node of rootStage()), or
    /// for a copy of an unrolled loop's body the body op it copies
    /// (prof::ProvenanceResolver::loopBodyOf), named by its copy with the lowest id — the first
    /// iteration's, as the profiler's TensorOpCost names it; every copy of one body op (same
    /// loop, kind and source position) gives that one key. Invalid when there is none.
    NodeKey programOpOf(const EntityRef& ref);
    NodeKey programOpOfNode(std::int64_t stageId, std::int64_t nodeId);
    NodeKey programOpOfInstr(std::int64_t instrId);
    /// The Tensor op (a node of rootStage()) a node comes from: for a copy of a loop's body, the
    /// loop's `for`; -1 when none.
    std::int64_t rootOpOf(const NodeKey& node) {
        return m_provenance.rootOf(node.stageId, node.id);
    }
    /// "exp %p" (kind and name) of a node, "" when the trace has no such node.
    std::string opText(const NodeKey& node) const;

    /// Nodes of `stageId` derived from Tensor op `tensorOp`, ascending.
    std::vector<std::int64_t> nodesOf(std::int64_t tensorOp, std::int64_t stageId);
    /// Instructions derived from `tensorOp`, ascending.
    std::vector<std::int64_t> instrsOf(std::int64_t tensorOp);
    /// Timeline slices of those instructions, ascending.
    std::vector<std::int64_t> slicesOf(std::int64_t tensorOp);

    /// The tile op an instruction was generated for (instr.tile_stage_id, tile_op_id).
    NodeKey tileOpOfInstr(std::int64_t instrId);
    /// The instruction a slice executed (or stalled on); -1 for task slices and waits.
    std::int64_t instrOfSlice(std::int64_t sliceId) const;
    /// Instructions generated for one tile op (a node of a Tile stage), ascending.
    std::vector<std::int64_t> instrsOfTileOp(std::int64_t tileStage, std::int64_t tileOp);
    /// Kernels that run a tile op: node ids of the PTO stage (blockStage()), which are the
    /// block function ids of the Block stages unless kernel texts are shared
    /// (prof::KernelLaunches::blockOfKernel). Ascending.
    std::vector<std::int64_t> blocksOfTileOp(std::int64_t tileStage, std::int64_t tileOp);
    /// Block functions that run any tile of a Tensor op.
    std::vector<std::int64_t> blocksOf(std::int64_t tensorOp);
    /// The stage the instructions' block_id refers to (the PTO stage); -1 without instrs.
    std::int64_t blockStage();
    /// Slices that executed any of `instrIds`, ascending.
    std::vector<std::int64_t> slicesOfInstrs(std::span<const std::int64_t> instrIds) const;
    /// The smallest range covering every slice of `sliceIds` (empty range for none).
    CycleRange timeRangeOf(std::span<const std::int64_t> sliceIds) const;

private:
    void loadInstrs();
    bool isRootLoop(std::int64_t rootOp);
    /// The copy with the lowest id of the body op `body` (a copy, of loop `loop`) copies.
    NodeKey firstCopyOf(const prof::NodeRef& body, std::int64_t loop);
    const std::unordered_map<std::int64_t, std::vector<std::int64_t>>&
    nodesByRoot(std::int64_t stageId);

    const tracedb::TraceReader& m_reader;
    prof::ProvenanceResolver m_provenance;
    const char* m_instrTable; ///< "instr_data" (schema 4) or "instr" (schema 1–3)
    bool m_instrsLoaded = false;
    std::int64_t m_blockStage = -1;
    std::unordered_map<std::int64_t, std::int64_t> m_instrOp;    ///< instr id → Tensor op
    std::unordered_map<std::int64_t, NodeKey> m_instrTileOp;     ///< instr id → tile op
    std::unordered_map<std::int64_t, std::int64_t> m_instrBlock; ///< instr id → block
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> m_opInstrs; ///< op → instrs
    /// stage → (Tensor op → nodes of that stage, ascending)
    std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, std::vector<std::int64_t>>>
        m_byRoot;
    std::optional<std::vector<std::int64_t>> m_rootLoops; ///< `for` ops of the root, ascending
    std::map<NodeKey, NodeKey> m_firstCopy;               ///< body op copy → its first copy
};

} // namespace pto::gui
