// The graph view: one recorded stage as a graph with a collapsible hierarchy, laid out by
// Graphviz on the layout thread, with search, neighbourhood/path views, overlays and export.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/GraphOverlay.h"
#include "gui/model/Hierarchy.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/StudioView.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QTimer>

#include <cstdint>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QToolButton;
class QTreeView;

namespace pto::gui {

class StatusLine;

class GraphModel;
class GraphViewCanvas;
class HierarchyTreeModel;
class LayoutWorker;
class LinkWorker;
struct GraphSceneText;
struct GraphStage;
struct LayoutResult;

class GraphView : public StudioView {
    Q_OBJECT
public:
    explicit GraphView(StudioContext& context, QWidget* parent = nullptr);
    ~GraphView() override;

    QString viewId() const override { return QStringLiteral("graph"); }
    QString viewTitle() const override { return tr("Graph"); }
    QWidget* exportTarget() override;

    GraphModel& graphModel() { return *m_model; }
    HierarchyTreeModel& treeModel() { return *m_tree; }
    GraphViewCanvas& canvas() { return *m_canvas; }
    LayoutWorker& layoutWorker() { return *m_worker; }
    QComboBox& stageCombo() { return *m_stageCombo; }
    QLineEdit& searchField() { return *m_search; }
    /// Cancels the stage being read or the layout running (shown only while busy).
    QPushButton& cancelButton() { return *m_cancel; }
    /// The status line under the graph (what it waits for, errors, search results).
    QString statusText() const;

    /// Starts loading a stage (on a worker thread); false for an unknown stage id.
    bool selectStage(std::int64_t stageId);
    std::int64_t currentStageId() const { return m_stageId; }
    /// No stage load and no layout in flight.
    bool isIdle() const;
    /// Also while a selection is being mapped to this stage.
    bool hasPendingWork() const override;
    /// Computes the overlay on a worker thread (the bound class runs the profiler, seconds on
    /// a big run); overlayReady() when it is shown.
    void setOverlay(OverlayKind kind);
    bool overlayPending() const { return m_overlayPending; }
    const GraphOverlay& overlay() const { return *m_overlay; }
    void setLeftToRight(bool leftToRight);
    /// Writes the visible graph as .dot (with labels), .svg or .png; "" or the reason.
    QString exportGraph(const QString& path);
    /// The visible slot of a node (itself or its collapsed group), -1 when hidden.
    int slotOfNode(int nodeIndex) const;

signals:
    void stageLoaded();
    void overlayReady();
    /// A layout was applied to the canvas (the graph on screen is current).
    void graphShown();

protected:
    void documentChanged() override;

private:
    void buildUi();
    QWidget* buildToolbar();
    void fillStages();
    void onStageLoaded();
    void cancelLoading();
    void requestLayout();
    void onLayoutFinished(quint64 job, std::shared_ptr<const LayoutResult> result);
    void applyOverlay();
    void onOverlayComputed();
    void showOverlay(GraphOverlay overlay);
    void focusPending();
    void onSlotClicked(int slot);
    void onSlotActivated(int slot);
    void onSelectionChanged(const EntityRef& ref, const QObject* origin);
    void runSearch();
    void showNeighbourhood();
    void showPaths();
    void setBusy(const QString& text);
    void showElapsed();
    /// Highlights `node` (an index of the shown stage), laying out again to reveal it.
    void focusNode(int node);
    /// `text` after the selected node's label ("exp %p · kv, iter 2 — text"), or `text` alone
    /// when no node is selected: the status line names the selection, never a previous one.
    QString withSelectedNode(const QString& text) const;

    std::unique_ptr<GraphModel> m_model;
    std::unique_ptr<HierarchyTreeModel> m_tree;
    std::unique_ptr<GraphOverlay> m_overlay;
    std::shared_ptr<LinkWorker> m_links; ///< maps other views' selections, on a worker
    LayoutWorker* m_worker = nullptr;
    GraphViewCanvas* m_canvas = nullptr;
    QTreeView* m_treeView = nullptr;
    QComboBox* m_stageCombo = nullptr;
    QComboBox* m_overlayCombo = nullptr;
    QLineEdit* m_search = nullptr;
    QToolButton* m_leftToRight = nullptr;
    QSpinBox* m_radius = nullptr;
    StatusLine* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    /// A stage and its hierarchy, both made on the loader's worker.
    struct StageWithHierarchy {
        GraphStage stage;
        Hierarchy hierarchy;
    };
    QFutureWatcher<WorkerResult<StageWithHierarchy>> m_loader;
    WorkerTokens m_loadTokens; ///< after m_loader: destroyed first, waits for the loaders
    QFutureWatcher<WorkerResult<GraphOverlay>> m_overlayLoader;
    WorkerTokens m_overlayTokens; ///< after m_overlayLoader, like m_loadTokens
    int m_overlayGeneration = 0;
    /// The node the selection maps to (none: it stands for no node of this stage).
    QFutureWatcher<Loaded<std::optional<std::int64_t>>> m_selectionLoader;
    WorkerTokens m_selectionTokens; ///< after m_selectionLoader, like m_loadTokens
    int m_selectionGeneration = 0;
    std::int64_t m_selectionStage = -1; ///< the stage the mapping in flight is for
    bool m_overlayPending = false;
    std::int64_t m_stageId = -1;
    int m_loadGeneration = 0;
    bool m_loading = false;
    bool m_fitNext = true;   ///< fit the next layout to the window (new stage, mode change)
    int m_focusItem = -1;    ///< hierarchy item to centre on after the next layout
    int m_focusNode = -1;    ///< node to highlight after the next layout
    int m_currentNode = -1;  ///< the node selected last (path end)
    int m_previousNode = -1; ///< the one before (path start)
    std::vector<int> m_searchHits;
    std::unique_ptr<GraphSceneText> m_pendingText; ///< labels of the job in flight
    QString m_busyText; ///< what the view is waiting for, empty when idle
    QElapsedTimer m_busySince;
    QTimer m_busyTimer; ///< shows the elapsed time while busy
};

} // namespace pto::gui
