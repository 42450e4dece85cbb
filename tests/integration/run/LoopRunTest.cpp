// `pto run` of a loop program: the same outputs (bit for bit) and the same simulated cycles as
// its hand-unrolled twin; the trace keeps the loop in the Tensor stage as written and labels
// every unrolled op with its loop and iteration.
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace pto {
namespace {

std::string program(const std::string& name) {
    return fmt::format("{}/tests/integration/run/programs/{}.pto", PTO_SOURCE_DIR, name);
}

std::string readBytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The simulated cycle count `pto run` prints ("  cycles       30279").
std::string cyclesOf(const std::string& out) {
    std::smatch m;
    if (!std::regex_search(out, m, std::regex(R"(cycles\s+([0-9]+))"))) return "(none)";
    return m[1];
}

struct RunOutput {
    std::string stdoutText;
    std::string output;
};

RunOutput runProgram(const std::string& name, const test::TempDir& dir) {
    const auto outs = dir / name;
    const auto db = dir / (name + ".db");
    auto r = test::runCommand(fmt::format(
        "{} run {} -o {} --seed 5 --outputs {}", PTO_CLI, test::shellQuote(program(name)),
        test::shellQuote(db.string()), test::shellQuote(outs.string())));
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    return {r.out, readBytes(outs / "out.npy")};
}

TEST(LoopRun, SameOutputsAndCyclesAsTheHandUnrolledTwin) {
    test::TempDir dir("pto-loop-run");
    RunOutput loop = runProgram("loop_attention", dir);
    RunOutput flat = runProgram("loop_attention_unrolled", dir);
    ASSERT_FALSE(loop.output.empty());
    EXPECT_TRUE(loop.output == flat.output) << "the outputs differ";
    EXPECT_EQ(cyclesOf(loop.stdoutText), cyclesOf(flat.stdoutText)) << loop.stdoutText << "\n---\n"
                                                                    << flat.stdoutText;
    EXPECT_NE(cyclesOf(loop.stdoutText), "(none)") << loop.stdoutText;
}

TEST(LoopRun, TraceShowsTheLoopAndLabelsUnrolledOps) {
    if (!test::pythonHas("sqlite3")) GTEST_SKIP() << "/usr/bin/python3 with sqlite3 is needed";
    test::TempDir dir("pto-loop-trace");
    runProgram("loop_attention", dir);
    const auto script = dir / "q.py";
    std::ofstream(script) << fmt::format(R"(
import sqlite3
db = sqlite3.connect('{}')
verify = db.execute("SELECT ir_text FROM stage WHERE pass = 'verify'").fetchone()[0]
print('LOOP' if 'for "kv" %j = 0 to 4 step 1 iter_args(' in verify else 'NOLOOP')
sid = db.execute("SELECT id FROM stage WHERE pass = 'unroll-loops'").fetchone()[0]
n = db.execute("SELECT count(*) FROM node WHERE stage_id = ? AND attrs LIKE '%\"iter\":[3]%'"
               " AND attrs LIKE '%\"loop\":\"kv\"%' AND src_line = 15", (sid,)).fetchone()[0]
print('ITER3', n)
)",
                                         (dir / "loop_attention.db").string());
    auto r = test::runCommand("/usr/bin/python3 " + test::shellQuote(script.string()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("LOOP\n"), std::string::npos) << r.out;
    // Line 15 is `%p = exp (sub %s, %mj)`: the exp of iteration 3 (the sub is on the same line).
    EXPECT_NE(r.out.find("ITER3 2"), std::string::npos) << r.out;
}

TEST(LoopRun, AHugeTripCountIsABudgetErrorBeforeUnrolling) {
    test::TempDir dir("pto-loop-budget");
    const auto prog = dir / "huge.pto";
    std::ofstream(prog) << R"(func @f(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = for "many" %i = 0 to 2000000000 step 1 iter_args(%a = %x) {
    %b = adds %a, 1.0
    yield %b
  }
  return %r
}
)";
    auto r = test::runCommand(fmt::format("{} run {} --trace none -o {}", PTO_CLI,
                                          test::shellQuote(prog.string()),
                                          test::shellQuote((dir / "huge.db").string())));
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("huge.pto:2:8: error: unrolling the loops would create about 2000000000 "
                         "Tensor ops, more than the budget of 1000000"),
              std::string::npos)
        << r.err;
}

} // namespace
} // namespace pto
