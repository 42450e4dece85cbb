// The graph view's scene: layout jobs from the visible graph, results onto the canvas,
// overlay colours and legend, selection in and out, export.
#include "gui/model/GraphModel.h"
#include "gui/model/HierarchyTreeModel.h"
#include "gui/model/LayoutCache.h"
#include "gui/model/LayoutEngine.h"
#include "gui/model/LayoutWorker.h"
#include "gui/model/LinkWorker.h"
#include "gui/model/WorkerPool.h"
#include "gui/widgets/GraphView.h"
#include "gui/widgets/GraphViewCanvas.h"
#include "gui/widgets/StatusLine.h"
#include "gui/widgets/Theme.h"
#include "gui/widgets/ViewExport.h"

#include "profiler/SqlRows.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QToolButton>
#include <QTreeView>
#include <QtConcurrent/QtConcurrentRun>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pto::gui {
namespace {

/// Box size of a label in points: ~6.3 per character of the longest line, 13 per line.
void sizeFor(const QString& label, LayoutNodeSpec& spec) {
    const auto lines = label.split(QLatin1Char('\n'));
    qsizetype longest = 0;
    for (const auto& l : lines) longest = std::max(longest, l.size());
    spec.width = std::clamp(double(longest) * 6.3 + 16, 60.0, 300.0);
    spec.height = double(lines.size()) * 13 + 10;
}

QString groupLabel(const GraphModel& model, int item) {
    const HierarchyItem& it = model.hierarchy().item(item);
    return QStringLiteral("%1\n%2 nodes ▸")
        .arg(QString::fromStdString(it.label))
        .arg(it.leafCount());
}

std::pair<LayoutJob, GraphSceneText> buildJob(const GraphModel& model, bool leftToRight) {
    LayoutJob job;
    GraphSceneText text;
    const GraphStage& stage = model.stage();
    const VisibleGraph& visible = model.visible();
    job.title = stage.stage.name;
    job.leftToRight = leftToRight;
    job.cacheKey = layoutCacheKey(stage.stage.id, visible.hash, leftToRight);
    job.nodes.resize(visible.items.size());
    text.labels.resize(visible.items.size());
    text.groups.resize(visible.items.size());
    for (std::size_t s = 0; s < visible.items.size(); ++s) {
        const HierarchyItem& item = model.hierarchy().item(visible.items[s]);
        const QString label =
            item.isGroup()
                ? groupLabel(model, visible.items[s])
                : QString::fromStdString(nodeLabel(stage, stage.nodes[std::size_t(item.node)]));
        sizeFor(label, job.nodes[s]);
        job.nodes[s].group = item.isGroup();
        job.nodes[s].label = label.toStdString();
        text.labels[s] = label;
        text.groups[s] = item.isGroup();
    }
    for (const VisibleEdge& e : visible.edges) {
        job.edges.emplace_back(e.from, e.to);
        const std::string& label = stage.edges[std::size_t(e.firstEdge)].label;
        const QString shown =
            e.count == 1 ? QString::fromStdString(label) : QStringLiteral("%1 edges").arg(e.count);
        job.edgeLabels.push_back(shown.toStdString());
        text.edgeLabels.push_back(shown);
    }
    return {std::move(job), std::move(text)};
}

QString shortNumber(double v) {
    if (std::abs(v) >= 1e4 || (v != 0 && std::abs(v) < 1e-2)) return QString::number(v, 'g', 3);
    return QString::number(v, 'f', v == std::floor(v) ? 0 : 2);
}

} // namespace

void GraphView::requestLayout() {
    if (!m_model->hasStage() || m_model->visible().items.empty()) {
        m_worker->cancel();
        return;
    }
    auto [job, text] = buildJob(*m_model, m_leftToRight->isChecked());
    m_pendingText = std::make_unique<GraphSceneText>(std::move(text));
    setBusy(tr("Laying out %1 items…").arg(job.nodes.size()));
    m_worker->submit(std::move(job));
    m_cancel->setVisible(true);
}

void GraphView::onLayoutFinished(quint64, std::shared_ptr<const LayoutResult> result) {
    setBusy({});
    if (!m_pendingText) return;
    if (!result || !result->ok) { // the previous graph stays on screen
        m_pendingText.reset();
        m_status->setText(
            tr("Layout failed: %1")
                .arg(result ? QString::fromStdString(result->error) : tr("out of memory")));
        return;
    }
    const bool fit = m_fitNext;
    m_fitNext = false;
    m_canvas->setScene(result, std::move(*m_pendingText), !fit);
    m_pendingText.reset();
    applyOverlay();
    std::vector<int> marked;
    for (int node : m_searchHits) marked.push_back(slotOfNode(node));
    m_canvas->setMarked(std::move(marked));
    focusPending();
    const auto& visible = m_model->visible();
    QString status = tr("%1 items, %2 edges · %3 in %4 ms")
                         .arg(visible.items.size())
                         .arg(visible.edges.size())
                         .arg(QString::fromStdString(result->engine))
                         .arg(result->seconds * 1000, 0, 'f', 1);
    if (!result->error.empty())
        status += tr(" · dot failed (%1), showing the layered layout")
                      .arg(QString::fromStdString(result->error));
    m_status->setText(withSelectedNode(status));
    emit graphShown();
}

int GraphView::slotOfNode(int nodeIndex) const {
    return m_model->visibleSlotOfNode(nodeIndex);
}

QString GraphView::withSelectedNode(const QString& text) const {
    if (m_currentNode < 0 || !m_model->hasStage() ||
        std::size_t(m_currentNode) >= m_model->stage().nodes.size())
        return text;
    const GraphNode& node = m_model->stage().nodes[std::size_t(m_currentNode)];
    const QString label = QString::fromStdString(nodeLabel(m_model->stage(), node))
                              .replace(QLatin1Char('\n'), QStringLiteral(" · "));
    return text.isEmpty() ? label : label + QStringLiteral(" — ") + text;
}

void GraphView::focusPending() {
    const auto& h = m_model->hierarchy();
    if (m_focusNode >= 0) {
        const int slot = slotOfNode(m_focusNode);
        m_canvas->setHighlight(slot);
        m_canvas->centerOn(slot);
        m_treeView->setCurrentIndex(m_tree->indexOfItem(h.itemOfNode(m_focusNode)));
        m_status->setText(withSelectedNode({}));
    } else if (m_focusItem > 0) {
        const HierarchyItem& item = h.item(m_focusItem);
        const int slot = slotOfNode(h.leafOrder()[std::size_t(item.leafBegin)]);
        m_canvas->setViewCenter(m_canvas->layout() && slot >= 0
                                    ? m_canvas->layout()->nodes[std::size_t(slot)].center()
                                    : m_canvas->viewRect().center());
    }
    m_focusNode = m_focusItem = -1;
}

void GraphView::setOverlay(OverlayKind kind) {
    m_overlayCombo->setCurrentIndex(m_overlayCombo->findData(int(kind)));
    const int generation = ++m_overlayGeneration; // a pending overlay is dropped
    if (!document() || !m_model->hasStage() || kind == OverlayKind::None) {
        m_overlayPending = false;
        showOverlay({});
        return;
    }
    m_overlayPending = true;
    m_status->setText(tr("Computing the %1 overlay…").arg(overlayName(kind)));
    m_overlayLoader.setProperty("generation", generation);
    m_overlayLoader.setFuture(
        QtConcurrent::run(&workerPool(), [path = document()->path(), stage = m_model->stage(), kind,
                                          token = m_overlayTokens.next()] {
            return runGuarded<GraphOverlay>(*token, [&] {
                const auto reader = tracedb::TraceReader::open(path);
                return computeOverlay(reader, stage, kind);
            });
        }));
}

void GraphView::onOverlayComputed() {
    if (m_overlayLoader.property("generation").toInt() != m_overlayGeneration) return;
    m_overlayPending = false;
    const WorkerResult<GraphOverlay> result = m_overlayLoader.result(); // never throws
    if (result.value) {
        showOverlay(*result.value);
        return;
    }
    GraphOverlay failed;
    failed.note =
        tr("Cannot compute the overlay: %1").arg(result.cancelled ? tr("cancelled") : result.error);
    showOverlay(std::move(failed));
}

void GraphView::showOverlay(GraphOverlay overlay) {
    *m_overlay = std::move(overlay);
    applyOverlay();
    if (!m_overlay->note.isEmpty()) m_status->setText(m_overlay->note);
    emit overlayReady();
}

void GraphView::applyOverlay() {
    const auto& visible = m_model->visible();
    if (!m_model->hasStage() || m_overlay->kind == OverlayKind::None || !m_overlay->hasValues() ||
        m_canvas->itemCount() != visible.items.size()) {
        m_canvas->setFills({});
        m_canvas->setLegend({});
        return;
    }
    const auto& h = m_model->hierarchy();
    std::vector<double> values(visible.items.size());
    double max = 0;
    for (std::size_t s = 0; s < values.size(); ++s) {
        values[s] = m_overlay->aggregate(h, visible.items[s]);
        if (!std::isnan(values[s])) max = std::max(max, values[s]);
    }
    std::vector<QColor> fills(values.size());
    GraphLegend legend;
    legend.title = m_overlay->title;
    const QPalette& pal = palette();
    if (m_overlay->categorical()) {
        for (std::size_t s = 0; s < values.size(); ++s)
            if (!std::isnan(values[s])) fills[s] = theme::categoryColor(int(values[s]), pal);
        for (std::size_t c = 0; c < m_overlay->categories.size(); ++c)
            legend.entries.emplace_back(theme::categoryColor(int(c), pal),
                                        m_overlay->categories[c]);
    } else {
        for (std::size_t s = 0; s < values.size(); ++s)
            if (!std::isnan(values[s]))
                fills[s] = theme::heatColor(max > 0 ? 0.1 + 0.9 * values[s] / max : 0.1, pal);
        for (double stop : {1.0, 0.5, 0.0})
            legend.entries.emplace_back(theme::heatColor(0.1 + 0.9 * stop, pal),
                                        shortNumber(stop * max));
        legend.title +=
            tr(" (groups: %1)").arg(m_overlay->kind == OverlayKind::Error ? tr("max") : tr("sum"));
    }
    legend.entries.emplace_back(QColor(0xd1, 0xe7, 0xdd), tr("no value"));
    m_canvas->setFills(std::move(fills));
    m_canvas->setLegend(std::move(legend));
}

void GraphView::setLeftToRight(bool leftToRight) {
    if (m_leftToRight->isChecked() != leftToRight) m_leftToRight->setChecked(leftToRight);
    m_fitNext = true;
    requestLayout();
}

void GraphView::onSlotClicked(int slot) {
    const auto& visible = m_model->visible();
    if (slot < 0 || std::size_t(slot) >= visible.items.size()) return;
    const int item = visible.items[std::size_t(slot)];
    m_treeView->setCurrentIndex(m_tree->indexOfItem(item));
    const HierarchyItem& it = m_model->hierarchy().item(item);
    if (it.isGroup()) {
        m_status->setText(tr("%1: %2 nodes (double-click to expand)")
                              .arg(QString::fromStdString(it.label))
                              .arg(it.leafCount()));
        return;
    }
    m_previousNode = m_currentNode;
    m_currentNode = it.node;
    m_status->setText(withSelectedNode({}));
    selection().select(EntityRef::node(m_stageId, m_model->stage().nodes[std::size_t(it.node)].id),
                       this);
}

void GraphView::onSlotActivated(int slot) {
    const auto& visible = m_model->visible();
    if (slot < 0 || std::size_t(slot) >= visible.items.size()) return;
    const int item = visible.items[std::size_t(slot)];
    const HierarchyItem& it = m_model->hierarchy().item(item);
    if (it.isGroup())
        m_model->setExpanded(item, true);
    else if (it.parent > 0)
        m_model->setExpanded(it.parent, false); // collapse the enclosing group
}

namespace {

/// The node of `stageId` that `ref` (of another stage, an instruction or a slice) stands for,
/// nullopt for none; on a worker (the Tensor op's tiles of a big stage take 0.1–0.3 s to index).
/// Node ids are no sentinel: program argument 0 is node -1.
std::optional<std::int64_t> nodeIdOfRef(WorkerLinks& l, const EntityRef& ref,
                                        std::int64_t stageId) {
    auto firstOf = [](const std::vector<std::int64_t>& nodes) {
        return nodes.empty() ? std::nullopt : std::optional<std::int64_t>(nodes.front());
    };
    // A node of another stage maps as the stage comparison maps it: a task or block function to
    // the tile ops its kernel runs, a copy of a loop's body to its own tiles, a Tensor op to its
    // tiles (the resolver's index, kept between selections).
    if (ref.kind == EntityRef::Kind::Node) {
        if (ref.stageId == l.links.rootStage()) return firstOf(l.links.nodesOf(ref.id, stageId));
        return firstOf(l.mapper.map(ref.stageId, ref.id, stageId));
    }
    if (ref.kind != EntityRef::Kind::Instr && ref.kind != EntityRef::Kind::Slice)
        return std::nullopt;
    // An instruction or slice of this stage's ops leads to its exact tile op.
    const std::int64_t instr =
        ref.kind == EntityRef::Kind::Instr ? ref.id : l.links.instrOfSlice(ref.id);
    if (instr < 0) return std::nullopt; // a task slice or a wait
    const NodeKey tile = l.links.tileOpOfInstr(instr);
    if (!tile.valid()) return std::nullopt;
    if (tile.stageId == stageId) return tile.id;
    return firstOf(l.mapper.map(tile.stageId, tile.id, stageId));
}
} // namespace

void GraphView::onSelectionChanged(const EntityRef& ref, const QObject* origin) {
    if (origin == this || !m_model->hasStage() || ref.isNone()) return;
    ++m_selectionGeneration;
    m_selectionTokens.cancel();
    if (ref.kind == EntityRef::Kind::Node && ref.stageId == m_stageId)
        return focusNode(m_model->stage().indexOf(ref.id));
    if (!m_links) return;
    m_selectionStage = m_stageId;
    m_selectionLoader.setFuture(QtConcurrent::run(
        &workerPool(), [links = m_links, ref, stage = m_stageId, generation = m_selectionGeneration,
                        token = m_selectionTokens.next()] {
            return runLoaded<std::optional<std::int64_t>>(generation, *token, [&] {
                return links->run(*token,
                                  [&](WorkerLinks& l) { return nodeIdOfRef(l, ref, stage); });
            });
        }));
}

void GraphView::focusNode(int node) {
    if (node < 0) return;
    m_previousNode = m_currentNode;
    m_currentNode = node;
    m_focusNode = node;
    const int slot = slotOfNode(node);
    const auto& visible = m_model->visible();
    const bool shown = slot >= 0 && m_model->mode() == GraphModel::Mode::Hierarchy &&
                       !m_model->hierarchy().item(visible.items[std::size_t(slot)]).isGroup();
    if (shown && !m_worker->isBusy())
        focusPending();
    else
        m_model->revealNode(node); // lays out again, then focuses
}

QString GraphView::exportGraph(const QString& path) {
    if (!m_model->hasStage() || m_model->visible().items.empty())
        return tr("There is no graph to export.");
    if (!path.endsWith(QStringLiteral(".dot"), Qt::CaseInsensitive))
        return exportWidget(*m_canvas, path);
    const std::string dot = layoutDot(buildJob(*m_model, m_leftToRight->isChecked()).first, true);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(dot.data(), qint64(dot.size())) != qint64(dot.size()) || !file.commit())
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    return {};
}

} // namespace pto::gui
