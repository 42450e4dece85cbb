// Numerical diff view: banner, metrics table, heatmap; clicks select tile ops and reveal time.
#include "gui/widgets/DiffView.h"

#include "compiler/ir/TensorData.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/LinkWorker.h"
#include "gui/model/WorkerPool.h"
#include "gui/widgets/Heatmap.h"
#include "validate/TensorIo.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace pto::gui {

DiffView::DiffView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_watcher(new QFutureWatcher<Loaded<HeatmapData>>(this)) {
    connect(m_watcher, &QFutureWatcher<Loaded<HeatmapData>>::finished, this,
            [this] { showHeatmap(m_watcher->result()); }); // never throws: runLoaded
    m_banner = new QLabel(this);
    m_banner->setTextFormat(Qt::PlainText); // names and reasons from the trace
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont big = m_banner->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_banner->setFont(big);
    m_reason = new QLabel(this);
    m_reason->setTextFormat(Qt::PlainText);
    m_reason->setWordWrap(true);
    m_diagnosis = new QLabel(this);
    m_diagnosis->setTextFormat(Qt::PlainText);
    m_diagnosis->setWordWrap(true);
    m_diagnosis->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_outputs = new QComboBox(this);
    auto* golden = new QPushButton(tr("Golden .npy…"), this);
    m_note = new QLabel(this);
    m_note->setTextFormat(Qt::PlainText);
    m_note->setWordWrap(true);
    m_view = new QTableView(this);
    m_view->setModel(&m_table);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    // The verdict and the metrics next to the name — what is read first — so they show
    // without horizontal scrolling; where (stage, op, kind) after them.
    QHeaderView* header = m_view->horizontalHeader();
    const int order[] = {DiffTableModel::Name,   DiffTableModel::Verdict,    DiffTableModel::MaxAbs,
                         DiffTableModel::MaxRel, DiffTableModel::Mismatches, DiffTableModel::Cosine,
                         DiffTableModel::Op,     DiffTableModel::Stage,      DiffTableModel::Kind};
    for (int visual = 0; visual < int(std::size(order)); ++visual)
        header->moveSection(header->visualIndex(order[visual]), visual);
    header->setStretchLastSection(true);
    m_view->verticalHeader()->hide();
    m_heatmap = new HeatmapWidget(this);

    auto* picker = new QHBoxLayout;
    picker->addWidget(new QLabel(tr("Output:"), this));
    picker->addWidget(m_outputs, 1);
    picker->addWidget(golden);
    auto* mapBox = new QWidget(this);
    auto* mapLayout = new QVBoxLayout(mapBox);
    mapLayout->setContentsMargins(0, 0, 0, 0);
    mapLayout->addLayout(picker);
    mapLayout->addWidget(m_heatmap, 1);
    mapLayout->addWidget(m_note);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_view);
    split->addWidget(mapBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_banner);
    layout->addWidget(m_reason);
    layout->addWidget(m_diagnosis);
    layout->addWidget(split, 1);

    connect(m_outputs, &QComboBox::currentTextChanged, this, [this] {
        m_golden.reset(); // a golden belongs to one output
        rebuildHeatmap();
    });
    connect(golden, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Golden tensor"), {}, tr("NumPy arrays (*.npy)"));
        if (!path.isEmpty()) m_note->setText(loadGolden(path));
    });
    connect(m_heatmap, &HeatmapWidget::tileClicked, this, &DiffView::onTileClicked);
    connect(m_view, &QTableView::clicked, this,
            [this](const QModelIndex& index) { onRowActivated(index.row()); });
    connect(&selection(), &SelectionModel::selectionChanged, this, &DiffView::onSelection);
    initialize();
}

DiffView::~DiffView() = default;

QString DiffView::bannerText() const {
    return m_banner->text();
}

QString DiffView::diagnosisText() const {
    return m_diagnosis->text();
}

void DiffView::documentChanged() {
    m_golden.reset();
    m_links.reset();
    const tracedb::TraceReader* reader = document() ? &document()->reader() : nullptr;
    m_linkWorker = reader ? std::make_shared<LinkWorker>(document()->path()) : nullptr;
    m_table.load(reader);
    m_view->resizeColumnsToContents();
    m_bisect = reader ? readBisect(*reader) : BisectResult{};
    if (reader) m_links = std::make_unique<LinkResolver>(*reader);
    m_banner->setText(m_bisect.found       ? m_bisect.headline()
                      : m_table.rowCount() ? tr("Numerical comparisons (no bisection)")
                                           : tr("No diff results in this trace (make them with "
                                                "pto diff RUN.db --golden DIR or pto diff "
                                                "--bisect FILE.pto -o OUT.db)"));
    m_banner->setStyleSheet(m_bisect.found ? QStringLiteral("color: #c0392b;") : QString());
    m_reason->setText(m_bisect.found ? tr("from %1 — %2").arg(m_bisect.tensorOp, m_bisect.reason)
                                     : QString());
    m_reason->setVisible(m_bisect.found);
    const QSignalBlocker block(m_outputs);
    m_outputs->clear();
    if (reader)
        for (const std::string& name : heatmapOutputs(*reader))
            m_outputs->addItem(QString::fromStdString(name));
    rebuildHeatmap();
}

QString DiffView::loadGolden(const QString& npyPath) {
    try {
        m_golden = std::make_shared<const TensorData>(readTensor(npyPath.toStdString()));
    } catch (const std::exception& e) {
        return tr("Cannot use %1 as a golden: %2").arg(npyPath, QString::fromUtf8(e.what()));
    }
    rebuildHeatmap();
    return {};
}

void DiffView::rebuildHeatmap() {
    ++m_generation;
    m_tokens.cancel();
    m_loading = false;
    if (!m_linkWorker || m_outputs->currentText().isEmpty()) {
        m_map = {};
        return applyHeatmap();
    }
    // A big output (64 MB for the 4096² GEMM) and its golden are read and compared tile by
    // tile: never on the GUI thread. The previous heatmap stays until then.
    m_loading = true;
    m_note->setText(tr("Reading %1…").arg(m_outputs->currentText()));
    m_watcher->setFuture(
        QtConcurrent::run(&workerPool(), [links = m_linkWorker, golden = m_golden,
                                          name = m_outputs->currentText().toStdString(),
                                          generation = m_generation, token = m_tokens.next()] {
            return runLoaded<HeatmapData>(generation, *token, [&] {
                return links->run(*token, [&](WorkerLinks& l) {
                    std::optional<TensorData> stored;
                    if (!golden) stored = storedGolden(l.reader, name);
                    const TensorData* g = golden ? golden.get() : stored ? &*stored : nullptr;
                    return buildHeatmap(l.reader, name, g);
                });
            });
        }));
}

void DiffView::showHeatmap(const Loaded<HeatmapData>& loaded) {
    if (loaded.generation != m_generation) return;
    m_loading = false;
    m_map = loaded.value ? std::move(*loaded.value) : HeatmapData{};
    if (!loaded.value)
        m_map.note = tr("Cannot read the output: %1").arg(loaded.error).toStdString();
    applyHeatmap();
}

void DiffView::applyHeatmap() {
    m_heatmap->setData(&m_map);
    m_diagnosis->setText(QString::fromStdString(m_map.diagnosisText()));
    m_diagnosis->setVisible(!m_diagnosis->text().isEmpty());
    QString note = QString::fromStdString(m_map.note);
    if (const int hot = m_map.hottestTile(); hot >= 0) {
        const HeatTile& t = m_map.tiles[std::size_t(hot)];
        note = tr("Hottest tile: rows %1–%2, cols %3–%4, max |a−g| %5. Click a tile to select "
                  "its op. ")
                   .arg(t.row)
                   .arg(t.row + t.rows - 1)
                   .arg(t.col)
                   .arg(t.col + t.cols - 1)
                   .arg(*t.error, 0, 'g', 4) +
               note;
    }
    m_note->setText(note);
}

void DiffView::onTileClicked(int tile) {
    if (tile < 0 || tile >= int(m_map.tiles.size()) || !m_links) return;
    const HeatTile& t = m_map.tiles[std::size_t(tile)];
    selection().select(EntityRef::node(t.op.stageId, t.op.id), this);
    std::vector<std::int64_t> instrs = m_links->instrsOfTileOp(t.op.stageId, t.op.id);
    const auto stores = m_links->instrsOfTileOp(t.store.stageId, t.store.id);
    instrs.insert(instrs.end(), stores.begin(), stores.end());
    const CycleRange range = m_links->timeRangeOf(m_links->slicesOfInstrs(instrs));
    if (!range.empty()) emit context().revealTimeRequested(range.begin, range.end);
}

void DiffView::onRowActivated(int row) {
    const EntityRef node = m_table.nodeAt(row);
    if (!node.isNone()) selection().select(node, this);
}

void DiffView::onSelection(const EntityRef& ref, const QObject* origin) {
    if (origin == this) return;
    int tile = -1;
    if (ref.kind == EntityRef::Kind::Node)
        for (std::size_t i = 0; i < m_map.tiles.size() && tile < 0; ++i)
            if ((m_map.tiles[i].op.stageId == ref.stageId && m_map.tiles[i].op.id == ref.id) ||
                (m_map.tiles[i].store.stageId == ref.stageId && m_map.tiles[i].store.id == ref.id))
                tile = int(i);
    m_heatmap->setSelectedTile(tile);
    const int row = m_table.rowOf(ref);
    if (row >= 0)
        m_view->selectRow(row);
    else
        m_view->clearSelection();
}

} // namespace pto::gui
