// The bottleneck view offscreen: its models through QAbstractItemModelTester, answers checked
// against shapes, SQL and the CLI report, and clicks on rows and roofline points.
#include "gui/model/FindingsModel.h"
#include "gui/model/OpCostModel.h"
#include "gui/model/RooflineModel.h"
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/model/UtilizationModel.h"
#include "gui/widgets/BottleneckView.h"
#include "gui/widgets/RooflineChart.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "profiler/Profile.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QSemaphore>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QThreadPool>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;

/// 1024×4096 f16 add, 48 tasks: 1 FLOP per element over 3 × 2 bytes per element of GM.
fs::path addTrace() {
    return test::programTrace("bottleneck_add",
                              "func @add(%a: tensor<1024x4096xf16>, %b: tensor<1024x4096xf16>) "
                              "-> tensor<1024x4096xf16> {\n  vec_tile [16, 1024]\n"
                              "  %c = add %a, %b\n  return %c\n}\n",
                              "--timing-only");
}

/// A compute-bound matmul on every AIC of a chip with fast memory: no rule fires.
fs::path noFindingsTrace() {
    return test::programTrace(
        "bottleneck_no_findings",
        "func @mm(%a: tensor<768x4096xf16>, %b: tensor<4096x1024xf16>) -> tensor<768x1024xf32> {\n"
        "  cube_tile [128, 128], [128, 256], [128, 128]\n  %c = matmul %a, %b\n  return %c\n}\n",
        "--timing-only --set dma.gm_to_l1.rate=4x --set hbm.bandwidth=4x --set l2.bandwidth=4x "
        "--set 'hbm.latency=50 cycles'");
}

/// The same matmul on the default chip: each AIC's GM->L1 DMA limits it (cube_starved, a task).
fs::path cubeStarvedTrace() {
    return test::programTrace(
        "bottleneck_cube_starved",
        "func @mm(%a: tensor<768x4096xf16>, %b: tensor<4096x1024xf16>) -> tensor<768x1024xf32> {\n"
        "  cube_tile [128, 128], [128, 256], [128, 128]\n  %c = matmul %a, %b\n  return %c\n}\n",
        "--timing-only");
}

std::int64_t sqlInt(const fs::path& trace, const std::string& sql) {
    const auto result = test::runCommand(fmt::format(
        "sqlite3 -readonly {} {}", test::shellQuote(trace.string()), test::shellQuote(sql)));
    EXPECT_EQ(result.exitCode, 0) << result.err;
    return std::stoll(result.out);
}

class BottleneckTest : public ::testing::Test {
protected:
    void open(const fs::path& trace) {
        m_view = std::make_unique<BottleneckView>(m_context);
        m_view->resize(1400, 860);
        m_view->show();
        QSignalSpy loaded(m_view.get(), &BottleneckView::profileLoaded);
        m_context.setDocument(TraceDocument::open(trace));
        ASSERT_TRUE(!loaded.isEmpty() || loaded.wait(60000)); // compile-only: no worker
        ASSERT_FALSE(m_view->isLoading());
    }
    QString cell(QAbstractItemModel& model, int row, int column) {
        return model.index(row, column).data().toString();
    }
    int opRow(const QString& op) {
        for (int row = 0; row < m_view->opCost().rowCount(); ++row)
            if (cell(m_view->opCost(), row, OpCostModel::Op) == op) return row;
        return -1;
    }
    void clickRow(QTableView* table, int sourceRow) {
        auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
        const QModelIndex index = proxy->mapFromSource(proxy->sourceModel()->index(sourceRow, 0));
        table->scrollTo(index);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
    }

    StudioContext m_context;
    std::unique_ptr<BottleneckView> m_view;
};

// A finding's gain in the details pane is worded as `pto report` words it (the range was
// rounded otherwise: 0–9389 in the GUI, 0–9388 in the report, for a high of 9388.5).
TEST(BottleneckModels, AFindingsGainReadsAsInTheReport) {
    const auto trace = addTrace();
    auto profile = std::make_shared<const prof::Profile>(prof::analyzeTrace(trace));
    FindingsModel findings;
    findings.setProfile(profile);
    ASSERT_GT(findings.rowCount(), 0);
    const auto report = test::runCommand(test::pto("report --no-store " + trace.string()));
    for (int row = 0; row < findings.rowCount(); ++row) {
        const QString details = findings.details(row);
        const auto at = details.indexOf(QStringLiteral("estimated gain: "));
        ASSERT_GE(at, 0) << details.toStdString();
        const std::string gain = details.mid(at).section(QLatin1Char('\n'), 0, 0).toStdString();
        EXPECT_NE(report.out.find(gain), std::string::npos) << gain << "\n" << report.out;
    }
}

TEST(BottleneckModels, PassTheModelTesterWhileLoadingAndChanging) {
    auto profile = std::make_shared<const prof::Profile>(prof::analyzeTrace(addTrace()));
    FindingsModel findings;
    UtilizationModel utilization;
    OpCostModel ops;
    RooflineModel roofline;
    const auto mode = QAbstractItemModelTester::FailureReportingMode::Fatal;
    QAbstractItemModelTester t1(&findings, mode), t2(&utilization, mode), t3(&ops, mode),
        t4(&roofline, mode);
    findings.setProfile(profile);
    utilization.setProfile(profile);
    ops.setProfile(profile);
    roofline.setProfile(profile);
    EXPECT_GT(findings.rowCount(), 0);
    EXPECT_EQ(utilization.rowCount(), 48); // the 48 AIV cores that ran a task
    utilization.setShowIdle(true);
    EXPECT_EQ(utilization.rowCount(), 72);
    roofline.setMode(RooflineModel::Mode::TensorOps);
    EXPECT_EQ(roofline.rowCount(), 1);
    roofline.setMode(RooflineModel::Mode::Tasks);
    EXPECT_EQ(roofline.rowCount(), 48);
    for (auto* model :
         std::initializer_list<QAbstractItemModel*>{&findings, &utilization, &ops, &roofline})
        for (int r = 0; r < model->rowCount(); ++r)
            for (int c = 0; c < model->columnCount(); ++c) model->index(r, c).data(Qt::UserRole);
    // Every pipe cell with a ratio explains it: core, pipe, share and the busy cycles.
    int tips = 0;
    for (int r = 0; r < utilization.rowCount(); ++r)
        for (int c = UtilizationModel::FirstPipe; c < utilization.columnCount(); ++c) {
            const QModelIndex cell = utilization.index(r, c);
            if (!cell.data(UtilizationModel::kRatioRole).isValid()) continue;
            const QString tip = cell.data(Qt::ToolTipRole).toString();
            const QString core = utilization.index(r, UtilizationModel::Core).data().toString();
            EXPECT_TRUE(tip.startsWith(core)) << tip.toStdString();
            EXPECT_TRUE(tip.contains(QStringLiteral("cycles the core spent in tasks")));
            ++tips;
        }
    EXPECT_GT(tips, 0);
    // Every header of the pipe table says what its column holds.
    for (int c = 0; c < utilization.columnCount(); ++c)
        EXPECT_FALSE(
            utilization.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty())
            << utilization.headerData(c, Qt::Horizontal).toString().toStdString();
    findings.setProfile(nullptr);
    utilization.setProfile(nullptr);
    ops.setProfile(nullptr);
    roofline.setProfile(nullptr);
    EXPECT_EQ(ops.rowCount(), 0);
}

TEST_F(BottleneckTest, AnElementwiseAddIsMemoryBoundAtItsIntensity) {
    const fs::path trace = addTrace();
    open(trace);
    const int add = opRow(QStringLiteral("add %c"));
    ASSERT_GE(add, 0);
    OpCostModel& ops = m_view->opCost();
    EXPECT_EQ(cell(ops, add, OpCostModel::BoundClass), QStringLiteral("memory"));
    const double elements = 1024.0 * 4096.0;
    EXPECT_DOUBLE_EQ(ops.index(add, OpCostModel::Flops).data(OpCostModel::kSortRole).toDouble(),
                     elements);
    EXPECT_EQ(ops.index(add, OpCostModel::Bytes).data(OpCostModel::kSortRole).toLongLong(),
              qint64(elements * 3 * 2));
    EXPECT_NEAR(ops.index(add, OpCostModel::Intensity).data(OpCostModel::kSortRole).toDouble(),
                1.0 / 6.0, 1e-12);
    // one roofline point per task of the Exec stage, counted by SQL
    const std::int64_t tasks = sqlInt(
        trace, "SELECT node_count FROM stage WHERE level = 'exec' ORDER BY ord DESC LIMIT 1");
    EXPECT_EQ(tasks, 48);
    EXPECT_EQ(m_view->roofline().rowCount(), tasks);
    EXPECT_EQ(m_view->rooflineChart()->plottedCount(), tasks);
    test::saveScreenshot(*m_view, "bottleneck_add");
    // The same view on a dark palette: the chart's background follows the palette's Base.
    QPalette dark(QColor(45, 45, 45));
    dark.setColor(QPalette::Base, QColor(25, 25, 25));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    m_view->setPalette(dark);
    const QImage chart = m_view->rooflineChart()->grab().toImage();
    EXPECT_EQ(chart.pixelColor(2, 2), QColor(25, 25, 25));
    test::saveScreenshot(*m_view, "bottleneck_add_dark");
}

/// Holds every thread of Qt's global pool until destroyed, as a long job of another library
/// (or of Qt itself) would.
class GlobalPoolHeld {
public:
    GlobalPoolHeld() {
        QThreadPool* pool = QThreadPool::globalInstance();
        m_threads = pool->maxThreadCount();
        for (int i = 0; i < m_threads; ++i)
            pool->start([this] {
                m_started.release();
                m_release.acquire();
            });
        m_started.acquire(m_threads);
    }
    ~GlobalPoolHeld() {
        m_release.release(m_threads);
        QThreadPool::globalInstance()->waitForDone();
    }

private:
    int m_threads = 0;
    QSemaphore m_started, m_release;
};

// Qt's raster engine waits for the global pool while it paints a big area, so the views'
// workers must not queue there (issue 19: a profile on it froze every repaint for seconds);
// here the pool is taken and the profile still arrives. Not shown: a paint would wait.
TEST(BottleneckWorkers, TheProfileArrivesWhileQtsGlobalPoolIsBusy) {
    const fs::path trace = addTrace();
    StudioContext context;
    BottleneckView view(context);
    const GlobalPoolHeld held;
    QSignalSpy loaded(&view, &BottleneckView::profileLoaded);
    context.setDocument(TraceDocument::open(trace));
    ASSERT_TRUE(!loaded.isEmpty() || loaded.wait(30000));
    EXPECT_FALSE(view.isLoading());
    EXPECT_EQ(view.roofline().rowCount(), 48); // one point per task, as above
}

TEST_F(BottleneckTest, SoftmaxOpsAgreeWithTheReportAndShapes) {
    const fs::path trace = test::sampleTrace("softmax");
    open(trace);
    const auto report = test::runCommand(
        fmt::format("({} report {} --format json --no-store --exit-zero | /usr/bin/python3 -c "
                    "\"import json,sys; [print(o['op']+' '+o['name'], o['bound'], o['cycles'], "
                    "sep='|') for o in json.load(sys.stdin)['top_ops']]\")",
                    PTO_CLI, test::shellQuote(trace.string())));
    ASSERT_EQ(report.exitCode, 0) << report.err;
    int checked = 0;
    for (const QString& line : QString::fromStdString(report.out).split('\n', Qt::SkipEmptyParts)) {
        const QStringList parts = line.split(QLatin1Char('|'));
        const int row = opRow(parts[0]);
        ASSERT_GE(row, 0) << parts[0].toStdString();
        EXPECT_EQ(cell(m_view->opCost(), row, OpCostModel::BoundClass), parts[1]);
        EXPECT_EQ(cell(m_view->opCost(), row, OpCostModel::Cycles), parts[2]);
        ++checked;
    }
    EXPECT_EQ(checked, 7);
    for (const char* op : {"sub %d", "exp %e", "div %y"}) // one FLOP per element of 64×1024
        EXPECT_EQ(cell(m_view->opCost(), opRow(QLatin1String(op)), OpCostModel::Flops),
                  QStringLiteral("65536"));
    EXPECT_TRUE(m_view->headline().contains(QStringLiteral("12042 cycles")))
        << m_view->headline().toStdString();
    ASSERT_GT(m_view->findings().rowCount(), 0);
    EXPECT_EQ(cell(m_view->findings(), 0, FindingsModel::Severity), QStringLiteral("critical"));
    test::saveScreenshot(*m_view, "bottleneck_softmax");
}

// matmul at --trace tasks: no instruction slices, so no pipe times and no op costs. The pipe
// table showed "0 %" in every pipe of every core and memory_bound 0.00, as if the cores had
// idled in their tasks, and the op table was empty without a word; `pto report` says "not
// recorded at this trace level" for both. Now the pipe columns are hidden under a note that
// says so, and the op table and the per-op roofline say why they are empty.
TEST_F(BottleneckTest, AtTraceTasksPipesAndOpsSayNotRecordedInsteadOfZeros) {
    const fs::path trace = test::sampleTrace("matmul", "--trace tasks");
    open(trace);
    const auto report = test::runCommand(test::pto("report --no-store " + trace.string()));
    ASSERT_NE(report.out.find("pipes       not recorded at this trace level"), std::string::npos)
        << report.out;
    UtilizationModel& pipes = m_view->utilization();
    ASSERT_GT(pipes.rowCount(), 0);
    EXPECT_FALSE(pipes.pipesRecorded());
    for (int row = 0; row < pipes.rowCount(); ++row) {
        EXPECT_GT(pipes.index(row, UtilizationModel::Active)
                      .data(UtilizationModel::kSortRole)
                      .toLongLong(),
                  0); // the time in tasks is recorded: the task slices
        for (int c = UtilizationModel::FirstPipe; c <= pipes.memoryBoundColumn(); ++c) {
            const QModelIndex index = pipes.index(row, c);
            EXPECT_TRUE(index.data().toString().isEmpty())
                << cell(pipes, row, 0).toStdString() << " column " << c << ": "
                << index.data().toString().toStdString();
            EXPECT_FALSE(index.data(UtilizationModel::kRatioRole).isValid());
        }
    }
    // On screen: core, type and active cycles, then the note; no pipe column is drawn.
    QTableView* table = m_view->utilizationTable();
    EXPECT_EQ(table->horizontalHeader()->count() - table->horizontalHeader()->hiddenSectionCount(),
              3);
    for (int c = UtilizationModel::FirstPipe; c <= pipes.memoryBoundColumn(); ++c)
        EXPECT_TRUE(table->isColumnHidden(c)) << c;
    EXPECT_TRUE(m_view->pipesNote().contains(QStringLiteral("not recorded at --trace tasks")))
        << m_view->pipesNote().toStdString();
    // Toggling idle cores resets the model: the columns stay hidden.
    pipes.setShowIdle(true);
    EXPECT_TRUE(table->isColumnHidden(UtilizationModel::FirstPipe));
    pipes.setShowIdle(false);

    EXPECT_EQ(m_view->opCost().rowCount(), 0);
    EXPECT_TRUE(m_view->opsNote().contains(QStringLiteral("not recorded at --trace tasks")))
        << m_view->opsNote().toStdString();
    m_view->roofline().setMode(RooflineModel::Mode::TensorOps);
    EXPECT_TRUE(m_view->roofline().unavailableReason().contains(
        QStringLiteral("not recorded at --trace tasks")));
    m_view->roofline().setMode(RooflineModel::Mode::Tasks);
    EXPECT_GT(m_view->roofline().rowCount(), 0); // a task's FLOPs, bytes and time are known
    // The notes are drawn where the user reads the tables: text pixels inside the view.
    const QImage shot = m_view->grab().toImage();
    for (const QString& note : {m_view->pipesNote(), m_view->opsNote()}) {
        QLabel* label = nullptr;
        for (QLabel* l : m_view->findChildren<QLabel*>())
            if (l->text() == note) label = l;
        ASSERT_NE(label, nullptr);
        ASSERT_TRUE(label->isVisible());
        const QRect box(label->mapTo(m_view.get(), QPoint(0, 0)), label->size());
        ASSERT_TRUE(shot.rect().contains(box)) << note.toStdString();
        const QRgb background = shot.pixel(box.topLeft());
        int ink = 0;
        for (int y = box.top(); y <= box.bottom(); ++y)
            for (int x = box.left(); x <= box.right(); ++x) ink += shot.pixel(x, y) != background;
        EXPECT_GT(ink, 100) << note.toStdString();
    }
    test::saveScreenshot(*m_view, "bottleneck_trace_tasks");

    // The same program at --trace instructions: the pipe columns and op rows are back.
    m_view.reset();
    m_context.setDocument(nullptr); // a new view starts on no document, as open() expects
    open(test::sampleTrace("matmul", "--trace instructions"));
    EXPECT_TRUE(m_view->utilization().pipesRecorded());
    EXPECT_FALSE(m_view->utilizationTable()->isColumnHidden(UtilizationModel::FirstPipe));
    EXPECT_TRUE(m_view->pipesNote().isEmpty());
    EXPECT_TRUE(m_view->opsNote().isEmpty());
    EXPECT_GT(m_view->opCost().rowCount(), 0);
}

// flash_attention_loop: the op table names the body's ops (the matmul at line 22 first among
// them, as `pto report` does), each "in kv"; the loop's row is their total, and clicking a body
// op selects its first copy in the stage where the loop was unrolled.
TEST_F(BottleneckTest, ALoopsBodyOpsHaveRowsOfTheirOwnUnderTheLoopsTotal) {
    const fs::path trace = test::sampleTrace("flash_attention_loop");
    open(trace);
    OpCostModel& ops = m_view->opCost();
    QAbstractItemModelTester tester(&ops, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const int qk = opRow(QStringLiteral("matmul %qk in kv"));
    ASSERT_GE(qk, 0);
    EXPECT_EQ(cell(ops, qk, OpCostModel::Line), QStringLiteral("22"));
    int loop = -1;
    for (int row = 0; row < ops.rowCount(); ++row)
        if (cell(ops, row, OpCostModel::Op).startsWith(QStringLiteral("for \"kv\": total")))
            loop = row;
    ASSERT_GE(loop, 0);
    EXPECT_EQ(cell(ops, loop, OpCostModel::Line), QStringLiteral("16"));
    EXPECT_LT(loop, qk); // program order: the loop, then its body
    // The body's rows add up to the loop's, and the shares of the ops outside it to the rest.
    qint64 body = 0;
    double outside = 0;
    for (int row = 0; row < ops.rowCount(); ++row) {
        const QString op = cell(ops, row, OpCostModel::Op);
        const auto value = [&](int column) {
            return ops.index(row, column).data(OpCostModel::kSortRole);
        };
        if (op.endsWith(QStringLiteral(" in kv")))
            body += value(OpCostModel::Cycles).toLongLong();
        else if (row != loop)
            outside += value(OpCostModel::Share).toDouble();
    }
    EXPECT_EQ(body, ops.index(loop, OpCostModel::Cycles).data(OpCostModel::kSortRole).toLongLong());
    EXPECT_NEAR(outside +
                    ops.index(loop, OpCostModel::Share).data(OpCostModel::kSortRole).toDouble(),
                1.0, 1e-9);
    // The report's top op is the table's biggest body op.
    const auto report = test::runCommand(
        fmt::format("({} report {} --format json --no-store --exit-zero | /usr/bin/python3 -c "
                    "\"import json,sys; o=json.load(sys.stdin)['top_ops'][0]; "
                    "print(o['op']+' '+o['name']+' in '+o['loop'])\")",
                    PTO_CLI, test::shellQuote(trace.string())));
    ASSERT_EQ(report.exitCode, 0) << report.err;
    const int top = opRow(QString::fromStdString(report.out).trimmed());
    ASSERT_GE(top, 0) << report.out;
    const auto cycles = [&](int row) {
        return ops.index(row, OpCostModel::Cycles).data(OpCostModel::kSortRole).toLongLong();
    };
    for (int row = 0; row < ops.rowCount(); ++row) {
        if (cell(ops, row, OpCostModel::Op).endsWith(QStringLiteral(" in kv"))) {
            EXPECT_LE(cycles(row), cycles(top));
        }
    }
    clickRow(m_view->opTable(), qk);
    const EntityRef selected = m_context.selection().current();
    EXPECT_EQ(selected.kind, EntityRef::Kind::Node);
    EXPECT_EQ(selected.stageId, ops.opStage(qk));
    EXPECT_NE(selected.stageId, ops.rootStage()); // a copy in the unrolled stage, not the loop
    EXPECT_EQ(
        sqlInt(trace, fmt::format("SELECT src_line FROM node_data WHERE stage_id = {} AND id = {}",
                                  selected.stageId, selected.id)),
        22);
    test::saveScreenshot(*m_view, "bottleneck_flash_attention_loop");
}

TEST_F(BottleneckTest, ClickingRowsAndPointsSelectsEverywhere) {
    open(test::sampleTrace("softmax"));
    clickRow(m_view->opTable(), opRow(QStringLiteral("div %y")));
    EXPECT_EQ(m_context.selection().current(), EntityRef::node(1, 6)); // tensor.parse, %y

    clickRow(m_view->utilizationTable(), 0);
    const std::int64_t track = m_view->utilization().trackId(0);
    EXPECT_EQ(m_context.selection().current(), EntityRef::track(track));

    QSignalSpy reveal(&m_context, &StudioContext::revealTimeRequested);
    RooflineChart* chart = m_view->rooflineChart();
    const QPointF at = chart->pointPosition(0);
    ASSERT_FALSE(at.isNull());
    QTest::mouseClick(chart, Qt::LeftButton, {}, at.toPoint());
    ASSERT_EQ(reveal.size(), 1);
    const auto [begin, end] = m_view->roofline().timeRange(chart->rowAt(at.toPoint()));
    EXPECT_EQ(reveal.front().at(0).toLongLong(), begin);
    EXPECT_EQ(reveal.front().at(1).toLongLong(), end);
    EXPECT_EQ(m_context.selection().current().kind, EntityRef::Kind::Node);
    EXPECT_EQ(m_context.selection().current().stageId, m_view->roofline().entityStage());

    // a selection made elsewhere (an op's node) highlights that op's row here
    m_context.selection().select(EntityRef::node(1, 4), nullptr); // exp %e
    const auto* proxy = static_cast<QSortFilterProxyModel*>(m_view->opTable()->model());
    const QModelIndexList selected = m_view->opTable()->selectionModel()->selectedRows();
    ASSERT_EQ(selected.size(), 1);
    EXPECT_EQ(proxy->mapToSource(selected.front()).row(), opRow(QStringLiteral("exp %e")));
    test::saveScreenshot(*chart, "bottleneck_roofline");
}

TEST_F(BottleneckTest, NoFindingsSaysWhichRulesWereChecked) {
    open(noFindingsTrace());
    EXPECT_EQ(m_view->findings().rowCount(), 0);
    EXPECT_TRUE(m_view->detailsText().contains(QStringLiteral("checked 10 rules")))
        << m_view->detailsText().toStdString();
}

TEST_F(BottleneckTest, ClickingATaskFindingSelectsItsSliceOnItsCoreInTheTimeline) {
    TimelineView timeline(m_context);
    timeline.resize(1200, 500);
    timeline.show();
    const fs::path trace = cubeStarvedTrace();
    open(trace);
    int row = -1;
    for (int r = 0; r < m_view->findings().rowCount(); ++r)
        if (m_view->findings().finding(r).rule == "cube_starved") row = r;
    ASSERT_GE(row, 0) << "no cube_starved finding";
    const std::int64_t task = *m_view->findings().finding(row).entityId;
    clickRow(m_view->findingsTable(), row);

    const std::int64_t slice = sqlInt(
        trace, fmt::format("SELECT id FROM slice WHERE task_id = {} AND category = 'task'", task));
    EXPECT_EQ(timeline.canvas().selectedSlice(), slice);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !timeline.detailsLoading(); }, 30000));
    EXPECT_GT(timeline.details().rowCount(), 0);
    // The task's core track is on screen.
    const std::int64_t trackId =
        sqlInt(trace, fmt::format("SELECT track_id FROM slice WHERE id = {}", slice));
    const int track = timeline.tracks().indexOfTrackId(trackId);
    bool visible = false;
    for (const TimelineRow& r : timeline.tracks().rows())
        if (r.track == track)
            visible = r.y >= timeline.canvas().scrollY() &&
                      r.y + r.height <= timeline.canvas().scrollY() + timeline.canvas().height() -
                                            TimelineCanvas::kRulerHeight;
    EXPECT_TRUE(visible) << "track " << trackId << " is off screen";
    test::saveScreenshot(timeline, "bottleneck_finding_reveals_core");
}

TEST_F(BottleneckTest, ACompileOnlyTraceSaysWhyItIsEmpty) {
    open(test::compiledTrace("matmul"));
    EXPECT_TRUE(m_view->headline().contains(QStringLiteral("no simulated run")));
    EXPECT_EQ(m_view->opCost().rowCount(), 0);
    EXPECT_EQ(m_view->roofline().rowCount(), 0);
}

// Two 128 KiB L0C accumulators (128x256 f32 tiles) in one task (--tiles-per-task 2) cannot be
// double-buffered: allocate-buffers single-buffers them and leaves a note, which `pto compile`
// prints and the trace keeps.
constexpr const char* kWideAccumulator =
    "func @mm(%a: tensor<256x128xf16>, %b: tensor<128x256xf16>) -> tensor<256x256xf32> {\n"
    "  cube_tile [128, 128], [64, 256], [256, 256]\n  %c = matmul %a, %b\n  return %c\n}\n";

TEST_F(BottleneckTest, TheCompilersNotesAreInTheHeaderAndTheDetails) {
    open(test::programTrace("bottleneck_l0c_note", kWideAccumulator,
                            "--timing-only --tiles-per-task 2"));
    EXPECT_TRUE(m_view->headline().contains(QStringLiteral("1 compiler note")))
        << m_view->headline().toStdString();
    const QString details = m_view->detailsText();
    EXPECT_TRUE(details.contains(QStringLiteral("Compiler notes:"))) << details.toStdString();
    EXPECT_TRUE(details.contains(QStringLiteral("L0C does not fit double-buffered")))
        << details.toStdString();
    // Clicking a finding keeps the notes under its evidence.
    if (m_view->findings().rowCount() > 0) {
        clickRow(m_view->findingsTable(), 0);
        EXPECT_TRUE(m_view->detailsText().contains(QStringLiteral("L0C does not fit")));
    }
}

TEST_F(BottleneckTest, ARunWithoutNotesSaysNothingOfThem) {
    open(addTrace());
    EXPECT_FALSE(m_view->headline().contains(QStringLiteral("compiler note")));
    EXPECT_FALSE(m_view->detailsText().contains(QStringLiteral("Compiler notes:")));
}

TEST_F(BottleneckTest, ACompileOnlyTraceListsTheCompilersNotes) {
    const test::TempDir dir("bottleneck-notes");
    std::ofstream(dir / "mm.pto") << kWideAccumulator;
    const test::ProcessResult compiled = test::runCommand(fmt::format(
        "{} compile {} --tiles-per-task 2 -o {}", PTO_CLI,
        test::shellQuote((dir / "mm.pto").string()), test::shellQuote((dir / "mm.db").string())));
    ASSERT_EQ(compiled.exitCode, 0) << compiled.err;
    open(dir / "mm.db");
    EXPECT_TRUE(m_view->headline().contains(QStringLiteral("no simulated run")));
    EXPECT_TRUE(m_view->detailsText().contains(QStringLiteral("L0C does not fit double-buffered")))
        << m_view->detailsText().toStdString();
}

} // namespace
} // namespace pto::gui
