// The slice table view: pivots the run's slices on a worker and links rows to the selection.
#include "gui/widgets/SliceTableView.h"

#include "gui/model/WorkerPool.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/BottleneckViewParts.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace pto::gui {

SliceTableView::SliceTableView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_rows(new RowTableModel(this)),
      m_watcher(new QFutureWatcher<Result>(this)) {
    m_grouping = new QComboBox(this);
    for (SliceGrouping g :
         {SliceGrouping::Name, SliceGrouping::Track, SliceGrouping::Core, SliceGrouping::Category,
          SliceGrouping::SourceLine, SliceGrouping::None})
        m_grouping->addItem(tr("group by %1").arg(groupingLabel(g)), int(g));
    m_grouping->setItemText(m_grouping->count() - 1, tr("every slice (no grouping)"));
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter slice names (Return)"));
    m_filter->setClearButtonEnabled(true);
    m_status = new QLabel(this);
    m_status->setTextFormat(Qt::PlainText);
    m_table = makeSortedTable(m_rows, RowTableModel::kSortRole, this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_grouping);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_status, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);

    connect(m_grouping, &QComboBox::currentIndexChanged, this, [this] { reload(); });
    connect(m_filter, &QLineEdit::returnPressed, this, [this] { reload(); });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const EntityRef ref = m_rows->entityOf(sourceRow(m_table, index));
        if (!ref.isNone() && ref.id >= 0) selection().select(ref, this);
    });
    connect(m_watcher, &QFutureWatcher<Result>::finished, this, [this] {
        const Result loaded = m_watcher->result(); // never throws: runGuarded
        if (loaded.generation != m_generation) return;
        m_loading = false;
        if (!loaded.value) {
            m_rows->setTable({});
            m_status->setText(tr("Cannot read the slices: %1").arg(loaded.error));
        } else {
            const SlicePivot& p = *loaded.value;
            m_rows->setTable(p.table);
            m_table->resizeColumnsToContents();
            const int rows = m_rows->rowCount();
            m_status->setText(
                p.truncated ? tr("first %1 of %2 slices (group or filter to see the rest), %3 ms")
                                  .arg(rows)
                                  .arg(p.slices)
                                  .arg(loaded.seconds * 1e3, 0, 'f', 0)
                            : tr("%1 slices in %2 rows, %3 ms")
                                  .arg(p.slices)
                                  .arg(rows)
                                  .arg(loaded.seconds * 1e3, 0, 'f', 0));
        }
        emit pivotShown();
    });
    initialize();
}

SliceTableView::~SliceTableView() = default; // m_tokens cancels the worker and waits

void SliceTableView::showPivot(SliceGrouping grouping, const QString& filter) {
    const QSignalBlocker block(m_grouping);
    m_grouping->setCurrentIndex(m_grouping->findData(int(grouping)));
    m_filter->setText(filter);
    reload();
}

QString SliceTableView::statusText() const {
    return m_status->text();
}

void SliceTableView::documentChanged() {
    const QSignalBlocker block(m_filter);
    m_filter->clear(); // a filter belongs to the trace it was typed for
    reload();
}

void SliceTableView::reload() {
    ++m_generation;
    m_tokens.cancel();
    m_rows->setTable({});
    const TraceDocument* doc = document();
    if (!doc || !doc->summary().hasRun()) {
        m_loading = false;
        m_status->setText(doc ? tr("This trace holds no run: no slices")
                              : context().noTraceStatus());
        emit pivotShown();
        return;
    }
    m_loading = true;
    m_status->setText(tr("Reading the slices..."));
    SlicePivotQuery query;
    query.grouping = SliceGrouping(m_grouping->currentData().toInt());
    query.filter = m_filter->text().toStdString();
    m_watcher->setFuture(
        QtConcurrent::run(&workerPool(), [path = doc->path(), query, generation = m_generation,
                                          token = m_tokens.next()] {
            return runLoaded<SlicePivot>(generation, *token, [&] {
                const auto reader = tracedb::TraceReader::open(path);
                const auto watch = token->watch(reader);
                return pivotSlices(reader, query);
            });
        }));
}

} // namespace pto::gui
