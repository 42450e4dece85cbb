// Every sample end to end: text round trips at the Tensor, Tile and PTO levels; every PTO
// instruction in the trace file reaches a Tensor op and a source line; the Tensor interpreter
// agrees with NumPy and the Tile interpreter with the Tensor interpreter.
#include "compiler/Pipeline.h"
#include "compiler/RecordText.h"
#include "compiler/StageRecorder.h"
#include "compiler/interp/TensorInterpreter.h"
#include "compiler/interp/TileInterpreter.h"
#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/PtoParser.h"
#include "compiler/ir/PtoPrinter.h"
#include "compiler/ir/PtoSyncCheck.h"
#include "tests/support/Process.h"
#include "tests/support/ProvenanceQuery.h"
#include "tests/support/ReadFile.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

namespace pto {
namespace {

std::string samplePath(const std::string& name) {
    return fmt::format("{}/samples/{}.pto", PTO_SOURCE_DIR, name);
}

using test::readFile;

CompileState compileSample(const std::string& name, StageObserver* observer = nullptr) {
    CompileState state = loadProgram(samplePath(name));
    PassManager pm(state, CompileOptions{});
    if (observer) pm.addObserver(observer);
    pm.start();
    EXPECT_TRUE(lowerToPto(pm));
    return state;
}

std::vector<TensorData> randomInputs(const Function& f, uint64_t seed) {
    std::vector<TensorData> inputs;
    for (ValueId a : f.args) {
        const Type& t = f.type(a);
        inputs.push_back(randomTensor(t.dtype, t.shape, seed++));
    }
    return inputs;
}

// |got − want| ≤ atol + rtol·|want| for every element; returns a description of the worst one
// when any fails.
std::string compare(const TensorData& got, const TensorData& want, double rtol, double atol) {
    if (got.shape != want.shape || got.dtype != want.dtype)
        return fmt::format("type {} vs {}", typeString(got), typeString(want));
    int64_t bad = 0, worst = -1;
    double worstExcess = 0;
    for (int64_t i = 0; i < got.numel(); ++i) {
        double g = got.get(i), w = want.get(i);
        double excess = std::fabs(g - w) - (atol + rtol * std::fabs(w));
        if (excess > 0 || std::isnan(g) != std::isnan(w)) {
            ++bad;
            if (worst < 0 || excess > worstExcess) worst = i, worstExcess = excess;
        }
    }
    if (!bad) return {};
    return fmt::format("{} of {} elements out of tolerance; worst at {}: got {} want {}", bad,
                       got.numel(), worst, got.get(worst), want.get(worst));
}

class SampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleTest, TensorTextRoundTrips) {
    std::string path = samplePath(GetParam());
    std::string printed = printModule(parseModule(readFile(path), path));
    EXPECT_EQ(printModule(parseModule(printed, path)), printed);
}

TEST_P(SampleTest, TileTextAndPtoListingRoundTrip) {
    CompileState s = compileSample(GetParam());
    std::string tile = printFunction(s.tileFunction());
    EXPECT_EQ(printFunction(parseFunctionText(tile, "tile")), tile);
    std::string listing = printPtoProgram(s.pto);
    EXPECT_EQ(printPtoProgram(parsePtoProgram(listing, "listing")), listing);
}

// Big programs keep only the last stage of each level in full; provenance must still lead
// every instruction to its source line (parents are composed across the skipped stages).
// "last_stages" (limits.fullStageNodes = 0, --record levels) makes every sample behave like a
// big one; "final_stages" (--record final) leaves the other stages out altogether.
RecordLimits limitsFor(const std::string& mode) {
    RecordLimits limits;
    if (mode != "all_stages") limits.fullStageNodes = 0;
    limits.finalStagesOnly = mode == "final_stages";
    return limits;
}

class SampleProvenanceTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
};

TEST_P(SampleProvenanceTest, EveryInstructionReachesATensorOpAndSourceLine) {
    auto [sample, mode] = GetParam();
    test::TempDir dir;
    auto db = dir / "trace.db";
    {
        auto writer = tracedb::TraceWriter::create(db);
        StageRecorder recorder(writer, TargetInfo{}, limitsFor(mode));
        compileSample(sample, &recorder);
        writer.commit();
    }
    auto reader = tracedb::TraceReader::open(db);
    auto instrs = reader.query("SELECT count(*) FROM instr");
    ASSERT_GT(std::get<int64_t>(instrs.rows[0][0]), 0);
    auto orphans = reader.query(test::kOrphanInstrsQuery);
    EXPECT_EQ(std::get<int64_t>(orphans.rows[0][0]), 0);
    auto levels = reader.query("SELECT count(DISTINCT level) FROM stage");
    EXPECT_EQ(std::get<int64_t>(levels.rows[0][0]), 5);
}

// A stage bigger than the recorder's 16 k-row chunks (a 2048³ GEMM: ~10⁵ instructions and
// tile ops) is recorded whole: every instruction of every kernel, in order, with its id, and
// every node and edge of the last Tile stage, against the compiled program in memory.
TEST(StageRecorderTest, StagesLargerThanAChunkAreRecordedWhole) {
    test::TempDir dir;
    auto db = dir / "trace.db";
    CompileState s = loadProgramText(R"(func @gemm(%a: tensor<2048x2048xf16>,
    %b: tensor<2048x2048xf16>) -> tensor<2048x2048xf32> {
  cube_tile [128, 128], [64, 128], [128, 128]
  %c = matmul %a, %b
  return %c
}
)",
                                     "gemm_2048.pto");
    int64_t tileStage = -1;
    {
        auto writer = tracedb::TraceWriter::create(db);
        StageRecorder recorder(writer, TargetInfo{});
        PassManager pm(s, CompileOptions{});
        pm.addObserver(&recorder);
        pm.start();
        ASSERT_TRUE(lowerToPto(pm));
        tileStage = recorder.lastTileStage();
        writer.commit();
    }
    auto reader = tracedb::TraceReader::open(db);
    auto count = [&](const std::string& sql) {
        return std::get<int64_t>(reader.query(sql).rows.at(0).at(0));
    };
    std::string opcodes;
    int64_t instrs = 0;
    for (const Kernel& k : s.pto.kernels) {
        instrs += int64_t(k.instrs.size());
        for (const Instr& in : k.instrs) opcodes += fmt::format("{},", opcodeName(in.opcode));
    }
    ASSERT_GT(instrs, 3 * 16384);
    EXPECT_EQ(count("SELECT count(*) FROM instr"), instrs);
    EXPECT_EQ(count("SELECT max(id) FROM instr"), instrs);
    EXPECT_EQ(count("SELECT count(*) FROM (SELECT block_id FROM instr GROUP BY block_id "
                    "HAVING max(idx) + 1 != count(*))"),
              0);
    std::string recorded;
    reader.query("SELECT opcode FROM instr ORDER BY id", [&](auto, auto row) {
        recorded += std::get<std::string>(row[0]) + ",";
        return true;
    });
    EXPECT_EQ(recorded, opcodes);

    const Function& f = s.tileFunction();
    ASSERT_GT(f.ops().size(), size_t(16384));
    int64_t edges = int64_t(f.results.size());
    for (const Op& op : f.ops()) edges += int64_t(op.operands.size());
    EXPECT_EQ(count(fmt::format("SELECT count(*) FROM node WHERE stage_id = {}", tileStage)),
              int64_t(f.ops().size() + f.args.size() + 1));
    EXPECT_EQ(count(fmt::format("SELECT count(*) FROM edge WHERE stage_id = {}", tileStage)),
              edges);
}

// Every row of a table, in insertion order (rowid) or, for WITHOUT ROWID tables, key order.
std::string tableText(const std::filesystem::path& db, const std::string& sql) {
    auto reader = tracedb::TraceReader::open(db);
    std::string text;
    reader.query(sql, [&](auto, std::span<const tracedb::SqlValue> row) {
        for (const tracedb::SqlValue& v : row)
            text += std::visit(
                        [](const auto& x) -> std::string {
                            using T = std::decay_t<decltype(x)>;
                            if constexpr (std::is_same_v<T, std::monostate>)
                                return "NULL";
                            else if constexpr (std::is_same_v<T, tracedb::BlobSize>)
                                return fmt::format("<{}-byte blob>", x.bytes);
                            else
                                return fmt::format("{}", x);
                        },
                        v) +
                    "|";
        text += "\n";
        return true;
    });
    return text;
}

// --record all and final, recorded on the recorder's writer thread (as pto compile and pto run
// do) and on the caller's thread, from the same compile: every table holds the same rows with
// the same ids, inserted in the same order.
class ThreadedRecordingTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ThreadedRecordingTest, EqualsTheSynchronousOne) {
    auto [sample, mode] = GetParam();
    test::TempDir dir;
    const auto syncDb = dir / "sync.db", threadedDb = dir / "threaded.db";
    {
        auto syncWriter = tracedb::TraceWriter::create(syncDb);
        auto threadedWriter = tracedb::TraceWriter::create(threadedDb);
        StageRecorder sync(syncWriter, TargetInfo{}, limitsFor(mode), RecordThread::Caller);
        StageRecorder threaded(threadedWriter, TargetInfo{}, limitsFor(mode), RecordThread::Writer);
        CompileState state = loadProgram(samplePath(sample));
        PassManager pm(state, CompileOptions{});
        pm.addObserver(&sync);
        pm.addObserver(&threaded);
        pm.start();
        ASSERT_TRUE(lowerToPto(pm));
        EXPECT_EQ(threaded.lastTileStage(), sync.lastTileStage());
        sync.stagesDone();
        threaded.stagesDone(); // the dict texts inserted on the writer thread
        threaded.finish();
        syncWriter.commit();
        threadedWriter.commit();
    }
    int64_t rows = 0;
    for (const char* sql : {"SELECT * FROM stage ORDER BY rowid", "SELECT * FROM node",
                            "SELECT * FROM edge ORDER BY "
                            "rowid",
                            "SELECT * FROM buffer", "SELECT * FROM instr ORDER BY id",
                            "SELECT * FROM stats ORDER BY rowid", "SELECT * FROM provenance",
                            "SELECT * FROM dict ORDER BY id"}) {
        const std::string want = tableText(syncDb, sql);
        EXPECT_EQ(tableText(threadedDb, sql), want) << sql;
        rows += int64_t(std::count(want.begin(), want.end(), '\n'));
    }
    EXPECT_GT(rows, 100);
}

// attention: 57 k instructions and 55 k buffer rows, several chunks and a full queue.
INSTANTIATE_TEST_SUITE_P(Samples, ThreadedRecordingTest,
                         ::testing::Values(std::tuple("softmax", "all_stages"),
                                           std::tuple("softmax", "final_stages"),
                                           std::tuple("attention", "all_stages")),
                         [](const auto& p) {
                             return std::get<0>(p.param) + "_" + std::get<1>(p.param);
                         });

// The compiler creates the indexes of node_data, edge and instr_data before their first row and
// SQLite keeps them while the rows go in (docs/TRACE_SCHEMA.md, "Indexes"): they must agree with
// their tables, and the readers' lookups of a stage's edges, a node's children and a tile op's
// instructions must be served by them, not by scanning the table.
// Compiles `state` recording every stage into `db` on a writer thread (`also` watching too);
// the id of the last Tile stage recorded.
int64_t recordCompile(CompileState& state, const std::filesystem::path& db,
                      StageObserver* also = nullptr) {
    auto writer = tracedb::TraceWriter::create(db);
    StageRecorder recorder(writer, TargetInfo{}, {}, RecordThread::Writer);
    PassManager pm(state, CompileOptions{});
    pm.addObserver(&recorder);
    if (also) pm.addObserver(also);
    pm.start();
    EXPECT_TRUE(lowerToPto(pm));
    recorder.finish();
    writer.commit();
    return recorder.lastTileStage();
}

TEST(StageRecorderTest, IndexesKeptWhileInsertingServeTheReadersLookups) {
    test::TempDir dir;
    const auto db = dir / "trace.db";
    CompileState state = loadProgram(samplePath("attention"));
    const int64_t tileStage = recordCompile(state, db);
    auto reader = tracedb::TraceReader::open(db);
    EXPECT_EQ(tableText(db, "PRAGMA integrity_check"), "ok|\n");
    EXPECT_EQ(tableText(db,
                        "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN "
                        "('node_data', 'edge', 'instr_data') AND sql IS NOT NULL ORDER BY name"),
              "edge_dst|\nedge_src|\ninstr_block|\ninstr_tile_op|\nnode_parent|\n");
    auto plan = [&](const std::string& sql) { return tableText(db, "EXPLAIN QUERY PLAN " + sql); };
    const std::string stage = std::to_string(tileStage);
    EXPECT_NE(
        plan("SELECT src, dst, label FROM edge WHERE stage_id = " + stage).find("INDEX edge_dst "),
        std::string::npos);
    // The tile-layout query of `pto diff` and the heat map: the edges leaving one GM tensor.
    EXPECT_NE(plan("SELECT dst FROM edge WHERE stage_id = " + stage + " AND src = 0")
                  .find("INDEX edge_src "),
              std::string::npos);
    EXPECT_NE(plan("SELECT id FROM node WHERE stage_id = " + stage + " AND parent_id = 1")
                  .find("INDEX node_parent "),
              std::string::npos);
    EXPECT_NE(plan("SELECT id FROM instr WHERE tile_stage_id = " + stage + " AND tile_op_id = 7")
                  .find("INDEX instr_tile_op "),
              std::string::npos);
    EXPECT_NE(plan("SELECT idx FROM instr WHERE stage_id = 1 AND block_id = 0 ORDER BY idx")
                  .find("INDEX instr_block "),
              std::string::npos);
    EXPECT_GT(
        std::get<int64_t>(
            reader.query("SELECT count(*) FROM edge WHERE stage_id = " + stage).rows.at(0).at(0)),
        int64_t{1000});
}

// The recorder formats each distinct operand list and attrs object once, found by the value
// it is printed from (compiler/RecordText.h): every row must still read the text its own
// instruction and op print. int8_gemm and decode_attention have counted loops (operands with
// address steps); attention 57 k instructions.
class RecordedTextTest : public ::testing::TestWithParam<std::string> {};

// Keeps a copy of the function of the last Tile stage (the Block passes change it later).
struct LastTileStage : StageObserver {
    void onStage(const StageEvent& event) override {
        if (event.kind == StageKind::Tile) tile = event.state.tile;
    }
    Function tile;
};

TEST_P(RecordedTextTest, EveryRowReadsTheTextItsOwnInstructionAndOpPrint) {
    test::TempDir dir;
    const auto db = dir / "t.db";
    CompileState state = loadProgram(samplePath(GetParam()));
    LastTileStage lastTile;
    const int64_t tileStage = recordCompile(state, db, &lastTile);
    auto reader = tracedb::TraceReader::open(db);
    const std::vector<tracedb::InstrRow> rows = reader.instrs();
    size_t next = 0, looped = 0;
    for (const Kernel& k : state.pto.kernels) {
        for (size_t i = 0; i < k.instrs.size(); ++i, ++next) {
            ASSERT_LT(next, rows.size());
            std::array<int64_t, 4> steps{};
            int eventStep = 0;
            for (const InstrLoop& l : k.loops)
                if (l.begin <= i && i < l.end) {
                    steps = l.steps[i - l.begin];
                    eventStep = l.eventStep(i - l.begin);
                    ++looped;
                }
            ASSERT_EQ(rows[next].operands, printPtoOperands(k.instrs[i], steps, eventStep))
                << k.name << " #" << i;
            ASSERT_EQ(rows[next].opcode, opcodeName(k.instrs[i].opcode));
        }
    }
    EXPECT_EQ(next, rows.size());
    if (GetParam() != "attention") {
        EXPECT_GT(looped, 0U);
    }
    size_t ops = 0;
    const Function& tile = lastTile.tile;
    for (const tracedb::NodeRow& n : reader.nodes(tileStage)) {
        if (n.id < 0) continue; // arguments and the return
        const Op& op = tile.op(OpId(n.id));
        ASSERT_EQ(n.attrs, attrsJson(tile, op)) << n.name;
        ASSERT_EQ(n.kind, opName(op.kind)) << n.name;
        ++ops;
    }
    EXPECT_EQ(ops, tile.ops().size());
}

INSTANTIATE_TEST_SUITE_P(Samples, RecordedTextTest,
                         ::testing::Values("int8_gemm", "decode_attention", "attention"));

TEST_P(SampleTest, TensorInterpreterMatchesNumPy) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "/usr/bin/python3 with numpy is needed";
    CompileState s = loadProgram(samplePath(GetParam()));
    auto inputs = randomInputs(s.tensor, 7);
    TensorData got = evaluateTensor(s.tensor, inputs).outputs.at(0);

    test::TempDir dir;
    std::string cmd =
        fmt::format("/usr/bin/python3 {}/tests/integration/compile/samples_reference.py "
                    "{} {}",
                    PTO_SOURCE_DIR, GetParam(), test::shellQuote((dir / "out.npy").string()));
    for (size_t i = 0; i < inputs.size(); ++i) {
        auto p = dir / fmt::format("in{}.npy", i);
        writeTensor(p, inputs[i]);
        cmd += " " + test::shellQuote(p.string());
    }
    auto r = test::runCommand(cmd);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    TensorData want = readTensor(dir / "out.npy");
    // f16 outputs: torch.testing's f16 tolerance (rtol 1e-3) plus one f16 ulp (2^-10
    // relative), since NumPy's f32/f64 transcendental functions may round differently by one
    // ulp before the final f16 rounding. f32 matmul: the reference accumulates in f64, ours in
    // f32 over k = 256 terms of magnitude ~1: allow 1e-5 relative and 1e-4 absolute.
    double rtol = want.dtype == DType::F16 ? 1e-3 + 9.8e-4 : 1e-5;
    double atol = want.dtype == DType::F16 ? 1e-5 : 1e-4;
    EXPECT_EQ(compare(got, want, rtol, atol), "");
}

TEST_P(SampleTest, TileInterpreterMatchesTensorInterpreter) {
    CompileState s = compileSample(GetParam());
    CompileState written = loadProgram(samplePath(GetParam()));
    auto inputs = randomInputs(written.tensor, 11);
    TensorData ref = evaluateTensor(written.tensor, inputs).outputs.at(0);
    TensorData tile = evaluateTile(s.tileFunction(), inputs).outputs.at(0);
    // Decomposed composites (gelu, rms_norm) round every intermediate; allow two f16 ulps.
    double rtol = ref.dtype == DType::F16 ? 2e-3 : 1e-6;
    EXPECT_EQ(compare(tile, ref, rtol, 1e-5), "");
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleTest,
                         ::testing::Values("matmul", "softmax", "rms_norm", "gelu"));

// The DeepSeek samples (issue 16): their Tensor and Tile texts and PTO listings round trip with
// the indexing instructions in them (MGATHER, MSCATTER, TTOPK, TCUMSUM: parse(print(x)) prints
// the same), and every instruction's provenance reaches a Tensor op and its source line.
struct IndexingSample {
    std::string name;
    std::vector<std::string> opcodes; // the indexing instructions its listing must hold
};

class IndexingSampleTest : public ::testing::TestWithParam<IndexingSample> {};

TEST_P(IndexingSampleTest, TextsAndListingRoundTripWithTheIndexingInstructions) {
    const IndexingSample& c = GetParam();
    const std::string path = samplePath(c.name);
    const std::string printed = printModule(parseModule(readFile(path), path));
    EXPECT_EQ(printModule(parseModule(printed, path)), printed);
    CompileState s = compileSample(c.name);
    const std::string tile = printFunction(s.tileFunction());
    EXPECT_EQ(printFunction(parseFunctionText(tile, "tile")), tile);
    const std::string listing = printPtoProgram(s.pto);
    EXPECT_EQ(printPtoProgram(parsePtoProgram(listing, "listing")), listing);
    for (const std::string& op : c.opcodes)
        EXPECT_NE(listing.find(op + " "), std::string::npos) << c.name << " has no " << op;
}

TEST_P(IndexingSampleTest, EveryInstructionReachesATensorOpAndSourceLine) {
    test::TempDir dir;
    auto db = dir / "trace.db";
    {
        auto writer = tracedb::TraceWriter::create(db);
        StageRecorder recorder(writer, TargetInfo{}, RecordLimits{});
        compileSample(GetParam().name, &recorder);
        writer.commit();
    }
    auto reader = tracedb::TraceReader::open(db);
    EXPECT_EQ(std::get<int64_t>(reader.query(test::kOrphanInstrsQuery).rows[0][0]), 0);
}

INSTANTIATE_TEST_SUITE_P(
    DeepSeek, IndexingSampleTest,
    ::testing::Values(
        IndexingSample{"moe_dispatch_combine", {"MGATHER", "MSCATTER", "TTOPK", "TCUMSUM"}},
        IndexingSample{"moe_gating", {"TTOPK"}}, IndexingSample{"lightning_indexer", {"TTOPK"}},
        IndexingSample{"sparse_flash_attention", {"MGATHER"}}, IndexingSample{"mla_prolog", {}}),
    [](const auto& p) { return p.param.name; });

// Every sample compiled as `pto run` compiles it passes the static sync check: flags and
// barriers order every cross-pipe hazard on chip (they all run hazard-free in the simulator).
// flash_attention_long (80 s to compile; it passes: docs/PERFORMANCE.md) is left out.
TEST(SampleSync, EveryCompiledSamplePassesTheSyncCheck) {
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(PTO_SOURCE_DIR "/samples")) {
        const std::string name = entry.path().stem().string();
        if (entry.path().extension() != ".pto" || name == "flash_attention_long") continue;
        SCOPED_TRACE(name);
        CompileState state = loadProgram(entry.path().string());
        compileProgram(state, CompileOptions{});
        ASSERT_EQ(state.kind, StageKind::Pto);
        const std::optional<SyncProblem> problem = checkPtoSync(state.pto, state.file);
        EXPECT_FALSE(problem) << problem->message;
        ++checked;
    }
    EXPECT_GE(checked, 20);
}

INSTANTIATE_TEST_SUITE_P(
    Samples, SampleProvenanceTest,
    ::testing::Combine(::testing::Values("matmul", "softmax", "rms_norm", "gelu"),
                       ::testing::Values("all_stages", "last_stages", "final_stages")),
    [](const auto& p) { return std::get<0>(p.param) + "_" + std::get<1>(p.param); });

} // namespace
} // namespace pto
