// The graph view's models on real compiled traces: hierarchy and tree model (under
// QAbstractItemModelTester), group caps, expand/collapse, search, neighbourhood and paths,
// each checked against SQL on the trace's node and edge tables.
#include "gui/model/GraphModel.h"
#include "gui/model/HierarchyTreeModel.h"
#include "tests/gui/GraphTestSupport.h"
#include "tests/gui/support/Fixtures.h"

#include <QAbstractItemModelTester>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <unordered_map>

namespace pto::gui {
namespace {

using Kind = HierarchyItem::Kind;
using test::sqlInt;
using test::sqlInts;

std::set<std::int64_t> visibleNodeIds(const GraphModel& model) {
    std::set<std::int64_t> ids;
    for (int item : model.visible().items) {
        const HierarchyItem& it = model.hierarchy().item(item);
        if (!it.isGroup()) ids.insert(model.stage().nodes[std::size_t(it.node)].id);
    }
    return ids;
}

struct Loaded {
    tracedb::TraceReader reader;
    std::int64_t stage;
};

Loaded open(const std::string& sample) {
    auto reader = tracedb::TraceReader::open(test::compiledTrace(sample));
    const std::int64_t stage = test::lastTileStage(reader);
    return {std::move(reader), stage};
}

TEST(GraphModel, TreeModelPassesTheModelTesterWhileLoadingExpandingAndSwitching) {
    auto [reader, tile] = open("matmul");
    GraphModel graph;
    HierarchyTreeModel tree(graph);
    QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::Fatal);
    graph.setStage(loadGraphStage(reader, tile));
    ASSERT_GT(tree.rowCount(), 0);
    // Check a group through the tree: the graph expands it, unchecking collapses it.
    QModelIndex group;
    for (int r = 0; r < tree.rowCount() && !group.isValid(); ++r)
        if (tree.flags(tree.index(r, 0)) & Qt::ItemIsUserCheckable) group = tree.index(r, 0);
    ASSERT_TRUE(group.isValid());
    const int item = group.data(HierarchyTreeModel::ItemRole).toInt();
    EXPECT_TRUE(tree.setData(group, Qt::Checked, Qt::CheckStateRole));
    EXPECT_TRUE(graph.isExpanded(item));
    EXPECT_EQ(group.data(Qt::CheckStateRole).toInt(), Qt::Checked);
    EXPECT_EQ(tree.rowCount(group), int(graph.hierarchy().item(item).children.size()));
    EXPECT_EQ(tree.parent(tree.index(0, 0, group)), group);
    EXPECT_TRUE(tree.setData(group, Qt::Unchecked, Qt::CheckStateRole));
    EXPECT_FALSE(graph.isExpanded(item));
    // Switch to the Tensor stage and to an empty stage, still under the tester.
    graph.setStage(loadGraphStage(reader, 1));
    EXPECT_EQ(tree.rowCount(), int(sqlInt(reader, "SELECT count(*) FROM node WHERE stage_id = 1")));
    graph.clear();
    EXPECT_EQ(tree.rowCount(), 0);
    EXPECT_TRUE(graph.visible().items.empty());
}

TEST(GraphModel, Gemm4096TileStageGroupsByTensorOpAndBlockWithCappedGroups) {
    auto [reader, tile] = open("gemm_4096");
    GraphModel graph;
    graph.setStage(loadGraphStage(reader, tile));
    const auto& h = graph.hierarchy();
    const std::int64_t nodes =
        sqlInt(reader, fmt::format("SELECT count(*) FROM node WHERE stage_id = {}", tile));
    EXPECT_GT(nodes, 100000);
    EXPECT_EQ(std::int64_t(graph.stage().nodes.size()), nodes);
    EXPECT_EQ(std::int64_t(graph.stage().edges.size()),
              sqlInt(reader, fmt::format("SELECT count(*) FROM edge WHERE stage_id = {}", tile)));
    // One group per Tensor op with at least two tiles, one per block function under it.
    EXPECT_EQ(h.count(Kind::TensorOp),
              sqlInt(reader, fmt::format("SELECT count(*) FROM (SELECT parent_id FROM node WHERE "
                                         "stage_id = {} AND parent_id IS NOT NULL GROUP BY "
                                         "parent_id HAVING count(*) > 1)",
                                         tile)));
    EXPECT_EQ(h.count(Kind::Block),
              sqlInt(reader, fmt::format("SELECT count(DISTINCT block_id) FROM instr WHERE "
                                         "tile_stage_id = {}",
                                         tile)));
    EXPECT_GT(h.count(Kind::Range), 0);
    for (const auto& item : h.items())
        EXPECT_LE(item.children.size(), std::size_t(kMaxGroupChildren));
    EXPECT_EQ(h.item(0).leafCount(), nodes);
    // Collapsed: a handful of items, edges aggregated exactly as SQL counts them.
    const VisibleGraph top = graph.visible();
    EXPECT_LT(top.items.size(), 10u);
    std::int64_t crossing = 0;
    for (const auto& e : top.edges) crossing += e.count;
    EXPECT_EQ(crossing,
              sqlInt(reader,
                     fmt::format("SELECT count(*) FROM edge e JOIN node a ON a.stage_id = "
                                 "e.stage_id AND a.id = e.src JOIN node b ON b.stage_id = "
                                 "e.stage_id AND b.id = e.dst WHERE e.stage_id = {} AND "
                                 "coalesce(a.parent_id, 'n' || a.id) IS NOT coalesce(b.parent_id, "
                                 "'n' || b.id)",
                                 tile)));
}

// A GEMM's K steps are counted loops: the tile ops of their later rounds have no instruction
// rows, yet each is placed in the block that runs it — the same block as in the trace of the
// written-out kernels (--no-reroll), where every tile op has instructions of its own.
TEST(GraphModel, TileOpsOfLaterLoopRoundsAreInTheBlockThatRunsThem) {
    const std::string gemm =
        R"(func @gemm(%a: tensor<128x8192xf16>, %b: tensor<8192x512xf16>) -> tensor<128x512xf32> {
  cube_tile [128, 128], [64, 256], [256, 256]
  %c = matmul %a, %b
  return %c
}
)";
    auto load = [&](const std::string& name, const std::string& args) {
        auto reader = tracedb::TraceReader::open(test::programTrace(name, gemm, args));
        const std::int64_t tile = test::lastTileStage(reader);
        const std::int64_t withoutInstr =
            sqlInt(reader, fmt::format("SELECT count(*) FROM node n WHERE n.stage_id = {} AND "
                                       "n.core IS NOT NULL AND NOT EXISTS (SELECT 1 FROM instr i "
                                       "WHERE i.tile_stage_id = n.stage_id AND i.tile_op_id = "
                                       "n.id)",
                                       tile));
        return std::pair{loadGraphStage(reader, tile), withoutInstr};
    };
    const auto [folded, foldedWithout] = load("gemm_ksteps", "--timing-only --trace none");
    const auto [flat, flatWithout] =
        load("gemm_ksteps_flat", "--timing-only --trace none --no-reroll");
    EXPECT_GT(foldedWithout, 100); // most K steps' tile ops are later rounds of a loop
    EXPECT_EQ(flatWithout, 0);
    ASSERT_EQ(folded.nodes.size(), flat.nodes.size());
    std::set<std::int64_t> blocks;
    for (std::size_t i = 0; i < flat.nodes.size(); ++i) {
        ASSERT_EQ(folded.nodes[i].id, flat.nodes[i].id);
        EXPECT_EQ(folded.nodes[i].blockId, flat.nodes[i].blockId) << "node " << flat.nodes[i].id;
        if (flat.nodes[i].blockId >= 0) blocks.insert(flat.nodes[i].blockId);
    }
    EXPECT_EQ(blocks.size(), 2u); // two output tiles, one cube kernel each
}

TEST(GraphModel, ExpandingAGroupShowsItsChildrenAndCollapsingRestores) {
    auto [reader, tile] = open("gemm_4096");
    GraphModel graph;
    graph.setStage(loadGraphStage(reader, tile));
    const VisibleGraph before = graph.visible();
    int op = -1;
    for (int item : before.items)
        if (graph.hierarchy().item(item).kind == Kind::TensorOp) op = item;
    ASSERT_GE(op, 0);
    int changes = 0;
    QObject::connect(&graph, &GraphModel::visibleChanged, [&](int item) {
        EXPECT_EQ(item, op);
        ++changes;
    });
    graph.setExpanded(op, true);
    const auto& children = graph.hierarchy().item(op).children;
    std::set<int> shown(graph.visible().items.begin(), graph.visible().items.end());
    for (int child : children) EXPECT_TRUE(shown.count(child)) << child;
    EXPECT_FALSE(shown.count(op));
    EXPECT_EQ(graph.visible().items.size(), before.items.size() - 1 + children.size());
    graph.setExpanded(op, false);
    EXPECT_EQ(graph.visible().items, before.items);
    EXPECT_EQ(graph.visible().hash, before.hash);
    EXPECT_EQ(changes, 2);
}

TEST(GraphModel, SearchRevealsTheFirstHitByExpandingItsAncestors) {
    auto [reader, tile] = open("gemm_4096");
    GraphModel graph;
    graph.setStage(loadGraphStage(reader, tile));
    const auto hits = graph.search("matmul");
    const std::int64_t expected =
        sqlInt(reader, fmt::format("SELECT count(*) FROM node WHERE stage_id = {} AND (kind LIKE "
                                   "'%matmul%' OR name LIKE '%matmul%')",
                                   tile));
    EXPECT_EQ(std::int64_t(hits.size()), std::min<std::int64_t>(expected, 10000));
    ASSERT_FALSE(hits.empty());
    const auto& h = graph.hierarchy();
    const int leaf = h.itemOfNode(hits.front());
    const int slot = graph.visibleSlotOfNode(hits.front());
    ASSERT_GE(slot, 0);
    EXPECT_EQ(graph.visible().items[std::size_t(slot)], leaf);
    int depth = 0;
    for (int p = h.item(leaf).parent; p > 0; p = h.item(p).parent, ++depth)
        EXPECT_TRUE(graph.isExpanded(p));
    EXPECT_GE(depth, 3); // Tensor op → block → range
    EXPECT_LE(graph.visible().items.size(), std::size_t(4 * kMaxGroupChildren));
}

// Walking through search hits (or selections) shows each hit as a fresh reveal would: what the
// previous reveal opened closes again, so the graph does not keep growing (issue 19 item 5);
// a group the user expanded stays expanded.
TEST(GraphModel, ARevealClosesWhatThePreviousRevealOpened) {
    auto [reader, tile] = open("gemm_4096");
    GraphModel graph;
    graph.setStage(loadGraphStage(reader, tile));
    const auto hits = graph.search("matmul");
    ASSERT_GT(hits.size(), 100U);
    const auto& h = graph.hierarchy();
    auto topOf = [&](int node) {
        int item = h.itemOfNode(node);
        while (h.item(item).parent > 0) item = h.item(item).parent;
        return item;
    };
    GraphModel fresh;
    fresh.setStage(loadGraphStage(reader, tile));
    for (std::size_t k : {std::size_t(0), hits.size() / 3, hits.size() / 2, hits.size() - 1}) {
        graph.revealNode(hits[k]);
        fresh.collapseAll();
        fresh.revealNode(hits[k]);
        EXPECT_EQ(graph.visible().items, fresh.visible().items) << "hit " << k;
        EXPECT_GE(graph.visibleSlotOfNode(hits[k]), 0);
    }
    // A group the user opened is theirs: the next reveal elsewhere leaves it open.
    int userGroup = -1;
    for (int item : graph.visible().items)
        if (h.item(item).isGroup() && item != topOf(hits.front())) userGroup = item;
    ASSERT_GE(userGroup, 0);
    graph.setExpanded(userGroup, true);
    graph.revealNode(hits.front());
    EXPECT_TRUE(graph.isExpanded(userGroup));
    EXPECT_GE(graph.visibleSlotOfNode(hits.front()), 0);
    graph.revealNode(hits.back());
    EXPECT_TRUE(graph.isExpanded(userGroup));
    for (int g : graph.revealedGroups()) EXPECT_NE(g, userGroup);
}

TEST(GraphModel, NeighbourhoodAndPathsMatchTheEdgeTable) {
    auto [reader, tile] = open("gemm_4096");
    GraphModel graph;
    graph.setStage(loadGraphStage(reader, tile));
    const std::int64_t id =
        sqlInt(reader, fmt::format("SELECT min(id) FROM node WHERE stage_id = {} AND kind = "
                                   "'matmul_acc' AND id > 100000",
                                   tile));
    const int index = graph.stage().indexOf(id);
    graph.showNeighbourhood(index, 1);
    EXPECT_EQ(graph.mode(), GraphModel::Mode::Neighbourhood);
    EXPECT_EQ(visibleNodeIds(graph),
              sqlInts(reader, fmt::format("SELECT src FROM edge WHERE stage_id = {0} AND dst = {1} "
                                          "UNION SELECT dst FROM edge WHERE stage_id = {0} AND "
                                          "src = {1} UNION SELECT {1}",
                                          tile, id)));
    for (const auto& e : graph.visible().edges) EXPECT_EQ(e.count, 1);
    // Paths from a tile load to the op two steps downstream of it.
    const std::int64_t from =
        sqlInt(reader,
               fmt::format("SELECT min(src) FROM edge WHERE stage_id = {} AND dst = {}", tile, id));
    const std::int64_t to =
        sqlInt(reader,
               fmt::format("SELECT min(dst) FROM edge WHERE stage_id = {} AND src = {}", tile, id));
    ASSERT_TRUE(graph.showPaths(graph.stage().indexOf(from), graph.stage().indexOf(to)));
    const auto onPath = sqlInts(
        reader, fmt::format("WITH RECURSIVE down(n) AS (SELECT {1} UNION SELECT e.dst FROM edge e "
                            "JOIN down ON e.src = down.n WHERE e.stage_id = {0}), up(n) AS "
                            "(SELECT {2} UNION SELECT e.src FROM edge e JOIN up ON e.dst = up.n "
                            "WHERE e.stage_id = {0}) SELECT n FROM down INTERSECT SELECT n FROM up",
                            tile, from, to));
    EXPECT_EQ(visibleNodeIds(graph), onPath);
    EXPECT_TRUE(onPath.count(id));
    EXPECT_FALSE(graph.showPaths(graph.stage().indexOf(to), graph.stage().indexOf(from)));
    graph.showHierarchy();
    EXPECT_EQ(graph.mode(), GraphModel::Mode::Hierarchy);
}

// A gather's index operand is labelled as such on the Tensor and the Tile stage; its data
// operand is not.
TEST(GraphModel, TheIndexTensorOfAGatherIsLabelledOnItsEdge) {
    auto reader = tracedb::TraceReader::open(test::programTrace(
        "gather_index", "func @g(%table: tensor<64x600xf16>, %idx: tensor<2x5xi32>) -> "
                        "tensor<2x5x600xf16> {\n  %rows = gather %table, %idx {axis = 0}\n"
                        "  return %rows\n}\n"));
    for (const std::int64_t stageId : {std::int64_t(1), test::lastTileStage(reader)}) {
        const GraphStage stage = loadGraphStage(reader, stageId);
        int index = 0, data = 0;
        for (const GraphEdge& e : stage.edges) {
            if (stage.text(stage.nodes[std::size_t(e.dst)].kind) != "gather") continue;
            if (e.label.starts_with("index ")) {
                EXPECT_NE(e.label.find("xi32"), std::string::npos) << e.label;
                ++index;
            } else {
                EXPECT_NE(e.label.find("xf16"), std::string::npos) << e.label;
                ++data;
            }
        }
        EXPECT_GE(index, 1) << "stage " << stageId;
        EXPECT_EQ(index, data) << "stage " << stageId;
    }
}

// scatter_add's index is its second operand at Tensor level and tscatter_add's its third at Tile
// level: exactly one edge into each is labelled "index …", an i32 one.
TEST(GraphModel, TheIndexTensorOfAScatterAddIsLabelledOnItsEdge) {
    auto reader = tracedb::TraceReader::open(test::programTrace(
        "scatter_index",
        "func @s(%base: tensor<16x300xf32>, %idx: tensor<23xi32>, %src: tensor<23x300xf32>) -> "
        "tensor<16x300xf32> {\n  %y = scatter_add %base, %idx, %src {axis = 0}\n  return %y\n}\n"));
    const std::pair<std::int64_t, std::string> stages[] = {
        {1, "scatter_add"}, {test::lastTileStage(reader), "tscatter_add"}};
    for (const auto& [stageId, kind] : stages) {
        const GraphStage stage = loadGraphStage(reader, stageId);
        std::unordered_map<int, int> index;
        int nodes = 0;
        for (const GraphEdge& e : stage.edges) {
            if (stage.text(stage.nodes[std::size_t(e.dst)].kind) != kind) continue;
            if (!e.label.starts_with("index ")) continue;
            EXPECT_NE(e.label.find("xi32"), std::string::npos) << e.label;
            ++index[e.dst];
        }
        for (const GraphNode& n : stage.nodes) nodes += stage.text(n.kind) == kind;
        EXPECT_GE(nodes, 1) << "stage " << stageId;
        EXPECT_EQ(int(index.size()), nodes) << "stage " << stageId;
        for (const auto& [node, count] : index) EXPECT_EQ(count, 1) << "node " << node;
    }
}

} // namespace
} // namespace pto::gui
