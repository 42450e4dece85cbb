// Builds the group hierarchy of a stage: by Tensor op, by block function, by group id, and
// splits groups of more than maxChildren children into ranges of consecutive nodes.
#include "gui/model/Hierarchy.h"

#include <fmt/format.h>

#include <unordered_map>

namespace pto::gui {
namespace {

using Kind = HierarchyItem::Kind;

/// Keys that at least two nodes share: grouping a single node only adds a click.
std::unordered_map<std::int64_t, int> sharedKeys(const std::vector<std::int64_t>& keys) {
    std::unordered_map<std::int64_t, int> counts;
    for (std::int64_t k : keys)
        if (k >= 0) ++counts[k];
    std::erase_if(counts, [](const auto& kv) { return kv.second < 2; });
    return counts;
}

std::string tensorOpLabel(const GraphStage& stage, std::int64_t op) {
    auto it = stage.rootNames.find(op);
    if (it == stage.rootNames.end()) return fmt::format("op {}", op);
    const GraphGroupName& n = it->second;
    std::string label = n.name.empty() ? n.kind : fmt::format("{} {}", n.kind, n.name);
    if (n.srcLine > 0) label += fmt::format(" (line {})", n.srcLine);
    return label;
}

std::string blockLabel(const GraphStage& stage, std::int64_t block, const char* fallback) {
    auto it = stage.blockNames.find(block);
    return it != stage.blockNames.end() ? it->second : fmt::format("{} {}", fallback, block);
}

} // namespace

int Hierarchy::add(HierarchyItem item) {
    m_items.push_back(std::move(item));
    return int(m_items.size()) - 1;
}

int Hierarchy::count(Kind kind) const {
    int n = 0;
    for (const auto& item : m_items) n += item.kind == kind;
    return n;
}

std::string Hierarchy::displayLabel(const GraphStage& stage, int index) const {
    const HierarchyItem& it = item(index);
    if (it.kind != Kind::Node) return it.label;
    const GraphNode& n = stage.nodes[std::size_t(it.node)];
    const std::string& kind = stage.text(n.kind);
    return n.name.empty() || n.name == kind ? kind : n.name + " " + kind;
}

Hierarchy Hierarchy::build(const GraphStage& stage, int maxChildren) {
    Hierarchy h;
    const std::size_t n = stage.nodes.size();
    h.m_items.reserve(n + n / 256 + 16);
    h.add({.kind = Kind::Root, .label = stage.stage.name});
    h.m_itemOfNode.resize(n);
    for (std::size_t i = 0; i < n; ++i) h.m_itemOfNode[i] = h.add({.node = int(i)});

    const bool tile = stage.stage.level == tracedb::StageLevel::Tile;
    std::vector<std::int64_t> topKey(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        const GraphNode& node = stage.nodes[i];
        if (tile && stage.rootNames.count(node.rootOp)) topKey[i] = node.rootOp;
        if (!tile) topKey[i] = node.groupId;
    }
    const auto shared = sharedKeys(topKey);
    std::unordered_map<std::int64_t, int> groupOf;
    for (std::size_t i = 0; i < n; ++i) {
        const int leaf = h.m_itemOfNode[i];
        int parent = 0;
        if (shared.count(topKey[i])) {
            auto [it, added] = groupOf.try_emplace(topKey[i], 0);
            if (added) {
                HierarchyItem g{.kind = tile ? Kind::TensorOp : Kind::Group, .key = topKey[i]};
                g.label =
                    tile ? tensorOpLabel(stage, topKey[i]) : blockLabel(stage, topKey[i], "group");
                it->second = h.add(std::move(g));
                h.m_items[0].children.push_back(it->second);
            }
            parent = it->second;
        }
        h.m_items[std::size_t(parent)].children.push_back(leaf);
    }
    // Tensor op → the block functions that run its tiles → the ops of each.
    for (const auto& [op, group] : groupOf) {
        if (!tile) break;
        std::vector<std::int64_t> blocks;
        for (int child : h.m_items[std::size_t(group)].children)
            blocks.push_back(stage.nodes[std::size_t(h.m_items[std::size_t(child)].node)].blockId);
        const auto sharedBlocks = sharedKeys(blocks);
        if (sharedBlocks.size() < 2) continue;
        std::vector<int> children;
        std::unordered_map<std::int64_t, int> blockGroup;
        const std::vector<int> old = std::move(h.m_items[std::size_t(group)].children);
        for (std::size_t c = 0; c < old.size(); ++c) {
            if (!sharedBlocks.count(blocks[c])) {
                children.push_back(old[c]);
                continue;
            }
            auto [it, added] = blockGroup.try_emplace(blocks[c], 0);
            if (added) {
                it->second = h.add({.kind = Kind::Block,
                                    .key = blocks[c],
                                    .label = blockLabel(stage, blocks[c], "block")});
                children.push_back(it->second);
            }
            h.m_items[std::size_t(it->second)].children.push_back(old[c]);
        }
        h.m_items[std::size_t(group)].children = std::move(children);
    }
    for (std::size_t i = 0; i < h.m_items.size(); ++i)
        if (h.m_items[i].isGroup()) h.splitLarge(int(i), maxChildren);
    h.finish();
    for (auto& item : h.m_items) {
        if (item.kind != Kind::Range) continue;
        const auto& first = stage.nodes[std::size_t(h.m_leafOrder[std::size_t(item.leafBegin)])];
        const auto& last = stage.nodes[std::size_t(h.m_leafOrder[std::size_t(item.leafEnd - 1)])];
        item.label = fmt::format("nodes {}–{}", first.id, last.id);
    }
    return h;
}

void Hierarchy::splitLarge(int index, int maxChildren) {
    while (m_items[std::size_t(index)].children.size() > std::size_t(maxChildren)) {
        std::vector<int> old = std::move(m_items[std::size_t(index)].children);
        const std::size_t parts = (old.size() + std::size_t(maxChildren) - 1) / maxChildren;
        const std::size_t size = (old.size() + parts - 1) / parts;
        std::vector<int> ranges;
        for (std::size_t at = 0; at < old.size(); at += size) {
            HierarchyItem range{.kind = Kind::Range};
            range.children.assign(old.begin() + std::ptrdiff_t(at),
                                  old.begin() + std::ptrdiff_t(std::min(old.size(), at + size)));
            ranges.push_back(add(std::move(range)));
        }
        m_items[std::size_t(index)].children = std::move(ranges);
    }
}

void Hierarchy::finish() {
    // Iterative depth-first walk: parents, depths and the contiguous leaf runs.
    m_leafOrder.clear();
    m_leafOrder.reserve(m_itemOfNode.size());
    struct Frame {
        int item;
        std::size_t next;
    };
    std::vector<Frame> stack{{0, 0}};
    m_items[0].leafBegin = 0;
    while (!stack.empty()) {
        Frame& top = stack.back();
        HierarchyItem& item = m_items[std::size_t(top.item)];
        if (top.next == item.children.size()) {
            item.leafEnd = int(m_leafOrder.size());
            stack.pop_back();
            continue;
        }
        const int child = item.children[top.next++];
        HierarchyItem& c = m_items[std::size_t(child)];
        c.parent = top.item;
        c.depth = item.depth + 1;
        c.leafBegin = int(m_leafOrder.size());
        if (c.kind == Kind::Node) {
            m_leafOrder.push_back(c.node);
            c.leafEnd = c.leafBegin + 1;
        } else {
            stack.push_back({child, 0});
        }
    }
}

} // namespace pto::gui
