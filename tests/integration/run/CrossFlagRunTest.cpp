// Fused cube-vector clusters simulated end to end: the hand-written ping-pong listing's output
// against NumPy, its three tasks started together on one AIC and its two AIVs, every hand-off
// a flag flow between the cores in the trace, and cross-core waits that can never be satisfied
// reported as deadlocks naming both cores and the cycle each wait began.
#include "compiler/FaultInjection.h"
#include "driver/Session.h"
#include "tests/support/Process.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

namespace pto {
namespace {

std::string programPath(const std::string& name) {
    return fmt::format("{}/tests/integration/run/programs/{}.ptoasm", PTO_SOURCE_DIR, name);
}

RunResult runCluster(const std::string& name, const std::string& fault = "",
                     bool checkHazards = true) {
    RunOptions o;
    o.program = programPath(name);
    o.seed = 7;
    o.sim.traceLevel = sim::TraceLevel::None;
    o.sim.checkHazards = checkHazards;
    if (!fault.empty()) o.compile.fault = parseFaultSpec(fault);
    return runProgram(o);
}

TEST(CrossFlagRun, PingPongOutputAgreesWithNumPy) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "/usr/bin/python3 with numpy is needed";
    RunResult r = runCluster("cross_pingpong");
    ASSERT_EQ(r.faultMessage, "");
    EXPECT_TRUE(r.sim.warnings.empty()) << r.sim.warnings.front().message;
    test::TempDir dir;
    writeTensor(dir / "a.npy", r.inputs.at(0));
    writeTensor(dir / "b.npy", r.inputs.at(1));
    writeTensor(dir / "out.npy", r.sim.outputs.at(0).second);
    auto py = test::runCommand(fmt::format(
        "/usr/bin/python3 -c \"import numpy as np, sys; d=sys.argv[1]; "
        "a=np.load(d+'/a.npy').astype(np.float64); b=np.load(d+'/b.npy').astype(np.float64); "
        "o=np.load(d+'/out.npy'); w=2*a@b; "
        "print(int((np.abs(o-w) > 1e-5 + 1e-5*np.abs(w)).sum()), o.shape)\" {}",
        test::shellQuote(dir.path().string())));
    ASSERT_EQ(py.exitCode, 0) << py.err;
    EXPECT_EQ(py.out, "0 (16, 128)\n");
}

TEST(CrossFlagRun, ClusterTasksStartTogetherOnOneAicAndItsTwoAivs) {
    RunResult r = runCluster("cross_pingpong");
    ASSERT_EQ(r.faultMessage, "");
    ASSERT_EQ(r.sim.tasks.size(), 3u);
    EXPECT_EQ(r.sim.tasks[0].coreType, CoreType::AIC);
    EXPECT_EQ(r.sim.tasks[0].core, 0);
    EXPECT_EQ(r.sim.tasks[1].coreType, CoreType::AIV);
    EXPECT_EQ(r.sim.tasks[1].core, 0);
    EXPECT_EQ(r.sim.tasks[2].core, 1);
    for (const sim::TaskRun& t : r.sim.tasks) EXPECT_EQ(t.start, r.sim.tasks[0].start);
    // The AIC runs ahead: it has stored block 1 before the AIVs finished block 0.
    EXPECT_LT(r.sim.tasks[0].end, r.sim.tasks[1].end);
}

TEST(CrossFlagRun, EveryHandOffIsAFlowBetweenTheCores) {
    test::TempDir dir;
    const std::string db = (dir / "run.db").string();
    auto run = test::runCommand(fmt::format("{} run {} --trace full -o {}", PTO_CLI,
                                            programPath("cross_pingpong"), test::shellQuote(db)));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    // Flows from a CROSS_SET_FLAG slice to the CROSS_WAIT_FLAG slice on another core.
    auto q = test::runCommand(fmt::format(
        "{} query {} \"SELECT count(*) AS n FROM flow f JOIN slice_named s ON s.id = f.slice_out "
        "JOIN slice_named w ON w.id = f.slice_in JOIN track ts ON ts.id = s.track_id JOIN track "
        "tw ON tw.id = w.track_id WHERE f.kind = 'flag' AND s.name = 'CROSS_SET_FLAG' AND w.name "
        "= 'CROSS_WAIT_FLAG' AND ts.parent_id <> tw.parent_id\"",
        PTO_CLI, test::shellQuote(db)));
    ASSERT_EQ(q.exitCode, 0) << q.err;
    EXPECT_NE(q.out.find("\n12\n"), std::string::npos) << q.out; // 8 full + 4 free signals
}

// The AIC's kernel holds waits 0-3 (slot free), @vec0 waits 4-7 (slot full).
TEST(CrossFlagRun, DroppedFullWaitIsCaughtAsACrossCoreRace) {
    RunResult r = runCluster("cross_pingpong", "drop-cross-wait:5");
    ASSERT_TRUE(r.state.planted);
    EXPECT_NE(r.state.planted->description.find("removed CROSS_WAIT_FLAG aic 1 (instr"),
              std::string::npos)
        << r.state.planted->description;
    const std::string& m = r.faultMessage;
    EXPECT_NE(m.find("cross-core race on workspace GM"), std::string::npos) << m;
    EXPECT_NE(m.find("AIC 0"), std::string::npos) << m;
    EXPECT_NE(m.find("AIV 0"), std::string::npos) << m;
    EXPECT_NE(m.find("a CROSS_WAIT_FLAG is missing"), std::string::npos) << m;
}

TEST(CrossFlagRun, DroppedFreeWaitIsCaughtAsACrossCoreRace) {
    RunResult r = runCluster("cross_pingpong", "drop-cross-wait:0");
    const std::string& m = r.faultMessage;
    EXPECT_NE(m.find("cross-core race on workspace GM"), std::string::npos) << m;
    EXPECT_NE(m.find("AIC 0 pipe FIX TSTORE writes it"), std::string::npos) << m;
    EXPECT_NE(m.find("AIV 0 (aiv0 of cluster 0) read it"), std::string::npos) << m;
}

// Without the check the race shows in the numbers: the dropped wait changes the output.
TEST(CrossFlagRun, DroppedWaitChangesTheNumbersWhenUnchecked) {
    RunResult good = runCluster("cross_pingpong");
    RunResult bad = runCluster("cross_pingpong", "drop-cross-wait:5", false);
    ASSERT_EQ(good.faultMessage, "");
    ASSERT_EQ(bad.faultMessage, "");
    const TensorData& a = good.sim.outputs.at(0).second;
    const TensorData& b = bad.sim.outputs.at(0).second;
    int64_t differ = 0;
    for (int64_t i = 0; i < a.numel(); ++i) differ += a.get(i) != b.get(i);
    EXPECT_GT(differ, 0);
}

TEST(CrossFlagRun, DropCrossWaitWithoutCandidateSaysHowManyThereAre) {
    EXPECT_THROW(
        {
            try {
                runCluster("cross_pingpong", "drop-cross-wait:99");
            } catch (const std::invalid_argument& e) {
                EXPECT_NE(std::string(e.what()).find("the program has 12 cross-core waits"),
                          std::string::npos)
                    << e.what();
                throw;
            }
        },
        std::invalid_argument);
}

TEST(CrossFlagRun, ReportNamesTheHandOffWaitsWithAGain) {
    test::TempDir dir;
    const std::string db = (dir / "run.db").string();
    auto run = test::runCommand(fmt::format("{} run {} --trace full -o {}", PTO_CLI,
                                            programPath("cross_pingpong"), test::shellQuote(db)));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto report =
        test::runCommand(fmt::format("{} report --exit-zero {}", PTO_CLI, test::shellQuote(db)));
    ASSERT_EQ(report.exitCode, 0) << report.err;
    // The cube is the slower side here (4 matmul blocks against 4 small TMULS per AIV): only
    // the vector cores wait, and the finding says so with a gain.
    EXPECT_NE(report.out.find("handoff_waits: cube↔vector hand-off waits: the vector cores wait "),
              std::string::npos)
        << report.out;
    EXPECT_NE(report.out.find("cube tasks 0 pipe-cycles"), std::string::npos) << report.out;
    EXPECT_NE(report.out.find("so the cube is the slower side"), std::string::npos) << report.out;
    EXPECT_NE(report.out.find("estimated gain: "), std::string::npos) << report.out;
}

// A compiled flash attention (S = 2048: 16 clusters, one ping-pong workspace set each, so the
// GM table holds dozens of workspaces): a wait dropped in the last cluster is caught on that
// cluster's own workspace, not only on the first one the program declares.
TEST(CrossFlagRun, DroppedWaitInALateClusterOfCompiledAttentionIsCaught) {
    std::ifstream in(fmt::format("{}/samples/flash_attention_long.pto", PTO_SOURCE_DIR));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(text.empty());
    auto replaceAll = [&](const std::string& from, const std::string& to) {
        for (size_t at = text.find(from); at != std::string::npos;
             at = text.find(from, at + to.size()))
            text.replace(at, from.size(), to);
    };
    replaceAll("32768x", "2048x");
    replaceAll("to 128 step", "to 8 step");
    test::TempDir dir;
    const std::string path = (dir / "fa2048.pto").string();
    std::ofstream(path) << text;
    RunOptions o;
    o.program = path;
    o.sim.timingOnly = true;
    o.sim.traceLevel = sim::TraceLevel::None;
    o.compile.fault = parseFaultSpec("drop-cross-wait:1300"); // of 1344, in cluster 15 of 16
    RunResult r = runProgram(o);
    const std::string& m = r.faultMessage;
    EXPECT_NE(m.find("cross-core race on workspace GM"), std::string::npos) << m;
    EXPECT_NE(m.find("(aiv0 of cluster 15)"), std::string::npos) << m;
    EXPECT_NE(m.find("a CROSS_WAIT_FLAG is missing"), std::string::npos) << m;
}

// The last CROSS_WAIT_FLAG of flash_attention_short (of 192; an AIV's wait for the last P·V block
// of cluster 15) dropped: the AIV reads the slot before its AIC wrote it and ends its task; the
// AIC's write must still be compared with that read (it was not while the check looked up the
// peer's cluster in the core's current state: 32 of the 192 removals ran to the end unreported).
TEST(CrossFlagRun, AReadByAnAivWhoseTaskHasEndedIsStillComparedWithItsAicsWrite) {
    RunOptions o;
    o.program = fmt::format("{}/samples/flash_attention_short.pto", PTO_SOURCE_DIR);
    o.sim.timingOnly = true;
    o.sim.traceLevel = sim::TraceLevel::None;
    o.compile.fault = parseFaultSpec("drop-cross-wait:191");
    RunResult r = runProgram(o);
    const std::string& m = r.faultMessage;
    EXPECT_NE(m.find("cross-core race on workspace GM"), std::string::npos) << m;
    EXPECT_NE(m.find("AIC 15 pipe FIX TSTORE writes it"), std::string::npos) << m;
    EXPECT_NE(m.find("AIV 31 (aiv1 of cluster 15) read it"), std::string::npos) << m;
}

// A cluster run may use only some of a hardware cluster's cores: cluster 1 (AIV 1 alone) starts
// on hardware cluster 0 while cluster 0's AIC still runs. Starting it must not forget cluster
// 0's hand-offs: with AIV 0's wait dropped, its early read still meets the AIC's write (it ran to
// the end with only a warning while every dispatch cleared the hardware cluster's records).
TEST(CrossFlagRun, AnotherRunOnTheSameHardwareClusterKeepsTheHandOffsOfOneStillRunning) {
    ASSERT_EQ(runCluster("cross_partial_clusters").faultMessage, "");
    RunResult unchecked = runCluster("cross_partial_clusters", "drop-cross-wait:0", false);
    ASSERT_EQ(unchecked.sim.tasks.size(), 3u);
    EXPECT_EQ(unchecked.sim.tasks[2].coreType, CoreType::AIV);
    EXPECT_EQ(unchecked.sim.tasks[2].core, 1);
    EXPECT_LT(unchecked.sim.tasks[2].start, unchecked.sim.tasks[0].end);
    RunResult r = runCluster("cross_partial_clusters", "drop-cross-wait:0");
    const std::string& m = r.faultMessage;
    EXPECT_NE(m.find("cross-core race on workspace GM"), std::string::npos) << m;
    EXPECT_NE(m.find("AIC 0 pipe FIX TSTORE writes it"), std::string::npos) << m;
    EXPECT_NE(m.find("AIV 0 (aiv0 of cluster 0) read it"), std::string::npos) << m;
}

TEST(CrossFlagRun, WaitWithNoMatchingSetIsADeadlockNamingBothCores) {
    RunResult r = runCluster("cross_missing_set");
    const std::string& m = r.faultMessage;
    EXPECT_NE(m.find("deadlock CROSS_WAIT_FLAG on AIC 0 pipe S"), std::string::npos) << m;
    EXPECT_NE(m.find("waiting for cross-core flag 0 from AIV 0 (aiv0 of cluster 0) since cycle "),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("AIV 0 (aiv0 of cluster 0) has ended with no CROSS_SET_FLAG aic 0 left for "
                     "it (missing cross-core set)"),
              std::string::npos)
        << m;
}

TEST(CrossFlagRun, CrossCoreWaitCycleIsADeadlockWithTheCycle) {
    RunResult r = runCluster("cross_wait_cycle");
    const std::string& m = r.faultMessage;
    EXPECT_NE(m.find("2 pipe(s) blocked"), std::string::npos) << m;
    EXPECT_NE(m.find("cycle of waits: AIC 0 pipe S (CROSS_WAIT_FLAG cross-core flag 1 from AIV 0 "
                     "(aiv0 of cluster 0)) -> AIV 0 pipe S (CROSS_WAIT_FLAG cross-core flag 0 "
                     "from AIC 0 (aic of cluster 0)) -> AIC 0 pipe S"),
              std::string::npos)
        << m;
}

TEST(CrossFlagRun, PtoRunExitsOneOnACrossCoreDeadlock) {
    auto r = test::runCommand(
        fmt::format("{} run {} --trace none", PTO_CLI, programPath("cross_missing_set")));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("missing cross-core set"), std::string::npos) << r.err;
}

} // namespace
} // namespace pto
