// Stage comparison view: two stage pickers over two node lists linked by provenance; stages
// and mappings read on a worker.
#include "gui/widgets/StageCompareView.h"

#include "gui/model/WorkerPool.h"

#include <QComboBox>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QLabel>
#include <QListView>
#include <QtConcurrent/QtConcurrentRun>

namespace pto::gui {

namespace {

const char* const kHint = QT_TRANSLATE_NOOP("pto::gui::StageCompareView",
                                            "Nodes the selection maps to are highlighted on both "
                                            "sides.");

} // namespace

StageCompareView::StageCompareView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_watcher(new QFutureWatcher<Result>(this)) {
    auto* layout = new QGridLayout(this);
    const bool sides[] = {true, false};
    for (bool left : sides) {
        auto* picker = new QComboBox(this);
        picker->setModel(&m_stages);
        auto* list = new QListView(this);
        list->setModel(left ? &m_left : &m_right);
        list->setUniformItemSizes(true); // big stages: no per-row size queries
        list->setSelectionMode(QAbstractItemView::SingleSelection);
        const int column = left ? 0 : 1;
        layout->addWidget(picker, 0, column);
        layout->addWidget(list, 1, column);
        connect(picker, &QComboBox::currentIndexChanged, this,
                [this, left](int row) { onStagePicked(left, row); });
        connect(list, &QListView::clicked, this,
                [this, left](const QModelIndex& index) { onNodeClicked(left, index); });
        (left ? m_leftPicker : m_rightPicker) = picker;
        (left ? m_leftList : m_rightList) = list;
    }
    m_status = new QLabel(tr(kHint), this);
    m_status->setTextFormat(Qt::PlainText); // stage names and errors come from the trace
    layout->addWidget(m_status, 2, 0, 1, 2);
    connect(&selection(), &SelectionModel::selectionChanged, this,
            [this](const EntityRef&, const QObject*) { request(); });
    connect(m_watcher, &QFutureWatcher<Result>::finished, this,
            [this] { showSides(m_watcher->result()); }); // never throws: runLoaded
    initialize();
}

StageCompareView::~StageCompareView() = default; // m_tokens cancels the worker and waits

QString StageCompareView::statusText() const {
    return m_status->text();
}

void StageCompareView::documentChanged() {
    ++m_generation;
    m_tokens.cancel();
    const TraceDocument* doc = document();
    m_worker = doc ? std::make_shared<LinkWorker>(doc->path()) : nullptr;
    const tracedb::TraceReader* reader = doc ? &doc->reader() : nullptr;
    m_left.setNodes(reader, -1, {});
    m_right.setNodes(reader, -1, {});
    {
        const QSignalBlocker a(m_leftPicker), b(m_rightPicker);
        m_stages.load(reader);
    }
    // Default: the parsed program against the last Tile stage (where tiles appear).
    std::int64_t right = -1;
    if (reader)
        for (const tracedb::StageRow& s : reader->stages())
            if (s.level == tracedb::StageLevel::Tile) right = s.id;
    if (right < 0) right = m_stages.stageAt(m_stages.rowCount() - 1);
    setStages(m_stages.stageAt(0), right);
}

void StageCompareView::setStages(std::int64_t left, std::int64_t right) {
    {
        const QSignalBlocker a(m_leftPicker), b(m_rightPicker);
        m_leftPicker->setCurrentIndex(m_stages.rowOf(left));
        m_rightPicker->setCurrentIndex(m_stages.rowOf(right));
    }
    // Listed again even when unchanged: also covers a reload.
    m_picked = {left, right};
    m_idsPending = {true, true};
    request();
}

void StageCompareView::onStagePicked(bool left, int row) {
    const std::size_t side = left ? 0 : 1;
    m_picked[side] = m_stages.stageAt(row);
    m_idsPending[side] = true;
    request();
}

void StageCompareView::onNodeClicked(bool left, const QModelIndex& index) {
    const StageNodeListModel& model = left ? m_left : m_right;
    // Signalled back to this view too: request() then maps it onto both sides.
    selection().select(EntityRef::node(model.stageId(), model.nodeAt(index.row())), this);
}

void StageCompareView::request() {
    ++m_generation;
    m_tokens.cancel();
    if (!m_worker) {
        m_loading = false;
        m_idsPending = {false, false};
        m_status->setText(hint());
        emit sidesShown();
        return;
    }
    StageSidesRequest job;
    job.stages = m_picked;
    job.readIds = m_idsPending;
    job.selection = selection().current();
    m_loading = true;
    if (m_idsPending[0] || m_idsPending[1])
        m_status->setText(
            tr("Reading stage %1…")
                .arg((m_idsPending[1] ? m_rightPicker : m_leftPicker)->currentText()));
    m_watcher->setFuture(
        QtConcurrent::run(&workerPool(), [worker = m_worker, job, generation = m_generation,
                                          token = m_tokens.next()] {
            return runLoaded<StageSides>(generation, *token, [&] {
                return worker->run(*token, [&](WorkerLinks& l) {
                    return readStageSides(job, l.reader, l.links, l.mapper, *token);
                });
            });
        }));
}

void StageCompareView::showSides(const Result& loaded) {
    if (loaded.generation != m_generation) return;
    m_loading = false;
    if (!loaded.value) {
        m_status->setText(tr("Cannot read the stages: %1").arg(loaded.error));
        emit sidesShown();
        return;
    }
    const tracedb::TraceReader* reader = document() ? &document()->reader() : nullptr;
    StageNodeListModel* models[] = {&m_left, &m_right};
    QListView* lists[] = {m_leftList, m_rightList};
    for (std::size_t side = 0; side < 2; ++side) {
        StageNodeListModel& model = *models[side];
        StageSides& sides = *loaded.value; // this result's only reader
        if (m_idsPending[side]) model.setNodes(reader, m_picked[side], std::move(sides.ids[side]));
        m_idsPending[side] = false;
        model.setHighlighted(std::move(sides.highlighted[side]));
        if (sides.firstHighlighted[side] >= 0)
            lists[side]->scrollTo(model.index(model.rowOf(sides.firstHighlighted[side])));
    }
    m_status->setText(hint());
    emit sidesShown();
}

QString StageCompareView::hint() const {
    if (document() && document()->summary().measured) return tr(kMeasuredNoIr);
    if (document() && m_stages.rowCount() == 0) return tr("This trace holds no IR stages.");
    return tr(kHint);
}

} // namespace pto::gui
