// gather end to end (issue 16): the simulated outputs equal the Tile interpreter and the Tensor
// interpreter bit for bit; an out-of-range index is a fault naming core, instruction, tile op,
// source line and the index, and `pto run` keeps the trace up to it; the gather DMA's cost.
#include "compiler/interp/TensorInterpreter.h"
#include "compiler/interp/TileInterpreter.h"
#include "driver/Session.h"
#include "tests/support/Process.h"
#include "tests/support/QuietRun.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

namespace pto {
namespace {

std::string program() {
    return test::runProgramPath("gather_rows.pto");
}

RunResult run(std::vector<std::string> inputFiles = {}) {
    return test::runQuietly("gather_rows.pto", 4, std::move(inputFiles));
}

TEST(GatherRun, SimulatorEqualsBothInterpretersBitForBit) {
    RunResult r = run();
    ASSERT_EQ(r.faultMessage, "");
    // The seeded index (role "index") stays inside the table's 64 rows.
    for (int64_t i = 0; i < r.inputs[1].numel(); ++i) {
        EXPECT_GE(r.inputs[1].get(i), 0);
        EXPECT_LT(r.inputs[1].get(i), 64);
    }
    const TensorData& sim = r.sim.outputs.at(0).second;
    EXPECT_EQ(sim, evaluateTile(r.state.tileFunction(), r.inputs).outputs.at(0));
    EXPECT_EQ(sim, evaluateTensor(r.state.tensor, r.inputs).outputs.at(0));
    // Each result row is its table row halved (exact in f16 here).
    for (int64_t j = 0; j < 10; ++j) {
        const auto row = int64_t(r.inputs[1].get(j));
        for (int64_t c = 0; c < 600; c += 97)
            EXPECT_EQ(sim.get(j * 600 + c), r.inputs[0].get(row * 600 + c) * 0.5f);
    }
}

// Writes the table and an index with one entry past the table.
std::vector<std::string> badInputs(const test::TempDir& dir) {
    TensorData table = randomTensor(DType::F16, Shape{64, 600}, 1);
    TensorData idx(DType::I32, Shape{2, 5});
    for (int64_t i = 0; i < 10; ++i) idx.set(i, float(i * 6));
    idx.set(7, 64);
    const std::string t = (dir / "table.npy").string(), i = (dir / "idx.npy").string();
    writeTensor(t, table);
    writeTensor(i, idx);
    return {t, i};
}

TEST(GatherRun, OutOfRangeIndexIsAFaultNamingEverything) {
    test::TempDir dir;
    RunResult r = run(badInputs(dir));
    const std::string& m = r.faultMessage;
    // core, pipe, kernel and instruction, cycle, tile op, source line
    EXPECT_TRUE(std::regex_search(m, std::regex(R"(out-of-bounds MGATHER on AIV \d+ pipe MTE2 )"
                                                R"(\(kernel \d+ instr \d+, cycle \d+, from tile )"
                                                R"(op #\d+, \S*gather_rows\.pto:4:11\): )")))
        << m;
    EXPECT_NE(m.find("gather index 64 (element 2 of the index tile) is outside the 64 rows"),
              std::string::npos)
        << m;
    // The user's element: idx[1, 2] (flat 7), not the tile's element 2.
    EXPECT_NE(m.find("; it is element [1, 2] of %idx"), std::string::npos) << m;
}

TEST(GatherRun, CliKeepsTheTraceUpToTheFault) {
    test::TempDir dir;
    const std::vector<std::string> in = badInputs(dir);
    const auto db = dir / "run.db";
    auto r = test::runCommand(fmt::format("{} run {} --inputs {},{} -o {}", PTO_CLI, program(),
                                          in[0], in[1], test::shellQuote(db.string())));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("gather index 64"), std::string::npos) << r.err;
    // The summary says where the run stopped (not a run of 0 cycles).
    std::smatch at;
    ASSERT_TRUE(std::regex_search(r.out, at, std::regex(R"(stopped +by a fault at cycle (\d+))")))
        << r.out;
    EXPECT_NE(r.err.find("cycle " + at[1].str() + ","), std::string::npos) << r.err;
    // The trace holds the slices up to the fault (none after it) and the fault message.
    auto q = test::runCommand(fmt::format(
        "{} query {} \"select (select count(*) from slice) > 0, (select max(ts + dur) from slice) "
        "<= {}, (select count(*) from meta where key = 'sim_fault' and value like "
        "'%MGATHER%')\" --format csv",
        PTO_CLI, test::shellQuote(db.string()), at[1].str()));
    ASSERT_EQ(q.exitCode, 0) << q.err;
    EXPECT_NE(q.out.find("1,1,1"), std::string::npos) << q.out;
}

// `pto run --seed` of a Tile-level gather and tscatter_add: the i32 argument loaded into their
// index tile is drawn as an index of the 37 rows (it was data in [-1000, 1000]: an
// out-of-bounds MGATHER fault), and so is the index of the Tile stage the compiler prints for
// a Tensor-level gather.
TEST(GatherRun, SeededTileLevelIndicesStayInsideTheRows) {
    test::TempDir dir;
    auto r = test::runCommand(fmt::format("{} run {} --seed 1 --record none --outputs {}", PTO_CLI,
                                          test::runProgramPath("tile_gather_scatter.pto"),
                                          test::shellQuote((dir / "o").string())));
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_EQ(r.err.find("out-of-bounds"), std::string::npos) << r.err;
    const auto printed = dir / "printed.pto";
    auto p = test::runCommand(fmt::format("{} compile {} --record none --print-after "
                                          "tile-dead-code --stop-after tile-dead-code",
                                          PTO_CLI, program()));
    ASSERT_EQ(p.exitCode, 0) << p.err;
    const size_t start = p.out.find("func @");
    ASSERT_NE(start, std::string::npos) << p.out;
    std::ofstream(printed) << p.out.substr(start, p.out.find("\n}\n", start) + 3 - start);
    for (int seed : {1, 7}) {
        auto t = test::runCommand(fmt::format("{} run {} --seed {} --record none", PTO_CLI,
                                              test::shellQuote(printed.string()), seed));
        EXPECT_EQ(t.exitCode, 0) << "seed " << seed << ": " << t.out << t.err;
    }
}

// A kernel that only gathers small rows: its MGATHER slices carry rows, bytes and DMA
// efficiency, and `pto report` says it is bound by gather DMA (finding gather_dma).
TEST(GatherRun, ReportNamesAGatherDmaBoundKernel) {
    test::TempDir dir;
    const auto db = dir / "g.db";
    const std::string prog =
        fmt::format("{}/tests/integration/run/programs/gather_dma_bound.pto", PTO_SOURCE_DIR);
    auto r = test::runCommand(
        fmt::format("{} run {} --seed 2 -o {}", PTO_CLI, prog, test::shellQuote(db.string())));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto q = test::runCommand(fmt::format(
        "{} query {} \"select sum(r.int_value), sum(b.int_value), min(e.real_value) from slice s "
        "join args r on r.arg_set_id = s.arg_set_id and r.key = 'rows' join args b on "
        "b.arg_set_id = s.arg_set_id and b.key = 'bytes' join args e on e.arg_set_id = "
        "s.arg_set_id and e.key = 'dma_efficiency'\" --format csv",
        PTO_CLI, test::shellQuote(db.string())));
    ASSERT_EQ(q.exitCode, 0) << q.err;
    // 64 × 256 rows of 64 f16; one 128-byte row streams at (0.5 + 0.5 · 128 / 16384) × 0.7 of
    // the rate (small, and its 128-byte pitch is not 512-byte aligned).
    EXPECT_NE(q.out.find("16384,2097152,0.3527"), std::string::npos) << q.out;
    auto rep = test::runCommand(
        fmt::format("{} report {} --exit-zero --no-store", PTO_CLI, test::shellQuote(db.string())));
    ASSERT_EQ(rep.exitCode, 0) << rep.err;
    EXPECT_NE(rep.out.find("gather_dma: bound by gather DMA"), std::string::npos) << rep.out;
}

} // namespace
} // namespace pto
