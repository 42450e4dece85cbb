// LinkResolver on real traces against independent SQL over the recursive `provenance` view.
#include "gui/model/LinkResolver.h"
#include "tests/gui/DiffFixtures.h"
#include "tests/gui/support/Fixtures.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <variant>

namespace pto::gui {
namespace {

std::vector<std::int64_t> sqlInts(const tracedb::TraceReader& reader, const std::string& sql) {
    std::vector<std::int64_t> out;
    for (const auto& row : reader.query(sql).rows) out.push_back(std::get<std::int64_t>(row.at(0)));
    return out;
}

/// Everything derived from root op `op`: (stage_id, id) of the nodes, recursively.
std::string down(std::int64_t rootStage, std::int64_t op) {
    return fmt::format("WITH RECURSIVE down(stage_id, id) AS (SELECT {}, {} UNION "
                       "SELECT p.stage_id, p.id FROM down JOIN provenance p ON p.kind = 'node' "
                       "AND p.parent_stage_id = down.stage_id AND p.parent_id = down.id) ",
                       rootStage, op);
}

std::vector<tracedb::StageRow> stagesOf(const tracedb::TraceReader& reader) {
    return reader.stages();
}

void expectForwardLinksMatchSql(const std::filesystem::path& trace) {
    const auto reader = tracedb::TraceReader::open(trace);
    LinkResolver links(reader);
    const std::int64_t root = links.rootStage();
    ASSERT_GE(root, 0);
    std::size_t nonEmpty = 0;
    for (const tracedb::NodeRow& op : reader.nodes(root)) {
        const std::string d = down(root, op.id);
        for (const tracedb::StageRow& stage : stagesOf(reader)) {
            if (stage.id == root) continue;
            EXPECT_EQ(links.nodesOf(op.id, stage.id),
                      sqlInts(reader, d + fmt::format("SELECT id FROM down WHERE stage_id = {} "
                                                      "ORDER BY id",
                                                      stage.id)))
                << "op " << op.id << " stage " << stage.name;
        }
        const auto instrs = links.instrsOf(op.id);
        EXPECT_EQ(instrs, sqlInts(reader, d + "SELECT i.id FROM down JOIN instr i ON "
                                              "i.tile_stage_id = down.stage_id AND "
                                              "i.tile_op_id = down.id ORDER BY i.id"))
            << "op " << op.id;
        const auto slices = links.slicesOf(op.id);
        EXPECT_EQ(slices, sqlInts(reader, d + "SELECT s.id FROM down JOIN instr i ON "
                                              "i.tile_stage_id = down.stage_id AND i.tile_op_id "
                                              "= down.id JOIN slice s ON s.instr_id = i.id "
                                              "ORDER BY s.id"))
            << "op " << op.id;
        EXPECT_EQ(links.blocksOf(op.id),
                  sqlInts(reader, d + "SELECT DISTINCT i.block_id FROM down JOIN instr i ON "
                                      "i.tile_stage_id = down.stage_id AND i.tile_op_id = "
                                      "down.id ORDER BY i.block_id"));
        if (!slices.empty()) {
            ++nonEmpty;
            const CycleRange range = links.timeRangeOf(slices);
            const auto bounds = reader.query(
                d + "SELECT min(s.ts), max(s.ts + s.dur) FROM down JOIN instr i ON "
                    "i.tile_stage_id = down.stage_id AND i.tile_op_id = down.id JOIN slice s "
                    "ON s.instr_id = i.id");
            EXPECT_EQ(range.begin, std::get<std::int64_t>(bounds.rows[0][0]));
            EXPECT_GE(range.end, std::get<std::int64_t>(bounds.rows[0][1]));
        }
    }
    EXPECT_GT(nonEmpty, 0u) << "no Tensor op of " << trace << " reached a slice";
}

TEST(GuiLinks, TensorOpToNodesInstrsSlicesAndBlocksMatchProvenanceSql) {
    expectForwardLinksMatchSql(test::sampleTrace("softmax"));
    expectForwardLinksMatchSql(test::bisectTrace("matmul", "shift-tile-offset").trace);
}

TEST(GuiLinks, EverySliceLeadsBackToTheTensorOpOfTheRecursiveChain) {
    const auto reader = tracedb::TraceReader::open(test::sampleTrace("softmax"));
    LinkResolver links(reader);
    // slice → instr → tile op → ... → Tensor op, by the recursive view (TRACE_SCHEMA.md).
    const auto rows = reader.query(
        "WITH RECURSIVE up(sid, kind, stage_id, id) AS ("
        "  SELECT s.id, 'instr', i.stage_id, i.id FROM slice s JOIN instr i ON i.id = s.instr_id"
        "  UNION ALL SELECT up.sid, 'node', p.parent_stage_id, p.parent_id FROM up"
        "  JOIN provenance p ON p.kind = up.kind AND p.stage_id = up.stage_id AND p.id = up.id)"
        "SELECT up.sid, up.id FROM up JOIN stage st ON st.id = up.stage_id"
        " AND st.parent_stage_id IS NULL WHERE up.kind = 'node' ORDER BY up.sid");
    ASSERT_FALSE(rows.rows.empty());
    // First by point queries (nothing loaded), then from the bulk instruction index.
    for (const auto& row : rows.rows) {
        const auto slice = std::get<std::int64_t>(row[0]);
        EXPECT_EQ(links.tensorOpOf(EntityRef::slice(slice)), std::get<std::int64_t>(row[1]))
            << "slice " << slice;
    }
    LinkResolver bulk(reader);
    bulk.instrsOf(0);
    for (const auto& row : rows.rows) {
        const auto slice = std::get<std::int64_t>(row[0]);
        EXPECT_EQ(bulk.tensorOpOf(EntityRef::slice(slice)), std::get<std::int64_t>(row[1]))
            << "slice " << slice << " (bulk)";
    }
    for (const tracedb::InstrRow& instr : reader.instrs()) {
        const NodeKey tile = links.tileOpOfInstr(instr.id);
        EXPECT_EQ(tile.id, instr.tileOpId.value_or(-1));
        EXPECT_EQ(tile.stageId, instr.tileStageId.value_or(-1));
        if (!instr.tileOpId) continue;
        const auto ids = links.instrsOfTileOp(*instr.tileStageId, *instr.tileOpId);
        EXPECT_TRUE(std::find(ids.begin(), ids.end(), instr.id) != ids.end());
        const auto blocks = links.blocksOfTileOp(*instr.tileStageId, *instr.tileOpId);
        EXPECT_TRUE(std::find(blocks.begin(), blocks.end(), instr.blockId) != blocks.end());
    }
    EXPECT_EQ(links.tensorOpOf(EntityRef::track(1)), -1);
    EXPECT_EQ(links.tensorOpOf({}), -1);
    EXPECT_TRUE(links.slicesOfInstrs({}).empty());
    EXPECT_TRUE(links.timeRangeOf({}).empty());
}

} // namespace
} // namespace pto::gui
