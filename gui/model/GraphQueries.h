// Subgraph queries over a stage: search by text, neighbourhood of a node, paths from A to B.
#pragma once

#include "gui/model/GraphStage.h"

#include <string_view>
#include <vector>

namespace pto::gui {

/// Successors and predecessors of every node, as compressed rows (built once per stage).
struct GraphAdjacency {
    std::vector<int> outStart, out; ///< successors of node i: out[outStart[i] .. outStart[i+1])
    std::vector<int> inStart, in;   ///< predecessors, the same way

    static GraphAdjacency build(const GraphStage& stage);
};

/// Nodes whose name, kind or label text contains `text` (case-insensitive), by index,
/// at most `limit`.
std::vector<int> searchNodes(const GraphStage& stage, std::string_view text,
                             std::size_t limit = 10000);

/// Nodes within `radius` edges of `node`, following edges either way, ascending; at most
/// `limit` (the nearest rings first).
std::vector<int> neighbourhood(const GraphAdjacency& adj, int node, int radius,
                               std::size_t limit = 5000);

/// Nodes on some directed path from `from` to `to` (both included), ascending; empty when
/// `to` is not reachable from `from`.
std::vector<int> pathNodes(const GraphAdjacency& adj, int from, int to);

} // namespace pto::gui
