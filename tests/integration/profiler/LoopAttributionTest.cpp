// Programs with loops as the user reads their profile: an op of a loop's body has a row of its
// own in `pto report` and the metrics (the parsed program records a loop as its `for` only, and
// every cycle of flash_attention_loop went to "16 for"), the loop's row is the total of its
// body; a round of a counted loop the compiler made says which round it is; and the Chrome JSON
// and CSV exports tie each instruction slice to its source line, op and loop iteration.
#include "profiler/Profile.h"
#include "profiler/report/Report.h"
#include "tests/integration/profiler/ProfilerTraces.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>

namespace pto {
namespace {

namespace fs = std::filesystem;
using test::pto;
using test::runCommand;
using test::shellQuote;

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string sample(const std::string& name) {
    return readFile(fs::path(PTO_SOURCE_DIR) / "samples" / (name + ".pto"));
}

// Traces made once for the suite: the samples with a loop, and a program without one.
class LoopAttribution : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = new test::TempDir("pto-loop-attribution");
        for (const char* name : {"flash_attention_loop", "decode_attention"})
            test::makeTrace(s_dir->path(), name, {.program = sample(name)});
        test::makeTrace(s_dir->path(), "stream",
                        {.program = test::streamingProgram(), .tilesPerTask = 8});
    }
    static void TearDownTestSuite() {
        delete s_dir;
        s_dir = nullptr;
    }
    static fs::path trace(const std::string& name) { return *s_dir / (name + ".db"); }

    // The attributed op of the profile at `line` of kind `kind` (-1 when none).
    static int opAt(const prof::Profile& p, std::int64_t line, std::string_view kind) {
        for (const prof::OpShare& s : p.attribution.ops) {
            const prof::TensorOpCost& op = p.model.tensorOps[s.op];
            if (op.srcLine == line && op.kind == kind) return int(s.op);
        }
        return -1;
    }

    static test::TempDir* s_dir;
};

test::TempDir* LoopAttribution::s_dir = nullptr;

TEST_F(LoopAttribution, FlashAttentionLoopNamesTheBodysMatmulsNotTheLoop) {
    const prof::Profile p = prof::analyzeTrace(trace("flash_attention_loop"));
    // The top ops are the body's, each naming its loop; the loop is no op of its own.
    ASSERT_GE(p.attribution.ops.size(), 10u);
    std::set<std::int64_t> topLines;
    for (std::size_t i = 0; i < 5; ++i) {
        const prof::TensorOpCost& op = p.model.tensorOps[p.attribution.ops[i].op];
        EXPECT_NE(op.kind, "for");
        EXPECT_EQ(op.loopName, "kv") << op.kind << " " << op.name;
        topLines.insert(op.srcLine);
    }
    EXPECT_TRUE(topLines.contains(22)) << "the matmul q·kᵀ at line 22 is among the top 5";
    const int qk = opAt(p, 22, "matmul");
    ASSERT_GE(qk, 0);
    EXPECT_EQ(p.model.tensorOps[std::size_t(qk)].name, "%qk");
    EXPECT_GE(opAt(p, 28, "matmul"), 0); // P·V
    EXPECT_GE(opAt(p, 26, "exp"), 0);
    // Every body op's cycles are those of its source line (one op on line 22: all of them;
    // line 28 holds the cast and the matmul), as the per-line split stored them.
    std::map<std::int64_t, std::int64_t> byLine;
    for (const prof::OpShare& s : p.attribution.ops)
        byLine[p.model.tensorOps[s.op].srcLine] += s.cycles;
    for (std::int64_t line = 22; line <= 33; ++line) {
        if (p.model.lineCycles.contains(line)) {
            EXPECT_EQ(byLine[line], p.model.lineCycles.at(line)) << "line " << line;
        }
    }
    // The loop is a group: its total is its body's, and the shares of the ops add up to 1.
    ASSERT_EQ(p.attribution.loops.size(), 1u);
    const prof::OpShare& loop = p.attribution.loops[0];
    const prof::TensorOpCost& forOp = p.model.tensorOps[loop.op];
    EXPECT_EQ(forOp.kind, "for");
    EXPECT_EQ(forOp.srcLine, 16);
    EXPECT_EQ(forOp.iterations, 4);
    std::int64_t body = 0;
    double shares = 0;
    for (const prof::OpShare& s : p.attribution.ops) {
        if (p.model.tensorOps[s.op].loop == int(loop.op)) body += s.cycles;
        shares += s.share;
    }
    EXPECT_EQ(loop.cycles, body);
    EXPECT_GT(loop.share, 0.9); // the loop still holds most of the run
    EXPECT_NEAR(shares, 1.0, 1e-9);
    EXPECT_EQ(p.attribution.unattributed, 0);
}

TEST_F(LoopAttribution, TheReportListsBodyOpsThenTheLoopsTotal) {
    const fs::path db = trace("flash_attention_loop");
    const auto text = runCommand(pto("report --no-store --exit-zero " + shellQuote(db.string())));
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_TRUE(std::regex_search(text.out, std::regex(R"(\n\s+22  matmul %qk in kv\s+[0-9]+ )")))
        << text.out;
    EXPECT_EQ(text.out.find("  for  "), std::string::npos) << text.out;
    EXPECT_TRUE(std::regex_search(
        text.out,
        std::regex(R"(\nloops \(.*\n.*\n\s+16  for "kv", 4 iterations\s+[0-9]+\s+9[0-9]\.[0-9]%)")))
        << text.out;
    const auto json =
        runCommand(pto("report --format json --no-store --exit-zero " + shellQuote(db.string())));
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    bool qk = false;
    for (const auto& op : j["top_ops"])
        if (op["line"] == 22) {
            qk = true;
            EXPECT_EQ(op["op"], "matmul");
            EXPECT_EQ(op["loop"], "kv");
            EXPECT_EQ(op["loop_line"], 16);
        }
    EXPECT_TRUE(qk) << j["top_ops"].dump();
    ASSERT_EQ(j["loops"].size(), 1u);
    EXPECT_EQ(j["loops"][0]["line"], 16);
    EXPECT_EQ(j["loops"][0]["iterations"], 4);
}

TEST_F(LoopAttribution, DecodeAttentionNamesItsMatmulsNotTheLoop) {
    const prof::Profile p = prof::analyzeTrace(trace("decode_attention"));
    // Before, 99.9 % of the cycles were "12 for".
    ASSERT_FALSE(p.attribution.ops.empty());
    const prof::TensorOpCost& top = p.model.tensorOps[p.attribution.ops[0].op];
    EXPECT_EQ(top.kind, "matmul");
    EXPECT_TRUE(top.srcLine == 16 || top.srcLine == 22) << top.srcLine;
    ASSERT_EQ(p.attribution.loops.size(), 1u);
    EXPECT_EQ(p.model.tensorOps[p.attribution.loops[0].op].srcLine, 12);
    EXPECT_EQ(p.model.tensorOps[p.attribution.loops[0].op].iterations, 128);
}

TEST_F(LoopAttribution, BodyOpsAreStoredAsLoopOpMetrics) {
    test::TempDir dir("pto-loop-metrics");
    const fs::path db = dir / "fal.db";
    fs::copy_file(trace("flash_attention_loop"), db);
    const prof::Profile p = prof::analyzeTrace(db);
    prof::storeProfile(db, p);
    auto reader = tracedb::TraceReader::open(db);
    auto ints = [&](const std::string& sql) {
        std::set<std::int64_t> out;
        for (const auto& row : reader.query(sql).rows) {
            const auto* real = std::get_if<double>(&row[0]);
            out.insert(real ? std::int64_t(*real) : std::get<std::int64_t>(row[0]));
        }
        return out;
    };
    const auto lines = ints("SELECT value FROM metric WHERE analysis = 'attribution' AND "
                            "entity = 'loop_op' AND key = 'src_line'");
    EXPECT_TRUE(lines.contains(22) && lines.contains(28)) << lines.size();
    // The loop's tensor_op row keeps the total it always had; each body op names its loop.
    ASSERT_EQ(p.attribution.loops.size(), 1u);
    const std::int64_t forId = p.model.tensorOps[p.attribution.loops[0].op].id;
    const auto total = ints(fmt::format("SELECT value FROM metric WHERE analysis = "
                                        "'attribution' AND entity = 'tensor_op' AND entity_id = "
                                        "{} AND key = 'cycles'",
                                        forId));
    ASSERT_EQ(total.size(), 1u);
    EXPECT_EQ(*total.begin(), p.attribution.loops[0].cycles);
    EXPECT_EQ(ints("SELECT DISTINCT value FROM metric WHERE entity = 'loop_op' AND key = 'loop'"),
              (std::set<std::int64_t>{forId}));
    // Roofline and bound class per body op too.
    EXPECT_FALSE(ints("SELECT entity_id FROM metric WHERE analysis = 'roofline' AND entity = "
                      "'loop_op' AND key = 'cycles'")
                     .empty());
}

TEST_F(LoopAttribution, AProgramWithoutLoopsHasNoLoopRows) {
    const fs::path db = trace("stream");
    const auto json =
        runCommand(pto("report --format json --no-store --exit-zero " + shellQuote(db.string())));
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_FALSE(j.contains("loops"));
    for (const auto& op : j["top_ops"]) EXPECT_FALSE(op.contains("loop")) << op.dump();
    const auto text = runCommand(pto("report --no-store --exit-zero " + shellQuote(db.string())));
    EXPECT_EQ(text.out.find("\nloops"), std::string::npos) << text.out;
}

// The `tiles` loop's iterations are ranks of tile corners among every value's corners (tile
// [0,16,0] of %m is rank 5 in flash_attention_loop); its rounds are named by round instead, 1 to
// the count, in the order each task ran them.
TEST_F(LoopAttribution, ATilesLoopsRoundsCountFromOneToTheLoopsCount) {
    auto reader = tracedb::TraceReader::open(trace("flash_attention_loop"));
    const auto rows = reader
                          .query("SELECT s.instr_id, s.task_id, a.string_value FROM slice s JOIN "
                                 "args a ON a.arg_set_id = s.arg_set_id AND a.key = 'loop' "
                                 "WHERE a.string_value LIKE 'tiles, %' ORDER BY s.ts, s.id")
                          .rows;
    ASSERT_FALSE(rows.empty());
    const std::regex round(R"(tiles, round ([0-9]+) of ([0-9]+))");
    // Per instruction (and its loop's count): the rounds its slices ran.
    std::map<std::pair<std::int64_t, std::string>, std::vector<int>> seen;
    for (const auto& row : rows) {
        const std::string label = std::get<std::string>(row[2]);
        std::smatch m;
        ASSERT_TRUE(std::regex_match(label, m, round)) << label;
        const int r = std::stoi(m[1]), count = std::stoi(m[2]);
        EXPECT_GE(r, 1);
        EXPECT_LE(r, count);
        seen[{std::get<std::int64_t>(row[0]), label.substr(label.find(" of "))}].push_back(r);
    }
    for (const auto& [key, rounds] : seen) {
        // Each task that runs the kernel runs every round once.
        const int count = std::stoi(key.second.substr(4));
        ASSERT_EQ(rounds.size() % std::size_t(count), 0u);
        std::multiset<int> all(rounds.begin(), rounds.end());
        for (int r = 1; r <= count; ++r)
            EXPECT_EQ(all.count(r), rounds.size() / std::size_t(count)) << "round " << r;
    }
}

// The exports carry what ties a slice to the program, per instruction: src (file:line),
// tensor_op, tile_op, and the iteration of the user's loop (src_loop).
TEST_F(LoopAttribution, ChromeAndCsvSlicesNameTheirSourceLineOpAndLoopIteration) {
    test::TempDir dir("pto-loop-export");
    const fs::path db = trace("flash_attention_loop");
    const fs::path chrome = dir / "fal.json", csv = dir / "fal.csv";
    for (const auto& [format, out] : {std::pair{"chrome", chrome}, std::pair{"csv", csv}}) {
        const auto r =
            runCommand(pto(fmt::format("export {} --format {} -o {}", shellQuote(db.string()),
                                       format, shellQuote(out.string()))));
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    const auto j = nlohmann::json::parse(readFile(chrome));
    std::int64_t instrSlices = 0, withSource = 0, matmulQk = 0;
    std::map<std::int64_t, std::string> srcLoopOf; // slice id → src_loop of a tiles round
    for (const auto& e : j["traceEvents"]) {
        if (!e.contains("args") || !e["args"].contains("instr_id")) continue;
        const auto& args = e["args"];
        ++instrSlices;
        if (!args.contains("src")) continue;
        ++withSource;
        EXPECT_TRUE(args["src"].get<std::string>().starts_with("flash_attention_loop.pto:"))
            << args.dump();
        EXPECT_TRUE(args.contains("tile_op") && args.contains("tensor_op")) << args.dump();
        if (args["tensor_op"] == "matmul %qk") {
            ++matmulQk;
            EXPECT_EQ(args["src"], "flash_attention_loop.pto:22");
            ASSERT_TRUE(args.contains("src_loop")) << args.dump();
            EXPECT_TRUE(
                std::regex_match(args["src_loop"].get<std::string>(), std::regex("kv, iter [0-3]")))
                << args.dump();
        }
        if (args.contains("loop") && args["loop"].get<std::string>().starts_with("tiles, "))
            srcLoopOf[args["slice_id"].get<std::int64_t>()] = args.value("src_loop", std::string());
    }
    EXPECT_GT(matmulQk, 0);
    EXPECT_EQ(withSource, instrSlices); // every instruction of a compiled program has a line
    // A compiler-made round keeps the source loop's iteration of its instruction's op.
    ASSERT_FALSE(srcLoopOf.empty());
    for (const auto& [slice, srcLoop] : srcLoopOf)
        EXPECT_TRUE(srcLoop.empty() || srcLoop.starts_with("kv, iter "))
            << slice << ": " << srcLoop;

    // CSV: the columns before stay where they were; the four new ones follow.
    std::ifstream in(csv);
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header, "id,ts,dur,ts_us,dur_us,track_id,track,core_type,core_id,pipe,name,"
                      "category,depth,instr_id,task_id,src,tensor_op,tile_op,src_loop");
    std::int64_t rows = 0, qkRows = 0;
    for (std::string line; std::getline(in, line); ++rows)
        if (line.find(",flash_attention_loop.pto:22,matmul %qk,") != std::string::npos) {
            ++qkRows;
            EXPECT_TRUE(std::regex_search(line, std::regex(",\"kv, iter [0-3]\"$"))) << line;
        }
    EXPECT_EQ(qkRows, matmulQk);
    EXPECT_GT(rows, instrSlices);
}

// A counted loop of the program (emit-pto folded the online-softmax chain's iterations 2..17 of
// loop_attention_24): one instruction serves every round, so a slice's src_loop is its own
// round's iteration (its `loop` arg), not the instruction's op's (round 0's).
TEST(LoopExport, ARoundOfAProgramLoopNamesItsOwnIteration) {
    test::TempDir dir("pto-loop-export-rounds");
    const auto db = dir / "la.db";
    const std::string program =
        (fs::path(PTO_SOURCE_DIR) / "tests/integration/run/programs/loop_attention_24.pto")
            .string();
    ASSERT_EQ(runCommand(pto(fmt::format("run {} --trace instructions -o {}", shellQuote(program),
                                         shellQuote(db.string()))))
                  .exitCode,
              0);
    const auto out = dir / "la.json";
    ASSERT_EQ(runCommand(pto(fmt::format("export {} --format chrome -o {}", shellQuote(db.string()),
                                         shellQuote(out.string()))))
                  .exitCode,
              0);
    const auto j = nlohmann::json::parse(readFile(out));
    std::int64_t rounds = 0;
    for (const auto& e : j["traceEvents"]) {
        if (!e.contains("args") || !e["args"].contains("loop")) continue;
        const auto& args = e["args"];
        if (!args["loop"].get<std::string>().starts_with("kv, iter ")) continue;
        ++rounds;
        EXPECT_EQ(args.value("src_loop", std::string()), args["loop"]) << args.dump();
    }
    EXPECT_GT(rounds, 0);
}

} // namespace
} // namespace pto
