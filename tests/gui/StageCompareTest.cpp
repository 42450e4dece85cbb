// Stage comparison: models under QAbstractItemModelTester, the mapping between two stages
// against SQL over the provenance view and the instruction table, driven by clicks.
#include "gui/model/StageCompareModel.h"
#include "gui/widgets/StageCompareView.h"
#include "tests/gui/DiffFixtures.h"
#include "tests/gui/support/Fixtures.h"

#include <QAbstractItemModelTester>
#include <QListView>
#include <QTest>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

namespace pto::gui {
namespace {

std::set<std::int64_t> sqlSet(const tracedb::TraceReader& reader, const std::string& sql) {
    std::set<std::int64_t> out;
    for (const auto& row : reader.query(sql).rows) out.insert(std::get<std::int64_t>(row.at(0)));
    return out;
}

std::set<std::int64_t> highlighted(const StageNodeListModel& model) {
    std::set<std::int64_t> out;
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.data(model.index(r), StageNodeListModel::HighlightRole).toBool())
            out.insert(model.nodeAt(r));
    return out;
}

std::int64_t stageOfPass(const tracedb::TraceReader& reader, const std::string& pass) {
    for (const auto& s : reader.stages())
        if (s.pass == pass) return s.id;
    return -1;
}

/// Waits for the view's worker to answer the latest pick, click or selection.
void waitShown(const StageCompareView& view) {
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.isLoading(); }, 60000));
}

void clickNode(StageCompareView& view, QListView* list, const StageNodeListModel& model,
               std::int64_t node) {
    const QModelIndex index = model.index(model.rowOf(node));
    list->scrollTo(index);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(index).center());
    waitShown(view);
}

TEST(GuiStageCompare, ModelsPassTheModelTesterWhileLoadingAndHighlighting) {
    const auto reader = tracedb::TraceReader::open(test::compiledTrace("matmul"));
    StageListModel stages;
    StageNodeListModel nodes;
    QAbstractItemModelTester t1(&stages, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester t2(&nodes, QAbstractItemModelTester::FailureReportingMode::Fatal);
    stages.load(&reader);
    EXPECT_EQ(std::size_t(stages.rowCount()), reader.stages().size());
    // Each stage is named by its id, as SQL and #node=STAGE/ID references number it.
    for (int r = 0; r < stages.rowCount(); ++r)
        EXPECT_TRUE(stages.index(r).data().toString().startsWith(
            QString::number(stages.stageAt(r)) + QStringLiteral(" ")))
            << stages.index(r).data().toString().toStdString();
    const std::int64_t last = stages.stageAt(stages.rowCount() - 1);
    nodes.load(&reader, stageOfPass(reader, "expand-tiles"));
    EXPECT_EQ(std::size_t(nodes.rowCount()),
              reader.nodes(stageOfPass(reader, "expand-tiles")).size());
    nodes.setHighlighted({1, 2, 3});
    EXPECT_EQ(highlighted(nodes), (std::set<std::int64_t>{1, 2, 3}));
    nodes.load(&reader, last);
    EXPECT_TRUE(highlighted(nodes).empty());
    stages.load(nullptr);
    nodes.load(nullptr, -1);
    EXPECT_EQ(nodes.rowCount(), 0);
}

// The parsed program's argument and return nodes (negative ids) list by kind and name: the
// return read "#-2  return return".
TEST(GuiStageCompare, ArgumentAndReturnRowsReadAsTheProgramWritesThem) {
    const auto reader = tracedb::TraceReader::open(test::compiledTrace("softmax"));
    StageNodeListModel nodes;
    nodes.load(&reader, reader.stages().front().id); // the program as parsed
    bool sawReturn = false;
    for (int row = 0; row < nodes.rowCount(); ++row) {
        const QString text = nodes.data(nodes.index(row)).toString();
        EXPECT_FALSE(text.startsWith(QStringLiteral("#-"))) << text.toStdString();
        EXPECT_FALSE(text.contains(QStringLiteral("return return"))) << text.toStdString();
        sawReturn |= text == QStringLiteral("return");
    }
    EXPECT_TRUE(sawReturn);
}

TEST(GuiStageCompare, ClickingANodeHighlightsWhatItMapsToOnTheOtherSide) {
    const auto trace = test::bisectTrace("matmul", "shift-tile-offset").trace;
    StudioContext context;
    context.setDocument(TraceDocument::open(trace));
    StageCompareView view(context);
    view.resize(900, 600);
    view.show();
    const auto& reader = context.document()->reader();
    const std::int64_t root = reader.stages().front().id; // the parsed program
    const std::int64_t tile = stageOfPass(reader, "tile-dead-code");
    ASSERT_GE(tile, 0);
    view.setStages(root, tile);
    waitShown(view);
    const std::int64_t matmul =
        *sqlSet(reader, fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = "
                                    "'matmul'",
                                    root))
             .begin();
    const std::string down = fmt::format(
        "WITH RECURSIVE down(stage_id, id) AS (SELECT {}, {} UNION SELECT p.stage_id, p.id "
        "FROM down JOIN provenance p ON p.kind = 'node' AND p.parent_stage_id = down.stage_id "
        "AND p.parent_id = down.id) ",
        root, matmul);
    const auto tiles =
        sqlSet(reader, down + fmt::format("SELECT id FROM down WHERE stage_id = {}", tile));
    ASSERT_GT(tiles.size(), 16u);

    clickNode(view, view.leftList(), view.leftNodes(), matmul);
    EXPECT_EQ(context.selection().current(), EntityRef::node(root, matmul));
    EXPECT_EQ(highlighted(view.rightNodes()), tiles);
    EXPECT_EQ(highlighted(view.leftNodes()), std::set<std::int64_t>{matmul});
    test::saveScreenshot(view, "stage_compare_view");

    // A tile op on the right maps back to exactly its Tensor op on the left.
    const std::int64_t oneTile = *tiles.rbegin();
    clickNode(view, view.rightList(), view.rightNodes(), oneTile);
    EXPECT_EQ(highlighted(view.leftNodes()), std::set<std::int64_t>{matmul});
    EXPECT_EQ(highlighted(view.rightNodes()), std::set<std::int64_t>{oneTile});

    // Against the PTO stage: the kernels whose instructions were generated for that tile op.
    const std::int64_t pto = stageOfPass(reader, "emit-pto");
    view.setStages(tile, pto);
    context.selection().select(EntityRef::node(tile, oneTile));
    waitShown(view);
    EXPECT_EQ(highlighted(view.rightNodes()),
              sqlSet(reader, fmt::format("SELECT DISTINCT block_id FROM instr WHERE "
                                         "tile_stage_id = {} AND tile_op_id = {}",
                                         tile, oneTile)));
    // Against the Exec stage: the tasks calling those block functions.
    const std::int64_t exec = stageOfPass(reader, "build-exec-graph");
    view.setStages(root, exec);
    waitShown(view);
    EXPECT_EQ(highlighted(view.rightNodes()),
              sqlSet(reader, fmt::format("SELECT t.id FROM node t WHERE t.stage_id = {} AND "
                                         "t.parent_id IN (SELECT block_id FROM instr WHERE "
                                         "tile_stage_id = {} AND tile_op_id = {})",
                                         exec, tile, oneTile)));
    // A slice selected elsewhere (the timeline) maps through its instruction.
    const auto slice = reader.query(fmt::format(
        "SELECT s.id FROM slice s JOIN instr i ON i.id = s.instr_id WHERE i.tile_op_id = {} "
        "LIMIT 1",
        oneTile));
    ASSERT_FALSE(slice.rows.empty());
    view.setStages(root, tile);
    context.selection().select(EntityRef::slice(std::get<std::int64_t>(slice.rows[0][0])));
    waitShown(view);
    EXPECT_EQ(highlighted(view.rightNodes()), std::set<std::int64_t>{oneTile});
    EXPECT_EQ(highlighted(view.leftNodes()), std::set<std::int64_t>{matmul});
}

TEST(GuiStageCompare, TheBigGemmMapsAllItsTilesBothWays) {
    // 4096³ f16 GEMM: 230 401 nodes in the last Tile stage (the others are not recorded).
    const auto trace = test::compiledTrace("gemm_4096");
    StudioContext context;
    context.setDocument(TraceDocument::open(trace));
    StageCompareView view(context);
    view.resize(900, 600);
    view.show();
    const auto& reader = context.document()->reader();
    const std::int64_t root = reader.stages().front().id;
    std::int64_t tile = -1;
    for (const auto& s : reader.stages())
        if (s.level == tracedb::StageLevel::Tile && s.nodeCount > 0) tile = s.id;
    view.setStages(root, tile);
    // 230 k ids are read on the worker: the pick returns at once and says so (issue 19).
    EXPECT_TRUE(view.isLoading());
    EXPECT_TRUE(view.statusText().startsWith(QStringLiteral("Reading stage")))
        << view.statusText().toStdString();
    waitShown(view);
    EXPECT_EQ(std::size_t(view.rightNodes().rowCount()),
              sqlSet(reader, fmt::format("SELECT id FROM node WHERE stage_id = {}", tile)).size());
    EXPECT_FALSE(view.statusText().startsWith(QStringLiteral("Reading stage")));
    const std::int64_t matmul =
        *sqlSet(reader, fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = "
                                    "'matmul'",
                                    root))
             .begin();
    const auto tiles = sqlSet(reader, fmt::format("SELECT id FROM node WHERE stage_id = {} AND "
                                                  "parent_id = {}",
                                                  tile, matmul));
    ASSERT_GT(tiles.size(), 100000u);
    clickNode(view, view.leftList(), view.leftNodes(), matmul);
    EXPECT_EQ(view.rightNodes().highlighted().size(), tiles.size());
    const std::int64_t last = *tiles.rbegin();
    clickNode(view, view.rightList(), view.rightNodes(), last);
    EXPECT_EQ(context.selection().current(), EntityRef::node(tile, last));
    EXPECT_EQ(highlighted(view.leftNodes()), std::set<std::int64_t>{matmul});
    test::saveScreenshot(view, "stage_compare_view_gemm4096");
}

} // namespace
} // namespace pto::gui
