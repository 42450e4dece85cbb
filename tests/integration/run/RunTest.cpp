// Simulated runs end to end: every sample's outputs against NumPy and bit for bit against the
// Tile interpreter; hand-written PTO listings that deadlock or go out of bounds get the right
// message, no hang; `pto run` exit codes.
#include "compiler/interp/TileInterpreter.h"
#include "driver/Session.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

namespace pto {
namespace {

std::string sourcePath(const std::string& rel) {
    return fmt::format("{}/{}", PTO_SOURCE_DIR, rel);
}

RunResult runSample(const std::string& name, uint64_t seed) {
    RunOptions o;
    o.program = sourcePath("samples/" + name + ".pto");
    o.seed = seed;
    o.sim.traceLevel = sim::TraceLevel::None;
    return runProgram(o);
}

class SimulatedSample : public ::testing::TestWithParam<std::string> {};

TEST_P(SimulatedSample, OutputsEqualTheTileInterpreterBitForBit) {
    RunResult r = runSample(GetParam(), 5);
    ASSERT_EQ(r.faultMessage, "");
    ASSERT_EQ(r.sim.outputs.size(), 1u);
    TensorData tile = evaluateTile(r.state.tileFunction(), r.inputs).outputs.at(0);
    const TensorData& sim = r.sim.outputs[0].second;
    ASSERT_EQ(sim.shape, tile.shape);
    int64_t differ = 0;
    for (int64_t i = 0; i < sim.numel(); ++i) differ += sim.get(i) != tile.get(i);
    EXPECT_EQ(differ, 0) << "of " << sim.numel() << " elements";
}

TEST_P(SimulatedSample, OutputsAgreeWithNumPy) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "/usr/bin/python3 with numpy is needed";
    RunResult r = runSample(GetParam(), 9);
    ASSERT_EQ(r.faultMessage, "");
    test::TempDir dir;
    std::string cmd = fmt::format("/usr/bin/python3 {} {} {}",
                                  sourcePath("tests/integration/compile/samples_reference.py"),
                                  GetParam(), test::shellQuote((dir / "want.npy").string()));
    for (size_t i = 0; i < r.inputs.size(); ++i) {
        auto p = dir / fmt::format("in{}.npy", i);
        writeTensor(p, r.inputs[i]);
        cmd += " " + test::shellQuote(p.string());
    }
    auto py = test::runCommand(cmd);
    ASSERT_EQ(py.exitCode, 0) << py.err;
    TensorData want = readTensor(dir / "want.npy");
    const TensorData& got = r.sim.outputs.at(0).second;
    ASSERT_EQ(got.shape, want.shape);
    // Same tolerances as the interpreter check (tests/integration/compile/SamplesTest.cpp):
    // f16: torch's rtol 1e-3 plus one f16 ulp for the decomposed composites' intermediate
    // roundings; f32 matmul against an f64 reference over k = 256.
    double rtol = want.dtype == DType::F16 ? 2e-3 : 1e-5;
    double atol = want.dtype == DType::F16 ? 1e-5 : 1e-4;
    int64_t bad = 0;
    for (int64_t i = 0; i < got.numel(); ++i)
        bad += std::fabs(got.get(i) - want.get(i)) > atol + rtol * std::fabs(want.get(i));
    EXPECT_EQ(bad, 0) << "of " << got.numel() << " elements";
}

INSTANTIATE_TEST_SUITE_P(Samples, SimulatedSample,
                         ::testing::Values("matmul", "softmax", "rms_norm", "gelu"));

RunResult runListing(const std::string& name) {
    RunOptions o;
    o.program = sourcePath("tests/integration/run/programs/" + name + ".ptoasm");
    o.sim.traceLevel = sim::TraceLevel::None;
    return runProgram(o);
}

TEST(HandWrittenListing, CorrectProgramConvertsItsInput) {
    RunResult r = runListing("good_copy");
    ASSERT_EQ(r.faultMessage, "");
    const TensorData& y = r.sim.outputs.at(0).second;
    for (int64_t i = 0; i < y.numel(); ++i) ASSERT_EQ(y.get(i), r.inputs[0].get(i)) << i;
}

// A listing has no Tensor program: the run's FLOPs are those of the instructions it executes
// (pto run printed 0 FLOP): 4 matmuls 16x32 by 32x32 on the AIC, 4 TMULS of 8x32 per AIV.
TEST(HandWrittenListing, TheRunsFlopsAreTheExecutedInstructions) {
    RunResult r = runListing("cross_pingpong");
    ASSERT_EQ(r.faultMessage, "");
    EXPECT_DOUBLE_EQ(r.flops, 4 * 2.0 * 16 * 32 * 32 + 2 * 4 * 8 * 32);
}

TEST(HandWrittenListing, MissingSetFlagIsADeadlockNamingTheWait) {
    RunResult r = runListing("missing_set_flag");
    EXPECT_NE(r.faultMessage.find("deadlock"), std::string::npos) << r.faultMessage;
    EXPECT_NE(r.faultMessage.find("WAIT_FLAG"), std::string::npos) << r.faultMessage;
    EXPECT_NE(r.faultMessage.find("MTE2->V"), std::string::npos) << r.faultMessage;
}

// An on-chip operand outside its buffer is caught before the run, by the listing's verifier.
TEST(HandWrittenListing, OutOfBoundsTloadNamesTheBufferAndSize) {
    try {
        runListing("oob_tload");
        FAIL() << "expected an error";
    } catch (const CompileError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("oob_tload.ptoasm"), std::string::npos) << m;
        EXPECT_NE(m.find("TLOAD"), std::string::npos) << m;
        EXPECT_NE(m.find("UB [0x2c000, 0x34000)"), std::string::npos) << m;
        EXPECT_NE(m.find("188416"), std::string::npos) << m;
    }
}

// A timing-only run reads no data: inputs the trace does not store are never made, and the
// cycles are those of the run with numerics.
TEST(TimingOnlyRun, MakesOnlyTheInputsTheTraceStoresAndKeepsTheCycles) {
    test::TempDir dir;
    RunOptions o;
    o.program = sourcePath("samples/softmax.pto");
    o.sim.traceLevel = sim::TraceLevel::Tasks;
    const RunResult numerics = runProgram(o);
    ASSERT_EQ(numerics.inputs.size(), 1u);
    const int64_t inputBytes = int64_t(numerics.inputs[0].bytes.size());
    ASSERT_GT(inputBytes, 0);

    o.sim.timingOnly = true;
    for (const bool stored : {false, true}) {
        o.tracePath = (dir / fmt::format("t{}.db", stored)).string();
        o.maxStoredTensorBytes = stored ? inputBytes : inputBytes - 1;
        const RunResult timing = runProgram(o);
        EXPECT_EQ(timing.sim.totalCycles, numerics.sim.totalCycles);
        ASSERT_EQ(timing.inputs.size(), 1u);
        EXPECT_EQ(timing.inputs[0].shape, numerics.inputs[0].shape);
        EXPECT_EQ(timing.inputs[0].bytes,
                  stored ? numerics.inputs[0].bytes : std::vector<std::byte>{});
        const auto rows =
            tracedb::TraceReader::open(o.tracePath).tensors(tracedb::TensorData::Load);
        ASSERT_EQ(rows.size(), 1u) << "the input's row, with or without its data";
        EXPECT_EQ(rows[0].dtype, "f16");
        EXPECT_EQ(rows[0].data.size(), stored ? size_t(inputBytes) : 0u);
    }
    // Without a trace nothing is made at all.
    o.tracePath.clear();
    EXPECT_TRUE(runProgram(o).inputs.at(0).bytes.empty());
}

// A loop whose default vec tiles (each 8x1000 f32 block whole: 31 KiB) leave five tiles live in
// UB plus the reduction's, more than fits even single-buffered: the driver retries with smaller
// default tiles and says so; the results are those of the program (checked in double).
TEST(TileFallback, DefaultTilesThatDoNotFitAreShrunkAndTheRunIsRight) {
    test::TempDir dir;
    const auto prog = dir / "acc.pto";
    std::ofstream(prog)
        << "func @f(%x: tensor<56x1000xf32>, %w: tensor<8x1000xf32>) -> (tensor<8x1000xf32>, "
           "tensor<8x1xf32>) {\n"
           "  %a0 = fill {value = 0.0} : tensor<8x1000xf32>\n"
           "  %s0 = fill {value = 0.0} : tensor<8x1xf32>\n"
           "  %r:2 = for \"blk\" %i = 0 to 7 step 1 iter_args(%a = %a0, %s = %s0) {\n"
           "    %b = view %x {offsets = [%i * 8, 0], sizes = [8, 1000]}\n"
           "    %a1 = add %a, (mul %b, %w)\n"
           "    %s1 = add (muls %s, 0.75), (reduce_sum %b {axis = 1, keepdim})\n"
           "    yield %a1, %s1\n  }\n  return %r#0, %r#1\n}\n";
    RunOptions o;
    o.program = prog.string();
    o.tracePath = (dir / "acc.db").string();
    o.sim.traceLevel = sim::TraceLevel::Tasks;
    const RunResult r = runProgram(o);
    ASSERT_EQ(r.faultMessage, "");
    EXPECT_GT(r.tileShrink, 0);
    const TensorData &x = r.inputs.at(0), &w = r.inputs.at(1);
    ASSERT_EQ(r.sim.outputs.size(), 2u);
    const TensorData &a = r.sim.outputs[0].second, &sum = r.sim.outputs[1].second;
    double worst = 0;
    for (int64_t row = 0; row < 8; ++row) {
        double s = 0;
        for (int64_t i = 0; i < 7; ++i) {
            double rowSum = 0;
            for (int64_t c = 0; c < 1000; ++c) rowSum += x.get((i * 8 + row) * 1000 + c);
            s = 0.75 * s + rowSum;
        }
        worst = std::max(worst, std::abs(sum.get(row) - s) / std::max(1.0, std::abs(s)));
        for (int64_t c = 0; c < 1000; ++c) {
            double acc = 0;
            for (int64_t i = 0; i < 7; ++i)
                acc += x.get((i * 8 + row) * 1000 + c) * w.get(row * 1000 + c);
            worst = std::max(worst, std::abs(a.get(row * 1000 + c) - acc));
        }
    }
    EXPECT_LT(worst, 1e-4);
    const auto meta = tracedb::TraceReader::open(o.tracePath).meta("compile_options");
    ASSERT_TRUE(meta.has_value());
    EXPECT_NE(meta->find("\"tile_shrink\":"), std::string::npos) << *meta;

    const auto cli =
        test::runCommand(fmt::format("{} compile {}", PTO_CLI, test::shellQuote(prog.string())));
    ASSERT_EQ(cli.exitCode, 0) << cli.err;
    EXPECT_NE(cli.out.find("the default vec tiles did not fit on chip"), std::string::npos)
        << cli.out;

    // `pto tune` compiles its candidates as `pto run` does: the program as written runs there too.
    const auto space = dir / "space.txt";
    std::ofstream(space) << "double_buffer = true | false\n";
    const auto tune = test::runCommand(fmt::format(
        "{} tune {} --space {} --threads 1 -o {}", PTO_CLI, test::shellQuote(prog.string()),
        test::shellQuote(space.string()), test::shellQuote((dir / "tune.db").string())));
    ASSERT_EQ(tune.exitCode, 0) << tune.out << tune.err;
    const auto ran = test::runCommand(
        fmt::format("sqlite3 -readonly {} \"SELECT count(*) FROM candidate WHERE status = 'ok'\"",
                    test::shellQuote((dir / "tune.db").string())));
    EXPECT_EQ(std::stoi(ran.out), 3) << tune.out; // as written, double buffering on and off
}

// A run without a traced timeline simulates while the compile's last stages are still being
// inserted (driver/Session.cpp): its trace holds the same stages as a traced run's and the run's
// meta, written once the recording is done.
TEST(UntracedRun, RecordsEveryStageAndTheRunWhileItSimulates) {
    test::TempDir dir;
    RunOptions o;
    o.program = sourcePath("samples/softmax.pto");
    o.sim.timingOnly = true;
    o.tracePath = (dir / "tasks.db").string();
    o.sim.traceLevel = sim::TraceLevel::Tasks;
    const RunResult traced = runProgram(o);
    o.tracePath = (dir / "none.db").string();
    o.sim.traceLevel = sim::TraceLevel::None;
    const RunResult untraced = runProgram(o);
    EXPECT_EQ(untraced.sim.totalCycles, traced.sim.totalCycles);
    for (const char* sql :
         {"SELECT id, ord, name, level, pass, parent_stage_id, ir_text, "
          "node_count, edge_count FROM stage ORDER BY id", // not pass_micros
          "SELECT * FROM node", "SELECT * FROM edge ORDER BY rowid", "SELECT * FROM buffer",
          "SELECT * FROM instr ORDER BY id", "SELECT * FROM dict ORDER BY id"}) {
        auto rows = [&](const std::string& db) {
            return test::runCommand(
                       fmt::format("sqlite3 -readonly {} \"{}\"", test::shellQuote(db), sql))
                .out;
        };
        const std::string want = rows((dir / "tasks.db").string());
        EXPECT_GT(want.size(), 0u) << sql;
        EXPECT_EQ(rows(o.tracePath), want) << sql;
    }
    const auto reader = tracedb::TraceReader::open(o.tracePath);
    EXPECT_EQ(reader.meta("trace_level"), "none");
    EXPECT_EQ(reader.meta("sim_total_cycles"), std::to_string(untraced.sim.totalCycles.count()));
    EXPECT_EQ(reader.meta("producer"), "pto run");
    EXPECT_TRUE(reader.meta("compile_options").has_value());
    EXPECT_EQ(reader.meta("record_level"), std::nullopt); // `all`, as in the traced run
}

// `pto run` of the listing whose wait has no matching set (a deadlock), with `flags`.
test::ProcessResult runDeadlockingListing(const std::filesystem::path& db, const char* flags) {
    return test::runCommand(
        fmt::format("{} run {} {} -o {}", PTO_CLI,
                    sourcePath("tests/integration/run/programs/missing_set_flag.ptoasm"), flags,
                    test::shellQuote(db.string())));
}

TEST(PtoRunCli, AnUntracedRunThatFaultsKeepsTheTraceWithTheFault) {
    test::TempDir dir;
    auto db = dir / "run.db";
    auto r = runDeadlockingListing(db, "--trace none");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("deadlock"), std::string::npos) << r.err;
    const auto reader = tracedb::TraceReader::open(db);
    EXPECT_NE(reader.meta("sim_fault").value_or("").find("deadlock"), std::string::npos);
    EXPECT_EQ(reader.meta("trace_level"), "none");
    EXPECT_TRUE(reader.meta("sim_total_cycles").has_value());
}

TEST(PtoRunCli, FaultExitsOneAndKeepsTheTrace) {
    test::TempDir dir;
    auto db = dir / "run.db";
    auto r = runDeadlockingListing(db, "");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("deadlock"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(db));
}

TEST(PtoRunCli, WritesOutputsAndReportsThroughput) {
    test::TempDir dir;
    auto r = test::runCommand(fmt::format("{} run {} --outputs {} --seed 3", PTO_CLI,
                                          sourcePath("samples/softmax.pto"),
                                          test::shellQuote((dir / "o").string())));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("cycles"), std::string::npos);
    EXPECT_NE(r.out.find("GB/s"), std::string::npos);
    TensorData y = readTensor(dir / "o" / "yh.npy");
    EXPECT_EQ(y.shape, (Shape{64, 1024}));
}

// Outputs are named after what `return` names: a result computed by a called function takes
// the caller's name. Before, p.npy was written as v.npy (the callee's name) and the caller's %v
// as v1.npy, so v.npy held 2x where the program's %v is 3x, and `pto diff --bisect` said PASS
// for every stage, then FAIL for output v.
TEST(PtoRunCli, AnOutputComputedByACalledFunctionTakesTheCallersName) {
    test::TempDir dir;
    const auto prog = dir / "call.pto";
    std::ofstream(prog) << "func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
                           "  %v = muls %a, 2.0\n  return %v\n}\n"
                           "func @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, "
                           "tensor<4x8xf32>) {\n"
                           "  %p = call @f(%x)\n  %v = muls %x, 3.0\n  return %p, %v\n}\n";
    std::vector<float> xs(32);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = 0.25f * float(i) - 3.0f;
    writeTensor(dir / "x.npy", TensorData::fromFloats(DType::F32, Shape{4, 8}, xs));
    const std::string in = test::shellQuote((dir / "x.npy").string());
    auto r = test::runCommand(fmt::format("{} run {} --inputs {} --outputs {} --trace none",
                                          PTO_CLI, test::shellQuote(prog.string()), in,
                                          test::shellQuote((dir / "o").string())));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    ASSERT_TRUE(std::filesystem::exists(dir / "o" / "p.npy"));
    ASSERT_FALSE(std::filesystem::exists(dir / "o" / "v1.npy"));
    const TensorData p = readTensor(dir / "o" / "p.npy"), v = readTensor(dir / "o" / "v.npy");
    for (int64_t i = 0; i < 32; ++i) {
        EXPECT_EQ(p.get(i), 2.0 * xs[size_t(i)]) << i;
        EXPECT_EQ(v.get(i), 3.0 * xs[size_t(i)]) << i;
    }
    auto bisect = test::runCommand(fmt::format("{} diff --bisect {} --inputs {}", PTO_CLI,
                                               test::shellQuote(prog.string()), in));
    EXPECT_EQ(bisect.exitCode, 0) << bisect.out << bisect.err;
    EXPECT_NE(bisect.out.find("output p: PASS"), std::string::npos) << bisect.out;
    EXPECT_NE(bisect.out.find("output v: PASS"), std::string::npos) << bisect.out;
}

// A call that returns its argument gives the caller's value back: returned as %p, it is
// p.npy (was y.npy, the caller's name for it, while --bisect called it p), in the stored
// tensors too; an input passed through such a call is still out0.npy (inputs keep their names).
TEST(PtoRunCli, AValueReturnedThroughAnIdentityCallTakesTheReturnsName) {
    test::TempDir dir;
    const auto prog = dir / "id.pto", input = dir / "idx.pto";
    const std::string callee = "func @id(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
                               "  return %a\n}\n";
    std::ofstream(prog) << callee << "func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
                        << "  %y = exp %x\n  %p = call @id(%y)\n  return %p\n}\n";
    std::ofstream(input) << callee << "func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
                         << "  %p = call @id(%x)\n  return %p\n}\n";
    auto run = [&](const std::filesystem::path& program, const std::string& out) {
        return test::runCommand(fmt::format("{} run {} --outputs {} -o {}", PTO_CLI,
                                            test::shellQuote(program.string()),
                                            test::shellQuote((dir / out).string()),
                                            test::shellQuote((dir / (out + ".db")).string())));
    };
    ASSERT_EQ(run(prog, "o").exitCode, 0);
    EXPECT_TRUE(std::filesystem::exists(dir / "o" / "p.npy"));
    EXPECT_FALSE(std::filesystem::exists(dir / "o" / "y.npy"));
    auto stored = test::runCommand(
        fmt::format("{} query {} \"SELECT name FROM tensor WHERE role = 'output'\"", PTO_CLI,
                    test::shellQuote((dir / "o.db").string())));
    EXPECT_NE(stored.out.find("p"), std::string::npos) << stored.out;
    EXPECT_EQ(stored.out.find("y"), std::string::npos) << stored.out;
    ASSERT_EQ(run(input, "i").exitCode, 0);
    EXPECT_TRUE(std::filesystem::exists(dir / "i" / "out0.npy"));
}

TEST(PtoRunCli, InputOfTheWrongShapeIsAnInputError) {
    test::TempDir dir;
    auto bad = dir / "x.npy";
    writeTensor(bad, TensorData(DType::F16, Shape{8, 8}));
    auto r = test::runCommand(fmt::format("{} run {} --inputs {}", PTO_CLI,
                                          sourcePath("samples/softmax.pto"),
                                          test::shellQuote(bad.string())));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("8x8"), std::string::npos) << r.err;
}

TEST(PtoRunCli, AnEmptyInputNameSaysWhichInputAndHow) {
    // `--inputs ""` once said "error: no such file", naming nothing.
    auto r = test::runCommand(
        fmt::format("{} run {} --inputs ''", PTO_CLI, sourcePath("samples/softmax.pto")));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("--inputs: file 1 of 1 (input %x of @softmax) is an empty name"),
              std::string::npos)
        << r.err;
}

TEST(PtoRunCli, UnknownArchKeyIsAnInputError) {
    auto r = test::runCommand(
        fmt::format("{} run {} --set hbm.bandwith=2x", PTO_CLI, sourcePath("samples/softmax.pto")));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("hbm.bandwidth"), std::string::npos) << r.err;
}

} // namespace
} // namespace pto
