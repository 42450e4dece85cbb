// Kernels shared by isomorphic tasks, simulated (compiler/ir/PtoShare.h): a hand-written listing
// whose tasks rebase one kernel against NumPy, and flash attention with sharing on against the
// same program compiled without it — bit for bit, cycle for cycle — and against PyTorch.
#include "compiler/ir/PtoShare.h"
#include "driver/Session.h"
#include "simulator/Simulator.h"
#include "tests/support/Process.h"
#include "tests/support/ReadFile.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace pto {
namespace {

std::string sourcePath(const std::string& rel) {
    return fmt::format("{}/{}", PTO_SOURCE_DIR, rel);
}

using test::readFile;

bool sameBytes(const TensorData& a, const TensorData& b) {
    return a.shape == b.shape && a.dtype == b.dtype && a.bytes == b.bytes;
}

// Everything a user compares between two runs: cycles, outputs, per-pipe busy time, traffic.
void expectSameRun(const sim::SimResult& a, const sim::SimResult& b) {
    EXPECT_EQ(a.totalCycles.count(), b.totalCycles.count());
    EXPECT_EQ(a.instructions, b.instructions);
    ASSERT_EQ(a.outputs.size(), b.outputs.size());
    for (size_t i = 0; i < a.outputs.size(); ++i)
        EXPECT_TRUE(sameBytes(a.outputs[i].second, b.outputs[i].second)) << a.outputs[i].first;
    ASSERT_EQ(a.cores.size(), b.cores.size());
    for (size_t c = 0; c < a.cores.size(); ++c)
        for (int p = 0; p < kPipeCount; ++p)
            EXPECT_EQ(a.cores[c].busy[size_t(p)].count(), b.cores[c].busy[size_t(p)].count())
                << "core " << c << " pipe " << p;
    ASSERT_EQ(a.tasks.size(), b.tasks.size());
    for (size_t t = 0; t < a.tasks.size(); ++t) {
        EXPECT_EQ(a.tasks[t].start.count(), b.tasks[t].start.count()) << "task " << t;
        EXPECT_EQ(a.tasks[t].end.count(), b.tasks[t].end.count()) << "task " << t;
    }
    EXPECT_EQ(a.bytesMoved, b.bytesMoved);
    EXPECT_EQ(a.memory.l2HitBytes, b.memory.l2HitBytes);
    EXPECT_EQ(a.memory.hbmReadBytes, b.memory.hbmReadBytes);
    EXPECT_EQ(a.memory.hbmWriteBytes, b.memory.hbmWriteBytes);
}

TEST(SharedKernelListing, EachTaskSquaresItsOwnRowsAsNumPyDoes) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "/usr/bin/python3 with numpy is needed";
    RunOptions o;
    o.program = sourcePath("tests/integration/run/programs/shared_rows.ptoasm");
    o.sim.traceLevel = sim::TraceLevel::None;
    const RunResult r = runProgram(o);
    ASSERT_EQ(r.faultMessage, "");
    ASSERT_EQ(r.state.pto.kernels.size(), 1u);
    ASSERT_EQ(r.state.pto.exec.tasks.size(), 5u);
    test::TempDir dir;
    writeTensor(dir / "x.npy", r.inputs.at(0));
    const auto py = test::runCommand(
        fmt::format("/usr/bin/python3 -c \"import numpy as n; x = n.load('{0}/x.npy'); "
                    "n.save('{0}/want.npy', (x * x).astype(n.float32))\"",
                    dir.path().string()));
    ASSERT_EQ(py.exitCode, 0) << py.err;
    const TensorData want = readTensor(dir / "want.npy");
    EXPECT_TRUE(sameBytes(r.sim.outputs.at(0).second, want));
}

// Task 4 moves the kernel by a quarter row (0x100 B): its loads and stores leave the 512 B GM
// alignment and stream slower (dma.misaligned_efficiency), exactly as written out.
TEST(SharedKernelListing, RunsAsItsWrittenOutTwin) {
    RunOptions o;
    o.program = sourcePath("tests/integration/run/programs/shared_rows.ptoasm");
    o.sim.traceLevel = sim::TraceLevel::None;
    const RunResult r = runProgram(o);
    ASSERT_EQ(r.faultMessage, "");
    const PtoProgram expanded = expandSharedKernels(r.state.pto);
    EXPECT_EQ(expanded.kernels.size(), 5u);
    const sim::SimResult twin = sim::simulate(expanded, r.arch, r.inputs, o.sim);
    expectSameRun(r.sim, twin);
}

// A rebase that cuts an operand in two is the listing verifier's clean error through the CLI:
// exit 2, the file, the task and the instruction, and no trace file left behind.
TEST(SharedKernelListing, ARebaseCuttingAnOperandIsACleanErrorOfTheCli) {
    test::TempDir dir;
    std::string text = readFile(sourcePath("tests/integration/run/programs/shared_rows.ptoasm"));
    const std::string good = "task 1 @rows aiv rebase [0x0, 0x20000) +0x4000";
    ASSERT_NE(text.find(good), std::string::npos);
    text.replace(text.find(good), good.size(), "task 1 @rows aiv rebase [0x0, 0x2000) +0x4000");
    const std::string listing = (dir / "cut.ptoasm").string();
    std::ofstream(listing) << text;
    const std::string db = (dir / "cut.db").string();
    const auto r = test::runCommand(
        fmt::format("{} run {} -o {}", PTO_CLI, test::shellQuote(listing), test::shellQuote(db)));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("cut.ptoasm"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("kernel @rows instr 0 (TLOAD): operand 1 covers GM [0x0, 0x4000), which "
                         "straddles the boundary of task 1's rebase [0x0, 0x2000)"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(db));
}

// flash_attention_long.pto at sequence length S (S / 256 K/V blocks of 256 keys).
std::string flashAttentionTwin(const test::TempDir& dir, int s) {
    std::string text = readFile(sourcePath("samples/flash_attention_long.pto"));
    text = std::regex_replace(text, std::regex("32768x"), fmt::format("{}x", s));
    text = std::regex_replace(text, std::regex("to 128 step"), fmt::format("to {} step", s / 256));
    const std::string path = (dir / fmt::format("fa_{}.pto", s)).string();
    std::ofstream(path) << text;
    return path;
}

RunResult runTwin(const std::string& path, ShareKernels share, bool numerics = true) {
    RunOptions o;
    o.program = path;
    o.seed = 3;
    o.sim.traceLevel = sim::TraceLevel::None;
    o.sim.timingOnly = !numerics;
    o.compile.shareKernels = share;
    o.keepLowering = false;
    return runProgram(o);
}

TEST(SharedFlashAttention, AtS4096TwoKernelTextsRunAsTheNinetySixKernelsBitForBit) {
    test::TempDir dir;
    const std::string path = flashAttentionTwin(dir, 4096);
    const RunResult off = runTwin(path, ShareKernels::Off);
    const RunResult on = runTwin(path, ShareKernels::On);
    ASSERT_EQ(off.faultMessage, "");
    ASSERT_EQ(on.faultMessage, "");
    // 32 clusters of an AIC and two AIV kernels; the two AIV kernels of a cluster differ only
    // in their rows too, so one AIC and one AIV text remain.
    EXPECT_EQ(off.state.pto.kernels.size(), 96u);
    EXPECT_EQ(on.state.pto.kernels.size(), 2u);
    EXPECT_EQ(on.state.pto.exec.tasks.size(), 96u);
    EXPECT_EQ(on.state.shareNote, "96 kernels share 2 kernel texts");
    ASSERT_EQ(on.sim.outputs.size(), 1u);
    expectSameRun(on.sim, off.sim);
    // auto leaves a program this small alone.
    EXPECT_EQ(runTwin(path, ShareKernels::Auto, false).state.pto.kernels.size(), 96u);
    if (!test::pythonHas("numpy torch")) GTEST_SKIP() << "/usr/bin/python3 with torch is needed";
    for (size_t i = 0; i < 3; ++i) writeTensor(dir / fmt::format("in{}.npy", i), on.inputs.at(i));
    const auto py = test::runCommand(fmt::format(
        "/usr/bin/python3 -c \"import numpy as n, torch as t; d = '{}'; "
        "q, k, v = (t.from_numpy(n.load(d + '/in%d.npy' % i)).double() for i in range(3)); "
        "o = t.softmax(q @ k.T * 0.08838834764831845, dim=1) @ v; "
        "n.save(d + '/want.npy', o.float().numpy())\"",
        dir.path().string()));
    ASSERT_EQ(py.exitCode, 0) << py.err;
    const TensorData want = readTensor(dir / "want.npy");
    const TensorData& got = on.sim.outputs.at(0).second;
    ASSERT_EQ(got.numel(), want.numel());
    // P and the output are f16: a few f16 ulps of the f64 reference.
    int64_t bad = 0;
    for (int64_t i = 0; i < got.numel(); ++i)
        bad += std::fabs(got.get(i) - want.get(i)) > 2e-3 + 1e-2 * std::fabs(want.get(i));
    EXPECT_EQ(bad, 0) << "of " << got.numel();
}

// `pto report --format json` of a traced run (the CLI, as a user runs it).
nlohmann::json reportOf(const test::TempDir& dir, const std::string& program,
                        const std::string& share) {
    const std::string db = (dir / fmt::format("{}.db", share)).string();
    const auto run = test::runCommand(
        fmt::format("{} run {} --share-kernels {} --timing-only --trace instructions -o {}",
                    PTO_CLI, test::shellQuote(program), share, test::shellQuote(db)));
    EXPECT_EQ(run.exitCode, 0) << run.err;
    const auto report =
        test::runCommand(fmt::format("{} report {} --format json", PTO_CLI, test::shellQuote(db)));
    EXPECT_TRUE(report.exitCode == 0 || report.exitCode == 1) << report.err; // 1: findings
    return nlohmann::json::parse(report.out, nullptr, false);
}

// The trace holds each shared kernel's instructions once; the tasks' slices link to them and
// the kernel rows list the tasks, so the report counts every launch: the same FLOPs, GM bytes,
// throughput and top ops as the unshared run's.
// The `pto report --format json` of flash attention at `seq` with shared kernels, after
// checking that its summary and top ops equal the unshared run's.
nlohmann::json sharedReportEqualToUnshared(int seq) {
    test::TempDir dir;
    const std::string path = flashAttentionTwin(dir, seq);
    nlohmann::json on = reportOf(dir, path, "on");
    nlohmann::json off = reportOf(dir, path, "off");
    EXPECT_TRUE(on.is_object() && off.is_object());
    if (!on.is_object() || !off.is_object()) return {};
    on["summary"].erase("trace");
    off["summary"].erase("trace");
    EXPECT_EQ(on["summary"], off["summary"]);
    EXPECT_EQ(on["top_ops"], off["top_ops"]);
    return on;
}

TEST(SharedFlashAttention, TheReportOfASharedRunIsTheUnsharedOnes) {
    const nlohmann::json on = sharedReportEqualToUnshared(4096);
    ASSERT_TRUE(on.is_object());
    EXPECT_GT(on["summary"]["gm_bytes"].get<double>(), 3e8);
}

// At S = 8192 (64 clusters) the clusters are compiled through a few probes and replicated: most
// tasks have no Exec-stage node, and the report still counts every launch of the shared texts
// (it read 36 of the 192 tasks' FLOPs and GM bytes before: 5.3x too few).
TEST(SharedFlashAttention, TheReportOfAProbedSharedRunIsTheUnsharedOnes) {
    const nlohmann::json on = sharedReportEqualToUnshared(8192);
    ASSERT_TRUE(on.is_object());
    EXPECT_EQ(on["summary"]["tasks"], 192);
}

// At S = 1024 fuse-cube-vector does not fuse (8 clusters would use a third of the AICs): the
// unfused tasks share kernels as well, and run as the unshared program does.
TEST(SharedFlashAttention, UnfusedAtS1024SharesAndRunsBitForBit) {
    test::TempDir dir;
    const std::string path = flashAttentionTwin(dir, 1024);
    const RunResult off = runTwin(path, ShareKernels::Off);
    const RunResult on = runTwin(path, ShareKernels::On);
    ASSERT_EQ(off.faultMessage, "");
    ASSERT_EQ(on.faultMessage, "");
    EXPECT_LT(on.state.pto.kernels.size(), off.state.pto.kernels.size() / 4);
    expectSameRun(on.sim, off.sim);
}

} // namespace
} // namespace pto
