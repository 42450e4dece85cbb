// GUI tests of selections with no single Tensor op, as the graph, timeline and op table show them.
// A task or a block function in the graph (its kernel's tile ops, not a program argument); an op
// of an unrolled loop's body in the graph, the timeline (its slices highlighted, its own colour,
// its name in the details) and the op table; checked against SQL and the export's op names.
#include "gui/model/GraphModel.h"
#include "gui/model/OpCostModel.h"
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/BottleneckView.h"
#include "gui/widgets/GraphView.h"
#include "gui/widgets/GraphViewCanvas.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "profiler/InstrSource.h"
#include "tests/gui/GraphTestSupport.h"
#include "tests/gui/support/Fixtures.h"

#include <QApplication>
#include <QImage>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

namespace pto::gui {
namespace {

/// The graph, timeline and bottleneck views on one trace and one selection, as the main window
/// docks them, each waited for until loaded.
struct Studio {
    StudioContext context;
    std::unique_ptr<GraphView> graph;
    std::unique_ptr<TimelineView> timeline;
    std::unique_ptr<BottleneckView> bottleneck;

    explicit Studio(const std::filesystem::path& trace) {
        graph = std::make_unique<GraphView>(context);
        timeline = std::make_unique<TimelineView>(context);
        bottleneck = std::make_unique<BottleneckView>(context);
        graph->resize(1100, 700);
        timeline->resize(1400, 760);
        bottleneck->resize(1400, 860);
        graph->show();
        timeline->show();
        bottleneck->show();
        context.setDocument(TraceDocument::open(trace));
        EXPECT_TRUE(
            QTest::qWaitFor([&] { return idle() && graph->canvas().itemCount() > 0; }, 120000));
    }
    const tracedb::TraceReader& reader() const { return context.document()->reader(); }
    bool idle() const {
        return !graph->hasPendingWork() && !timeline->hasPendingWork() &&
               !bottleneck->hasPendingWork() && !timeline->loader().busy();
    }
    /// Waits until every view has followed the selection (the graph maps it on a worker, and
    /// revealing the node may lay the graph out again).
    void settle() {
        QApplication::processEvents();
        ASSERT_TRUE(QTest::qWaitFor([&] { return idle(); }, 60000));
        QApplication::processEvents();
        ASSERT_TRUE(QTest::qWaitFor([&] { return idle(); }, 60000));
    }
    /// The node id the graph highlights, or nullopt.
    std::optional<std::int64_t> graphNode() const {
        const int slot = graph->canvas().highlight();
        const GraphModel& model = graph->graphModel();
        if (slot < 0 || std::size_t(slot) >= model.visible().items.size()) return std::nullopt;
        const HierarchyItem& item =
            model.hierarchy().item(model.visible().items[std::size_t(slot)]);
        if (item.isGroup()) return std::nullopt;
        return model.stage().nodes[std::size_t(item.node)].id;
    }
};

std::int64_t stageOfLevel(const tracedb::TraceReader& reader, const char* level) {
    return test::sqlInt(reader, fmt::format("SELECT max(id) FROM stage WHERE level = '{}'", level));
}

/// The name of a node, as the graph's labels begin.
QString nodeName(const tracedb::TraceReader& reader, std::int64_t stage, std::int64_t node) {
    const auto rows = reader
                          .query(fmt::format(
                              "SELECT name FROM node WHERE stage_id = {} AND id = {}", stage, node))
                          .rows;
    const auto* name = rows.empty() ? nullptr : std::get_if<std::string>(&rows[0][0]);
    return name ? QString::fromStdString(*name) : QStringLiteral("?");
}

/// Nodes of `toStage` derived from (stage, node), through the provenance view.
std::set<std::int64_t> descendants(const tracedb::TraceReader& reader, std::int64_t stage,
                                   std::int64_t node, std::int64_t toStage) {
    return test::sqlInts(
        reader, fmt::format("WITH RECURSIVE down(stage_id, id) AS (SELECT {}, {} UNION SELECT "
                            "p.stage_id, p.id FROM down JOIN provenance p ON p.kind = 'node' AND "
                            "p.parent_stage_id = down.stage_id AND p.parent_id = down.id) "
                            "SELECT id FROM down WHERE stage_id = {}",
                            stage, node, toStage));
}

// `softmax.db#node=18/1` (a task) and `#node=15/1` (a block function) have no Tensor op: the
// graph highlighted and centred `%x arg`, program argument 0, whose node id −1 doubled as "no
// node". Each now selects a tile op its kernel runs (the ops its task's slices executed), and the
// status line names it.
TEST(SelectionMapping, ATaskOrABlockFunctionSelectsATileOpOfItsKernelNotAnArgument) {
    Studio s(test::sampleTrace("softmax", "--trace full"));
    const auto& reader = s.reader();
    const std::int64_t tileStage = s.graph->currentStageId();
    ASSERT_EQ(tileStage, test::lastTileStage(reader));
    const std::int64_t exec = stageOfLevel(reader, "exec");
    const std::int64_t block = stageOfLevel(reader, "block");
    const std::set<std::int64_t> ranByTask1 = test::sqlInts(
        reader, "SELECT DISTINCT i.tile_op_id FROM slice s JOIN instr i ON i.id = s.instr_id "
                "WHERE s.task_id = 1 AND i.tile_op_id IS NOT NULL");
    ASSERT_FALSE(ranByTask1.empty());
    ASSERT_EQ(test::sqlInt(reader, fmt::format("SELECT parent_id FROM node WHERE stage_id = {} "
                                               "AND id = 1",
                                               exec)),
              1); // task 1 runs block function 1
    for (const EntityRef& ref : {EntityRef::node(exec, 1), EntityRef::node(block, 1)}) {
        s.context.selection().select(ref);
        s.settle();
        const auto node = s.graphNode();
        ASSERT_TRUE(node) << "stage " << ref.stageId << ": nothing highlighted";
        EXPECT_TRUE(ranByTask1.count(*node))
            << "stage " << ref.stageId << ": highlighted node " << *node;
        EXPECT_GE(*node, 0) << "a program argument";
        const QString status = s.graph->statusText();
        EXPECT_TRUE(status.startsWith(nodeName(reader, tileStage, *node))) << status.toStdString();
    }
    // The block function's selection moves the timeline to its first task too.
    const std::int64_t taskSlice =
        test::sqlInt(reader, "SELECT id FROM slice WHERE task_id = 1 AND category = 'task' "
                             "ORDER BY ts LIMIT 1");
    EXPECT_EQ(s.timeline->canvas().selectedSlice(), taskSlice);
    test::saveScreenshot(*s.graph, "selection_block_function");
}

/// flash_attention_loop: the 4 iterations of loop "kv" are written out by unroll-loops, and the
/// parsed program knows the loop as its `for` op only.
struct LoopStudio : Studio {
    LoopStudio() : Studio(test::sampleTrace("flash_attention_loop", "--trace full")) {}

    /// The op of the program each instruction ran for, as `pto export --format csv` names it.
    std::map<std::int64_t, std::string> opOfInstr() const {
        const prof::InstrSources sources = prof::loadInstrSources(reader());
        std::map<std::int64_t, std::string> ops;
        for (std::int64_t id : test::sqlInts(reader(), "SELECT id FROM instr"))
            if (const prof::InstrSource* source = sources.find(id)) ops[id] = source->op;
        return ops;
    }
    /// Instruction slices of one op of the program.
    std::set<std::int64_t> slicesOf(const std::string& op) const {
        const auto ops = opOfInstr();
        std::set<std::int64_t> slices;
        reader().query("SELECT id, instr_id FROM slice WHERE category = 'instr' AND instr_id IS "
                       "NOT NULL",
                       [&](auto, auto row) {
                           const auto it = ops.find(std::get<std::int64_t>(row[1]));
                           if (it != ops.end() && it->second == op)
                               slices.insert(std::get<std::int64_t>(row[0]));
                           return true;
                       });
        return slices;
    }
    /// The slices drawn highlighted, the view on `slice`'s time and lane (where the loop's
    /// other ops run too), every lane expanded.
    std::set<std::int64_t> highlightedAround(std::int64_t slice) {
        const auto row =
            reader()
                .query(fmt::format("SELECT ts, dur, track_id FROM slice WHERE id = {}", slice))
                .rows.at(0);
        const auto v = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
        timeline->tracks().setAllExpanded(true);
        TimelineCanvas& canvas = timeline->canvas();
        canvas.viewport().setRange(double(v(0) - 2000), double(v(0) + v(1) + 2000));
        canvas.scrollToTrack(timeline->tracks().indexOfTrackId(v(2)));
        canvas.repaint();
        canvas.repaint(); // slice windows are read over the first frames
        const auto& ids = timeline->canvas().lastStats().highlightedSlices;
        return {ids.begin(), ids.end()};
    }
};

// `#node=7/56` is `exp %p` of iteration 2 (line 26). Its provenance climbs to the `for`, so the
// graph centred `%qk_ws gm_tensor` (the first node of the whole loop), the timeline outlined
// every slice of the loop (matmuls on the AIC pipes too) and the op table selected the loop's
// row. Now: the graph highlights a tile op made from that node, the timeline only the slices of
// `exp %p`, and the op table its row "exp %p in kv".
TEST(SelectionMapping, ALoopBodyOpSelectsItsOwnTilesSlicesAndRow) {
    LoopStudio s;
    const auto& reader = s.reader();
    const std::int64_t tensor = stageOfLevel(reader, "tensor");
    const std::int64_t copy = test::sqlInt(
        reader, fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = 'exp' AND name = "
                            "'%p' AND attrs LIKE '%\"iter\":[2]%'",
                            tensor));
    ASSERT_GE(copy, 0);
    const std::int64_t tileStage = s.graph->currentStageId();
    const std::set<std::int64_t> tiles = descendants(reader, tensor, copy, tileStage);
    ASSERT_FALSE(tiles.empty());
    const std::set<std::int64_t> expSlices = s.slicesOf("exp %p");
    ASSERT_FALSE(expSlices.empty());

    s.context.selection().select(EntityRef::node(tensor, copy));
    s.settle();
    const auto node = s.graphNode();
    ASSERT_TRUE(node);
    EXPECT_TRUE(tiles.count(*node)) << "graph highlights node " << *node;
    EXPECT_TRUE(s.graph->statusText().contains(QStringLiteral("exp")))
        << s.graph->statusText().toStdString();

    const std::set<std::int64_t> highlighted = s.highlightedAround(*expSlices.begin());
    EXPECT_FALSE(highlighted.empty());
    for (std::int64_t slice : highlighted)
        EXPECT_TRUE(expSlices.count(slice)) << "slice " << slice << " is not of exp %p";
    test::saveScreenshot(*s.timeline, "selection_loop_body_op_timeline");

    const QModelIndexList rows = s.bottleneck->opTable()->selectionModel()->selectedRows();
    ASSERT_EQ(rows.size(), 1);
    const int row = static_cast<const QSortFilterProxyModel*>(s.bottleneck->opTable()->model())
                        ->mapToSource(rows.front())
                        .row();
    EXPECT_EQ(s.bottleneck->opCost().index(row, OpCostModel::Op).data().toString(),
              QStringLiteral("exp %p in kv"));
}

// Program arguments have negative node ids (%q is -1, %k -2, %v -3), and the timeline keyed loop
// body op i as -2 - i: selecting %k outlined the slices of the first body op (found by
// helper-99's review). An argument runs no instruction: nothing is highlighted.
TEST(SelectionMapping, AProgramArgumentHighlightsNoSlice) {
    LoopStudio s;
    const std::int64_t parsed = test::sqlInt(s.reader(), "SELECT min(id) FROM stage");
    const std::int64_t arg = test::sqlInt(
        s.reader(),
        fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = 'arg' AND id < -1 "
                    "ORDER BY id DESC LIMIT 1",
                    parsed));
    ASSERT_LT(arg, -1);
    s.context.selection().select(EntityRef::node(parsed, arg));
    s.settle();
    std::set<std::string> ops;
    for (const auto& [instr, op] : s.opOfInstr()) ops.insert(op);
    ASSERT_GT(ops.size(), 3u);
    for (const std::string& op : ops) { // around a slice of every op of the program
        const std::set<std::int64_t> slices = s.slicesOf(op);
        if (slices.empty()) continue;
        EXPECT_TRUE(s.highlightedAround(*slices.begin()).empty()) << "slices of " << op;
    }
}

// Selecting the loop itself (its `for`, the op table's loop row) highlighted nothing once every
// slice was keyed to its body op (found by helper-99's review): it highlights its body ops'
// slices, and not the ops after the loop.
TEST(SelectionMapping, ALoopHighlightsTheSlicesOfItsBody) {
    LoopStudio s;
    const std::int64_t parsed = test::sqlInt(s.reader(), "SELECT min(id) FROM stage");
    const std::int64_t loop = test::sqlInt(
        s.reader(),
        fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = 'for'", parsed));
    ASSERT_GE(loop, 0);
    s.context.selection().select(EntityRef::node(parsed, loop));
    s.settle();
    const std::set<std::int64_t> exp = s.slicesOf("exp %p");
    ASSERT_FALSE(exp.empty());
    const std::set<std::int64_t> around = s.highlightedAround(*exp.begin());
    EXPECT_TRUE(around.count(*exp.begin()));
    std::string after; // the div after the loop (line 36)
    for (const auto& [instr, op] : s.opOfInstr())
        if (op.starts_with("div ")) after = op;
    ASSERT_FALSE(after.empty());
    const std::set<std::int64_t> div = s.slicesOf(after);
    for (std::int64_t slice : s.highlightedAround(*div.begin()))
        EXPECT_FALSE(div.count(slice)) << "slice " << slice << " of " << after;
}

// A click on the op table's row "exp %p in kv" selects the body op (its first copy): the graph
// jumped to `%qk_ws gm_tensor` and kept naming the previously selected node, and the slice
// details kept the previous slice. Now the graph shows a tile op of `exp %p` and names it, the
// timeline highlights the op's slices only and drops the stale details.
TEST(SelectionMapping, ClickingALoopBodyOpsRowShowsThatOp) {
    LoopStudio s;
    const auto& reader = s.reader();
    const std::set<std::int64_t> expSlices = s.slicesOf("exp %p");
    ASSERT_FALSE(expSlices.empty());
    // A slice selected first: its details are on show.
    const std::int64_t matmul = *s.slicesOf("matmul %qk").begin();
    s.context.selection().select(EntityRef::slice(matmul));
    s.settle();
    ASSERT_FALSE(s.timeline->details().rows().empty());

    OpCostModel& ops = s.bottleneck->opCost();
    int row = -1;
    for (int r = 0; r < ops.rowCount() && row < 0; ++r)
        if (ops.index(r, OpCostModel::Op).data().toString() == QStringLiteral("exp %p in kv"))
            row = r;
    ASSERT_GE(row, 0);
    QTableView* table = s.bottleneck->opTable();
    auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
    const QModelIndex index = proxy->mapFromSource(ops.index(row, 0));
    table->scrollTo(index);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
    ASSERT_EQ(s.context.selection().current(), EntityRef::node(ops.opStage(row), ops.opId(row)));
    s.settle();

    const auto node = s.graphNode();
    ASSERT_TRUE(node);
    EXPECT_TRUE(descendants(reader, ops.opStage(row), ops.opId(row), s.graph->currentStageId())
                    .count(*node))
        << "graph highlights node " << *node;
    const QString status = s.graph->statusText();
    EXPECT_TRUE(status.startsWith(nodeName(reader, s.graph->currentStageId(), *node)))
        << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("exp"))) << status.toStdString();
    EXPECT_TRUE(s.timeline->details().rows().empty()) << "stale slice details";
    const std::set<std::int64_t> highlighted = s.highlightedAround(*expSlices.begin());
    EXPECT_FALSE(highlighted.empty());
    for (std::int64_t slice : highlighted)
        EXPECT_TRUE(expSlices.count(slice)) << "slice " << slice << " is not of exp %p";
}

// "Colour by Tensor op" painted the whole loop body one colour (the `for`'s), although the op
// table splits it into its body ops. Now each body op has a colour of its own: on a vector pipe
// lane the slices of one op share a colour and two ops differ; the details of a slice name its
// body op as `pto export --format csv` does (tensor_op "exp %p"), not "node 4" (the loop).
TEST(SelectionMapping, EachLoopBodyOpHasItsOwnColourAndNameOnTheTimeline) {
    LoopStudio s;
    const auto& reader = s.reader();
    const auto opOf = s.opOfInstr();
    const std::int64_t exp = *s.slicesOf("exp %p").begin();
    const auto at =
        reader.query(fmt::format("SELECT track_id, ts, dur FROM slice WHERE id = {}", exp))
            .rows.at(0);
    const auto v = [&](int i) { return std::get<std::int64_t>(at[std::size_t(i)]); };
    TimelineCanvas& canvas = s.timeline->canvas();
    ASSERT_EQ(canvas.colouring(), TimelineColouring::ByTensorOp);
    canvas.viewport().setRange(double(v(1) - 1500), double(v(1) + v(2) + 1500));
    s.timeline->tracks().setAllExpanded(true);
    canvas.scrollToTrack(s.timeline->tracks().indexOfTrackId(v(0)));
    canvas.repaint();
    const QImage image = canvas.grab().toImage();
    // The colour at the right end of each wide slice (its name is written at the left end).
    std::map<std::string, std::set<QRgb>> colours;
    reader.query(
        fmt::format("SELECT id, ts, dur, depth, instr_id FROM slice WHERE track_id = {} AND "
                    "category = 'instr' AND ts >= {} AND ts + dur <= {}",
                    v(0), v(1) - 1500, v(1) + v(2) + 1500),
        [&](auto, auto row) {
            const auto c = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
            const auto op = opOf.find(c(4));
            const double x0 = canvas.viewport().xOf(double(c(1))),
                         x1 = canvas.viewport().xOf(double(c(1) + c(2)));
            const auto centre = canvas.pointOf(v(0), c(1), c(2), int(c(3)));
            if (op == opOf.end() || x1 - x0 < 60 || !centre) return true;
            const int x = TimelineCanvas::kHeaderWidth + int(x1) - 5;
            colours[op->second].insert(image.pixel(x, centre->y()));
            return true;
        });
    ASSERT_GE(colours.size(), 2u) << "fewer than two ops on the lane";
    std::set<QRgb> all;
    for (const auto& [op, set] : colours) {
        EXPECT_EQ(set.size(), 1u) << op << " is drawn in several colours";
        all.insert(set.begin(), set.end());
    }
    EXPECT_GE(all.size(), 2u) << "the loop's ops share one colour";
    test::saveScreenshot(*s.timeline, "selection_loop_colours");

    const auto point = canvas.pointOf(v(0), v(1), v(2), 0);
    ASSERT_TRUE(point);
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, *point);
    ASSERT_EQ(s.context.selection().current(), EntityRef::slice(exp));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !s.timeline->detailsLoading(); }, 30000));
    const QString op = s.timeline->details().value(QStringLiteral("Tensor op"));
    EXPECT_TRUE(op.startsWith(QStringLiteral("exp %p"))) << op.toStdString();
    EXPECT_EQ(s.timeline->details().value(QStringLiteral("Loop")).left(8),
              QStringLiteral("kv, iter"));
}

} // namespace
} // namespace pto::gui
