// The bottleneck view: loads the profile off the GUI thread and links its tables to the
// shared selection.
#include "gui/widgets/BottleneckView.h"

#include "gui/model/FindingsModel.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/MeasuredKernelTable.h"
#include "gui/model/OpCostModel.h"
#include "gui/model/RooflineModel.h"
#include "gui/model/UtilizationModel.h"
#include "gui/model/WorkerPool.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/BottleneckViewParts.h"
#include "gui/widgets/RooflineChart.h"
#include "profiler/Profile.h"
#include "profiler/report/MeasuredSummary.h"
#include "profiler/rules/Rules.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <string>
#include <vector>

namespace pto::gui {

namespace {

// A note in italics over a table, saying why (part of) it is empty; hidden until there is one.
QLabel* noteLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    QFont font = label->font();
    font.setItalic(true);
    label->setFont(font);
    label->hide();
    return label;
}

void showNote(QLabel* label, const QString& text) {
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

QWidget* titled(const QString& title, QWidget* content, QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title), box);
    layout->addWidget(label);
    layout->addWidget(content, 1);
    return box;
}

// A measured trace (pto import) as `pto report` summarizes it: its source, run time and kernels,
// and what the profiler files do not hold — never the simulated chip's arch, peaks or roof.
QString measuredSummaryOf(const prof::Profile& p) {
    QString source;
    QStringList facts;
    for (const prof::SummaryRow& row : prof::measuredSummaryRows(prof::measuredSummaryJson(p))) {
        const QString value = QString::fromStdString(row.value);
        if (row.label == "source")
            source = value;
        else
            facts << value;
    }
    return BottleneckView::tr("%1, %2: %3")
        .arg(QString::fromStdString(p.model.program), source, facts.join(QStringLiteral("; ")));
}

// "1 finding", "3 findings".
QString findingsCount(const prof::Profile& p) {
    return p.findings.size() == 1 ? BottleneckView::tr("1 finding")
                                  : BottleneckView::tr("%1 findings").arg(p.findings.size());
}

QString summaryOf(const prof::Profile& p, double micros) {
    int critical = 0, warning = 0;
    for (const prof::Finding& f : p.findings) {
        critical += f.severity == prof::Severity::Critical;
        warning += f.severity == prof::Severity::Warning;
    }
    if (p.model.measured)
        return BottleneckView::tr("%1 — %2 (%3 critical, %4 warning)")
            .arg(measuredSummaryOf(p))
            .arg(findingsCount(p))
            .arg(critical)
            .arg(warning);
    // A run the simulator stopped (meta sim_fault) says so first, as `pto run` and `pto report`
    // do: it looked like a finished run with "bound: none".
    const QString fault = p.model.simFault.empty()
                              ? QString()
                              : BottleneckView::tr("STOPPED BY A FAULT (the trace holds the run up "
                                                   "to it): %1\n")
                                    .arg(QString::fromStdString(p.model.simFault));
    return fault + BottleneckView::tr("%1 on %2: %3 cycles (%4 µs), %5 tasks — bound: %6, %7 % of "
                                      "the roof — %8 (%9 critical, %10 warning)")
                       .arg(QString::fromStdString(p.model.program),
                            QString::fromStdString(p.model.peaks.name))
                       .arg(p.model.totalCycles)
                       .arg(micros, 0, 'f', 2)
                       .arg(p.model.tasks.size())
                       .arg(QString::fromStdString(p.runBound.reason().empty()
                                                       ? p.runBound.label()
                                                       : p.runBound.label() + " (" +
                                                             p.runBound.reason() + ")"))
                       .arg(p.runBound.roofFraction * 100, 0, 'f', 0)
                       .arg(findingsCount(p))
                       .arg(critical)
                       .arg(warning);
}

// The defects of the file the profiler worked around (RunModel::fileWarnings: slices set aside,
// a loop of stages), one line each, as `pto report` prints them on stderr.
QString fileWarningsOf(const prof::Profile& p) {
    QString text;
    for (const std::string& warning : p.model.fileWarnings)
        text += BottleneckView::tr("\nwarning: %1").arg(QString::fromStdString(warning));
    return text;
}

// The rules the trace level could not feed, under the summary: the details pane says it only
// when there is no finding to show, and a run with findings may still lack some rules.
QString notEvaluatedOf(const prof::Profile& p) {
    const std::string note = prof::notEvaluatedNote(p);
    return note.empty()
               ? QString()
               : BottleneckView::tr("\nnot evaluated: %1").arg(QString::fromStdString(note));
}

// At most this many of the compiler's notes, each cut at kNoteChars, go to the details pane (a
// hostile trace may hold megabytes of them); `pto report` lists them all.
constexpr size_t kShownNotes = 20;
constexpr qsizetype kNoteChars = 400;

QString notesText(const std::vector<std::string>& notes) {
    if (notes.empty()) return {};
    QString out = BottleneckView::tr("Compiler notes:");
    const size_t shown = std::min(notes.size(), kShownNotes);
    for (size_t i = 0; i < shown; ++i) {
        QString note = QString::fromStdString(notes[i]);
        if (note.size() > kNoteChars) note = note.left(kNoteChars) + QStringLiteral("…");
        out += QStringLiteral("\n  ") + note;
    }
    if (notes.size() > shown)
        out += BottleneckView::tr("\n  … and %1 more (`pto report` lists them all)")
                   .arg(notes.size() - shown);
    return out;
}

QString notesCount(const std::vector<std::string>& notes) {
    if (notes.empty()) return {};
    return notes.size() == 1 ? BottleneckView::tr(" — 1 compiler note, listed with the details")
                             : BottleneckView::tr(" — %1 compiler notes, listed with the details")
                                   .arg(notes.size());
}

} // namespace

BottleneckView::BottleneckView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_findings(new FindingsModel(this)),
      m_utilization(new UtilizationModel(this)), m_opCost(new OpCostModel(this)),
      m_roofline(new RooflineModel(this)), m_kernels(new RowTableModel(this)),
      m_watcher(new QFutureWatcher<Result>(this)) {
    buildLayout();
    connectClicks();
    connect(m_watcher, &QFutureWatcher<Result>::finished, this, [this] {
        const Result loaded = m_watcher->result(); // never throws: runGuarded
        if (loaded.generation != m_generation) return;
        showProfile(loaded.value, loaded.error);
        if (loaded.value)
            m_header->setText(m_header->text() +
                              tr(" (analyzed in %1 s)").arg(loaded.seconds, 0, 'f', 2));
    });
    connect(&selection(), &SelectionModel::selectionChanged, this,
            &BottleneckView::followSelection);
    initialize();
}

BottleneckView::~BottleneckView() = default; // m_tokens cancels the analysis and waits

void BottleneckView::buildLayout() {
    m_header = new QLabel(this);
    m_header->setTextFormat(Qt::PlainText); // program and arch names come from the trace
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_findingsTable = makeSortedTable(m_findings, FindingsModel::kSortRole, this);
    m_utilizationTable = makeSortedTable(m_utilization, UtilizationModel::kSortRole, this);
    m_utilizationTable->setItemDelegate(new HeatDelegate(UtilizationModel::kRatioRole, this));
    m_utilizationTable->setAlternatingRowColors(false);
    m_opTable = makeSortedTable(m_opCost, OpCostModel::kSortRole, this);
    m_kernelTable = makeSortedTable(m_kernels, RowTableModel::kSortRole, this);
    m_kernelTable->hide();

    auto* left = new QSplitter(Qt::Vertical, this);
    left->addWidget(buildFindingsPane());
    auto* opBox = titled(tr("Cost per Tensor op"), m_opTable, this);
    m_opsNote = noteLabel(this);
    static_cast<QVBoxLayout*>(opBox->layout())->insertWidget(1, m_opsNote);
    static_cast<QVBoxLayout*>(opBox->layout())->addWidget(m_kernelTable, 1);
    left->addWidget(opBox);
    auto* right = new QSplitter(Qt::Vertical, this);
    auto* showIdle = new QCheckBox(tr("show idle cores"), this);
    connect(showIdle, &QCheckBox::toggled, m_utilization, &UtilizationModel::setShowIdle);
    auto* utilizationBox =
        titled(tr("Pipe utilization per core (busy ÷ time in tasks)"), m_utilizationTable, this);
    static_cast<QVBoxLayout*>(utilizationBox->layout())->insertWidget(1, showIdle);
    m_pipesNote = noteLabel(this);
    static_cast<QVBoxLayout*>(utilizationBox->layout())->insertWidget(2, m_pipesNote);
    connect(m_utilization, &QAbstractItemModel::modelReset, this, &BottleneckView::showPipeColumns);
    right->addWidget(utilizationBox);
    right->addWidget(buildRooflinePane());
    auto* columns = new QSplitter(Qt::Horizontal, this);
    columns->addWidget(left);
    columns->addWidget(right);
    columns->setStretchFactor(0, 1);
    columns->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_header);
    layout->addWidget(columns, 1);
}

QWidget* BottleneckView::buildFindingsPane() {
    m_details = new QPlainTextEdit(this);
    m_details->setReadOnly(true);
    m_details->setPlaceholderText(tr("Click a finding for its evidence and advice"));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_findingsTable);
    split->addWidget(m_details);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    return titled(tr("Findings"), split, this);
}

QWidget* BottleneckView::buildRooflinePane() {
    m_chart = new RooflineChart(this);
    m_chart->setModel(m_roofline);
    m_pointKind = new QComboBox(this);
    m_pointKind->addItem(tr("one point per task"));
    m_pointKind->addItem(tr("one point per Tensor op"));
    connect(m_pointKind, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_roofline->setMode(index == 0 ? RooflineModel::Mode::Tasks
                                       : RooflineModel::Mode::TensorOps);
    });
    auto* box = titled(tr("Roofline"), m_chart, this);
    static_cast<QVBoxLayout*>(box->layout())->insertWidget(1, m_pointKind);
    return box;
}

void BottleneckView::connectClicks() {
    connect(m_findingsTable, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int row = sourceRow(m_findingsTable, index);
        showDetails(m_findings->details(row));
        // The timeline follows the selection to the core's track or the task's slice.
        const EntityRef ref = m_findings->entityOf(row);
        if (ref.isNone()) return;
        selection().select(ref, this);
        if (ref.kind == EntityRef::Kind::Node && m_roofline->mode() == RooflineModel::Mode::Tasks &&
            ref.stageId == m_roofline->entityStage())
            for (int r = 0; r < m_roofline->rowCount(); ++r)
                if (m_roofline->entityId(r) == ref.id) m_chart->setHighlightedRow(r);
    });
    connect(m_utilizationTable, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const std::int64_t track = m_utilization->trackId(sourceRow(m_utilizationTable, index));
        if (track >= 0) selection().select(EntityRef::track(track), this);
    });
    connect(m_opTable, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int row = sourceRow(m_opTable, index);
        const std::int64_t op = m_opCost->opId(row);
        if (op >= 0) selection().select(EntityRef::node(m_opCost->opStage(row), op), this);
    });
    connect(m_chart, &RooflineChart::pointClicked, this, &BottleneckView::selectTaskOrOp);
    connect(m_kernelTable, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int row = sourceRow(m_kernelTable, index);
        if (row < 0 || row >= int(m_kernelRanges.size())) return;
        const auto [begin, end] = m_kernelRanges[std::size_t(row)];
        if (begin >= 0 && end >= begin) emit context().revealTimeRequested(begin, end);
    });
}

void BottleneckView::selectTaskOrOp(int row) {
    m_chart->setHighlightedRow(row);
    const auto [begin, end] = m_roofline->timeRange(row);
    selection().select(EntityRef::node(m_roofline->entityStage(row), m_roofline->entityId(row)),
                       this);
    if (begin >= 0 && end >= begin) emit context().revealTimeRequested(begin, end);
}

void BottleneckView::documentChanged() {
    ++m_generation;
    m_tokens.cancel(); // an analysis of the previous document stops mid-statement
    m_links.reset();
    m_chart->setEmptyText({});
    showProfile(nullptr, {});
    const TraceDocument* doc = document();
    if (!doc) {
        m_header->setText(context().noTraceStatus());
        emit profileLoaded();
        return;
    }
    if (!doc->summary().hasRun()) {
        m_header->setText(tr("This trace holds no simulated run (compile only: %1 IR stages) — "
                             "nothing to profile. Run it with `pto run` to see bottlenecks.")
                              .arg(doc->summary().stageCount));
        m_details->setPlainText(notesText(doc->summary().compileNotes));
        emit profileLoaded();
        return;
    }
    m_loading = true;
    m_header->setText(tr("Analyzing the run..."));
    // Not "open a simulated run": this one is, its points come with the analysis.
    m_chart->setEmptyText(tr("Analyzing the run… its roofline points follow."));
    const int generation = m_generation;
    m_watcher->setFuture(
        QtConcurrent::run(&workerPool(), [path = doc->path(), generation, token = m_tokens.next()] {
            return runLoaded<const prof::Profile>(generation, *token, [&] {
                const auto reader = tracedb::TraceReader::open(path);
                const auto watch = token->watch(reader);
                return prof::analyze(prof::loadRunModel(reader));
            });
        }));
}

void BottleneckView::showProfile(std::shared_ptr<const prof::Profile> profile,
                                 const QString& error) {
    m_findings->setProfile(profile);
    m_utilization->setProfile(profile);
    m_opCost->setProfile(profile);
    m_roofline->setProfile(profile);
    m_hasMatmul =
        profile && std::any_of(profile->model.tensorOps.begin(), profile->model.tensorOps.end(),
                               [](const prof::TensorOpCost& op) { return op.kind == "matmul"; });
    showKernels(profile.get());
    m_details->clear();
    for (QTableView* table : {m_findingsTable, m_utilizationTable, m_opTable, m_kernelTable})
        table->resizeColumnsToContents();
    if (!m_loading) return;
    m_loading = false;
    m_chart->setEmptyText({});
    if (!error.isEmpty())
        m_header->setText(tr("Cannot analyze this run: %1").arg(error));
    else if (profile)
        m_header->setText(
            summaryOf(*profile,
                      double(profile->model.totalCycles) * 1e6 / profile->model.peaks.clockHz) +
            (document() ? notesCount(document()->summary().compileNotes) : QString()) +
            fileWarningsOf(*profile) + notEvaluatedOf(*profile));
    if (m_findings->rowCount() > 0) {
        showSourceRow(m_findingsTable, 0);
        showDetails(m_findings->details(0));
    } else if (profile) {
        QString details =
            tr("No findings: %1.").arg(QString::fromStdString(prof::noFindingsNote(*profile)));
        if (const std::string note = prof::notEvaluatedNote(*profile); !note.empty())
            details += tr("\nNot evaluated: %1.").arg(QString::fromStdString(note));
        showDetails(details);
    }
    // A selection made while the run was analyzed (a reference on the command line) shows now.
    if (!selection().current().isNone()) followSelection(selection().current(), nullptr);
    emit profileLoaded();
}

QString BottleneckView::tuneHint() const {
    const TraceDocument* doc = document();
    std::string program = doc ? doc->summary().programPath : std::string();
    if (program.empty()) program = "PROGRAM.pto";
    // pto tune refuses a cube_tile for a program without matmul (it would change nothing).
    const QString cube = m_hasMatmul ? QStringLiteral("cube_tile = {\"m\": [64, 128], \"k\": "
                                                      "[64], \"n\": [128, 256]}; ")
                                     : QString();
    return tr("Tune this kernel: let `pto tune` try tile shapes and task counts for you —\n"
              "  pto tune %1 --space '%2vec_tile = as_written; tiles_per_task = 0 | 1 | 2' -o "
              "tune.db\n"
              "then open tune.db here (File → Open): candidates, Pareto chart, their traces "
              "(docs/USER_GUIDE.md, Tuning).")
        .arg(QString::fromStdString(program), cube);
}

void BottleneckView::showDetails(const QString& text) {
    QString all = text + QStringLiteral("\n\n");
    const TraceDocument* doc = document();
    if (doc && !doc->summary().compileNotes.empty())
        all += notesText(doc->summary().compileNotes) + QStringLiteral("\n\n");
    // A measured trace has no program to tune.
    m_details->setPlainText(doc && doc->summary().measured ? text : all + tuneHint());
}

void BottleneckView::showKernels(const prof::Profile* profile) {
    MeasuredKernelTable kernels = profile ? measuredKernelTable(*profile) : MeasuredKernelTable{};
    const bool measured = !kernels.table.rows.empty();
    m_kernelRanges = std::move(kernels.ranges);
    m_kernels->setTable(std::move(kernels.table));
    m_opTable->setVisible(!measured);
    m_kernelTable->setVisible(measured);
    const QString reason = m_opCost->unavailableReason();
    showNote(m_opsNote, measured ? tr("%1 Its kernels by time instead, as `pto report` lists them "
                                      "(click one to show it on the timeline):")
                                       .arg(reason)
                                 : reason);
}

void BottleneckView::showPipeColumns() {
    const bool recorded = m_utilization->pipesRecorded();
    for (int column = UtilizationModel::FirstPipe; column <= m_utilization->memoryBoundColumn();
         ++column)
        m_utilizationTable->setColumnHidden(column, !recorded);
    showNote(m_pipesNote, m_utilization->unavailableReason());
}

QString BottleneckView::pipesNote() const {
    return m_pipesNote->isHidden() ? QString() : m_pipesNote->text();
}

QString BottleneckView::opsNote() const {
    return m_opsNote->isHidden() ? QString() : m_opsNote->text();
}

QString BottleneckView::headline() const {
    return m_header->text();
}

QString BottleneckView::detailsText() const {
    return m_details->toPlainText();
}

void BottleneckView::followSelection(const EntityRef& ref, const QObject* origin) {
    if (origin == this || !document() || m_opCost->rowCount() == 0) return;
    if (ref.kind == EntityRef::Kind::Track) {
        showSourceRow(m_utilizationTable, m_utilization->rowOfTrack(ref.id));
        return;
    }
    if (!m_links) m_links = std::make_unique<LinkResolver>(document()->reader());
    // A copy of an unrolled loop's body selects its body op's row ("exp %p in kv"), not the
    // loop's total.
    const NodeKey op = ref.isNone() ? NodeKey{} : m_links->programOpOf(ref);
    int row = -1;
    for (int r = 0; r < m_opCost->rowCount() && row < 0 && op.valid(); ++r)
        if (NodeKey{m_opCost->opStage(r), m_opCost->opId(r)} == op) row = r;
    // A body op's row is named by the first copy that ran instructions, which may be a later
    // one than the program op's first copy.
    for (int r = 0; r < m_opCost->rowCount() && row < 0 && op.valid(); ++r)
        if (m_opCost->opStage(r) != m_opCost->rootStage() &&
            m_links->programOpOfNode(m_opCost->opStage(r), m_opCost->opId(r)) == op)
            row = r;
    showSourceRow(m_opTable, row);
}

} // namespace pto::gui
