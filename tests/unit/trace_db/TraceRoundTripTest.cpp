// Writes a trace with every table, reads it back and checks the rows; also interning and append.
#include "TestTrace.h"

#include "trace_db/SchemaVersion.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <span>

namespace pto::tracedb {
namespace {

using test::SampleIds;
using test::TempDir;

std::int64_t countRows(const TraceReader& reader, const std::string& sql) {
    return std::get<std::int64_t>(reader.query(sql).rows.at(0).at(0));
}

class TraceDbRoundTrip : public ::testing::Test {
protected:
    void SetUp() override { m_ids = test::writeSampleTrace(m_path); }

    TempDir m_dir;
    std::filesystem::path m_path = m_dir.file("sample.ptotrace");
    SampleIds m_ids;
};

TEST_F(TraceDbRoundTrip, MetaHoldsProducerKeysAndWriterStamps) {
    TraceReader reader = TraceReader::open(m_path);
    EXPECT_EQ(reader.schemaVersion(), kSchemaVersion);
    EXPECT_EQ(reader.meta("schema_version"), std::to_string(kSchemaVersion));
    EXPECT_EQ(reader.meta("clock_hz"), "1800000000");
    EXPECT_TRUE(reader.meta("tool_version").has_value());
    EXPECT_EQ(reader.meta("created_at").value_or("").size(), 20U); // 2024-01-02T03:04:05Z
    EXPECT_FALSE(reader.meta("no_such_key").has_value());
    EXPECT_EQ(reader.allMeta().size(), 11U);
}

TEST_F(TraceDbRoundTrip, CompilerStagesNodesEdgesBuffersInstrs) {
    TraceReader reader = TraceReader::open(m_path);
    std::vector<StageRow> stages = reader.stages();
    ASSERT_EQ(stages.size(), 5U);
    EXPECT_EQ(stages[0].level, StageLevel::Tensor);
    EXPECT_FALSE(stages[0].parentStageId.has_value());
    EXPECT_EQ(stages[1].level, StageLevel::Tile);
    EXPECT_EQ(stages[1].parentStageId, m_ids.tensorStage);
    EXPECT_EQ(stages[4].level, StageLevel::Pto);
    EXPECT_EQ(stages[1].pass, "expand_tiles");
    EXPECT_DOUBLE_EQ(stages[1].passMicros, 12.5);

    std::vector<NodeRow> tileOps = reader.nodes(m_ids.tileStage);
    ASSERT_EQ(tileOps.size(), 4U);
    EXPECT_EQ(tileOps[0].id, 10);
    EXPECT_EQ(tileOps[0].kind, "tmatmul");
    EXPECT_EQ(tileOps[0].parentId, 3);
    EXPECT_EQ(tileOps[2].parentId, 4);
    EXPECT_EQ(tileOps[2].srcLine, 4);
    EXPECT_EQ(tileOps[2].shape, "[128,64]");

    std::vector<NodeRow> tasks = reader.nodes(m_ids.execStage);
    ASSERT_EQ(tasks.size(), 2U);
    EXPECT_EQ(tasks[1].kind, "task");
    EXPECT_EQ(tasks[1].groupId, 21);
    EXPECT_EQ(tasks[1].parentId, 21);

    std::vector<EdgeRow> edges = reader.edges(m_ids.tensorStage);
    ASSERT_EQ(edges.size(), 3U);
    EXPECT_EQ(edges[2].src, 3);
    EXPECT_EQ(edges[2].dst, 4);
    EXPECT_EQ(edges[2].label, "y");
    // Each stage's edge_count is its edges (a stage row is written before its edges: all said 0).
    for (const StageRow& stage : reader.stages())
        EXPECT_EQ(stage.edgeCount, std::int64_t(reader.edges(stage.id).size())) << stage.name;
    EXPECT_EQ(reader.stages().front().edgeCount, 3);

    std::vector<BufferRow> buffers = reader.buffers(m_ids.blockStage);
    ASSERT_EQ(buffers.size(), 2U);
    EXPECT_EQ(buffers[1].space, "UB");
    EXPECT_EQ(buffers[1].slot, 1);
    EXPECT_EQ(buffers[1].lastUse, 3);

    EXPECT_EQ(reader.instrs().size(), 8U);
    std::vector<InstrRow> vecInstrs = reader.instrs(m_ids.ptoStage, 51);
    ASSERT_EQ(vecInstrs.size(), 4U);
    EXPECT_EQ(vecInstrs[1].opcode, "TEXP");
    EXPECT_EQ(vecInstrs[1].idx, 1);
    EXPECT_EQ(vecInstrs[1].tileOpId, 12);
    EXPECT_EQ(vecInstrs[1].tileStageId, m_ids.tileStage);
}

TEST_F(TraceDbRoundTrip, TracksSlicesCountersFlowsArgs) {
    TraceReader reader = TraceReader::open(m_path);
    std::vector<TrackRow> tracks = reader.tracks();
    ASSERT_EQ(tracks.size(), 11U);
    EXPECT_EQ(tracks[0].kind, TrackKind::Chip);
    EXPECT_FALSE(tracks[0].parentId.has_value());
    EXPECT_EQ(reader.stringOf(tracks[0].nameId), "chip");

    std::vector<SliceRow> cube = reader.slices(m_ids.cubePipeTrack);
    ASSERT_EQ(cube.size(), 3U);
    EXPECT_EQ(cube[0].ts, 300);
    EXPECT_EQ(cube[0].dur, 518);
    EXPECT_EQ(cube[0].instrId, m_ids.firstInstr + 1);
    EXPECT_EQ(cube[1].category, SliceCategory::Stall);
    EXPECT_EQ(cube[1].argSetId, 1);
    EXPECT_EQ(reader.stringOf(cube[2].nameId), "TMATMUL");

    std::vector<ArgRow> args = reader.args(1);
    ASSERT_EQ(args.size(), 3U);
    EXPECT_EQ(std::get<std::string>(args[0].value), "bank conflict");
    EXPECT_EQ(std::get<std::int64_t>(args[1].value), 4096);
    EXPECT_DOUBLE_EQ(std::get<double>(args[2].value), 0.5);

    std::int64_t hbm = tracks.back().id;
    std::vector<CounterRow> samples = reader.counters(hbm);
    ASSERT_EQ(samples.size(), 3U);
    EXPECT_DOUBLE_EQ(samples[1].value, 512.5);
    EXPECT_EQ(reader.counters(hbm, 100, 1400).size(), 1U);

    std::vector<FlowRow> flows = reader.flows();
    ASSERT_EQ(flows.size(), 2U);
    EXPECT_EQ(flows[0].kind, FlowKind::Dep);
    EXPECT_EQ(flows[1].kind, FlowKind::Flag);
}

TEST_F(TraceDbRoundTrip, SliceWindowReturnsOverlappingSlices) {
    TraceReader reader = TraceReader::open(m_path);
    // Cube pipe: TMATMUL [300,818), stall [818,820), TMATMUL [820,1070).
    EXPECT_EQ(reader.slices(m_ids.cubePipeTrack, 500, 600).size(), 1U);
    EXPECT_EQ(reader.slices(m_ids.cubePipeTrack, 817, 821).size(), 3U);
    EXPECT_EQ(reader.slices(m_ids.cubePipeTrack, 1070, 5000).size(), 0U);
    EXPECT_EQ(reader.slices(m_ids.cubePipeTrack, 0, 300).size(), 0U);
    EXPECT_EQ(reader.slices(9999).size(), 0U);
}

TEST_F(TraceDbRoundTrip, TensorsDiffsMetricsStats) {
    TraceReader reader = TraceReader::open(m_path);
    std::vector<TensorRow> listed = reader.tensors();
    ASSERT_EQ(listed.size(), 4U);
    EXPECT_TRUE(listed[0].data.empty());
    EXPECT_EQ(listed[1].role, TensorRole::Output);
    std::vector<TensorRow> loaded = reader.tensors(TensorData::Load);
    ASSERT_EQ(loaded[0].data.size(), 4U);
    EXPECT_EQ(loaded[0].data[1], std::byte{60});
    EXPECT_EQ(reader.tensorData(loaded[3].id), loaded[3].data);
    EXPECT_EQ(loaded[3].stageId, m_ids.tileStage);
    EXPECT_THROW(reader.tensorData(12345), TraceError);

    std::vector<DiffRow> diffs = reader.diffs();
    ASSERT_EQ(diffs.size(), 4U);
    EXPECT_EQ(diffs[1].kind, DiffKind::Bisect);
    EXPECT_EQ(diffs[1].nodeId, 12);
    EXPECT_EQ(diffs[1].verdict, "first_divergence");

    EXPECT_EQ(reader.metrics().size(), 3U);
    std::vector<MetricRow> util = reader.metrics("pipe_util");
    ASSERT_EQ(util.size(), 2U);
    EXPECT_EQ(util[0].key, "aic_mac_ratio");
    EXPECT_DOUBLE_EQ(util[0].value.value_or(0), 0.59);
    EXPECT_FALSE(reader.metrics("bound")[0].value.has_value());
    EXPECT_EQ(reader.metrics("bound")[0].text, "memory");

    std::vector<StatRow> stats = reader.stats();
    ASSERT_EQ(stats.size(), 3U);
    EXPECT_EQ(stats[0].severity, StatSeverity::DataLoss);
    EXPECT_EQ(stats[1].idx, 1);
}

TEST_F(TraceDbRoundTrip, CommitBuildsIndexesAndTrackSummary) {
    TraceReader reader = TraceReader::open(m_path);
    EXPECT_EQ(countRows(reader, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND "
                                "name IN ('slice_track_ts', 'counter_track_ts', 'node_parent', "
                                "'instr_block')"),
              4);
    QueryResult summary = reader.query(
        "SELECT slice_count, min_ts, max_end, max_dur FROM track_summary WHERE track_id = " +
        std::to_string(m_ids.cubePipeTrack));
    ASSERT_EQ(summary.rows.size(), 1U);
    EXPECT_EQ(summary.rows[0], (std::vector<SqlValue>{std::int64_t{3}, std::int64_t{300},
                                                      std::int64_t{1070}, std::int64_t{518}}));
    EXPECT_EQ(test::staleTrackSummaryRows(m_path), 0);
}

TEST_F(TraceDbRoundTrip, EmptyTextIsStoredAsNull) {
    TraceReader reader = TraceReader::open(m_path);
    // Block functions have no source line and their edges no value id.
    EXPECT_EQ(countRows(reader, "SELECT count(*) FROM node WHERE kind IN ('block_fn', 'kernel') "
                                "AND src_line IS NULL AND pipe IS NULL"),
              4);
    EXPECT_EQ(reader.nodes(m_ids.blockStage)[0].pipe, "");
}

TEST_F(TraceDbRoundTrip, AppendAddsRowsAndKeepsEverything) {
    std::string createdAt = TraceReader::open(m_path).meta("created_at").value();
    std::int64_t tloadId = 0;
    {
        TraceWriter writer = TraceWriter::append(m_path);
        tloadId = writer.intern("TLOAD"); // already in the file: same id, no new row
        SliceRow row;
        row.ts = 5000;
        row.dur = 10;
        row.trackId = m_ids.cubePipeTrack;
        row.nameId = writer.intern("appended");
        writer.add(row);
        writer.add(StatRow{"appended_rows", std::nullopt, StatSeverity::Info, 1, ""});
        writer.setMeta("producer", "trace_db tests, appended");
        writer.commit();
    }
    TraceReader reader = TraceReader::open(m_path);
    EXPECT_EQ(reader.meta("created_at"), createdAt);
    EXPECT_EQ(reader.meta("producer"), "trace_db tests, appended");
    EXPECT_EQ(countRows(reader, "SELECT count(*) FROM string WHERE str = 'TLOAD'"), 1);
    EXPECT_EQ(countRows(reader, "SELECT id FROM string WHERE str = 'TLOAD'"), tloadId);
    std::vector<SliceRow> cube = reader.slices(m_ids.cubePipeTrack);
    ASSERT_EQ(cube.size(), 4U);
    EXPECT_EQ(reader.stringOf(cube.back().nameId), "appended");
    EXPECT_EQ(reader.stats().size(), 4U);
    EXPECT_EQ(reader.stages().size(), 5U);
    EXPECT_EQ(countRows(reader, "SELECT max_end FROM track_summary WHERE track_id = " +
                                    std::to_string(m_ids.cubePipeTrack)),
              5010);
    EXPECT_EQ(test::staleTrackSummaryRows(m_path), 0);
    EXPECT_EQ(countRows(reader, "SELECT count(*) FROM sqlite_schema WHERE name = 'slice_track_ts'"),
              1);
}

TEST(TraceDbWriter, InterningDeduplicates) {
    TempDir dir;
    std::filesystem::path path = dir.file("t.ptotrace");
    {
        TraceWriter writer = TraceWriter::create(path);
        std::int64_t a = writer.intern("TMATMUL");
        std::int64_t b = writer.intern("TLOAD");
        EXPECT_NE(a, b);
        EXPECT_EQ(writer.intern("TMATMUL"), a);
        EXPECT_EQ(writer.intern(std::string("TLOAD")), b);
        EXPECT_EQ(writer.intern(""), writer.intern(""));
        writer.commit();
    }
    TraceReader reader = TraceReader::open(path);
    std::unordered_map<std::int64_t, std::string> strings = reader.strings();
    EXPECT_EQ(strings.size(), 3U);
    EXPECT_EQ(countRows(reader, "SELECT count(DISTINCT str) FROM string"), 3);
}

TEST(TraceDbWriter, RepeatedInstructionTextIsStoredOnce) {
    // 100 instructions over 3 distinct operand lists: dict holds each text once, and every row
    // reads back its own text through the view, the reader and the dict ids alike.
    TempDir dir;
    std::filesystem::path path = dir.file("t.ptotrace");
    const std::string operands[] = {"UB[0x0]:f16[16x16/16]", "L1[0x200]:f32[8x8/8]", ""};
    std::vector<InstrRow> rows;
    for (std::int64_t i = 0; i < 100; ++i)
        rows.push_back(InstrRow{.stageId = 1,
                                .blockId = 2,
                                .idx = i,
                                .pipe = i % 2 ? "V" : "MTE2",
                                .opcode = i % 2 ? "TADD" : "TLOAD",
                                .operands = operands[i % 3]});
    {
        TraceWriter writer = TraceWriter::create(path);
        writer.addAll(std::span<const InstrRow>(rows));
        const std::int64_t tadd = writer.internDict("TADD");
        EXPECT_EQ(writer.internDict("TADD"), tadd);
        writer.add(InstrDataRow{.stageId = 1, .blockId = 2, .idx = 100, .opcodeDict = tadd});
        writer.commit();
    }
    TraceReader reader = TraceReader::open(path);
    EXPECT_EQ(countRows(reader, "SELECT count(*) FROM dict"), 6); // 2 operands, 2 pipes, 2 ops
    EXPECT_EQ(countRows(reader, "SELECT count(*) FROM string"), 0);
    const std::vector<InstrRow> back = reader.instrs(1, 2);
    ASSERT_EQ(back.size(), 101U);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(back[i].operands, rows[i].operands) << i;
        EXPECT_EQ(back[i].opcode, rows[i].opcode) << i;
    }
    EXPECT_EQ(back.back().opcode, "TADD");
    EXPECT_EQ(back.back().pipe, "");
    EXPECT_EQ(countRows(reader, "SELECT count(*) FROM instr WHERE operands IS NULL"), 33 + 1);
    EXPECT_EQ(countRows(reader, "SELECT count(*) FROM instr WHERE operands = "
                                "'L1[0x200]:f32[8x8/8]' AND opcode = 'TADD'"),
              17);
}

// A recorder flushes its dict texts before the commit (StageRecorder::stagesDone); texts
// interned later keep their ids and are inserted by the commit, each once.
TEST(TraceDbWriter, TextFlushedBeforeTheCommitIsStoredOnceWithItsId) {
    TempDir dir;
    std::filesystem::path path = dir.file("t.ptotrace");
    std::int64_t a = 0, b = 0, name = 0;
    {
        TraceWriter writer = TraceWriter::create(path);
        a = writer.internDict("before the flush");
        name = writer.intern("a slice name");
        writer.flushText();
        EXPECT_EQ(writer.internDict("before the flush"), a);
        b = writer.internDict("after the flush");
        EXPECT_NE(a, b);
        writer.flushText(); // nothing new but "after the flush"
        writer.commit();
    }
    TraceReader reader = TraceReader::open(path);
    EXPECT_EQ(countRows(reader, "SELECT count(*) FROM dict"), 2);
    EXPECT_EQ(countRows(reader, fmt::format("SELECT count(*) FROM dict WHERE id = {} AND str = "
                                            "'before the flush'",
                                            a)),
              1);
    EXPECT_EQ(countRows(reader, fmt::format("SELECT count(*) FROM dict WHERE id = {} AND str = "
                                            "'after the flush'",
                                            b)),
              1);
    EXPECT_EQ(countRows(reader, fmt::format("SELECT count(*) FROM string WHERE id = {} AND str = "
                                            "'a slice name'",
                                            name)),
              1);
}

TEST(TraceDbWriter, BatchedAddAllKeepsOrderAndEveryValue) {
    // 70 rows: two full multi-row INSERTs of 32 and 6 single-row ones.
    TempDir dir;
    std::filesystem::path path = dir.file("t.ptotrace");
    std::vector<ArgRow> args;
    std::vector<SliceRow> slices;
    for (std::int64_t i = 0; i < 70; ++i) {
        ArgValue value = i % 3 == 0   ? ArgValue(i)
                         : i % 3 == 1 ? ArgValue(double(i) / 4)
                                      : ArgValue("s" + std::to_string(i));
        args.push_back(ArgRow{7, "k" + std::to_string(i), value});
        SliceRow slice{.ts = i, .dur = 70 - i, .trackId = 3, .nameId = i};
        slice.argSetId = i % 2 == 0 ? std::optional<std::int64_t>(7) : std::nullopt;
        slices.push_back(slice);
    }
    {
        TraceWriter writer = TraceWriter::create(path);
        writer.addAll(args);
        writer.addAll(slices);
        writer.commit();
    }
    TraceReader reader = TraceReader::open(path);
    std::vector<ArgRow> argsRead = reader.args(7);
    ASSERT_EQ(argsRead.size(), args.size());
    std::vector<SliceRow> slicesRead = reader.slices(3);
    ASSERT_EQ(slicesRead.size(), slices.size());
    EXPECT_EQ(test::staleTrackSummaryRows(path), 0);
    for (std::size_t i = 0; i < args.size(); ++i) {
        EXPECT_EQ(argsRead[i].key, args[i].key);
        EXPECT_EQ(argsRead[i].value, args[i].value) << i;
        EXPECT_EQ(slicesRead[i].id, std::int64_t(i) + 1);
        EXPECT_EQ(slicesRead[i].dur, slices[i].dur);
        EXPECT_EQ(slicesRead[i].nameId, slices[i].nameId);
        EXPECT_EQ(slicesRead[i].argSetId, slices[i].argSetId);
    }
}

TEST(TraceDbWriter, FailedInsertClosesTheWriter) {
    TempDir dir;
    std::filesystem::path path = dir.file("t.ptotrace");
    {
        TraceWriter writer = TraceWriter::create(path);
        std::vector<SliceRow> rows(40);
        for (std::size_t i = 0; i < rows.size(); ++i) rows[i].id = 1 + std::int64_t(i % 35);
        EXPECT_THROW(writer.addAll(rows), TraceError);
        EXPECT_THROW(writer.add(StatRow{}), TraceError);
        EXPECT_THROW(writer.commit(), TraceError);
    }
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_EQ(dir.entryCount(), 0U);
}

TEST(TraceDbWriter, ExplicitIdsAreKeptAndReturned) {
    TempDir dir;
    std::filesystem::path path = dir.file("t.ptotrace");
    TraceWriter writer = TraceWriter::create(path);
    SliceRow row;
    row.id = 1000;
    EXPECT_EQ(writer.add(row), 1000);
    row.id = kAutoId;
    EXPECT_EQ(writer.add(row), 1001);
}

TEST(TraceDbWriter, ClosedAfterCommit) {
    TempDir dir;
    TraceWriter writer = TraceWriter::create(dir.file("t.ptotrace"));
    writer.commit();
    EXPECT_THROW(writer.add(StatRow{}), TraceError);
    EXPECT_THROW(writer.commit(), TraceError);
}

TEST(TraceDbWriter, ConstraintViolationNamesTheFile) {
    TempDir dir;
    std::filesystem::path path = dir.file("dup.ptotrace");
    TraceWriter writer = TraceWriter::create(path);
    NodeRow node;
    node.stageId = 1;
    node.id = 7;
    writer.add(node);
    try {
        writer.add(node);
        FAIL() << "duplicate (stage_id, id) accepted";
    } catch (const TraceError& error) {
        EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("UNIQUE"), std::string::npos) << error.what();
    }
}

} // namespace
} // namespace pto::tracedb
