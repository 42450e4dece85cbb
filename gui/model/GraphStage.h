// The nodes and edges of one recorded IR stage, loaded once into flat arrays for the graph view.
#pragma once

#include "trace_db/Rows.h"
#include "trace_db/TraceReader.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace pto::gui {

class CancelToken;

/// One node of a stage (an op, argument, return, block function, task or kernel). Short
/// attribute texts (kind, dtype, space...) are interned in GraphStage::strings.
struct GraphNode {
    std::int64_t id = 0;
    std::int64_t parentId = -1; ///< node of the parent stage (provenance), -1 when none
    std::int64_t groupId = -1;  ///< node.group_id, -1 when NULL
    std::int64_t blockId = -1;  ///< block function that runs it (from instr; a later round of a
                                ///< counted loop: from its on-chip neighbours), -1 when unknown
    std::int64_t rootOp = -1;   ///< Tile stages: the Tensor op (parsed program) it derives from
    std::int64_t srcLine = -1;
    std::uint16_t kind = 0, dtype = 0, shape = 0, space = 0, core = 0, pipe = 0; ///< strings
    std::uint16_t loop = 0; ///< string: "kv, iter 7" for an op unrolled from a loop (LoopLabel.h)
    std::string name;
};

/// A dataflow edge (or task dependency) between two nodes, by index into GraphStage::nodes.
struct GraphEdge {
    int src = 0;
    int dst = 0;
    std::string label; ///< the carried value's type, or the dependency kind
};

/// A group the stage's nodes fall under, named from another stage (a Tensor op of the parent
/// stage, a block function of the Block stage).
struct GraphGroupName {
    std::string kind;
    std::string name;
    std::int64_t srcLine = -1;
};

struct GraphStage {
    tracedb::StageRow stage;
    bool recorded = false;        ///< false when the trace kept only the stage's counts
    std::vector<GraphNode> nodes; ///< by id
    std::vector<GraphEdge> edges;
    std::vector<std::string> strings{""};
    std::unordered_map<std::int64_t, int> indexOfId;
    std::unordered_map<std::int64_t, GraphGroupName> rootNames; ///< Tensor ops (root stage)
    std::unordered_map<std::int64_t, std::string> blockNames;   ///< block fn id → name

    const std::string& text(std::uint16_t id) const { return strings[id]; }
    int indexOf(std::int64_t nodeId) const {
        auto it = indexOfId.find(nodeId);
        return it == indexOfId.end() ? -1 : it->second;
    }
};

/// Reads stage `stageId` of the trace. Throws std::invalid_argument for an unknown stage.
/// Edges and the op → block map are read on a second connection of the same file in parallel
/// (a reader is used by one thread at a time). `recorded` is false for a stage the compiler
/// kept only as counts (above 20 000 nodes, not the last stage of its level). Cancelling
/// `cancel` (from another thread) interrupts both connections: the load then throws.
GraphStage loadGraphStage(const tracedb::TraceReader& reader, std::int64_t stageId,
                          CancelToken* cancel = nullptr);

/// The label lines of a node: name and kind; shape, dtype, memory space; core and pipe.
std::string nodeLabel(const GraphStage& stage, const GraphNode& node);

} // namespace pto::gui
