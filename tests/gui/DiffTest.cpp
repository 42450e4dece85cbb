// Numerical diff view: a planted fault found from the GUI alone (banner, hot tile, one click to
// the timeline), the diff table under QAbstractItemModelTester, element errors against NumPy.
#include "gui/app/MainWindow.h"
#include "gui/model/DiffHeatmap.h"
#include "gui/model/DiffModel.h"
#include "gui/model/LinkResolver.h"
#include "gui/widgets/DiffView.h"
#include "gui/widgets/Heatmap.h"
#include "gui/widgets/IrTextView.h"
#include "gui/widgets/StageCompareView.h"
#include "tests/gui/DiffFixtures.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"

#include <QAbstractItemModelTester>
#include <QImage>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace pto::gui {
namespace {

/// Waits for the view's worker to build the heatmap (the output is read off the GUI thread).
void waitHeatmap(const DiffView& view) {
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.isLoading(); }, 60000));
}

/// "planted fault: shift-tile-offset:0 after expand-tiles: %0 = tload (...)" → pass, mnemonic.
std::pair<std::string, std::string> plantedFault(const std::string& report) {
    std::smatch m;
    const std::regex re(R"(planted fault: \S+ after ([\w-]+): (%\w+) = (\w+))");
    if (!std::regex_search(report, m, re)) return {};
    return {m[1].str(), m[3].str() + " " + m[2].str()};
}

TEST(GuiDiff, TableModelHoldsEveryDiffRowAndPassesTheModelTester) {
    const auto trace = test::bisectTrace("matmul", "shift-tile-offset").trace;
    const auto reader = tracedb::TraceReader::open(trace);
    DiffTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.load(&reader);
    const auto count = reader.query("SELECT count(*) FROM diff");
    EXPECT_EQ(model.rowCount(), int(std::get<std::int64_t>(count.rows[0][0])));
    EXPECT_EQ(model.columnCount(), int(DiffTableModel::kColumns));
    const auto worst = reader.query("SELECT max(json_extract(metrics, '$.mismatch_count')) FROM "
                                    "diff");
    std::int64_t maxMismatch = 0;
    for (int r = 0; r < model.rowCount(); ++r)
        maxMismatch = std::max<std::int64_t>(
            maxMismatch,
            model.data(model.index(r, DiffTableModel::Mismatches)).toString().toLongLong());
    EXPECT_EQ(maxMismatch, std::get<std::int64_t>(worst.rows[0][0]));
    model.load(nullptr);
    EXPECT_EQ(model.rowCount(), 0);
    model.load(&reader);
}

TEST(GuiDiff, PlantedFaultIsNamedAndOneClickOnTheHotTileReachesTheTimeline) {
    const test::BisectTrace bisect = test::bisectTrace("matmul", "shift-tile-offset");
    const auto [pass, op] = plantedFault(bisect.report);
    ASSERT_FALSE(pass.empty()) << bisect.report;
    StudioContext context;
    context.setDocument(TraceDocument::open(bisect.trace));
    DiffView view(context);
    view.resize(1000, 600);
    view.show();
    waitHeatmap(view);
    EXPECT_TRUE(view.bisect().found);
    EXPECT_TRUE(view.bannerText().contains(QString::fromStdString(pass))) << pass;
    EXPECT_TRUE(view.bannerText().contains(QString::fromStdString(op)))
        << view.bannerText().toStdString() << " vs " << op;

    const HeatmapData& map = view.heatmap();
    ASSERT_FALSE(map.tiles.empty());
    const int hot = map.hottestTile();
    ASSERT_GE(hot, 0);
    const HeatTile tile = map.tiles[std::size_t(hot)];
    // The shifted tload feeds output rows 0..127: the hot tile is in that band.
    EXPECT_EQ(tile.row, 0);

    QSignalSpy reveal(&context, &StudioContext::revealTimeRequested);
    QTest::mouseClick(view.heatmapWidget(), Qt::LeftButton, {},
                      view.heatmapWidget()->tileCenter(hot));
    EXPECT_EQ(context.selection().current(), EntityRef::node(tile.op.stageId, tile.op.id));
    ASSERT_EQ(reveal.count(), 1);
    const qint64 begin = reveal.at(0).at(0).toLongLong(), end = reveal.at(0).at(1).toLongLong();
    const auto& reader = context.document()->reader();
    const auto range = reader.query(fmt::format(
        "SELECT min(s.ts), max(s.ts + s.dur), count(*) FROM slice s JOIN instr i ON i.id = "
        "s.instr_id WHERE i.tile_stage_id = {} AND i.tile_op_id = {}",
        tile.op.stageId, tile.op.id));
    ASSERT_GT(std::get<std::int64_t>(range.rows[0][2]), 0);
    EXPECT_LE(begin, std::get<std::int64_t>(range.rows[0][0]));
    EXPECT_GE(end, std::get<std::int64_t>(range.rows[0][1]));
    EXPECT_EQ(view.heatmapWidget()->selectedTile(), hot);
    test::saveScreenshot(view, "diff_view_bisect");

    // The verdict and every metric are in view without scrolling, and each header explains
    // itself (issue 19 item 6).
    QTableView* table = view.tableView();
    for (int c :
         {int(DiffTableModel::Verdict), int(DiffTableModel::MaxAbs), int(DiffTableModel::MaxRel),
          int(DiffTableModel::Mismatches), int(DiffTableModel::Cosine)}) {
        EXPECT_GE(table->columnViewportPosition(c), 0) << c;
        EXPECT_LE(table->columnViewportPosition(c) + table->columnWidth(c),
                  table->viewport()->width())
            << "column " << c << " needs scrolling";
        EXPECT_FALSE(table->model()->headerData(c, Qt::Horizontal, Qt::ToolTipRole).isNull());
    }
    // Hovering the hot tile names it; the legend spans blue (small) to red (the largest error).
    HeatmapWidget* heat = view.heatmapWidget();
    const QString tip = heat->toolTipAt(heat->tileCenter(hot));
    EXPECT_TRUE(tip.contains(QStringLiteral("rows 0–127"))) << tip.toStdString();
    const QRectF legend = heat->legendRect();
    ASSERT_FALSE(legend.isEmpty());
    const QImage image = heat->grab().toImage();
    const QColor high = image.pixelColor(int(legend.right()) - 4, int(legend.top()) + 4);
    EXPECT_GT(high.red(), 150) << high.name().toStdString();
    EXPECT_LT(high.blue(), 100) << high.name().toStdString();
}

TEST(GuiDiff, ElementErrorsAgainstAGoldenMatchNumPy) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "python3 numpy missing";
    const test::BisectTrace bisect = test::bisectTrace("matmul", "shift-tile-offset");
    test::TempDir dir;
    // The golden, by NumPy from the inputs stored in the trace; NumPy's own error per tile.
    const std::string script = fmt::format(R"PY(
import sqlite3, json, numpy as np
db = sqlite3.connect('file:{0}?mode=ro', uri=True)
kinds = {{'f16': '<f2', 'f32': '<f4'}}
t = {{n: np.frombuffer(d, dtype=kinds[dt]).reshape(json.loads(s))
     for n, dt, s, d in db.execute("select name, dtype, shape, data from tensor")}}
g = t['a'].astype(np.float32) @ t['b'].astype(np.float32)
np.save('{1}/c.npy', g)
err = np.abs(t['c'].astype(np.float64) - g.astype(np.float64))
for r in range(0, 512, 128):
    print(' '.join(repr(float(err[r:r+128, c:c+128].max())) for c in range(0, 512, 128)))
)PY",
                                           bisect.trace.string(), dir.path().string());
    std::ofstream(dir / "golden.py") << script;
    const auto result =
        test::runCommand("/usr/bin/python3 " + test::shellQuote((dir / "golden.py").string()));
    ASSERT_EQ(result.exitCode, 0) << result.err;
    std::istringstream in(result.out);
    std::vector<double> numpyTiles;
    for (double v; in >> v;) numpyTiles.push_back(v);
    ASSERT_EQ(numpyTiles.size(), 16u);

    StudioContext context;
    context.setDocument(TraceDocument::open(bisect.trace));
    DiffView view(context);
    view.resize(1000, 600);
    EXPECT_TRUE(view.loadGolden(QString::fromStdString((dir / "c.npy").string())).isEmpty());
    waitHeatmap(view);
    const HeatmapData& map = view.heatmap();
    ASSERT_EQ(map.tiles.size(), 16u);
    EXPECT_EQ(map.gridRows, 256);
    EXPECT_EQ(map.gridCols, 256);
    for (const HeatTile& t : map.tiles) {
        ASSERT_TRUE(t.error);
        const double expected = numpyTiles[std::size_t(t.row / 128 * 4 + t.col / 128)];
        EXPECT_NEAR(*t.error, expected, 1e-6 * std::max(1.0, expected))
            << "tile " << t.row << "," << t.col;
    }
    double worst = 0;
    for (double v : numpyTiles) worst = std::max(worst, v);
    EXPECT_NEAR(map.maxCell, worst, 1e-6 * std::max(1.0, worst));
    // Hovering the first tile names its NumPy error and the cell's element range.
    const QString tip = view.heatmapWidget()->toolTipAt(view.heatmapWidget()->tileCenter(0));
    EXPECT_TRUE(
        tip.contains(QStringLiteral("max |a−g| %1").arg(QString::number(numpyTiles[0], 'g', 4))))
        << tip.toStdString() << " vs " << numpyTiles[0];
    EXPECT_TRUE(tip.contains(QStringLiteral("elements rows"))) << tip.toStdString();
    EXPECT_FALSE(view.loadGolden(QStringLiteral("/nonexistent/golden.npy")).isEmpty());
    test::saveScreenshot(view, "diff_view_golden");
}

// The verdict area names the error pattern: computed from a loaded golden with the trace's
// tiling, or read from the diff row `pto diff RUN.db --golden DIR` stored.
TEST(GuiDiff, TheVerdictAreaNamesTheErrorPattern) {
    test::TempDir dir("pto-gui-diagnose");
    const std::string sample = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
    const auto cli = [](const std::string& args) {
        return test::runCommand(fmt::format("{} {}", PTO_CLI, args));
    };
    ASSERT_EQ(cli(fmt::format("run {} --outputs {}", test::shellQuote(sample),
                              test::shellQuote((dir / "clean").string())))
                  .exitCode,
              0);
    ASSERT_EQ(cli(fmt::format("run {} --fault shift-tile-offset:1 -o {}", test::shellQuote(sample),
                              test::shellQuote((dir / "f.db").string())))
                  .exitCode,
              0);
    StudioContext context;
    context.setDocument(TraceDocument::open(dir / "f.db"));
    DiffView view(context);
    view.resize(1000, 600);
    waitHeatmap(view);
    EXPECT_TRUE(view.diagnosisText().isEmpty()); // no golden, no diff rows yet
    EXPECT_TRUE(
        view.loadGolden(QString::fromStdString((dir / "clean" / "yh.npy").string())).isEmpty());
    waitHeatmap(view);
    const std::string loaded = view.diagnosisText().toStdString();
    EXPECT_NE(loaded.find("Diagnosis: shift"), std::string::npos) << loaded;
    EXPECT_NE(loaded.find("core_tiles"), std::string::npos) << loaded;
    EXPECT_NE(loaded.find("softmax_aiv_1"), std::string::npos) << loaded;
    test::saveScreenshot(view, "diff_view_diagnosis");

    ASSERT_EQ(cli(fmt::format("diff {} --golden {}", test::shellQuote((dir / "f.db").string()),
                              test::shellQuote((dir / "clean").string())))
                  .exitCode,
              1);
    StudioContext stored;
    stored.setDocument(TraceDocument::open(dir / "f.db"));
    DiffView fromRows(stored);
    waitHeatmap(fromRows);
    const std::string rows = fromRows.diagnosisText().toStdString();
    EXPECT_NE(rows.find("Diagnosis: shift"), std::string::npos) << rows;
}

TEST(GuiDiff, TheHotTileSelectsItsOpInEveryDockedView) {
    const test::BisectTrace bisect = test::bisectTrace("matmul", "shift-tile-offset");
    MainWindow window;
    window.resize(1600, 1000);
    ASSERT_TRUE(window.openFile(QString::fromStdString(bisect.trace.string()), true).isEmpty());
    window.show();
    auto* diff = qobject_cast<DiffView*>(window.view(QStringLiteral("diff")));
    auto* ir = qobject_cast<IrTextView*>(window.view(QStringLiteral("ir")));
    auto* stages = qobject_cast<StageCompareView*>(window.view(QStringLiteral("stages")));
    ASSERT_TRUE(diff && ir && stages);
    waitHeatmap(*diff);
    const int hot = diff->heatmap().hottestTile();
    ASSERT_GE(hot, 0);
    const HeatTile tile = diff->heatmap().tiles[std::size_t(hot)];
    QTest::mouseClick(diff->heatmapWidget(), Qt::LeftButton, {},
                      diff->heatmapWidget()->tileCenter(hot));
    ASSERT_EQ(window.context().selection().current(), EntityRef::node(tile.op.stageId, tile.op.id));
    // The IR view marks the tile op's line in its stage (a Tile stage is shown by default)...
    ir->setStage(tile.op.stageId);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !ir->loading(); }, 60000));
    ASSERT_EQ(ir->highlightedIrLines().size(), 1u);
    EXPECT_EQ(ir->irText().entityAt(std::size_t(ir->highlightedIrLines().front())),
              EntityRef::node(tile.op.stageId, tile.op.id));
    EXPECT_GT(ir->highlightedSourceLine(), 0);
    // ...and the stage comparison maps it back to its Tensor op on the left.
    stages->setStages(window.context().document()->reader().stages().front().id, tile.op.stageId);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !stages->isLoading(); }, 60000));
    EXPECT_EQ(stages->rightNodes().highlighted().size(), 1u);
    EXPECT_EQ(stages->leftNodes().highlighted().size(), 1u);
    test::saveScreenshot(window, "main_window_diff_selection");
}

TEST(GuiDiff, ATraceWithoutDiffsSaysHowToMakeThem) {
    StudioContext context;
    context.setDocument(TraceDocument::open(test::sampleTrace("softmax")));
    DiffView view(context);
    EXPECT_FALSE(view.bisect().found);
    EXPECT_TRUE(view.bannerText().contains(QStringLiteral("pto diff")));
    EXPECT_EQ(view.table().rowCount(), 0);
    context.setDocument(nullptr);
    EXPECT_EQ(view.heatmap().tiles.size(), 0u);
}

} // namespace
} // namespace pto::gui
