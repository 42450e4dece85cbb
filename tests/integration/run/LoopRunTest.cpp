// `pto run` of a loop program: the same outputs (bit for bit) and the same simulated cycles as
// its hand-unrolled twin (with --no-fuse: fuse-cube-vector applies to loops only, and
// tests/integration/run/fused_vs_torch.py checks the fused form); the trace keeps the loop in the
// Tensor stage as written and labels every unrolled op with its loop and iteration.
#include "profiler/RunModel.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"

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
        "{} run {} -o {} --seed 5 --no-fuse --outputs {}", PTO_CLI, test::shellQuote(program(name)),
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
    auto r = test::runCommand(fmt::format("{} run {} --trace none --no-reroll -o {}", PTO_CLI,
                                          test::shellQuote(prog.string()),
                                          test::shellQuote((dir / "huge.db").string())));
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("huge.pto:2:8: error: unrolling the loops would create about 2000000000 "
                         "Tensor ops, more than the budget of 1000000"),
              std::string::npos)
        << r.err;
    // Compiled through a window of its iterations (the default), the loop fits the passes and
    // the counted loops' executed instructions meet the instruction budget instead.
    r = test::runCommand(fmt::format("{} run {} --trace none -o {}", PTO_CLI,
                                     test::shellQuote(prog.string()),
                                     test::shellQuote((dir / "huge.db").string())));
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    // Located at the loop body's op whose counted loop holds most of them.
    EXPECT_NE(r.err.find("huge.pto:3:10: error: @f has 2000000006 PTO instructions (2000000006 in "
                         "its largest kernel @f_aiv_0, most in its loop \"many\" of 999999999 "
                         "rounds), more than the budget of 4000000"),
              std::string::npos)
        << r.err;
}

// A hand-written kernel's loops are unrolled as it is loaded: the budget counts the tile ops
// that makes (trip counts × body ops, nested loops multiplied out) before anything is copied,
// so a huge trip count is refused at once instead of taking the host's memory.
TEST(LoopRun, ATileLevelLoopIsCountedAgainstTheBudgetBeforeItIsUnrolled) {
    test::TempDir dir("pto-tile-loop-budget");
    const auto prog = dir / "huge.pto";
    std::ofstream(prog) << R"(func @k(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>, %n: index) {
  for "c" %i = 0 to %n {
    %t = tload %x {offset = [0, 0]} : tile<16x64xf32, UB>
    %u = adds %t, 1.0
    tstore %u, %y {offset = [0, 0]}
  }
  return
}
)";
    auto run = [&](const std::string& flags) {
        return test::runCommand(fmt::format("{} run {} --seed 1 --trace none {}", PTO_CLI,
                                            test::shellQuote(prog.string()), flags));
    };
    auto r = run("--bind n=2147483647");
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("huge.pto:2:3: error: unrolling the loops would create about 6442450941 "
                         "tile ops, more than the budget of 1000000; use fewer iterations or "
                         "raise the limit with --max-tile-ops"),
              std::string::npos)
        << r.err;
    r = run("--bind n=1000 --max-tile-ops 100");
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("about 3000 tile ops, more than the budget of 100"), std::string::npos)
        << r.err;
    // 3000 tile ops take about 7.3 MiB of host memory while compiling.
    r = run("--bind n=1000 --max-memory 1MiB");
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("huge.pto:2:3: error: unrolling the loops would create about 3000 tile "
                         "ops, which would take about 7.3 MiB of host memory, more than the "
                         "budget of 1 MiB; use fewer iterations or raise it with --max-memory"),
              std::string::npos)
        << r.err;
    r = run("--bind n=1000");
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;

    // Nested loops multiply: 200 × 200 × 200 iterations of 2 ops.
    const auto nest = dir / "nest.pto";
    std::ofstream(nest) << R"(func @k(%x: tensor<16x64xf32>, %y: tensor<3200x64xf32>) {
  for "a" %i = 0 to 200 {
    for "b" %j = 0 to 200 {
      for "c" %k = 0 to 200 {
        %t = tload %x {offset = [0, 0]} : tile<16x64xf32, UB>
        tstore %t, %y {offset = [%i * 16, 0]}
      }
    }
  }
  return
}
)";
    r = test::runCommand(
        fmt::format("{} compile {} --record none", PTO_CLI, test::shellQuote(nest.string())));
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("nest.pto:2:3: error: unrolling the loops would create about 16000000 "
                         "tile ops, more than the budget of 1000000"),
              std::string::npos)
        << r.err;
}

// A step past the upper bound runs one iteration, %i = 0, however large: the run equals the
// one of the kernel written without the loop (the trip count once overflowed to 0 iterations).
TEST(LoopRun, AStepPastTheUpperBoundRunsOneIteration) {
    test::TempDir dir("pto-tile-loop-step");
    auto write = [&](const std::string& name, const std::string& body) {
        std::ofstream(dir / name) << "func @k(%x: tensor<16x256xf32>, %y: tensor<16x256xf32>) {\n"
                                  << body << "  return\n}\n";
    };
    write("step.pto", R"(  for "c" %i = 0 to 4 step 9223372036854775807 {
    %t = tload %x {offset = [0, %i * 64]} : tile<16x64xf32, UB>
    tstore %t, %y {offset = [0, %i * 64]}
  }
)");
    write("once.pto", R"(  %t = tload %x {offset = [0, 0]} : tile<16x64xf32, UB>
  tstore %t, %y {offset = [0, 0]}
)");
    auto run = [&](const std::string& name) {
        return test::runCommand(fmt::format("{} run {} --seed 1 --trace none --outputs {}", PTO_CLI,
                                            test::shellQuote((dir / name).string()),
                                            test::shellQuote((dir / (name + ".out")).string())));
    };
    auto loop = run("step.pto");
    auto once = run("once.pto");
    ASSERT_EQ(loop.exitCode, 0) << loop.out << loop.err;
    ASSERT_EQ(once.exitCode, 0) << once.out << once.err;
    EXPECT_EQ(cyclesOf(loop.out), cyclesOf(once.out)) << loop.out << "\n---\n" << once.out;
    const std::string y = readBytes(dir / "step.pto.out" / "y.npy");
    EXPECT_FALSE(y.empty());
    EXPECT_TRUE(y == readBytes(dir / "once.pto.out" / "y.npy")) << "the outputs differ";
}

TEST(LoopRun, ATileLevelLoopRunsLikeItsHandUnrolledTwin) {
    test::TempDir dir("pto-tile-loop");
    auto run = [&](const std::string& name) {
        return test::runCommand(fmt::format("{} run {} -o {}", PTO_CLI,
                                            test::shellQuote(program(name)),
                                            test::shellQuote((dir / (name + ".db")).string())));
    };
    auto loop = run("tile_loop");
    auto flat = run("tile_loop_unrolled");
    ASSERT_EQ(loop.exitCode, 0) << loop.out << loop.err;
    ASSERT_EQ(flat.exitCode, 0) << flat.out << flat.err;
    EXPECT_EQ(cyclesOf(loop.out), cyclesOf(flat.out)) << loop.out << "\n---\n" << flat.out;
    EXPECT_NE(cyclesOf(loop.out), "(none)");
}

// A hand-written kernel returns nothing: `pto run --outputs` writes the tensors it stores into
// (its arguments y and z, role inout), checked against NumPy: y = 2x exactly, z the row sums.
TEST(LoopRun, AHandWrittenKernelsOutputsAreTheArgumentsItStoresInto) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "/usr/bin/python3 with numpy is needed";
    test::TempDir dir("pto-tile-loop-outputs");
    const auto script = dir / "check.py";
    std::ofstream(script) << R"(import sys, numpy as np
d = sys.argv[2]
if sys.argv[1] == 'make':
    x = np.random.default_rng(7).uniform(-1, 1, (16, 1024)).astype(np.float32)
    np.save(d + '/x.npy', x)
    np.save(d + '/y0.npy', np.full((16, 1024), 5, np.float32))
    np.save(d + '/z0.npy', np.zeros((16, 1), np.float32))
else:
    x = np.load(d + '/x.npy').astype(np.float64)
    y, z = np.load(d + '/out/y.npy'), np.load(d + '/out/z.npy')
    assert y.shape == (16, 1024) and y.dtype == np.float32, y.shape
    assert np.array_equal(y, (2 * x).astype(np.float32)), 'y is not 2x'
    ref = x.sum(axis=1, keepdims=True)
    assert z.shape == (16, 1), z.shape
    assert np.allclose(z, ref, rtol=1e-5, atol=1e-4), np.abs(z - ref).max()
    print('OK')
)";
    const std::string py = "/usr/bin/python3 " + test::shellQuote(script.string()) + " ";
    const std::string d = test::shellQuote(dir.path().string());
    ASSERT_EQ(test::runCommand(py + "make " + d).exitCode, 0);
    const auto run = test::runCommand(fmt::format(
        "{} run {} --inputs {} --outputs {} --trace none", PTO_CLI,
        test::shellQuote(program("tile_loop")),
        test::shellQuote(fmt::format("{0}/x.npy,{0}/y0.npy,{0}/z0.npy", dir.path().string())),
        test::shellQuote((dir / "out").string())));
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("outputs      2 file(s)"), std::string::npos) << run.out;
    const auto check = test::runCommand(py + "check " + d);
    EXPECT_EQ(check.exitCode, 0) << check.out << check.err;
    EXPECT_EQ(check.out, "OK\n");
}

// --- counted loops in a PTO kernel (issue 15 item 2) ----------------------------------------

std::string listing(const std::string& name) {
    return fmt::format("{}/tests/integration/run/programs/{}.ptoasm", PTO_SOURCE_DIR, name);
}

test::ProcessResult runListing(const std::string& name, const test::TempDir& dir) {
    return test::runCommand(fmt::format("{} run {} --seed 5 --outputs {} -o {}", PTO_CLI,
                                        test::shellQuote(listing(name)),
                                        test::shellQuote((dir / name).string()),
                                        test::shellQuote((dir / (name + ".db")).string())));
}

TEST(LoopRun, ACountedLoopInAKernelRunsLikeItsWrittenOutTwin) {
    test::TempDir dir("pto-counted-loop");
    auto loop = runListing("loop_copy", dir);
    auto flat = runListing("loop_copy_unrolled", dir);
    ASSERT_EQ(loop.exitCode, 0) << loop.out << loop.err;
    ASSERT_EQ(flat.exitCode, 0) << flat.out << flat.err;
    const std::string y = readBytes(dir / "loop_copy" / "y.npy");
    EXPECT_FALSE(y.empty());
    EXPECT_TRUE(y == readBytes(dir / "loop_copy_unrolled" / "y.npy")) << "the outputs differ";
    EXPECT_EQ(cyclesOf(loop.out), cyclesOf(flat.out)) << loop.out << "\n---\n" << flat.out;
    EXPECT_NE(cyclesOf(loop.out), "(none)");
}

TEST(LoopRun, ALoopWhoseFlagIdsRotateRunsLikeItsWrittenOutTwin) {
    test::TempDir dir("pto-rotating-loop");
    auto loop = runListing("loop_copy_rotating", dir);
    auto flat = runListing("loop_copy_unrolled", dir);
    ASSERT_EQ(loop.exitCode, 0) << loop.out << loop.err;
    ASSERT_EQ(flat.exitCode, 0) << flat.out << flat.err;
    EXPECT_TRUE(readBytes(dir / "loop_copy_rotating" / "y.npy") ==
                readBytes(dir / "loop_copy_unrolled" / "y.npy"))
        << "the outputs differ";
    // A flag's id does not change when its hand-off happens.
    EXPECT_EQ(cyclesOf(loop.out), cyclesOf(flat.out)) << loop.out << "\n---\n" << flat.out;
}

TEST(LoopRun, TheProfilerCountsTheGmTransfersALoopExecutes) {
    test::TempDir dir("pto-counted-loop-profile");
    ASSERT_EQ(runListing("loop_copy", dir).exitCode, 0);
    ASSERT_EQ(runListing("loop_copy_unrolled", dir).exitCode, 0);
    for (const std::string name : {"loop_copy", "loop_copy_unrolled"}) {
        const auto reader = tracedb::TraceReader::open(dir / (name + ".db"));
        const prof::RunModel m = prof::loadRunModel(reader);
        ASSERT_EQ(m.tasks.size(), 1u) << name;
        // 4 rounds of one TLOAD and one TSTORE, written as a loop or out: 8 transfers (the
        // double-buffering estimate's tile count), not the loop's 2 instr rows.
        EXPECT_EQ(m.tasks[0].gmTransfers, 8) << name;
    }
}

TEST(LoopRun, TheTraceHasOneInstrRowPerLoopInstructionAndNamesEachRound) {
    if (!test::pythonHas("sqlite3")) GTEST_SKIP() << "/usr/bin/python3 with sqlite3 is needed";
    test::TempDir dir("pto-counted-loop-trace");
    ASSERT_EQ(runListing("loop_copy", dir).exitCode, 0);
    ASSERT_EQ(runListing("loop_copy_unrolled", dir).exitCode, 0);
    const auto script = dir / "q.py";
    std::ofstream(script) << R"(
import sqlite3, sys
for name in sys.argv[1:]:
    db = sqlite3.connect(name)
    q = lambda sql: (db.execute(sql).fetchone() or [None])[0]
    print('instr', q("SELECT count(*) FROM instr"),
          'slices', q("SELECT count(*) FROM slice WHERE category = 'instr'"),
          'iter3', q("SELECT count(*) FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id"
                     " AND a.key = 'loop' WHERE a.string_value = 'cols, iter 3'"),
          'load3', q("SELECT i.idx FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id"
                     " AND a.key = 'loop' AND a.string_value = 'cols, iter 3' JOIN instr i"
                     " ON i.id = s.instr_id WHERE i.opcode = 'TLOAD'"),
          'gm', q("SELECT sum(gm_bytes) FROM instr"))
)";
    auto r =
        test::runCommand(fmt::format("/usr/bin/python3 {} {} {}", test::shellQuote(script.string()),
                                     test::shellQuote((dir / "loop_copy.db").string()),
                                     test::shellQuote((dir / "loop_copy_unrolled.db").string())));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    // 15 instructions as written execute 48 times; round 3's TLOAD is instruction 3 of the
    // kernel, and a loop instruction's GM bytes are those of its 4 rounds (the totals agree).
    EXPECT_NE(r.out.find("instr 15 slices 48 iter3 11 load3 3 gm 98304\n"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("instr 48 slices 48 iter3 0 load3 None gm 98304\n"), std::string::npos)
        << r.out;
}

TEST(LoopRun, AHugeCountedLoopIsABudgetErrorBeforeItIsWrittenOut) {
    test::TempDir dir("pto-counted-loop-budget");
    const auto prog = dir / "huge.ptoasm";
    std::ofstream(prog) << R"(pto @huge
gm %x : f32[8x32] @0x0 input
kernel @k aiv {
  loop "many" 2000000000 iter 0 {
    V    TADDS         UB[0x0]:f32[8x32/32], UB[0x0]:f32[8x32/32] {scalar = 1.0}
  }
}
task 0 @k aiv
)";
    auto r = test::runCommand(fmt::format("{} run {} --trace none -o {}", PTO_CLI,
                                          test::shellQuote(prog.string()),
                                          test::shellQuote((dir / "huge.db").string())));
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("@huge has 2000000000 PTO instructions (2000000000 in its largest "
                         "kernel @k, most in its loop \"many\" of 2000000000 rounds), more than "
                         "the budget of 4000000"),
              std::string::npos)
        << r.err;
}

// emit-pto folds the periodic iterations of a kernel into counted loops; the run is the one of
// the written-out kernels (--no-reroll), instruction for instruction.
TEST(LoopRun, RerolledKernelsRunLikeTheWrittenOutOnes) {
    test::TempDir dir("pto-reroll");
    auto run = [&](const std::string& tag, const std::string& extra) {
        return test::runCommand(fmt::format(
            "{} run {} --seed 5 --outputs {} -o {} {}", PTO_CLI,
            test::shellQuote(program("loop_attention_24")), test::shellQuote((dir / tag).string()),
            test::shellQuote((dir / (tag + ".db")).string()), extra));
    };
    auto folded = run("folded", "");
    auto flat = run("flat", "--no-reroll");
    ASSERT_EQ(folded.exitCode, 0) << folded.out << folded.err;
    ASSERT_EQ(flat.exitCode, 0) << flat.out << flat.err;
    EXPECT_TRUE(readBytes(dir / "folded" / "out.npy") == readBytes(dir / "flat" / "out.npy"));
    EXPECT_FALSE(readBytes(dir / "folded" / "out.npy").empty());
    EXPECT_EQ(cyclesOf(folded.out), cyclesOf(flat.out)) << folded.out << "\n---\n" << flat.out;
    auto listing = [&](const std::string& extra) {
        return test::runCommand(fmt::format("{} compile {} --print-after emit-pto {}", PTO_CLI,
                                            test::shellQuote(program("loop_attention_24")), extra))
            .out;
    };
    auto count = [](const std::string& out) {
        std::smatch m;
        return std::regex_search(out, m, std::regex(R"(pto\s+([0-9]+) instructions)"))
                   ? std::stoll(m[1])
                   : -1;
    };
    const std::string foldedText = listing("");
    const std::string flatText = listing("--no-reroll");
    // Two rounds of 8 iterations (2..17) of the online-softmax chain in each vector kernel.
    EXPECT_NE(foldedText.find("  loop \"kv\" 2 iter 2 by 8 {\n"), std::string::npos);
    EXPECT_EQ(flatText.find("  loop \""), std::string::npos);
    EXPECT_GT(count(foldedText), 0);
    EXPECT_LT(count(foldedText), count(flatText));
}

// --- trip counts bound when the program runs (--bind) ----------------------------------------

test::ProcessResult runBound(const std::string& name, const std::string& extra,
                             const test::TempDir& dir, const std::string& tag) {
    return test::runCommand(fmt::format("{} run {} --seed 5 --outputs {} -o {} {}", PTO_CLI,
                                        test::shellQuote(program(name)),
                                        test::shellQuote((dir / tag).string()),
                                        test::shellQuote((dir / (tag + ".db")).string()), extra));
}

TEST(LoopBind, SeveralBoundTripCountsAgainstNumpy) {
    if (!test::haveNumpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy is needed";
    test::TempDir dir("pto-loop-bind-ref");
    auto r = test::runCommand(fmt::format(
        "/usr/bin/python3 {}/tests/integration/run/bound_loop_reference.py {} {} {} 0 1 3 4",
        PTO_SOURCE_DIR, PTO_CLI, test::shellQuote(program("loop_bound")),
        test::shellQuote(dir.path().string())));
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    for (const char* t : {"t=0 ok", "t=1 ok", "t=3 ok", "t=4 ok"})
        EXPECT_NE(r.out.find(t), std::string::npos) << r.out << r.err;
}

TEST(LoopBind, TheTailIterationEqualsTheHandUnrolledTwin) {
    test::TempDir dir("pto-loop-bind-twin");
    auto loop = runBound("loop_bound", "--bind t=4", dir, "loop");
    auto flat = runBound("loop_bound_unrolled", "", dir, "flat");
    ASSERT_EQ(loop.exitCode, 0) << loop.out << loop.err;
    ASSERT_EQ(flat.exitCode, 0) << flat.out << flat.err;
    EXPECT_EQ(readBytes(dir / "loop" / "r#0.npy"), readBytes(dir / "flat" / "m4.npy"));
    EXPECT_EQ(readBytes(dir / "loop" / "r#1.npy"), readBytes(dir / "flat" / "l4.npy"));
    EXPECT_FALSE(readBytes(dir / "loop" / "r#1.npy").empty());
    EXPECT_EQ(cyclesOf(loop.out), cyclesOf(flat.out)) << loop.out << "\n---\n" << flat.out;
}

TEST(LoopBind, AnUnboundIndexArgumentIsAnErrorNamingIt) {
    test::TempDir dir("pto-loop-bind-errors");
    auto r = runBound("loop_bound", "", dir, "unbound");
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("loop_bound.pto:4:1: error: @main: index argument %t is not bound (the "
                         "trip count of loop \"blocks\" at 7:10): run with --bind t=N"),
              std::string::npos)
        << r.err;
    auto c = test::runCommand(
        fmt::format("{} compile {}", PTO_CLI, test::shellQuote(program("loop_bound"))));
    EXPECT_EQ(c.exitCode, 2) << c.out << c.err;
    EXPECT_NE(c.err.find("index argument %t is not bound"), std::string::npos) << c.err;
}

TEST(LoopBind, BadBindsAreErrors) {
    test::TempDir dir("pto-loop-bind-bad");
    auto unknown = runBound("loop_bound", "--bind s=3", dir, "s");
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.err.find("--bind s=3: @main has no index argument %s (its index "
                               "arguments: %t)"),
              std::string::npos)
        << unknown.err;
    auto past = runBound("loop_bound", "--bind t=5", dir, "past");
    EXPECT_EQ(past.exitCode, 2);
    EXPECT_NE(past.err.find("loop_bound.pto:8:10: error: view %b (op #0): the clipped view starts "
                            "past the end of the tensor 16x1000 at %i = 4 (dim 1: offset 1024 >= "
                            "1000)"),
              std::string::npos)
        << past.err;
    auto negative = runBound("loop_bound", "--bind t=-1", dir, "neg");
    EXPECT_EQ(negative.exitCode, 2);
    EXPECT_NE(negative.err.find("the trip count is negative: 0 to -1"), std::string::npos)
        << negative.err;
    auto word = runBound("loop_bound", "--bind t=x", dir, "word");
    EXPECT_EQ(word.exitCode, 2);
    EXPECT_NE(word.err.find("'x' is not an integer"), std::string::npos) << word.err;
    auto huge = runBound("loop_bound", "--bind t=99999999999999999999", dir, "huge");
    EXPECT_EQ(huge.exitCode, 2);
    EXPECT_NE(huge.err.find("99999999999999999999 is out of range"), std::string::npos) << huge.err;
}

// A Tile-level loop is checked for every iteration once its trip count is bound, like one
// written with the number: the error names %a and the iteration (it named the unrolled copy
// `%a_3 (op #16)`).
TEST(LoopBind, ATileLevelLoopBoundPastItsTensorNamesTheValueAndTheIteration) {
    test::TempDir dir("pto-loop-bind-tile");
    ASSERT_EQ(runBound("tile_loop_bound", "--bind t=3", dir, "fits").exitCode, 0);
    auto past = runBound("tile_loop_bound", "--bind t=4", dir, "past");
    EXPECT_EQ(past.exitCode, 2);
    EXPECT_NE(past.err.find("tile_loop_bound.pto:6:10: error: tload %a (op #0): at %i = 3: tile "
                            "16x256 at offset [0, 768] exceeds the tensor 16x1000 (dim 1: 768 + "
                            "256 > 1000)"),
              std::string::npos)
        << past.err;
}

// A loop of 0 trips stores nothing, but the kernel's outputs are still the arguments it stores
// into: y.npy is written as given (a script expecting it must not break), z.npy the zero sums.
TEST(LoopBind, ATileLevelLoopOfZeroTripsStillWritesTheArgumentsItStoresInto) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "/usr/bin/python3 with numpy is needed";
    test::TempDir dir("pto-loop-bind-zero");
    const auto script = dir / "check.py";
    std::ofstream(script) << R"(import sys, numpy as np
d = sys.argv[2]
if sys.argv[1] == 'make':
    rng = np.random.default_rng(3)
    np.save(d + '/x.npy', rng.uniform(-1, 1, (16, 1000)).astype(np.float32))
    np.save(d + '/y0.npy', rng.uniform(-1, 1, (16, 1000)).astype(np.float32))
    np.save(d + '/z0.npy', np.full((16, 1), 7, np.float32))
else:
    y, z = np.load(d + '/out/y.npy'), np.load(d + '/out/z.npy')
    assert np.array_equal(y, np.load(d + '/y0.npy')), 'y is not the given data'
    assert np.array_equal(z, np.zeros((16, 1), np.float32)), z
    print('OK')
)";
    const std::string py = "/usr/bin/python3 " + test::shellQuote(script.string()) + " ";
    const std::string d = test::shellQuote(dir.path().string());
    ASSERT_EQ(test::runCommand(py + "make " + d).exitCode, 0);
    const auto run = test::runCommand(fmt::format(
        "{} run {} --bind t=0 --inputs {} --outputs {} --trace none", PTO_CLI,
        test::shellQuote(program("tile_loop_bound")),
        test::shellQuote(fmt::format("{0}/x.npy,{0}/y0.npy,{0}/z0.npy", dir.path().string())),
        test::shellQuote((dir / "out").string())));
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("outputs      2 file(s)"), std::string::npos) << run.out;
    const auto check = test::runCommand(py + "check " + d);
    EXPECT_EQ(check.exitCode, 0) << check.out << check.err;
    EXPECT_EQ(check.out, "OK\n");
}

TEST(LoopBind, WhatIfReRunsWithTheRecordedBinds) {
    test::TempDir dir("pto-loop-bind-whatif");
    auto run = runBound("loop_bound", "--bind t=3", dir, "run");
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
    auto w = test::runCommand(fmt::format("{} whatif {} --set hbm.bandwidth=2x", PTO_CLI,
                                          test::shellQuote((dir / "run.db").string())));
    EXPECT_EQ(w.exitCode, 0) << w.out << w.err;
}

TEST(LoopBind, CompileBindsToo) {
    test::TempDir dir("pto-loop-bind-compile");
    auto r = test::runCommand(fmt::format("{} compile {} --bind t=2 --print-after verify", PTO_CLI,
                                          test::shellQuote(program("loop_bound"))));
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    // The program is specialised as it is loaded: the first stage shows the bound number.
    EXPECT_NE(r.out.find("for \"blocks\" %i = 0 to 2 step 1"), std::string::npos) << r.out;
}

// --- loop windows: a long loop lowered through a few of its iterations ------------------------

// The windowed compile (default) runs exactly like the written-out lowering (--no-reroll, which
// compiles every iteration): the same output bytes and the same cycles.
TEST(LoopWindow, AWindowedLoopRunsLikeTheFullyLoweredOne) {
    test::TempDir dir("pto-loop-window");
    auto windowed = runBound("loop_accumulate_100", "", dir, "windowed");
    auto full = runBound("loop_accumulate_100", "--no-reroll", dir, "full");
    ASSERT_EQ(windowed.exitCode, 0) << windowed.out << windowed.err;
    ASSERT_EQ(full.exitCode, 0) << full.out << full.err;
    const std::string out = readBytes(dir / "windowed" / "r#0.npy");
    EXPECT_FALSE(out.empty());
    EXPECT_TRUE(out == readBytes(dir / "full" / "r#0.npy")) << "the outputs differ";
    EXPECT_EQ(cyclesOf(windowed.out), cyclesOf(full.out)) << windowed.out << "\n---\n" << full.out;
    EXPECT_NE(cyclesOf(windowed.out), "(none)");
    // The FLOPs of the run count all 100 iterations, not the window's.
    auto flops = [](const std::string& text) {
        std::smatch m;
        return std::regex_search(text, m, std::regex(R"(\(([0-9.e+]+) FLOP\))")) ? std::string(m[1])
                                                                                 : "(none)";
    };
    EXPECT_EQ(flops(windowed.out), flops(full.out)) << windowed.out << "\n---\n" << full.out;
    EXPECT_NE(flops(windowed.out), "(none)") << windowed.out;
}

// A loop whose probes do not extend linearly is compiled in full: every iteration reaches the
// Tile stage, and the run is the one of the written-out lowering.
TEST(LoopWindow, ALoopWhoseLoweringDoesNotRepeatIsCompiledInFull) {
    test::TempDir dir("pto-loop-window-full");
    auto dflt = runBound("loop_rowmax_71", "", dir, "default");
    auto full = runBound("loop_rowmax_71", "--no-reroll", dir, "full");
    ASSERT_EQ(dflt.exitCode, 0) << dflt.out << dflt.err;
    ASSERT_EQ(full.exitCode, 0) << full.out << full.err;
    EXPECT_TRUE(readBytes(dir / "default" / "o.npy") == readBytes(dir / "full" / "o.npy"));
    EXPECT_FALSE(readBytes(dir / "default" / "o.npy").empty());
    EXPECT_EQ(cyclesOf(dflt.out), cyclesOf(full.out)) << dflt.out << "\n---\n" << full.out;
    auto tileOps = [](const std::string& extra) {
        auto r = test::runCommand(fmt::format("{} compile {} {}", PTO_CLI,
                                              test::shellQuote(program("loop_rowmax_71")), extra));
        std::smatch m;
        return std::regex_search(r.out, m, std::regex(R"(tile\s+([0-9]+) ops)")) ? std::string(m[1])
                                                                                 : "(none)";
    };
    EXPECT_EQ(tileOps(""), tileOps("--no-reroll"));
    EXPECT_NE(tileOps(""), "(none)");
    // The compile says why the window was not used.
    auto r = test::runCommand(fmt::format("{} compile {} --record none", PTO_CLI,
                                          test::shellQuote(program("loop_rowmax_71"))));
    EXPECT_NE(r.out.find("  window  loop \"k\" (71 iterations) lowered in full: its three "
                         "windows do not extend linearly (windows of 31, 39 and 47 iterations)"),
              std::string::npos)
        << r.out;
}

// Each window fits UB, but the blocks it keeps live grow with its length: the stretch is refused
// by the verifier, and the loop, lowered in full, runs like its written-out lowering.
TEST(LoopWindow, AStretchThatOutgrowsTheUbIsLoweredInFull) {
    test::TempDir dir("pto-loop-window-live");
    auto r = test::runCommand(fmt::format("{} compile {} --record none", PTO_CLI,
                                          test::shellQuote(program("loop_growing_live"))));
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("  window  loop \"blk\" (100 iterations) lowered in full: the stretched "
                         "program is not valid: kernel @f_aiv_0"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("beyond its 188416 bytes"), std::string::npos) << r.out;
    auto dflt = runBound("loop_growing_live", "", dir, "default");
    auto full = runBound("loop_growing_live", "--no-reroll", dir, "full");
    ASSERT_EQ(dflt.exitCode, 0) << dflt.out << dflt.err;
    ASSERT_EQ(full.exitCode, 0) << full.out << full.err;
    EXPECT_FALSE(readBytes(dir / "default" / "r#0.npy").empty());
    EXPECT_TRUE(readBytes(dir / "default" / "r#0.npy") == readBytes(dir / "full" / "r#0.npy"));
    EXPECT_TRUE(readBytes(dir / "default" / "r#1.npy") == readBytes(dir / "full" / "r#1.npy"));
    EXPECT_EQ(cyclesOf(dflt.out), cyclesOf(full.out)) << dflt.out << "\n---\n" << full.out;
}

// The passes see 28 of the 100 iterations (100 = 28 + 9 periods of 8); the kernels' counted
// loop covers iterations 2-97, and the last iterations, written out, name their own iteration
// numbers.
TEST(LoopWindow, TheCompileSeesAWindowAndTheListingNamesEveryIteration) {
    auto r = test::runCommand(fmt::format("{} compile {} --print-after emit-pto", PTO_CLI,
                                          test::shellQuote(program("loop_accumulate_100"))));
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("  loop \"blk\" 12 iter 2 by 8 {\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  loop \"blk\" 1 iter 98 by 2 {\n"), std::string::npos) << r.out;
    // The summary says the window was used, its stretched program proven by the sync check.
    EXPECT_NE(r.out.find("  window  loop \"blk\" (100 iterations) lowered through 28 and "
                         "stretched (sync check passed)\n"),
              std::string::npos)
        << r.out;
}

// A slice in iteration 7 and one in the last iteration reach their tile op and source line.
TEST(LoopWindow, SlicesOfIterationSevenAndTheLastReachTheirSourceLine) {
    if (!test::pythonHas("sqlite3")) GTEST_SKIP() << "/usr/bin/python3 with sqlite3 is needed";
    test::TempDir dir("pto-loop-window-trace");
    auto run = runBound("loop_accumulate_100", "--trace instructions", dir, "w");
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
    const auto script = dir / "q.py";
    std::ofstream(script) << R"(
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for it in (7, 99):
    rows = db.execute("SELECT DISTINCT i.opcode, i.src_line, n.id IS NOT NULL FROM slice s"
                      " JOIN args a ON a.arg_set_id = s.arg_set_id AND a.key = 'loop'"
                      " JOIN instr i ON i.id = s.instr_id"
                      " LEFT JOIN node n ON n.stage_id = i.tile_stage_id AND n.id = i.tile_op_id"
                      " WHERE a.string_value = ? AND i.opcode = 'TEXP'", (f'blk, iter {it}',)).fetchall()
    print(it, sorted(rows))
)";
    auto r =
        test::runCommand(fmt::format("/usr/bin/python3 {} {}", test::shellQuote(script.string()),
                                     test::shellQuote((dir / "w.db").string())));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    // Line 9 is the body's `%a1 = add %a, (mul (exp %xj), %s)`.
    EXPECT_NE(r.out.find("7 [('TEXP', 9, 1)]\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("99 [('TEXP', 9, 1)]\n"), std::string::npos) << r.out;
}

} // namespace
} // namespace pto
