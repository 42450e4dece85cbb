// The compare view: profiles the open run and its baseline off the GUI thread and shows their
// differences, linked to the shared selection.
#include "gui/widgets/CompareView.h"

#include "gui/model/CompareTables.h"
#include "gui/model/RooflineModel.h"
#include "gui/model/WorkerPool.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/BottleneckViewParts.h"
#include "gui/widgets/RooflineChart.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "profiler/Profile.h"
#include "profiler/RunCompare.h"
#include "profiler/SimVsReal.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace pto::gui {

/// What the view shows of one pair of runs, computed on the worker.
struct RunPairComparison {
    std::shared_ptr<const prof::Profile> current;
    bool simVsReal = false;
    RowTable ops, cores, kernels;
    std::vector<RooflineArrow> arrows;
    QString headline, baselineSummary, currentSummary;
};

namespace {

/// What the worker needs of one open trace.
struct RunFile {
    std::filesystem::path path;
    double clockHz = 0;
    QString name;
};

RunFile runFile(const TraceDocument& doc) {
    return {doc.path(), doc.summary().clockHz,
            QString::fromStdString(doc.path().filename().string())};
}

QString timeOf(const RunFile& run, std::int64_t cycles) {
    if (run.clockHz <= 0) return CompareView::tr("%1 cycles").arg(cycles);
    return CompareView::tr("%1 cycles (%2 µs)")
        .arg(cycles)
        .arg(double(cycles) / run.clockHz * 1e6, 0, 'f', 2);
}

/// One run's bottleneck summary: time, bound class, roof fraction, findings and the top one.
/// A measured trace: its time from the first kernel start to the last end and its kernels (no
/// roof or bound of the run: its files hold no FLOP or byte counts).
QString summaryOf(const QString& role, const RunFile& run, const prof::Profile& p) {
    QString text;
    if (p.model.measured)
        text = CompareView::tr("%1: %2 (measured)\n%3 µs from the first kernel start to the last "
                               "end, %4 kernels\nno throughput or roofline in the profiler files\n")
                   .arg(role, run.name)
                   .arg(double(p.model.totalCycles) / 1000, 0, 'f', 2)
                   .arg(p.model.tasks.size());
    else
        text =
            CompareView::tr("%1: %2 (%3)\n%4, %5 tasks\n%6 bound, %7 % of the roof\n")
                .arg(role, run.name, CompareView::tr("simulated"), timeOf(run, p.model.totalCycles))
                .arg(p.model.tasks.size())
                .arg(QString::fromStdString(p.runBound.label()))
                .arg(p.runBound.roofFraction * 100, 0, 'f', 0);
    if (p.findings.empty()) return text + CompareView::tr("no findings");
    return text + CompareView::tr("%1 findings; top: %2")
                      .arg(p.findings.size())
                      .arg(QString::fromStdString(p.findings.front().title));
}

std::vector<RooflineArrow> arrowsOf(const prof::RunComparison& c, const prof::Profile& baseline,
                                    const prof::Profile& current) {
    std::vector<RooflineArrow> arrows;
    for (const prof::OpDelta& d : c.ops) {
        if (d.indexA < 0 || d.indexB < 0) continue;
        const prof::RooflinePoint& a = baseline.roofline.tensorOps[std::size_t(d.indexA)];
        const prof::RooflinePoint& b = current.roofline.tensorOps[std::size_t(d.indexB)];
        if (a.intensity <= 0 || a.flopsPerCycle <= 0 || b.intensity <= 0 || b.flopsPerCycle <= 0)
            continue;
        arrows.push_back({a.intensity, a.flopsPerCycle, b.intensity, b.flopsPerCycle});
    }
    return arrows;
}

/// A simulated run next to a measured trace, paired by op type and shape (`pto compare`'s
/// default for such a pair).
void compareSimToReal(const RunFile& base, const RunFile& open, const prof::Profile& baseline,
                      RunPairComparison& out) {
    out.simVsReal = true;
    const bool openIsSim = !out.current->model.measured;
    const prof::Profile& sim = openIsSim ? *out.current : baseline;
    const prof::Profile& real = openIsSim ? baseline : *out.current;
    const RunFile& simFile = openIsSim ? open : base;
    const RunFile& realFile = openIsSim ? base : open;
    const prof::SimRealComparison c = prof::compareSimToReal(
        sim, simFile.path.string(), real, realFile.path.string(), prof::MatchSpec{});
    out.kernels = simRealTable(c, sim, openIsSim);
    // As `pto compare` counts them: the ops that found kernels and the kernel runs they were
    // paired with (it said "paired with the 187 measured kernels" where 9 were).
    int pairedOps = 0, pairedRuns = 0;
    QStringList matchedOn; // what the pairs really matched on ("type", "type, input shapes"…)
    for (const prof::KernelPair& p : c.pairs) {
        pairedOps += p.realCount > 0 ? 1 : 0;
        pairedRuns += p.realCount;
        const QString on = QString::fromStdString(p.matchedOn);
        if (p.realCount > 0 && !on.isEmpty() && !matchedOn.contains(on)) matchedOn << on;
    }
    out.headline = CompareView::tr("Simulated %1 next to measured %2: %3 of %4 simulated op(s) "
                                   "paired with %5 measured kernel run(s) (matched on %6; the "
                                   "trace holds %7)")
                       .arg(simFile.name, realFile.name)
                       .arg(pairedOps)
                       .arg(c.pairs.size())
                       .arg(pairedRuns)
                       .arg(matchedOn.isEmpty() ? CompareView::tr("nothing")
                                                : matchedOn.join(QStringLiteral(" / ")))
                       .arg(c.measuredKernels);
}

/// Both runs profiled and compared, baseline first as in `pto compare BASELINE OPEN`.
RunPairComparison compareFiles(const RunFile& base, const RunFile& open, CancelToken& token) {
    RunPairComparison out;
    const auto analyze = [&](const RunFile& run) {
        const auto reader = tracedb::TraceReader::open(run.path);
        const auto watch = token.watch(reader);
        return prof::analyze(prof::loadRunModel(reader));
    };
    const prof::Profile baseline = analyze(base);
    out.current = std::make_shared<const prof::Profile>(analyze(open));
    out.baselineSummary = summaryOf(CompareView::tr("Baseline"), base, baseline);
    out.currentSummary = summaryOf(CompareView::tr("Open run"), open, *out.current);
    if (baseline.model.measured != out.current->model.measured) {
        compareSimToReal(base, open, baseline, out);
        return out;
    }
    const prof::RunComparison c = prof::compareRuns(baseline, *out.current);
    out.ops = opDeltaTable(c, *out.current);
    out.cores = coreDeltaTable(c, *out.current);
    out.arrows = arrowsOf(c, baseline, *out.current);
    const prof::Delta& t = c.totalCycles;
    if (c.measured) { // ns from the first kernel start to the last end; no roof, no bound class
        out.headline = CompareView::tr("Open run %1 vs baseline %2 (measured): %3 → %4 ns from "
                                       "the first kernel start to the last end (%5%6, %7× "
                                       "speed-up)")
                           .arg(open.name, base.name)
                           .arg(qint64(t.a))
                           .arg(qint64(t.b))
                           .arg(t.diff() > 0 ? QStringLiteral("+") : QString())
                           .arg(qint64(t.diff()))
                           .arg(c.speedup(), 0, 'f', 3);
        return out;
    }
    // The speed-up as `pto compare` gives it: baseline time ÷ open time (it said ×0.932, the
    // inverse, for a run 7 % faster).
    out.headline =
        CompareView::tr(
            "Open run %1 vs baseline %2: %3 → %4 cycles (%5%6, %7× speed-up); bound %8 → %9")
            .arg(open.name, base.name)
            .arg(qint64(t.a))
            .arg(qint64(t.b))
            .arg(t.diff() > 0 ? QStringLiteral("+") : QString())
            .arg(qint64(t.diff()))
            .arg(c.speedup(), 0, 'f', 3)
            .arg(QString::fromStdString(c.boundA), QString::fromStdString(c.boundB));
    if (const std::string note = c.differentProgramsNote(); !note.empty())
        out.headline += QStringLiteral("\n") + QString::fromStdString(note);
    return out;
}

} // namespace

CompareView::CompareView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_ops(new RowTableModel(this)), m_cores(new RowTableModel(this)),
      m_kernels(new RowTableModel(this)), m_roofline(new RooflineModel(this)),
      m_watcher(new QFutureWatcher<Result>(this)) {
    m_roofline->setMode(RooflineModel::Mode::TensorOps);
    buildLayout();
    connect(m_watcher, &QFutureWatcher<Result>::finished, this, [this] {
        const Result loaded = m_watcher->result(); // never throws: runGuarded
        if (loaded.generation == m_generation) showComparison(loaded);
    });
    connect(&context, &StudioContext::baselineChanged, this, [this] { reload(); });
    initialize();
}

CompareView::~CompareView() {
    // The baseline timeline follows m_baselineContext, a member destroyed before the children.
    delete m_baselineTimeline;
}

void CompareView::buildLayout() {
    auto label = [this] {
        auto* l = new QLabel(this);
        l->setTextFormat(Qt::PlainText); // file, program and finding text come from the traces
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        l->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum); // never cut to a line
        return l;
    };
    m_header = label();
    m_baselineSummary = label();
    m_currentSummary = label();
    auto* summaries = new QHBoxLayout;
    summaries->addWidget(m_baselineSummary, 1);
    summaries->addWidget(m_currentSummary, 1);
    m_tabs = new QTabWidget(this);
    m_opTable = addTable(m_ops, tr("Per op"));
    m_coreTable = addTable(m_cores, tr("Per core"));
    m_kernelTable = addTable(m_kernels, tr("Simulated vs measured"));
    m_chart = new RooflineChart(this);
    m_chart->setModel(m_roofline);
    m_chart->setToolTip(tr("Tensor ops of the open run; a hollow point and an arrow show where "
                           "the op was in the baseline"));
    m_tabs->addTab(m_chart, tr("Roofline"));
    m_tabs->addTab(buildTimelines(), tr("Timelines"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_header);
    layout->addLayout(summaries);
    layout->addWidget(m_tabs, 1);
}

QTableView* CompareView::addTable(RowTableModel* model, const QString& title) {
    QTableView* table = makeSortedTable(model, RowTableModel::kSortRole, this);
    connect(table, &QTableView::clicked, this, [this, model, table](const QModelIndex& index) {
        const EntityRef ref = model->entityOf(sourceRow(table, index));
        if (!ref.isNone()) selection().select(ref, this);
    });
    m_tabs->addTab(table, title);
    return table;
}

QWidget* CompareView::buildTimelines() {
    m_timelines = new QSplitter(Qt::Vertical, this);
    auto* hint = new QLabel(tr("Open a baseline to see both timelines"), m_timelines);
    hint->setAlignment(Qt::AlignCenter);
    return m_timelines;
}

void CompareView::syncTimelines(TimelineView& from, TimelineView& to) {
    // A simulated run counts cycles and a measured one ns from its own origin: one range of the
    // first means nothing in the second.
    if (m_syncing || m_simVsReal) return;
    m_syncing = true;
    const TimelineViewport& range = from.canvas().viewport();
    to.canvas().viewport().setRange(range.begin(), range.end());
    to.canvas().update();
    m_syncing = false;
}

void CompareView::documentChanged() {
    reload();
}

void CompareView::reload() {
    ++m_generation;
    m_tokens.cancel();
    m_loading = false;
    Result none;
    none.generation = m_generation;
    showComparison(none);
    const TraceDocument* open = document();
    const TraceDocument* base = context().baseline();
    if (!base && m_baselineContext.document()) m_baselineContext.setDocument(nullptr);
    if (!base || !open) {
        m_header->setText(
            !base ? tr("No baseline: File → Open baseline… (or `pto-studio A.db --baseline B.db`) "
                       "compares the open run with another run of the same program — a what-if, "
                       "another tile configuration, the build before a change, or a measured "
                       "trace from `pto import`.")
                  : tr("No trace open"));
        emit comparisonLoaded();
        return;
    }
    if (!open->summary().hasRun() || !base->summary().hasRun()) {
        m_header->setText(tr("Both traces need a run to compare: %1 is compile only.")
                              .arg(QString::fromStdString(
                                  (open->summary().hasRun() ? base : open)->path().string())));
        emit comparisonLoaded();
        return;
    }
    m_loading = true;
    m_header->setText(tr("Comparing the runs..."));
    m_watcher->setFuture(
        QtConcurrent::run(&workerPool(), [baseFile = runFile(*base), openFile = runFile(*open),
                                          generation = m_generation, token = m_tokens.next()] {
            return runLoaded<const RunPairComparison>(
                generation, *token, [&] { return compareFiles(baseFile, openFile, *token); });
        }));
}

void CompareView::showComparison(const Result& loaded) {
    const RunPairComparison* c = loaded.value.get();
    m_ops->setTable(c ? c->ops : RowTable{});
    m_cores->setTable(c ? c->cores : RowTable{});
    m_kernels->setTable(c ? c->kernels : RowTable{});
    m_roofline->setProfile(c && !c->simVsReal ? c->current : nullptr);
    m_chart->setArrows(c ? c->arrows : std::vector<RooflineArrow>{});
    m_simVsReal = c && c->simVsReal;
    m_baselineSummary->setText(c ? c->baselineSummary : QString());
    m_currentSummary->setText(c ? c->currentSummary : QString());
    for (QTableView* table : {m_opTable, m_coreTable, m_kernelTable})
        table->resizeColumnsToContents();
    m_tabs->setTabVisible(m_tabs->indexOf(m_opTable), !m_simVsReal);
    m_tabs->setTabVisible(m_tabs->indexOf(m_coreTable), !m_simVsReal);
    m_tabs->setTabVisible(m_tabs->indexOf(m_chart), !m_simVsReal);
    m_tabs->setTabVisible(m_tabs->indexOf(m_kernelTable), m_simVsReal);
    if (!m_loading) return;
    m_loading = false;
    m_header->setText(c ? c->headline : tr("Cannot compare the runs: %1").arg(loaded.error));
    if (m_simVsReal) m_tabs->setCurrentWidget(m_kernelTable); // its only table: in front
    showTimelines();
    emit comparisonLoaded();
}

void CompareView::showTimelines() {
    const TraceDocument* base = context().baseline();
    if (!base) return;
    if (!m_currentTimeline) {
        delete m_timelines->widget(0); // the hint
        auto titled = [this](const QString& title, TimelineView* view) {
            auto* box = new QWidget(m_timelines);
            auto* layout = new QVBoxLayout(box);
            layout->setContentsMargins(0, 0, 0, 0);
            layout->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(title), box));
            layout->addWidget(view, 1);
            return view;
        };
        m_currentTimeline = titled(tr("Open run"), new TimelineView(context()));
        m_baselineTimeline = titled(tr("Baseline"), new TimelineView(m_baselineContext));
        connect(&m_currentTimeline->canvas(), &TimelineCanvas::viewChanged, this,
                [this] { syncTimelines(*m_currentTimeline, *m_baselineTimeline); });
        connect(&m_baselineTimeline->canvas(), &TimelineCanvas::viewChanged, this,
                [this] { syncTimelines(*m_baselineTimeline, *m_currentTimeline); });
    }
    const TraceDocument* shown = m_baselineContext.document();
    if (shown && shown->path() == base->path()) return;
    try {
        m_baselineContext.setDocument(TraceDocument::open(base->path()));
    } catch (const std::exception& error) {
        m_header->setText(
            m_header->text() +
            tr(" — the baseline timeline cannot open: %1").arg(QString::fromUtf8(error.what())));
    }
}

bool CompareView::hasPendingWork() const {
    return m_loading || (m_currentTimeline && m_currentTimeline->hasPendingWork()) ||
           (m_baselineTimeline && m_baselineTimeline->hasPendingWork());
}

QString CompareView::headline() const {
    return m_header->text();
}

QString CompareView::baselineSummary() const {
    return m_baselineSummary->text();
}

QString CompareView::currentSummary() const {
    return m_currentSummary->text();
}

} // namespace pto::gui
