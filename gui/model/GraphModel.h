// The graph of one stage as the graph view shows it: the hierarchy with its collapse/expand
// state, or a focused subgraph (neighbourhood, paths), reduced to a small visible graph.
#pragma once

#include "gui/model/GraphQueries.h"
#include "gui/model/GraphStage.h"
#include "gui/model/Hierarchy.h"

#include <QObject>

#include <cstdint>
#include <memory>
#include <vector>

namespace pto::gui {

/// An edge between two visible items: the stage's edges between their leaves, aggregated.
struct VisibleEdge {
    int from = 0; ///< index into VisibleGraph::items
    int to = 0;
    int count = 0;     ///< stage edges it stands for
    int firstEdge = 0; ///< one of them (GraphStage::edges index), for its label
};

/// What is drawn: expanded groups disappear into their children; collapsed groups and
/// nodes are items; edges between leaves of different items are aggregated per item pair.
struct VisibleGraph {
    std::vector<int> items; ///< hierarchy item indices
    std::vector<VisibleEdge> edges;
    std::uint64_t hash = 0; ///< identifies the visible set and its edges (layout cache key)
};

class GraphModel : public QObject {
    Q_OBJECT
public:
    enum class Mode { Hierarchy, Neighbourhood, Paths };

    explicit GraphModel(QObject* parent = nullptr);
    ~GraphModel() override;

    /// Takes a loaded stage, builds its hierarchy, collapses every group.
    void setStage(GraphStage stage);
    /// The same with the stage's hierarchy already built (on a worker: 0.1–0.2 s for the
    /// 230 k nodes of a big run's Tile stage).
    void setStage(GraphStage stage, Hierarchy hierarchy);
    /// Drops the stage (no document): no hierarchy, nothing visible.
    void clear();
    bool hasStage() const { return m_stage != nullptr; }
    const GraphStage& stage() const { return *m_stage; }
    const Hierarchy& hierarchy() const { return *m_hierarchy; }
    const GraphAdjacency& adjacency();

    bool isExpanded(int item) const;
    void setExpanded(int item, bool expanded);
    void collapseAll();
    /// Every group expanded: the whole stage, node by node (laid out by the layered layout).
    void expandAll();
    /// Expands every ancestor of the node so that it is visible (hierarchy mode), and collapses
    /// again the groups the previous reveal opened that the new node does not need — so a
    /// walk through search hits or selections does not keep growing the graph. Groups the user
    /// expanded (setExpanded) stay as they are.
    void revealNode(int nodeIndex);
    /// Groups opened by the last revealNode (and not touched by the user since).
    const std::vector<int>& revealedGroups() const { return m_revealed; }
    /// Searches nodes (see searchNodes), reveals the first hit and returns all hits.
    std::vector<int> search(const std::string& text);

    Mode mode() const { return m_mode; }
    /// Shows only the nodes within `radius` edges of `nodeIndex` (each as itself).
    void showNeighbourhood(int nodeIndex, int radius);
    /// Shows only the nodes on paths from `from` to `to`; false (and no change) when none.
    bool showPaths(int from, int to);
    void showHierarchy();

    const VisibleGraph& visible() const { return m_visible; }
    /// The visible item that stands for a node (itself or its collapsed group), -1 if hidden.
    int visibleSlotOfNode(int nodeIndex) const;

signals:
    void stageReset();
    /// The visible graph changed (expansion, mode); `item` is the group toggled or -1.
    void visibleChanged(int item);

private:
    void rebuild(int toggled);
    void assignHierarchySlots();
    void assignFocusSlots();
    void collectEdges();

    std::unique_ptr<GraphStage> m_stage;
    std::unique_ptr<Hierarchy> m_hierarchy;
    std::unique_ptr<GraphAdjacency> m_adjacency;
    std::vector<char> m_expanded;  ///< per hierarchy item
    std::vector<int> m_slotOfNode; ///< node index → slot in m_visible.items, -1 hidden
    std::vector<int> m_focus;      ///< node indices shown in the focus modes
    std::vector<int> m_revealed;   ///< groups the last revealNode opened
    Mode m_mode = Mode::Hierarchy;
    VisibleGraph m_visible;
};

} // namespace pto::gui
