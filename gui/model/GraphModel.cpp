// Expansion state and the visible graph of a stage: items in depth-first order, leaf edges
// mapped to their visible representatives and aggregated per pair.
#include "gui/model/GraphModel.h"

#include <algorithm>

#include <unordered_map>

namespace pto::gui {
namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0x100000001B3ull;
}

} // namespace

GraphModel::GraphModel(QObject* parent) : QObject(parent) {}
GraphModel::~GraphModel() = default;

void GraphModel::setStage(GraphStage stage) {
    Hierarchy hierarchy = Hierarchy::build(stage);
    setStage(std::move(stage), std::move(hierarchy));
}

void GraphModel::setStage(GraphStage stage, Hierarchy hierarchy) {
    m_stage = std::make_unique<GraphStage>(std::move(stage));
    m_hierarchy = std::make_unique<Hierarchy>(std::move(hierarchy));
    m_adjacency.reset();
    m_expanded.assign(m_hierarchy->items().size(), 0);
    m_expanded[0] = 1;
    m_mode = Mode::Hierarchy;
    m_focus.clear();
    m_revealed.clear();
    rebuild(-1);
    emit stageReset();
}

void GraphModel::clear() {
    m_stage.reset();
    m_hierarchy.reset();
    m_adjacency.reset();
    m_expanded.clear();
    m_slotOfNode.clear();
    m_focus.clear();
    m_revealed.clear();
    m_mode = Mode::Hierarchy;
    m_visible = {};
    emit stageReset();
    emit visibleChanged(-1);
}

const GraphAdjacency& GraphModel::adjacency() {
    if (!m_adjacency)
        m_adjacency = std::make_unique<GraphAdjacency>(GraphAdjacency::build(*m_stage));
    return *m_adjacency;
}

bool GraphModel::isExpanded(int item) const {
    return item >= 0 && std::size_t(item) < m_expanded.size() && m_expanded[std::size_t(item)];
}

void GraphModel::setExpanded(int item, bool expanded) {
    if (!m_hierarchy || item <= 0 || std::size_t(item) >= m_expanded.size()) return;
    if (!m_hierarchy->item(item).isGroup() || isExpanded(item) == expanded) return;
    m_expanded[std::size_t(item)] = expanded;
    std::erase(m_revealed, item); // the user's choice now, not the reveal's
    if (m_mode == Mode::Hierarchy) rebuild(item);
}

void GraphModel::collapseAll() {
    if (!m_hierarchy) return;
    std::fill(m_expanded.begin() + 1, m_expanded.end(), 0);
    m_revealed.clear();
    rebuild(-1);
}

void GraphModel::expandAll() {
    if (!m_hierarchy) return;
    std::fill(m_expanded.begin(), m_expanded.end(), 1);
    m_revealed.clear();
    m_mode = Mode::Hierarchy;
    rebuild(-1);
}

void GraphModel::revealNode(int nodeIndex) {
    if (!m_hierarchy || nodeIndex < 0 || std::size_t(nodeIndex) >= m_stage->nodes.size()) return;
    bool changed = m_mode != Mode::Hierarchy;
    m_mode = Mode::Hierarchy;
    std::vector<int> ancestors;
    for (int p = m_hierarchy->item(m_hierarchy->itemOfNode(nodeIndex)).parent; p > 0;
         p = m_hierarchy->item(p).parent)
        ancestors.push_back(p);
    const auto isAncestor = [&](int g) {
        return std::find(ancestors.begin(), ancestors.end(), g) != ancestors.end();
    };
    std::vector<int> revealed;
    for (int g : m_revealed) {
        if (isAncestor(g))
            revealed.push_back(g); // still needed: stays open, still the reveal's
        else if (m_expanded[std::size_t(g)]) {
            m_expanded[std::size_t(g)] = 0;
            changed = true;
        }
    }
    for (int p : ancestors)
        if (!m_expanded[std::size_t(p)]) {
            m_expanded[std::size_t(p)] = 1;
            revealed.push_back(p);
            changed = true;
        }
    m_revealed = std::move(revealed);
    if (changed) rebuild(-1);
}

std::vector<int> GraphModel::search(const std::string& text) {
    if (!m_stage) return {};
    auto hits = searchNodes(*m_stage, text);
    if (!hits.empty()) revealNode(hits.front());
    return hits;
}

void GraphModel::showNeighbourhood(int nodeIndex, int radius) {
    if (!m_stage) return;
    m_focus = neighbourhood(adjacency(), nodeIndex, radius);
    m_mode = Mode::Neighbourhood;
    rebuild(-1);
}

bool GraphModel::showPaths(int from, int to) {
    if (!m_stage) return false;
    auto nodes = pathNodes(adjacency(), from, to);
    if (nodes.empty()) return false;
    m_focus = std::move(nodes);
    m_mode = Mode::Paths;
    rebuild(-1);
    return true;
}

void GraphModel::showHierarchy() {
    if (!m_stage || m_mode == Mode::Hierarchy) return;
    m_mode = Mode::Hierarchy;
    m_focus.clear();
    rebuild(-1);
}

int GraphModel::visibleSlotOfNode(int nodeIndex) const {
    if (nodeIndex < 0 || std::size_t(nodeIndex) >= m_slotOfNode.size()) return -1;
    return m_slotOfNode[std::size_t(nodeIndex)];
}

void GraphModel::rebuild(int toggled) {
    m_visible = {};
    m_slotOfNode.assign(m_stage->nodes.size(), -1);
    if (m_mode == Mode::Hierarchy)
        assignHierarchySlots();
    else
        assignFocusSlots();
    collectEdges();
    emit visibleChanged(toggled);
}

void GraphModel::assignHierarchySlots() {
    const Hierarchy& h = *m_hierarchy;
    const auto& order = h.leafOrder();
    std::vector<int> stack(h.item(0).children.rbegin(), h.item(0).children.rend());
    while (!stack.empty()) {
        const int index = stack.back();
        stack.pop_back();
        const HierarchyItem& item = h.item(index);
        if (item.isGroup() && m_expanded[std::size_t(index)]) {
            stack.insert(stack.end(), item.children.rbegin(), item.children.rend());
            continue;
        }
        const int slot = int(m_visible.items.size());
        m_visible.items.push_back(index);
        for (int k = item.leafBegin; k < item.leafEnd; ++k)
            m_slotOfNode[std::size_t(order[std::size_t(k)])] = slot;
    }
}

void GraphModel::assignFocusSlots() {
    for (int node : m_focus) {
        m_slotOfNode[std::size_t(node)] = int(m_visible.items.size());
        m_visible.items.push_back(m_hierarchy->itemOfNode(node));
    }
}

void GraphModel::collectEdges() {
    std::unordered_map<std::uint64_t, int> slotOfPair;
    const auto& edges = m_stage->edges;
    for (std::size_t e = 0; e < edges.size(); ++e) {
        const int a = m_slotOfNode[std::size_t(edges[e].src)];
        const int b = m_slotOfNode[std::size_t(edges[e].dst)];
        if (a < 0 || b < 0 || a == b) continue;
        const std::uint64_t key = (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
        auto [it, added] = slotOfPair.try_emplace(key, int(m_visible.edges.size()));
        if (added) m_visible.edges.push_back({a, b, 0, int(e)});
        ++m_visible.edges[std::size_t(it->second)].count;
    }
    std::uint64_t h = mix(0xCBF29CE484222325ull, std::uint64_t(m_mode));
    for (int item : m_visible.items) h = mix(h, std::uint64_t(item));
    for (const auto& e : m_visible.edges)
        h = mix(h, (std::uint64_t(std::uint32_t(e.from)) << 32) | std::uint32_t(e.to));
    m_visible.hash = h;
}

} // namespace pto::gui
