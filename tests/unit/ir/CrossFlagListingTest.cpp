// Cross-core flags and fused clusters in the PTO listing: the hand-written ping-pong listing
// round-trips with every new field, parse errors name the position, and each verifier rule
// (flag ids, peers, matching sets, cluster membership) gives its message.
#include "compiler/ir/PtoParser.h"
#include "compiler/ir/PtoPrinter.h"
#include "compiler/ir/Verifier.h"

#include "tests/support/ReadFile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace pto {
namespace {

using test::readFile;

const std::string kPingPong =
    PTO_SOURCE_DIR "/tests/integration/run/programs/cross_pingpong.ptoasm";

TEST(CrossFlagListing, PingPongRoundTripsWithPeersIdsAndClusters) {
    PtoProgram p = parsePtoProgram(readFile(kPingPong), kPingPong);
    ASSERT_EQ(p.kernels.size(), 3u);
    const std::string text = printPtoProgram(p);
    PtoProgram back = parsePtoProgram(text, "back.ptoasm");
    EXPECT_EQ(printPtoProgram(back), text);
    ASSERT_EQ(back.exec.tasks.size(), 3u);
    EXPECT_EQ(back.exec.tasks[0].cluster, 0u);
    EXPECT_EQ(back.exec.tasks[0].role(), ClusterRole::Aic);
    EXPECT_EQ(back.exec.tasks[1].role(), ClusterRole::Aiv0);
    EXPECT_EQ(back.exec.tasks[2].role(), ClusterRole::Aiv1);
    int sets = 0, waits = 0;
    for (const Kernel& k : back.kernels)
        for (const Instr& in : k.instrs) {
            sets += in.opcode == Opcode::CrossSetFlag;
            waits += in.opcode == Opcode::CrossWaitFlag;
        }
    EXPECT_EQ(sets, 8 + 2 * 2); // the AIC fills 4 slots for 2 AIVs; each AIV frees 2
    EXPECT_EQ(waits, 2 * 2 + 2 * 4);
    EXPECT_NE(text.find("  FIX  CROSS_SET_FLAG aiv1 1\n"), std::string::npos);
    EXPECT_NE(text.find("  MTE2 CROSS_WAIT_FLAG aic 0\n"), std::string::npos);
    EXPECT_NE(text.find("task 0 @cube aic \"fused\" cluster 0\n"), std::string::npos);
    EXPECT_NE(text.find("task 2 @vec1 aiv \"fused\" cluster 0/1\n"), std::string::npos);
}

const std::string kHead = "pto @p\ngm %x : f32[8x32] @0x0 input\n";

std::string errorOf(const std::string& text) {
    try {
        parsePtoProgram(text, "c.ptoasm");
    } catch (const CompileError& e) {
        return e.what();
    }
    return "no error";
}

TEST(CrossFlagListing, ParseErrorsNameThePosition) {
    EXPECT_NE(errorOf(kHead + "kernel @k aic {\n  S CROSS_SET_FLAG aiv2 0\n}\n")
                  .find("c.ptoasm:4:20: error: unknown peer core 'aiv2' (aic, aiv0 or aiv1)"),
              std::string::npos)
        << errorOf(kHead + "kernel @k aic {\n  S CROSS_SET_FLAG aiv2 0\n}\n");
    EXPECT_NE(errorOf(kHead + "kernel @k aiv {\n}\ntask 0 @k aiv cluster 0/2\n")
                  .find("c.ptoasm:5:25: error: the AIV of the cluster 2 is out of range (0..1)"),
              std::string::npos)
        << errorOf(kHead + "kernel @k aiv {\n}\ntask 0 @k aiv cluster 0/2\n");
}

// A two-core cluster: the AIC signals aiv0 with flag 0 and waits for flag 1 from it.
std::string cluster(const std::string& cube, const std::string& vec, const std::string& tasks) {
    return kHead + "kernel @cube aic {\n" + cube + "}\nkernel @vec aiv {\n" + vec + "}\n" + tasks;
}
const std::string kCube = "  S CROSS_SET_FLAG aiv0 0\n  S CROSS_WAIT_FLAG aiv0 1\n";
const std::string kVec = "  S CROSS_WAIT_FLAG aic 0\n  S CROSS_SET_FLAG aic 1\n";
const std::string kTasks = "task 0 @cube aic cluster 0\ntask 1 @vec aiv cluster 0/0\n";

TEST(CrossFlagVerifier, AcceptsAMatchedCluster) {
    EXPECT_EQ(errorOf(cluster(kCube, kVec, kTasks)), "no error");
}

TEST(CrossFlagVerifier, CatchesEachDefect) {
    struct Case {
        std::string text;
        std::string message;
    };
    const Case cases[] = {
        {cluster("  S CROSS_SET_FLAG aiv0 16\n", kVec, kTasks),
         "kernel @cube instr 0 (CROSS_SET_FLAG): cross-core flag id 16 is out of range 0..15"},
        {cluster("  S CROSS_SET_FLAG aic 0\n", kVec, kTasks),
         "an AIC's cross-core peer is aiv0 or aiv1, not itself"},
        {cluster("  S CROSS_SET_FLAG aiv0 0\n",
                 "  S CROSS_WAIT_FLAG aic 0\n  S CROSS_SET_FLAG aiv0 1\n", kTasks),
         "kernel @vec instr 1 (CROSS_SET_FLAG): task 1 is aiv0 of cluster 0: a core cannot "
         "signal itself"},
        {cluster(kCube + "  S CROSS_SET_FLAG aiv1 0\n", kVec, kTasks),
         "kernel @cube instr 2 (CROSS_SET_FLAG): names aiv1, but cluster 0 (task 0) has no aiv1 "
         "task"},
        {cluster(kCube, "  S CROSS_WAIT_FLAG aic 0\n  S CROSS_SET_FLAG aic 2\n", kTasks),
         "kernel @cube instr 1 (CROSS_WAIT_FLAG): task 0 (aic of cluster 0) waits for "
         "cross-core flag 1 of aiv0, but kernel @vec (task 1, aiv0) never sets it for aic"},
        {cluster(kCube, kVec, "task 0 @cube aic cluster 0\ntask 1 @vec aiv\n"),
         "task 1 runs kernel @vec, which uses cross-core flags, outside a cluster"},
        {cluster(kCube, kVec, kTasks + "task 2 @vec aiv cluster 0/0\n"),
         "tasks 1 and 2 are both aiv0 of cluster 0"},
        {cluster(kCube, kVec, kTasks + "dep 0 -> 1 raw\n"),
         "task 1 of cluster 0 depends on task 0 of the same cluster (its tasks start together)"},
        {cluster(kCube, kVec, "task 0 @cube aic cluster 0/1\ntask 1 @vec aiv cluster 0/0\n"),
         "task 0 is AIV 1 of cluster 0; a cluster has an AIC and AIVs 0 and 1"},
    };
    for (const Case& c : cases) {
        const std::string got = errorOf(c.text);
        EXPECT_NE(got.find(c.message), std::string::npos)
            << "want: " << c.message << "\ngot: " << got;
    }
}

} // namespace
} // namespace pto
