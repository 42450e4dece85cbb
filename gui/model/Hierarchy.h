// The hierarchy of a stage's graph: Tensor op → its tiles → (block → its ops), with groups of
// more than kMaxGroupChildren children split into ranges, so every layout stays small.
#pragma once

#include "gui/model/GraphStage.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pto::gui {

/// Viewers of big graphs (TensorBoard, Model Explorer) cap groups near 1000 children.
inline constexpr int kMaxGroupChildren = 1000;

/// An item of the hierarchy: a node of the stage (a leaf) or a group of items.
struct HierarchyItem {
    enum class Kind : std::uint8_t {
        Root,     ///< the stage itself (item 0), always expanded
        Node,     ///< a node of the stage
        TensorOp, ///< the tiles of one Tensor op (node.parent_id, Tile stages)
        Block,    ///< the ops one block function runs (instr.block_id)
        Group,    ///< node.group_id: isomorphic block functions; tasks of one block function
        Range,    ///< consecutive children of a group too big to lay out at once
    };
    Kind kind = Kind::Node;
    int parent = -1;
    int node = -1;         ///< node index (Kind::Node), else -1
    std::int64_t key = -1; ///< Tensor op id, block id or group id
    int depth = 0;         ///< root = 0
    int leafBegin = 0;     ///< range of this item's leaves in Hierarchy::leafOrder()
    int leafEnd = 0;
    std::vector<int> children{};
    std::string label{}; ///< groups only (a node's label is nodeLabel())

    bool isGroup() const { return kind != Kind::Node; }
    int leafCount() const { return leafEnd - leafBegin; }
};

class Hierarchy {
public:
    static Hierarchy build(const GraphStage& stage, int maxChildren = kMaxGroupChildren);

    const std::vector<HierarchyItem>& items() const { return m_items; }
    const HierarchyItem& item(int index) const { return m_items[std::size_t(index)]; }
    int root() const { return 0; }
    /// The leaf item of a node (by node index).
    int itemOfNode(int nodeIndex) const { return m_itemOfNode[std::size_t(nodeIndex)]; }
    /// Node indices in depth-first order: every item's leaves are one contiguous run.
    const std::vector<int>& leafOrder() const { return m_leafOrder; }
    /// Number of groups of `kind`.
    int count(HierarchyItem::Kind kind) const;
    /// The item's label for display: a group's label, or the node's name and kind.
    std::string displayLabel(const GraphStage& stage, int index) const;

private:
    int add(HierarchyItem item);
    void splitLarge(int index, int maxChildren);
    void finish();

    std::vector<HierarchyItem> m_items;
    std::vector<int> m_itemOfNode;
    std::vector<int> m_leafOrder;
};

} // namespace pto::gui
