// The compare view offscreen: a run next to its what-if baseline (delta tables checked against
// `pto compare` on the same pair, rows clicking through, roofline arrows, aligned timelines),
// a simulated run next to a measured trace, and no baseline.
#include "gui/widgets/CompareView.h"
#include "gui/model/CompareTables.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/RooflineChart.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"

#include <fmt/format.h>

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kMeasuredRun =
    fs::path(PTO_SOURCE_DIR) / "../shared/data/ascend-profiler/text/level1/rank0_ascend_pt";

fs::path attentionRun() {
    return test::sampleTrace("attention");
}

/// The same run with twice the GM→L1 DMA rate (what `pto whatif` keeps with -o).
fs::path fasterDmaRun() {
    return test::whatifTrace(attentionRun(), "attention_dma2x", "--set dma.gm_to_l1.rate=2x");
}

json compareJson(const fs::path& a, const fs::path& b) {
    const auto r =
        test::runCommand(fmt::format("{} compare {} {} --json", PTO_CLI,
                                     test::shellQuote(a.string()), test::shellQuote(b.string())));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return json::parse(r.out);
}

class CompareViewTest : public ::testing::Test {
protected:
    void open(const fs::path& run, const fs::path& baseline) {
        m_view = std::make_unique<CompareView>(m_context);
        m_view->resize(1400, 900);
        m_view->show();
        m_context.setDocument(TraceDocument::open(run));
        QSignalSpy loaded(m_view.get(), &CompareView::comparisonLoaded);
        m_context.setBaseline(TraceDocument::open(baseline));
        ASSERT_TRUE(!loaded.isEmpty() || loaded.wait(60000));
        ASSERT_FALSE(m_view->isLoading());
    }
    void clickRow(QTableView* table, int sourceRow) {
        m_view->tabs()->setCurrentWidget(table);
        auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
        const QModelIndex index = proxy->mapFromSource(proxy->sourceModel()->index(sourceRow, 0));
        table->scrollTo(index);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
    }

    StudioContext m_context;
    std::unique_ptr<CompareView> m_view;
};

TEST_F(CompareViewTest, WithoutABaselineItSaysHowToChooseOne) {
    m_view = std::make_unique<CompareView>(m_context);
    m_context.setDocument(TraceDocument::open(attentionRun()));
    EXPECT_TRUE(m_view->headline().startsWith("No baseline")) << m_view->headline().toStdString();
    EXPECT_TRUE(m_view->headline().contains("--baseline"));
    EXPECT_EQ(m_view->opDeltas().rowCount(), 0);
}

// The per-op and per-core tables hold what `pto compare BASELINE OPEN --json` prints.
TEST_F(CompareViewTest, TheDeltaTablesMatchPtoCompareOnAWhatIfPair) {
    open(fasterDmaRun(), attentionRun());
    const json ref = compareJson(attentionRun(), fasterDmaRun());
    EXPECT_TRUE(m_view->headline().contains(
        QString::number(ref["total_cycles"]["a"].get<double>(), 'f', 0) + " → " +
        QString::number(ref["total_cycles"]["b"].get<double>(), 'f', 0)))
        << m_view->headline().toStdString();
    // The speed-up as the CLI gives it (baseline ÷ open: above 1 for the faster run); the view
    // said ×0.93 for a run 7 % faster.
    EXPECT_GT(ref["speedup"].get<double>(), 1.0);
    EXPECT_TRUE(m_view->headline().contains(
        QString::fromStdString(fmt::format("{:.3f}× speed-up", ref["speedup"].get<double>()))))
        << m_view->headline().toStdString();
    RowTableModel& ops = m_view->opDeltas();
    QAbstractItemModelTester tester(&ops, QAbstractItemModelTester::FailureReportingMode::Fatal);
    ASSERT_EQ(std::size_t(ops.rowCount()), ref["ops"].size());
    ASSERT_GT(ops.rowCount(), 1);
    for (int r = 0; r < ops.rowCount(); ++r) {
        const json& op = ref["ops"][std::size_t(r)];
        EXPECT_TRUE(ops.text(r, 1).startsWith(QString::fromStdString(op["op"])));
        EXPECT_EQ(ops.text(r, 0).toLongLong(), op["line"].get<std::int64_t>());
        EXPECT_EQ(ops.text(r, 2).toDouble(), op["span_cycles"]["a"].get<double>());
        EXPECT_EQ(ops.text(r, 3).toDouble(), op["span_cycles"]["b"].get<double>());
        EXPECT_EQ(ops.text(r, 4).toDouble(), op["span_cycles"]["diff"].get<double>());
        EXPECT_EQ(ops.text(r, 10), QString::fromStdString(op["bound_a"]));
        // A faster op reads green in its Δ column, a slower one red, an unchanged one plain.
        const QVariant colour = ops.index(r, 4).data(Qt::ForegroundRole);
        const double diff = op["span_cycles"]["diff"].get<double>();
        if (diff == 0) {
            EXPECT_FALSE(colour.isValid());
            continue;
        }
        const QColor c = colour.value<QBrush>().color();
        EXPECT_EQ(diff<0, c.green()> c.red()) << op["op"];
    }
    RowTableModel& cores = m_view->coreDeltas();
    ASSERT_EQ(std::size_t(cores.rowCount()), ref["cores"].size());
    for (int r = 0; r < cores.rowCount(); ++r) {
        const json& core = ref["cores"][std::size_t(r)];
        EXPECT_EQ(cores.text(r, 0), QString::fromStdString(core["core"]));
        EXPECT_EQ(cores.text(r, 1).toDouble(), core["busy_cycles"]["a"].get<double>());
        EXPECT_EQ(cores.text(r, 2).toDouble(), core["busy_cycles"]["b"].get<double>());
    }
    EXPECT_TRUE(m_view->baselineSummary().startsWith("Baseline: run_attention.db (simulated)"))
        << m_view->baselineSummary().toStdString();
    EXPECT_TRUE(m_view->currentSummary().contains("bound"));
    EXPECT_FALSE(m_view->simVsReal());
}

// Sorting by Δ span puts the op that gained most first; clicking a row selects the op (root
// stage) and a core row its track, in the open run.
TEST_F(CompareViewTest, RowsSortAndClickThroughToTheOpenRun) {
    open(fasterDmaRun(), attentionRun());
    QTableView* table = m_view->opTable();
    table->sortByColumn(4, Qt::AscendingOrder);
    const auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
    double previous = -1e300;
    for (int r = 0; r < proxy->rowCount(); ++r) {
        const double v = proxy->index(r, 4).data(RowTableModel::kSortRole).toDouble();
        EXPECT_GE(v, previous);
        previous = v;
    }
    const int first = proxy->mapToSource(proxy->index(0, 0)).row();
    clickRow(table, first);
    const EntityRef selected = m_context.selection().current();
    EXPECT_EQ(selected.kind, EntityRef::Kind::Node);
    EXPECT_EQ(selected, m_view->opDeltas().entityOf(first));
    const std::string sql =
        fmt::format("SELECT s.name || ' ' || n.kind FROM node n JOIN stage s ON s.id = n.stage_id "
                    "WHERE n.id = {} AND n.stage_id = {}",
                    selected.id, selected.stageId);
    const auto stage = test::runCommand(fmt::format("sqlite3 -readonly {} {}",
                                                    test::shellQuote(fasterDmaRun().string()),
                                                    test::shellQuote(sql)));
    EXPECT_EQ(stage.out,
              fmt::format("tensor.parse {}\n",
                          m_view->opDeltas().text(first, 1).section(' ', 0, 0).toStdString()))
        << stage.err;

    clickRow(m_view->coreTable(), 0);
    EXPECT_EQ(m_context.selection().current().kind, EntityRef::Kind::Track);
    EXPECT_EQ(m_context.selection().current(), m_view->coreDeltas().entityOf(0));
}

// Every op that ran in both runs has an arrow from its baseline point; the chart draws them.
TEST_F(CompareViewTest, TheRooflineDrawsAnArrowPerOpFromTheBaseline) {
    open(fasterDmaRun(), attentionRun());
    RooflineChart* chart = m_view->rooflineChart();
    EXPECT_GT(chart->arrows().size(), 0U);
    EXPECT_LE(chart->arrows().size(), std::size_t(m_view->opDeltas().rowCount()));
    bool moved = false;
    for (const RooflineArrow& a : chart->arrows())
        moved |= a.toFlopsPerCycle > a.fromFlopsPerCycle; // faster DMA: more FLOP per cycle
    EXPECT_TRUE(moved);
    m_view->tabs()->setCurrentWidget(chart);
    EXPECT_GT(test::drawnPixels(test::saveScreenshot(*m_view, "compare_roofline")), 5000U);
}

// The two timelines stand one above the other and keep the same cycle range.
TEST_F(CompareViewTest, TheTimelinesOfBothRunsStayAligned) {
    open(fasterDmaRun(), attentionRun());
    TimelineView* top = m_view->currentTimeline();
    TimelineView* bottom = m_view->baselineTimeline();
    ASSERT_NE(top, nullptr);
    ASSERT_NE(bottom, nullptr);
    m_view->tabs()->setCurrentIndex(m_view->tabs()->count() - 1);
    for (int i = 0; i < 600 && (top->loader().busy() || bottom->loader().busy() ||
                                bottom->tracks().rowCount() == 0);
         ++i)
        QTest::qWait(50);
    ASSERT_GT(bottom->tracks().rowCount(), 0); // the baseline's own tracks
    // Read on the baseline timeline's worker: the tracks of the baseline trace, as SQL lists them.
    const auto baseline = tracedb::TraceReader::open(attentionRun());
    std::vector<std::int64_t> ids;
    for (const TimelineTrack& t : bottom->tracks().tracks()) ids.push_back(t.id);
    std::sort(ids.begin(), ids.end());
    std::vector<std::int64_t> sqlIds;
    for (const auto& row : baseline.query("SELECT id FROM track ORDER BY id").rows)
        sqlIds.push_back(std::get<std::int64_t>(row.at(0)));
    EXPECT_EQ(ids, sqlIds);
    TimelineCanvas& canvas = top->canvas();
    const QPoint centre(canvas.width() / 2, canvas.height() / 2);
    QWheelEvent wheel(centre, canvas.mapToGlobal(centre), {}, {0, 240}, Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&canvas, &wheel);
    const TimelineViewport& a = canvas.viewport();
    const TimelineViewport& b = bottom->canvas().viewport();
    EXPECT_LT(a.span(), double(a.boundsEnd() - a.boundsBegin())); // zoomed in
    EXPECT_NEAR(b.begin(), a.begin(), 1.0);
    EXPECT_NEAR(b.end(), a.end(), 1.0);
    test::saveScreenshot(*m_view, "compare_timelines");
}

// A simulated matmul of the measured job's shapes next to the measured trace: the kernel table
// (the same pairs as `pto compare`) replaces the delta tables.
TEST_F(CompareViewTest, ASimulatedRunNextToAMeasuredTraceShowsTheKernelPairs) {
    if (!fs::is_directory(kMeasuredRun)) GTEST_SKIP() << "no test data at " << kMeasuredRun;
    const fs::path sim = test::programTrace(
        "mm_relu_32x4096",
        "func @mm(%x: tensor<32x4096xf32>, %w: tensor<4096x4096xf32>) -> tensor<32x4096xf32> {\n"
        "  %y = matmul %x, %w\n  %z = relu %y\n  return %z\n}\n",
        "--timing-only");
    const fs::path real = test::importedTrace(kMeasuredRun, "measured_level1_rank0");
    open(sim, real);
    EXPECT_TRUE(m_view->simVsReal());
    const json ref = compareJson(sim, real);
    RowTableModel& pairs = m_view->kernelPairs();
    ASSERT_EQ(std::size_t(pairs.rowCount()), ref["pairs"].size());
    for (int r = 0; r < pairs.rowCount(); ++r) {
        const json& p = ref["pairs"][std::size_t(r)];
        EXPECT_EQ(pairs.text(r, 0), QString::fromStdString(p["sim_op"]));
        EXPECT_EQ(pairs.text(r, 3), QString::fromStdString(p["real_type"]));
        EXPECT_NEAR(pairs.text(r, 6).toDouble(), p["real_us"].get<double>(), 0.006);
    }
    QTabWidget* tabs = m_view->tabs();
    EXPECT_TRUE(tabs->isTabVisible(tabs->indexOf(m_view->kernelTable())));
    EXPECT_FALSE(tabs->isTabVisible(tabs->indexOf(m_view->opTable())));
    clickRow(m_view->kernelTable(), 0);
    EXPECT_EQ(m_context.selection().current(), pairs.entityOf(0));
    EXPECT_EQ(m_context.selection().current().kind, EntityRef::Kind::Node);
    EXPECT_TRUE(m_view->baselineSummary().contains("(measured)"));
    // The headline counts what `pto compare` paired, not every kernel of the trace.
    int ops = 0, runs = 0;
    for (const json& p : ref["pairs"]) {
        ops += p["real_count"].get<int>() > 0 ? 1 : 0;
        runs += p["real_count"].get<int>();
    }
    const std::string counts = fmt::format(
        "{} of {} simulated op(s) paired with {} measured kernel run(s) (matched on {}", ops,
        ref["pairs"].size(), runs, ref["pairs"][0]["matched_on"].get<std::string>());
    EXPECT_TRUE(m_view->headline().contains(QString::fromStdString(counts)))
        << m_view->headline().toStdString();
}

// A simulated run next to a measured trace opens on the pairing table, its only table (it opened
// on Timelines), and the Timelines tab shows both runs, each over its own time: cycles above,
// the measured kernels in ns below, never one's range copied into the other.
TEST_F(CompareViewTest, ASimVsRealCompareOpensOnThePairingTableAndShowsBothTimelines) {
    if (!fs::is_directory(kMeasuredRun)) GTEST_SKIP() << "no test data at " << kMeasuredRun;
    const fs::path real = test::importedTrace(kMeasuredRun, "measured_level1_rank0");
    open(test::sampleTrace("matmul"), real);
    ASSERT_TRUE(m_view->simVsReal());
    EXPECT_EQ(m_view->tabs()->currentWidget(), m_view->kernelTable());
    TimelineView* top = m_view->currentTimeline();
    TimelineView* bottom = m_view->baselineTimeline();
    ASSERT_NE(top, nullptr);
    ASSERT_NE(bottom, nullptr);
    m_view->tabs()->setCurrentIndex(m_view->tabs()->count() - 1);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return !top->loader().busy() && !bottom->loader().busy() &&
                   top->tracks().rowCount() > 0 && bottom->tracks().rowCount() > 0;
        },
        60000));
    QTest::qWait(100);
    EXPECT_GT(top->canvas().height(), 100);
    EXPECT_GT(bottom->canvas().height(), 100);
    const TimelineViewport& a = top->canvas().viewport();
    const TimelineViewport& b = bottom->canvas().viewport();
    EXPECT_EQ(a.begin(), double(a.fitBegin()));
    EXPECT_EQ(a.end(), double(a.fitEnd()));
    EXPECT_EQ(b.begin(), double(b.fitBegin()));
    EXPECT_EQ(b.end(), double(b.fitEnd()));
    TimelineCanvas& canvas = top->canvas();
    const QPoint centre(canvas.width() / 2, canvas.height() / 2);
    QWheelEvent wheel(centre, canvas.mapToGlobal(centre), {}, {0, 240}, Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&canvas, &wheel);
    EXPECT_LT(a.span(), double(a.fitEnd() - a.fitBegin())); // the open run zoomed in
    EXPECT_EQ(b.begin(), double(b.fitBegin()));             // the measured one left alone
    EXPECT_EQ(b.end(), double(b.fitEnd()));
    test::saveScreenshot(*m_view, "compare_sim_vs_real_timelines");
}

// Clearing the baseline empties the view; opening another run keeps the baseline and redoes it.
// Two measured traces (ranks 0 and 1 of one job): their run times from the first kernel start
// to the last end, in ns as `pto compare` gives them, and no roof or bound of the simulated chip.
TEST_F(CompareViewTest, TwoMeasuredTracesCompareTheirKernelRunsInNanoseconds) {
    if (!fs::is_directory(kMeasuredRun)) GTEST_SKIP() << "no test data at " << kMeasuredRun;
    const fs::path rank0 = test::importedTrace(kMeasuredRun, "measured_level1_rank0");
    const fs::path rank1 = test::importedTrace(kMeasuredRun.parent_path() / "rank1_ascend_pt",
                                               "measured_level1_rank1");
    open(rank1, rank0);
    EXPECT_FALSE(m_view->simVsReal());
    const json ref = compareJson(rank0, rank1);
    const QString headline = m_view->headline();
    EXPECT_TRUE(headline.contains(QString::number(ref["total_ns"]["a"].get<double>(), 'f', 0) +
                                  " → " +
                                  QString::number(ref["total_ns"]["b"].get<double>(), 'f', 0) +
                                  " ns from the first kernel start to the last end"))
        << headline.toStdString();
    for (const QString& text : {headline, m_view->baselineSummary(), m_view->currentSummary()}) {
        EXPECT_FALSE(text.contains("cycles")) << text.toStdString();
        EXPECT_FALSE(text.contains("of the roof")) << text.toStdString();
    }
    EXPECT_TRUE(m_view->baselineSummary().contains(
        QString::number(ref["total_ns"]["a"].get<double>() / 1000, 'f', 2) +
        " µs from the first kernel start to the last end"))
        << m_view->baselineSummary().toStdString();
}

// Two different programs share no op: the headline says so, as `pto compare` does, instead of
// a table of "gone" and "new" rows read as a comparison.
TEST_F(CompareViewTest, TwoDifferentProgramsAreSaidToBeSo) {
    const fs::path other = test::sampleTrace("softmax");
    open(other, attentionRun());
    const json ref = compareJson(attentionRun(), other);
    ASSERT_TRUE(ref.contains("different_programs")) << ref.dump();
    EXPECT_TRUE(m_view->headline().contains(
        QString::fromStdString(ref["different_programs"].get<std::string>())))
        << m_view->headline().toStdString();
    const json same = compareJson(attentionRun(), fasterDmaRun());
    EXPECT_FALSE(same.contains("different_programs"));
}

TEST_F(CompareViewTest, ClearingTheBaselineEmptiesTheViewAndANewRunIsComparedAgain) {
    open(fasterDmaRun(), attentionRun());
    ASSERT_GT(m_view->opDeltas().rowCount(), 0);
    QSignalSpy loaded(m_view.get(), &CompareView::comparisonLoaded);
    m_context.setDocument(TraceDocument::open(attentionRun()));
    ASSERT_TRUE(!loaded.isEmpty() || loaded.wait(60000));
    EXPECT_TRUE(m_view->headline().contains("-0") || m_view->headline().contains("(0"))
        << m_view->headline().toStdString(); // the same run against itself: no change
    m_context.setBaseline(nullptr);
    EXPECT_EQ(m_view->opDeltas().rowCount(), 0);
    EXPECT_TRUE(m_view->headline().startsWith("No baseline"));
}

} // namespace
} // namespace pto::gui
