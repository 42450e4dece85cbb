// A measured trace (`pto import` of real Ascend profiler output) in pto-studio offscreen: the
// timeline shows its stream tracks, the bottleneck view profiles its kernels (its run time from
// the first kernel start to the last end, in ns, with no figure of the simulated chip model),
// the SQL console queries it, and the graph and IR views say plainly that it has no IR.
#include "gui/model/FindingsModel.h"
#include "gui/model/OpCostModel.h"
#include "gui/model/RooflineModel.h"
#include "gui/model/RowTable.h"
#include "gui/model/SqlConsoleModel.h"
#include "gui/model/TimelineAggregateModel.h"
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/BottleneckView.h"
#include "gui/widgets/GraphView.h"
#include "gui/widgets/GraphViewCanvas.h"
#include "gui/widgets/IrTextView.h"
#include "gui/widgets/RooflineChart.h"
#include "gui/widgets/SqlConsole.h"
#include "gui/widgets/StageCompareView.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"

#include <QAbstractButton>
#include <QApplication>
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QThread>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <sstream>
#include <utility>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;

const fs::path kRun =
    fs::path(PTO_SOURCE_DIR) / "../shared/data/ascend-profiler/text/level1/rank0_ascend_pt";

fs::path measuredTrace() {
    return test::importedTrace(kRun, "measured_level1_rank0");
}

void waitUntil(const std::function<bool()>& done, int ms = 30000) {
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < ms) {
        QApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(5);
    }
    QApplication::processEvents();
}

// The kernels' run in the file: first kernel start to last kernel end, ns.
std::int64_t kernelRunNs(const fs::path& trace) {
    const auto reader = tracedb::TraceReader::open(trace);
    const auto r = reader.query("SELECT max(ts + dur) - min(ts) FROM slice WHERE category = "
                                "'task' AND task_id IS NOT NULL");
    return std::get<std::int64_t>(r.rows.at(0).at(0));
}

// The first kernel's start and the last kernel's end, ns from the file's origin.
std::pair<std::int64_t, std::int64_t> kernelSpan(const fs::path& trace) {
    const auto reader = tracedb::TraceReader::open(trace);
    const auto r = reader.query("SELECT min(ts), max(ts + dur) FROM slice WHERE category = "
                                "'task' AND task_id IS NOT NULL");
    return {std::get<std::int64_t>(r.rows.at(0).at(0)), std::get<std::int64_t>(r.rows.at(0).at(1))};
}

class MeasuredTrace : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::is_directory(kRun)) GTEST_SKIP() << "no test data at " << kRun;
        m_context.setDocument(TraceDocument::open(measuredTrace()));
    }
    // Shows `view`, opens the measured trace in it and waits until it is profiled.
    bool showProfiled(BottleneckView& view) {
        view.resize(1400, 860);
        QSignalSpy loaded(&view, &BottleneckView::profileLoaded);
        view.show();
        m_context.setDocument(TraceDocument::open(measuredTrace()));
        if (loaded.isEmpty() && !loaded.wait(60000)) return false;
        waitUntil([&] { return !view.isLoading(); });
        return true;
    }
    StudioContext m_context;
};

TEST_F(MeasuredTrace, TheTimelineShowsItsStreamTracks) {
    TimelineView view(m_context);
    view.resize(1400, 760);
    view.show();
    waitUntil([&] { return !view.loader().busy(); });
    QStringList names;
    std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
        for (int r = 0; r < view.tracks().rowCount(parent); ++r) {
            QModelIndex index = view.tracks().index(r, 0, parent);
            names << index.data().toString();
            walk(index);
        }
    };
    walk({});
    EXPECT_TRUE(names.contains(QStringLiteral("Stream 2 AIV"))) << names.join(", ").toStdString();
    EXPECT_TRUE(names.contains(QStringLiteral("Steps"))) << names.join(", ").toStdString();
    // The run is the kernels', not the file's from its first host op or counter at ts 0.
    EXPECT_EQ(m_context.document()->summary().totalCycles, kernelRunNs(measuredTrace()));
    const fs::path shot = test::saveScreenshot(view, "measured_timeline");
    EXPECT_GT(test::drawnPixels(shot), 5000U);
}

// Its times are ns, not cycles (ruler, tooltip, details), and its first view — and Fit — is
// its kernels' run, not the file's span from a counter sample at 0 to one at 399.9 ms.
TEST_F(MeasuredTrace, TheTimelineCountsNsAndFitsToTheKernels) {
    TimelineView view(m_context);
    view.resize(1400, 760);
    view.show();
    waitUntil([&] { return !view.loader().busy(); });
    TimelineCanvas& canvas = view.canvas();
    EXPECT_EQ(canvas.timeUnit(), QStringLiteral("ns"));
    const auto [first, last] = kernelSpan(measuredTrace());
    EXPECT_EQ(canvas.viewport().begin(), double(first));
    EXPECT_EQ(canvas.viewport().end(), double(last));
    canvas.viewport().zoom(8, 100);
    for (auto* button : view.findChildren<QAbstractButton*>())
        if (button->text() == QStringLiteral("Fit")) QTest::mouseClick(button, Qt::LeftButton);
    EXPECT_EQ(canvas.viewport().begin(), double(first));
    EXPECT_EQ(canvas.viewport().end(), double(last));

    const auto& reader = m_context.document()->reader();
    const auto row = reader
                         .query("SELECT id, track_id, ts, dur, depth FROM slice WHERE category = "
                                "'task' AND task_id IS NOT NULL ORDER BY dur DESC LIMIT 1")
                         .rows.at(0);
    auto v = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
    canvas.viewport().reveal(v(2), v(2) + v(3));
    canvas.scrollToTrack(view.tracks().indexOfTrackId(v(1)));
    const auto point = canvas.pointOf(v(1), v(2), v(3), int(v(4)));
    ASSERT_TRUE(point);
    const QString tip = canvas.toolTipAt(*point);
    EXPECT_TRUE(tip.contains(QStringLiteral("duration %1 ns").arg(v(3)))) << tip.toStdString();
    EXPECT_FALSE(tip.contains(QStringLiteral("cycle"))) << tip.toStdString();
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, *point);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.detailsLoading(); }, 30000));
    const QString duration = view.details().value(QStringLiteral("Duration"));
    EXPECT_TRUE(duration.startsWith(QStringLiteral("%1 ns (").arg(v(3)))) << duration.toStdString();
    // The Area tab's time columns are in ns too.
    for (int c : {TimelineAggregateModel::TotalColumn, TimelineAggregateModel::SelfColumn,
                  TimelineAggregateModel::AverageColumn})
        EXPECT_TRUE(view.aggregate().headerData(c, Qt::Horizontal).toString().endsWith("(ns)"))
            << c;
    test::saveScreenshot(view, "measured_timeline_kernels");
}

TEST_F(MeasuredTrace, TheBottleneckViewProfilesItsKernels) {
    BottleneckView view(m_context);
    ASSERT_TRUE(showProfiled(view));
    ASSERT_GT(view.findings().rowCount(), 0);
    QStringList rules;
    for (int r = 0; r < view.findings().rowCount(); ++r)
        for (int c = 0; c < view.findings().columnCount(); ++c)
            rules << view.findings().index(r, c).data().toString();
    EXPECT_TRUE(rules.join(" ").contains(QStringLiteral("MTE2")))
        << rules.join(" | ").toStdString();

    // The header says what `pto report` says of the run, and nothing of the simulated chip.
    const QString headline = view.headline();
    const std::string time = fmt::format("{:.3f} us from the first kernel start to the last end",
                                         double(kernelRunNs(measuredTrace())) / 1000);
    EXPECT_TRUE(headline.contains(QString::fromStdString(time))) << headline.toStdString();
    EXPECT_TRUE(headline.contains(QStringLiteral("measured on a device")));
    EXPECT_TRUE(headline.contains(QStringLiteral("no FLOP or byte counts")));
    for (const char* absent : {"910B", "cycles", "of the roof", "bound,"})
        EXPECT_FALSE(headline.contains(QString::fromUtf8(absent)))
            << absent << ": " << headline.toStdString();
    // Gains are in ns; the roofline has no points and no roofs of the simulated chip, and says
    // why.
    EXPECT_EQ(view.findings().headerData(FindingsModel::Gain, Qt::Horizontal).toString(),
              QStringLiteral("Gain (ns)"));
    const QString details = view.findings().details(0);
    EXPECT_TRUE(details.contains(QStringLiteral(" ns ("))) << details.toStdString();
    EXPECT_FALSE(details.contains(QStringLiteral("cycles"))) << details.toStdString();
    EXPECT_EQ(view.roofline().rowCount(), 0);
    EXPECT_TRUE(view.roofline().roofs().empty());
    EXPECT_TRUE(view.roofline().unavailableReason().contains(QStringLiteral("measured trace")));
    // No program to tune: the details pane suggested `pto tune PROGRAM.pto`.
    EXPECT_FALSE(view.detailsText().contains(QStringLiteral("pto tune")))
        << view.detailsText().toStdString();
    test::saveScreenshot(view, "measured_bottlenecks");
}

// A measured trace has no Tensor ops: the op table said nothing (empty, no note); it now says
// why and lists the kernels by time with `pto report`'s numbers (profiler/report's top kernels).
TEST_F(MeasuredTrace, TheBottleneckViewListsItsKernelsInPlaceOfOps) {
    BottleneckView view(m_context);
    ASSERT_TRUE(showProfiled(view));
    EXPECT_EQ(view.opCost().rowCount(), 0);
    EXPECT_TRUE(view.opsNote().contains(QStringLiteral("no Tensor ops")))
        << view.opsNote().toStdString();
    EXPECT_TRUE(view.kernelTable()->isVisible());
    EXPECT_FALSE(view.opTable()->isVisible());
    RowTableModel& kernels = view.kernels();
    const auto count = m_context.document()->reader().query(
        "SELECT count(*) FROM slice WHERE category = 'task' AND task_id IS NOT NULL");
    ASSERT_EQ(kernels.rowCount(), int(std::get<std::int64_t>(count.rows.at(0).at(0))));
    // The first rows are `pto report`'s "top kernels by time (measured)" lines, in order.
    const auto report = test::runCommand(
        fmt::format("{} report {}", PTO_CLI, test::shellQuote(measuredTrace().string())));
    ASSERT_EQ(report.exitCode, 0) << report.err;
    std::istringstream lines(report.out.substr(report.out.find("top kernels by time")));
    std::string line;
    std::getline(lines, line); // the title
    std::getline(lines, line); // the column names
    for (int row = 0; row < 3 && std::getline(lines, line); ++row) {
        const QString text = QString::fromStdString(line).simplified();
        const QString expected =
            QStringLiteral("%1 %2 %3 %4 %5 (%6)")
                .arg(kernels.text(row, 0), kernels.text(row, 1).remove(' '), kernels.text(row, 2),
                     kernels.text(row, 3), kernels.text(row, 4), kernels.text(row, 5));
        EXPECT_EQ(text, expected.simplified()) << row;
    }
}

TEST_F(MeasuredTrace, TheSqlConsoleQueriesItsKernels) {
    SqlConsole console(m_context);
    console.resize(1000, 600);
    console.show();
    QSignalSpy finished(&console, &SqlConsole::queryFinished);
    console.run(QStringLiteral("SELECT count(*) FROM slice WHERE task_id IS NOT NULL"));
    ASSERT_TRUE(finished.wait(30000));
    ASSERT_EQ(console.model().rowCount(), 1);
    EXPECT_EQ(console.model().index(0, 0).data().toString(), QStringLiteral("187"));
}

TEST_F(MeasuredTrace, TheGraphAndIrViewsSayItHasNoIr) {
    GraphView graph(m_context);
    graph.resize(900, 600);
    graph.show();
    IrTextView ir(m_context);
    ir.resize(900, 600);
    ir.show();
    m_context.setDocument(TraceDocument::open(measuredTrace()));
    QApplication::processEvents();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !ir.loading(); }, 60000));
    auto* canvas = graph.findChild<GraphViewCanvas*>();
    ASSERT_NE(canvas, nullptr);
    EXPECT_TRUE(canvas->message().contains(QStringLiteral("measured trace")))
        << canvas->message().toStdString();
    EXPECT_TRUE(canvas->message().contains(QStringLiteral("no IR")));
    EXPECT_TRUE(ir.irEditor()->toPlainText().contains(QStringLiteral("measured trace")))
        << ir.irEditor()->toPlainText().toStdString();
    EXPECT_TRUE(ir.irEditor()->toPlainText().contains(QStringLiteral("no IR")));
    test::saveScreenshot(graph, "measured_graph");
}

// Opening the measured trace after a simulated run left the graph's status line describing the
// run's graph ("11 items, 10 edges · cache in 0.0 ms") under "This is a measured trace".
TEST_F(MeasuredTrace, TheGraphForgetsThePreviousTracesStatus) {
    GraphView graph(m_context);
    graph.resize(900, 600);
    QSignalSpy shown(&graph, &GraphView::graphShown);
    graph.show();
    m_context.setDocument(TraceDocument::open(test::sampleTrace("softmax")));
    ASSERT_TRUE(!shown.isEmpty() || shown.wait(60000));
    ASSERT_TRUE(graph.statusText().contains(QStringLiteral("items")))
        << graph.statusText().toStdString();
    m_context.setDocument(TraceDocument::open(measuredTrace()));
    QApplication::processEvents();
    EXPECT_FALSE(graph.statusText().contains(QStringLiteral("items")))
        << graph.statusText().toStdString();
}

// The stage comparison showed two empty pickers and two empty lists, and said nothing; it now
// says why, as the graph and IR views do.
TEST_F(MeasuredTrace, TheStageComparisonSaysItHasNoIr) {
    StageCompareView stages(m_context);
    stages.resize(900, 600);
    QSignalSpy shown(&stages, &StageCompareView::sidesShown);
    stages.show();
    m_context.setDocument(TraceDocument::open(measuredTrace()));
    ASSERT_TRUE(!shown.isEmpty() || shown.wait(60000));
    EXPECT_TRUE(stages.statusText().contains(QStringLiteral("measured trace")))
        << stages.statusText().toStdString();
    EXPECT_TRUE(stages.statusText().contains(QStringLiteral("no IR")));
}

// While the run is analysed the roofline said "No roofline points: open a simulated run" —
// the wrong kind of trace, when it is only loading. (A measured trace is profiled too.)
TEST_F(MeasuredTrace, TheRooflineSaysItIsAnalysingWhileItIs) {
    BottleneckView view(m_context);
    view.resize(1400, 860);
    view.show();
    m_context.setDocument(TraceDocument::open(measuredTrace()));
    ASSERT_TRUE(view.isLoading());
    EXPECT_TRUE(view.rooflineChart()->emptyText().contains(QStringLiteral("Analyzing")))
        << view.rooflineChart()->emptyText().toStdString();
    EXPECT_FALSE(view.rooflineChart()->emptyText().contains(QStringLiteral("open a simulated")));
}

} // namespace
} // namespace pto::gui
