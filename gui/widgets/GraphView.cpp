// The graph view's widgets, stage list and stage loading, and the toolbar's actions.
#include "gui/widgets/GraphView.h"

#include "gui/model/GraphModel.h"
#include "gui/model/HierarchyTreeModel.h"
#include "gui/model/LayoutWorker.h"
#include "gui/model/LinkWorker.h"
#include "gui/model/WorkerPool.h"
#include "gui/widgets/GraphViewCanvas.h"
#include "gui/widgets/StatusLine.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace pto::gui {

GraphView::GraphView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_model(std::make_unique<GraphModel>()),
      m_tree(std::make_unique<HierarchyTreeModel>(*m_model)),
      m_overlay(std::make_unique<GraphOverlay>()) {
    m_worker = new LayoutWorker(this);
    buildUi();
    connect(&m_loader, &QFutureWatcherBase::finished, this, &GraphView::onStageLoaded);
    connect(&m_overlayLoader, &QFutureWatcherBase::finished, this, &GraphView::onOverlayComputed);
    connect(&m_selectionLoader, &QFutureWatcherBase::finished, this, [this] {
        const Loaded<std::optional<std::int64_t>> loaded = m_selectionLoader.result(); // no throw
        if (loaded.generation != m_selectionGeneration || !loaded.value ||
            m_selectionStage != m_stageId || !m_model->hasStage())
            return;
        const int node = *loaded.value ? m_model->stage().indexOf(**loaded.value) : -1;
        if (node >= 0) return focusNode(node);
        // Nothing of this stage stands for the selection: no node stays marked as if it did.
        m_previousNode = m_currentNode;
        m_currentNode = -1;
        m_canvas->setHighlight(-1);
        m_status->setText(tr("The selection has no node in this stage."));
    });
    connect(m_model.get(), &GraphModel::visibleChanged, this, [this](int item) {
        if (item > 0) m_focusItem = item;
        requestLayout();
    });
    connect(m_worker, &LayoutWorker::finished, this, &GraphView::onLayoutFinished);
    connect(m_worker, &LayoutWorker::progress, this,
            [this](quint64, const QString& phase) { setBusy(phase); });
    connect(m_worker, &LayoutWorker::dropped, this, [this](quint64) {
        if (!m_worker->isBusy()) setBusy({});
    });
    connect(&selection(), &SelectionModel::selectionChanged, this, &GraphView::onSelectionChanged);
    initialize();
}

GraphView::~GraphView() = default; // m_loadTokens cancels the loaders and waits for them

QWidget* GraphView::exportTarget() {
    return m_canvas;
}

void GraphView::buildUi() {
    m_canvas = new GraphViewCanvas(this);
    m_treeView = new QTreeView(this);
    m_treeView->setModel(m_tree.get());
    m_treeView->setUniformRowHeights(true);
    m_treeView->header()->setStretchLastSection(false);
    m_treeView->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    connect(m_treeView, &QTreeView::clicked, this, [this](const QModelIndex& index) {
        const int item = index.data(HierarchyTreeModel::ItemRole).toInt();
        const auto& h = m_model->hierarchy();
        const int slot = slotOfNode(h.leafOrder()[std::size_t(h.item(item).leafBegin)]);
        m_canvas->setHighlight(slot);
        m_canvas->centerOn(slot);
    });
    connect(m_canvas, &GraphViewCanvas::slotClicked, this, &GraphView::onSlotClicked);
    connect(m_canvas, &GraphViewCanvas::slotActivated, this, &GraphView::onSlotActivated);

    auto* splitter = new QSplitter(this);
    splitter->addWidget(m_treeView);
    splitter->addWidget(m_canvas);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({300, 800});

    m_status = new StatusLine(this); // names from the trace, search text: plain text
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0); // Graphviz reports no progress: a busy indicator
    m_progress->setMaximumWidth(120);
    m_busyTimer.setInterval(250);
    connect(&m_busyTimer, &QTimer::timeout, this, &GraphView::showElapsed);
    m_cancel = new QPushButton(tr("Cancel"), this);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_loading) return cancelLoading();
        m_worker->cancel();
        setBusy({});
        m_status->setText(tr("Layout cancelled; the previous layout stays on screen."));
    });
    // The busy indicator flashes on every selection (the mapping runs on a worker): shown and
    // hidden inside a box of fixed size, its geometry requests stop at the box instead of
    // relayouting the QMainWindow, which repainted the whole window.
    auto* busyBox = new QWidget(this);
    auto* busyRow = new QHBoxLayout(busyBox);
    busyRow->setContentsMargins(0, 0, 0, 0);
    busyRow->addWidget(m_progress);
    busyRow->addWidget(m_cancel);
    busyBox->setFixedSize(busyBox->sizeHint());
    auto* statusRow = new QHBoxLayout;
    statusRow->addWidget(m_status, 1);
    statusRow->addWidget(busyBox);
    setBusy({});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(buildToolbar());
    layout->addWidget(splitter, 1);
    layout->addLayout(statusRow);
}

QWidget* GraphView::buildToolbar() {
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_stageCombo = new QComboBox(bar);
    m_stageCombo->setToolTip(tr("Stage: the program after one compiler pass"));
    m_stageCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_stageCombo, &QComboBox::activated, this,
            [this](int index) { selectStage(m_stageCombo->itemData(index).toLongLong()); });
    m_search = new QLineEdit(bar);
    m_search->setPlaceholderText(tr("Search ops (Enter)"));
    m_search->setClearButtonEnabled(true);
    // Never squeezed below its placeholder by the stage picker beside it.
    m_search->setMinimumWidth(
        m_search->fontMetrics().horizontalAdvance(m_search->placeholderText()) + 40);
    connect(m_search, &QLineEdit::returnPressed, this, &GraphView::runSearch);
    m_overlayCombo = new QComboBox(bar);
    for (auto kind : {OverlayKind::None, OverlayKind::Cycles, OverlayKind::Bound,
                      OverlayKind::Buffer, OverlayKind::Error})
        m_overlayCombo->addItem(overlayName(kind), int(kind));
    connect(m_overlayCombo, &QComboBox::activated, this, [this](int index) {
        setOverlay(OverlayKind(m_overlayCombo->itemData(index).toInt()));
    });
    m_leftToRight = new QToolButton(bar);
    m_leftToRight->setText(tr("Left → right"));
    m_leftToRight->setCheckable(true);
    connect(m_leftToRight, &QToolButton::toggled, this, &GraphView::setLeftToRight);
    m_radius = new QSpinBox(bar);
    m_radius->setRange(1, 10);
    m_radius->setValue(2);
    m_radius->setPrefix(tr("radius "));
    auto button = [&](const QString& text, const QString& tip, auto slot) {
        auto* b = new QToolButton(bar);
        b->setText(text);
        b->setToolTip(tip);
        connect(b, &QToolButton::clicked, this, slot);
        return b;
    };
    auto* exportButton = new QToolButton(bar);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(exportButton);
    for (const char* ext : {"dot", "svg", "png"})
        menu->addAction(QStringLiteral("%1…").arg(QString(ext).toUpper()), this, [this, ext] {
            const QString path = QFileDialog::getSaveFileName(this, tr("Export graph"),
                                                              QStringLiteral("graph.%1").arg(ext));
            if (path.isEmpty()) return;
            const QString error = exportGraph(path);
            m_status->setText(error.isEmpty() ? tr("Exported %1").arg(path) : error);
        });
    exportButton->setMenu(menu);
    row->addWidget(m_stageCombo);
    row->addWidget(m_search, 1);
    row->addWidget(m_overlayCombo);
    row->addWidget(m_leftToRight);
    row->addWidget(m_radius);
    row->addWidget(button(tr("Neighbourhood"), tr("Only the nodes near the selected node"),
                          &GraphView::showNeighbourhood));
    row->addWidget(button(tr("Paths"),
                          tr("Only the nodes on paths from the previously "
                             "selected node to the selected node"),
                          &GraphView::showPaths));
    row->addWidget(button(tr("All"), tr("Back to the whole graph"), [this] {
        m_fitNext = true;
        m_model->showHierarchy();
    }));
    row->addWidget(button(tr("Collapse"), tr("Collapse every group"), [this] {
        m_fitNext = true;
        m_model->collapseAll();
    }));
    row->addWidget(exportButton);
    return bar;
}

void GraphView::documentChanged() {
    ++m_loadGeneration;
    m_loadTokens.cancel();
    ++m_overlayGeneration;
    m_overlayTokens.cancel();
    m_overlayPending = false;
    m_loading = false;
    m_worker->cancel();
    ++m_selectionGeneration;
    m_selectionTokens.cancel();
    m_links = document() ? std::make_shared<LinkWorker>(document()->path()) : nullptr;
    m_stageId = -1;
    m_focusItem = m_focusNode = m_currentNode = m_previousNode = -1;
    m_status->setText({}); // it described the previous trace's graph
    m_search->clear();
    m_searchHits.clear();
    m_model->clear();
    m_canvas->setScene(nullptr, {}, false);
    m_worker->setTrace(document() ? document()->path() : std::filesystem::path());
    fillStages();
}

void GraphView::fillStages() {
    m_stageCombo->clear();
    if (!document()) {
        m_canvas->setMessage(context().tuneFile().isEmpty() ? tr("Open a trace to see its graphs.")
                                                            : context().noTraceText());
        return;
    }
    std::int64_t preferred = -1, fallback = -1;
    for (const auto& s : document()->reader().stages()) {
        const bool recorded = s.nodeCount > 0;
        QString text = QStringLiteral("%1 (%2 · %3 nodes)")
                           .arg(QString::fromStdString(s.name),
                                QString::fromUtf8(tracedb::enumName(s.level).data()))
                           .arg(s.nodeCount);
        m_stageCombo->addItem(text, qlonglong(s.id));
        if (recorded && fallback < 0) fallback = s.id;
        if (s.level == tracedb::StageLevel::Tile) preferred = s.id; // the last Tile stage
    }
    const std::int64_t first = preferred >= 0 ? preferred : fallback;
    if (first >= 0)
        selectStage(first);
    else if (document()->summary().measured)
        m_canvas->setMessage(tr(kMeasuredNoIr));
    else
        m_canvas->setMessage(tr("This trace holds no IR stages."));
}

bool GraphView::selectStage(std::int64_t stageId) {
    const int index = m_stageCombo->findData(qlonglong(stageId));
    if (!document() || index < 0) return false;
    m_stageCombo->setCurrentIndex(index);
    m_stageId = stageId;
    m_loading = true;
    const int generation = ++m_loadGeneration;
    m_worker->cancel();
    setBusy(tr("Reading stage %1…").arg(m_stageCombo->itemText(index)));
    const std::filesystem::path path = document()->path();
    m_loader.setProperty("generation", generation);
    m_loader.setFuture(
        QtConcurrent::run(&workerPool(), [path, stageId, token = m_loadTokens.next()] {
            return runGuarded<StageWithHierarchy>(*token, [&] {
                auto reader = tracedb::TraceReader::open(path);
                GraphStage stage = loadGraphStage(reader, stageId, token.get());
                token->check();
                Hierarchy hierarchy = Hierarchy::build(stage);
                return StageWithHierarchy{std::move(stage), std::move(hierarchy)};
            });
        }));
    return true;
}

void GraphView::cancelLoading() {
    ++m_loadGeneration; // the cancelled load's result is dropped
    m_loadTokens.cancel();
    m_loading = false;
    setBusy({});
    m_canvas->setScene(nullptr, {}, false);
    m_canvas->setMessage(tr("Reading the stage was cancelled. Pick a stage to try again."));
    m_status->setText(tr("Reading the stage was cancelled."));
    emit stageLoaded();
}

void GraphView::onStageLoaded() {
    if (m_loader.property("generation").toInt() != m_loadGeneration) return;
    m_loading = false;
    const WorkerResult<StageWithHierarchy> loaded = m_loader.result(); // never throws
    std::shared_ptr<StageWithHierarchy> stage = loaded.value;
    if (!stage) {
        setBusy({});
        m_canvas->setScene(nullptr, {}, false);
        const QString why = loaded.cancelled ? tr("cancelled") : loaded.error;
        m_canvas->setMessage(tr("Cannot read the stage: %1").arg(why));
        m_status->setText(tr("Cannot read the stage: %1").arg(why));
        emit stageLoaded();
        return;
    }
    m_fitNext = true;
    m_focusItem = m_focusNode = m_currentNode = m_previousNode = -1;
    m_searchHits.clear();
    const bool recorded = stage->stage.recorded;
    const QString name = QString::fromStdString(stage->stage.stage.name);
    // emits visibleChanged → requestLayout
    m_model->setStage(std::move(stage->stage), std::move(stage->hierarchy));
    if (!recorded) {
        m_worker->cancel();
        setBusy({});
        m_canvas->setScene(nullptr, {}, false);
        m_canvas->setMessage(
            tr("Stage %1 was not recorded in full: intermediate stages above 20 000 nodes, "
               "and every intermediate stage with --record levels, keep only their stage row. "
               "Pick the last stage of the level.")
                .arg(name));
    }
    setOverlay(OverlayKind(m_overlayCombo->currentData().toInt()));
    // A selection made while the stage loaded (a reference on the command line) shows now.
    if (recorded && !selection().current().isNone())
        onSelectionChanged(selection().current(), nullptr);
    emit stageLoaded();
}

QString GraphView::statusText() const {
    return m_status->text();
}

bool GraphView::isIdle() const {
    return !m_loading && !m_worker->isBusy();
}

bool GraphView::hasPendingWork() const {
    return !isIdle() || m_selectionLoader.isRunning();
}

void GraphView::setBusy(const QString& text) {
    const bool busy = !text.isEmpty();
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy && (m_loading || m_worker->isBusy()));
    if (busy && m_busyText.isEmpty()) m_busySince.start();
    m_busyText = text;
    if (busy) m_status->setText(text);
    if (busy)
        m_busyTimer.start();
    else
        m_busyTimer.stop();
}

void GraphView::showElapsed() {
    if (m_busyText.isEmpty()) return;
    m_status->setText(QStringLiteral("%1 %2 s")
                          .arg(m_busyText)
                          .arg(double(m_busySince.elapsed()) / 1000, 0, 'f', 1));
}

void GraphView::runSearch() {
    const std::string text = m_search->text().trimmed().toStdString();
    m_searchHits = m_model->search(text); // reveals the first hit
    if (m_searchHits.empty()) {
        m_status->setText(tr("No node matches \"%1\".").arg(m_search->text()));
        return;
    }
    m_focusNode = m_searchHits.front();
    m_status->setText(tr("%1 nodes match \"%2\"; showing the first.")
                          .arg(m_searchHits.size())
                          .arg(m_search->text()));
    if (!m_worker->isBusy()) focusPending();
}

void GraphView::showNeighbourhood() {
    if (m_currentNode < 0) {
        m_status->setText(tr("Select a node first."));
        return;
    }
    m_fitNext = true;
    m_focusNode = m_currentNode;
    m_model->showNeighbourhood(m_currentNode, m_radius->value());
}

void GraphView::showPaths() {
    if (m_previousNode < 0 || m_currentNode < 0) {
        m_status->setText(tr("Select the start node, then the end node."));
        return;
    }
    m_fitNext = true;
    if (!m_model->showPaths(m_previousNode, m_currentNode))
        m_status->setText(tr("No path leads from the first selected node to the second."));
}

} // namespace pto::gui
