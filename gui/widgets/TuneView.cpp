// The tune view: table, charts and re-runs of a tune file's candidates (gui/widgets/TuneView.h).
#include "gui/widgets/TuneView.h"

#include "gui/model/TuneModel.h"
#include "gui/widgets/TuneChart.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace pto::gui {

TuneView::TuneView(StudioContext& context, QWidget* parent) : StudioView(context, parent) {
    m_model = new TuneTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(TuneTableModel::kSortRole);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(TuneTableModel::Id, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_cycles = new TuneChart(tr("candidate"), this);
    m_pareto = new TuneChart(tr("on-chip memory of the largest block (KiB)"), this);
    auto* charts = new QTabWidget(this);
    charts->addTab(m_cycles, tr("Cycles per candidate"));
    charts->addTab(m_pareto, tr("Cycles vs on-chip memory (Pareto)"));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(charts);
    m_header = new QLabel(tr("No tune file open — run `pto tune PROGRAM --space SPEC -o "
                             "tune.db` and open tune.db"),
                          this);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status = new QLabel(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_header);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);

    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex& index) { openCandidate(idAtRow(index)); });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int64_t id = idAtRow(index);
        m_cycles->setHighlighted(id);
        m_pareto->setHighlighted(id);
    });
    for (TuneChart* chart : {m_cycles, m_pareto}) {
        connect(chart, &TuneChart::pointClicked, this, &TuneView::selectCandidate);
        connect(chart, &TuneChart::pointDoubleClicked, this, &TuneView::openCandidate);
    }
    initialize();
}

TuneView::~TuneView() {
    if (m_process) m_process->kill();
}

int64_t TuneView::idAtRow(const QModelIndex& proxyIndex) const {
    return m_model->candidate(m_proxy->mapToSource(proxyIndex).row()).id;
}

QString TuneView::openTuneFile(const QString& path) {
    tracedb::TuneData data;
    try {
        data = tracedb::readTuneFile(path.toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    m_path = path;
    m_model->setData(std::move(data));
    const tracedb::TuneData& d = m_model->tuneData();
    const tracedb::TuneCandidate* best = d.best();
    m_header->setText(
        tr("%1: %2 candidates of %3; best #%4 at %5 cycles (pruned %6). Double-click a "
           "candidate to open its trace.")
            .arg(QFileInfo(path).fileName())
            .arg(d.candidates.size())
            .arg(QString::fromStdString(d.metaOr("program")))
            .arg(best ? QString::number(best->id) : tr("none"))
            .arg(best ? QString::number(*best->cycles) : tr("—"))
            .arg(QString::fromStdString(d.metaOr("pruned", "0"))));
    m_table->resizeColumnsToContents();
    fillCharts();
    m_status->clear();
    return {};
}

void TuneView::fillCharts() {
    const auto& candidates = m_model->tuneData().candidates;
    const std::vector<int64_t> front = paretoFront(candidates);
    std::vector<TuneChart::Point> byId, pareto;
    for (const tracedb::TuneCandidate& c : candidates) {
        if (c.status != tracedb::TuneStatus::Ok || !c.cycles) continue;
        byId.push_back({double(c.id), double(*c.cycles), c.id, false});
        if (c.onchipBytes)
            pareto.push_back({double(*c.onchipBytes) / 1024.0, double(*c.cycles), c.id,
                              std::find(front.begin(), front.end(), c.id) != front.end()});
    }
    std::sort(pareto.begin(), pareto.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
    m_cycles->setPoints(std::move(byId));
    m_pareto->setPoints(std::move(pareto));
}

void TuneView::selectCandidate(int64_t id) {
    const int row = m_model->rowOf(id);
    if (row < 0) return;
    m_table->selectRow(m_proxy->mapFromSource(m_model->index(row, 0)).row());
    m_cycles->setHighlighted(id);
    m_pareto->setHighlighted(id);
}

QString TuneView::ptoExecutable() {
    const QString fromEnv = qEnvironmentVariable("PTO_CLI");
    if (!fromEnv.isEmpty()) return fromEnv;
    const QDir dir(QCoreApplication::applicationDirPath());
    for (const QString& candidate :
         {dir.filePath(QStringLiteral("pto")), dir.filePath(QStringLiteral("../../cli/pto"))})
        if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
    return QStandardPaths::findExecutable(QStringLiteral("pto"));
}

bool TuneView::rerunning() const {
    return m_process && m_process->state() != QProcess::NotRunning;
}

QString TuneView::statusText() const {
    return m_status->text();
}

void TuneView::openCandidate(int64_t id) {
    const tracedb::TuneData& d = m_model->tuneData();
    if (m_path.isEmpty() || m_model->rowOf(id) < 0 || rerunning()) return;
    const QFileInfo tuneFile(m_path);
    const tracedb::TuneCandidate* best = d.best();
    const QString bestTrace = QString::fromStdString(d.metaOr("best_trace"));
    if (best && best->id == id && !bestTrace.isEmpty() &&
        QFileInfo::exists(tuneFile.dir().filePath(bestTrace))) {
        emit traceRequested(tuneFile.dir().filePath(bestTrace));
        return;
    }
    if (m_model->candidate(m_model->rowOf(id)).status != tracedb::TuneStatus::Ok) {
        m_status->setText(tr("Candidate #%1 did not run: nothing to open").arg(id));
        return;
    }
    const QString out = tuneFile.dir().filePath(
        QStringLiteral("%1.cand-%2.db").arg(tuneFile.completeBaseName()).arg(id));
    if (QFileInfo(out).exists() && QFileInfo(out).lastModified() >= tuneFile.lastModified()) {
        emit traceRequested(out);
        return;
    }
    const QString pto = ptoExecutable();
    if (pto.isEmpty()) {
        m_status->setText(
            tr("Cannot re-run candidate #%1: no `pto` binary found (set PTO_CLI)").arg(id));
        return;
    }
    m_status->setText(tr("Re-running candidate #%1 (pto tune … --candidate %1)…").arg(id));
    m_process = new QProcess(this);
    connect(m_process, &QProcess::finished, this,
            [this, id, out, process = m_process](int code, QProcess::ExitStatus status) {
                process->deleteLater();
                if (m_process == process) m_process = nullptr;
                if (status != QProcess::NormalExit || code != 0) {
                    m_status->setText(tr("Re-run of candidate #%1 failed: %2")
                                          .arg(id)
                                          .arg(QString::fromUtf8(process->readAllStandardError())));
                    return;
                }
                m_status->setText(tr("Candidate #%1: %2").arg(id).arg(out));
                emit traceRequested(out);
            });
    m_process->start(pto, {QStringLiteral("tune"), m_path, QStringLiteral("--candidate"),
                           QString::number(id), QStringLiteral("-o"), out});
}

} // namespace pto::gui
