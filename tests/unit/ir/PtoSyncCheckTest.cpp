// The static sync check on hand-written PTO listings: a correct double-buffered kernel passes;
// without one of its waits the check names the unordered pair (RAW, WAR), in a counted loop the
// round, and a wait no set matches is a deadlock.
#include "compiler/ir/PtoSyncCheck.h"
#include "compiler/ir/PtoParser.h"

#include <gtest/gtest.h>

#include <string>

namespace pto {
namespace {

// y = exp(x) over 4 tiles of 16x64 f32, double-buffered: inputs in UB 0x0 / 0x1000, outputs in
// 0x2000 / 0x3000. MTE2->V carries a loaded tile to V, V->MTE2 frees an input buffer for the
// third and fourth load, V->MTE3 hands a result to the store, MTE3->V frees an output buffer.
const std::string kDoubleBuffered = R"(pto @dbuf
gm %x : f32[64x64] @0x0 input
gm %y : f32[64x64] @0x4000 output
kernel @k0 aiv {
  MTE2 TLOAD     UB[0x0]:f32[16x64/64], GM[0x0]:f32[16x64/64] !op 1 !loc 3:9
  MTE2 SET_FLAG  MTE2->V 0
  MTE2 TLOAD     UB[0x1000]:f32[16x64/64], GM[0x1000]:f32[16x64/64] !op 2 !loc 3:9
  MTE2 SET_FLAG  MTE2->V 1
  V    WAIT_FLAG MTE2->V 0
  V    TEXP      UB[0x2000]:f32[16x64/64], UB[0x0]:f32[16x64/64] !op 5 !loc 4:9
  V    SET_FLAG  V->MTE2 0
  V    SET_FLAG  V->MTE3 0
  MTE3 WAIT_FLAG V->MTE3 0
  MTE3 TSTORE    GM[0x4000]:f32[16x64/64], UB[0x2000]:f32[16x64/64]
  MTE3 SET_FLAG  MTE3->V 0
  MTE2 WAIT_FLAG V->MTE2 0
  MTE2 TLOAD     UB[0x0]:f32[16x64/64], GM[0x2000]:f32[16x64/64] !op 3 !loc 3:9
  MTE2 SET_FLAG  MTE2->V 0
  V    WAIT_FLAG MTE2->V 1
  V    TEXP      UB[0x3000]:f32[16x64/64], UB[0x1000]:f32[16x64/64] !op 6 !loc 4:9
  V    SET_FLAG  V->MTE2 1
  V    SET_FLAG  V->MTE3 1
  MTE3 WAIT_FLAG V->MTE3 1
  MTE3 TSTORE    GM[0x5000]:f32[16x64/64], UB[0x3000]:f32[16x64/64]
  MTE3 SET_FLAG  MTE3->V 1
  MTE2 WAIT_FLAG V->MTE2 1
  MTE2 TLOAD     UB[0x1000]:f32[16x64/64], GM[0x3000]:f32[16x64/64] !op 4 !loc 3:9
  MTE2 SET_FLAG  MTE2->V 1
  V    WAIT_FLAG MTE2->V 0
  V    WAIT_FLAG MTE3->V 0
  V    TEXP      UB[0x2000]:f32[16x64/64], UB[0x0]:f32[16x64/64] !op 7 !loc 4:9
  V    SET_FLAG  V->MTE3 0
  MTE3 WAIT_FLAG V->MTE3 0
  MTE3 TSTORE    GM[0x6000]:f32[16x64/64], UB[0x2000]:f32[16x64/64]
  V    WAIT_FLAG MTE2->V 1
  V    WAIT_FLAG MTE3->V 1
  V    TEXP      UB[0x3000]:f32[16x64/64], UB[0x1000]:f32[16x64/64] !op 8 !loc 4:9
  V    SET_FLAG  V->MTE3 1
  MTE3 WAIT_FLAG V->MTE3 1
  MTE3 TSTORE    GM[0x7000]:f32[16x64/64], UB[0x3000]:f32[16x64/64]
}
task 0 @k0 aiv "dbuf.0"
)";

// The listing without its `nth` (0-based) line equal to `line`.
std::string without(const std::string& text, const std::string& line, int nth = 0) {
    size_t at = 0;
    for (int i = 0; i <= nth; ++i) {
        at = text.find(line + "\n", i == 0 ? 0 : at + 1);
        if (at == std::string::npos) throw std::logic_error("no such line: " + line);
    }
    return text.substr(0, at) + text.substr(at + line.size() + 1);
}

std::optional<SyncProblem> check(const std::string& text) {
    return checkPtoSync(parsePtoProgram(text, "k.ptoasm"), "k.pto");
}

TEST(PtoSyncCheck, ADoubleBufferedKernelPasses) {
    const std::optional<SyncProblem> problem = check(kDoubleBuffered);
    EXPECT_FALSE(problem) << problem->message;
}

TEST(PtoSyncCheck, WithoutTheWaitForALoadTheCheckNamesTheLoadAndItsReader) {
    // The second tile's compute no longer waits for its load: a RAW on UB 0x1000.
    const std::optional<SyncProblem> p =
        check(without(kDoubleBuffered, "  V    WAIT_FLAG MTE2->V 1"));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->kind, SyncProblem::Kind::Unordered);
    EXPECT_EQ(hazardKindName(*p), "RAW");
    EXPECT_EQ(p->first.opcode, Opcode::TLoad);
    EXPECT_EQ(p->first.pipe, Pipe::MTE2);
    EXPECT_EQ(p->first.instrIndex, 2u);
    EXPECT_EQ(p->second.opcode, Opcode::TExp);
    EXPECT_EQ(p->second.pipe, Pipe::V);
    EXPECT_EQ(p->second.instrIndex, 14u);
    EXPECT_EQ(p->second.tileOp, 6u);
    EXPECT_EQ(p->first.region.space, MemSpace::UB);
    EXPECT_EQ(p->first.region.lo, 0x1000);
    EXPECT_EQ(p->second.loc.line, 4u);
    EXPECT_EQ(p->message,
              "kernel @k0: TLOAD (pipe MTE2, instr 2, tile op #2, k.pto:3:9) writes UB [0x1000, "
              "0x2000) and TEXP (pipe V, instr 14, tile op #6, k.pto:4:9) reads UB [0x1000, "
              "0x2000) are not ordered (RAW): no SET_FLAG/WAIT_FLAG pair or barrier orders them");
}

TEST(PtoSyncCheck, WithoutTheWaitForAFreedBufferTheReloadIsAWar) {
    // The third load no longer waits until the first compute has read its buffer.
    const std::optional<SyncProblem> p =
        check(without(kDoubleBuffered, "  MTE2 WAIT_FLAG V->MTE2 0"));
    ASSERT_TRUE(p);
    EXPECT_EQ(hazardKindName(*p), "WAR");
    EXPECT_EQ(p->first.opcode, Opcode::TExp); // reads UB 0x0 …
    EXPECT_EQ(p->first.instrIndex, 5u);
    EXPECT_FALSE(p->first.region.write);
    EXPECT_EQ(p->second.opcode, Opcode::TLoad); // … which the third load overwrites
    EXPECT_EQ(p->second.instrIndex, 11u);
    EXPECT_TRUE(p->second.region.write);
}

TEST(PtoSyncCheck, WithoutTheWaitForAStoredOutputTheRewriteIsAWar) {
    // The third compute rewrites output buffer 0x2000 while the first store may still read it.
    const std::optional<SyncProblem> p =
        check(without(kDoubleBuffered, "  V    WAIT_FLAG MTE3->V 0"));
    ASSERT_TRUE(p);
    EXPECT_EQ(hazardKindName(*p), "WAR");
    EXPECT_EQ(p->first.opcode, Opcode::TStore);
    EXPECT_EQ(p->second.opcode, Opcode::TExp);
    EXPECT_EQ(p->second.tileOp, 7u);
}

TEST(PtoSyncCheck, EveryWaitOfTheDoubleBufferedKernelIsNeeded) {
    // Each WAIT_FLAG line dropped in turn: the check fails (an unordered pair, or a deadlock
    // when a later wait of the same flag is left without a set).
    int waits = 0;
    for (size_t at = kDoubleBuffered.find("WAIT_FLAG"); at != std::string::npos;
         at = kDoubleBuffered.find("WAIT_FLAG", at + 1), ++waits) {
        const size_t begin = kDoubleBuffered.rfind('\n', at) + 1;
        const size_t end = kDoubleBuffered.find('\n', at) + 1;
        const std::string text = kDoubleBuffered.substr(0, begin) + kDoubleBuffered.substr(end);
        EXPECT_TRUE(check(text)) << "dropped: " << kDoubleBuffered.substr(begin, end - begin);
    }
    EXPECT_EQ(waits, 12);
}

TEST(PtoSyncCheck, AWaitWithoutASetIsADeadlock) {
    const std::optional<SyncProblem> p =
        check(without(kDoubleBuffered, "  MTE2 SET_FLAG  MTE2->V 0"));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->kind, SyncProblem::Kind::Stuck);
    EXPECT_EQ(p->first.opcode, Opcode::WaitFlag);
    EXPECT_EQ(p->first.pipe, Pipe::V);
    EXPECT_NE(p->message.find("can never start: no SET_FLAG MTE2->V#0 is left to match it"),
              std::string::npos)
        << p->message;
}

TEST(PtoSyncCheck, ABarrierOrdersThePipeItAwaits) {
    const std::string ordered = R"(pto @b
gm %x : f32[16x64] @0x0 input
kernel @k0 aiv {
  MTE2 TLOAD     UB[0x0]:f32[16x64/64], GM[0x0]:f32[16x64/64]
  V    BARRIER   MTE2
  V    TEXP      UB[0x1000]:f32[16x64/64], UB[0x0]:f32[16x64/64]
}
task 0 @k0 aiv
)";
    EXPECT_FALSE(check(ordered));
    // A barrier on another pipe orders nothing for V.
    std::string text = ordered;
    text.replace(text.find("  V    BARRIER"), 6, "  MTE3");
    const std::optional<SyncProblem> p = check(text);
    ASSERT_TRUE(p);
    EXPECT_EQ(hazardKindName(*p), "RAW");
}

// loop_copy.ptoasm's shape: one UB buffer pair reused every round, flags 1 carrying the reuse
// from round to round.
const std::string kLoop = R"(pto @loop_copy
gm %x : f16[16x1024] @0x0 input
gm %y : f32[16x1024] @0x8000 output
kernel @k0 aiv {
  V    SET_FLAG      V->MTE2 1
  MTE3 SET_FLAG      MTE3->V 1
  loop "cols" 4 iter 0 {
    MTE2 WAIT_FLAG     V->MTE2 1
    MTE2 TLOAD         UB[0x0]:f16[16x256/256], GM[0x0 + 0x200*i]:f16[16x256/1024] !op 3
    MTE2 SET_FLAG      MTE2->V 0
    V    WAIT_FLAG     MTE2->V 0
    V    WAIT_FLAG     MTE3->V 1
    V    TCVT          UB[0x2000]:f32[16x256/256], UB[0x0]:f16[16x256/256] {round = rne} !op 4
    V    SET_FLAG      V->MTE2 1
    V    SET_FLAG      V->MTE3 0
    MTE3 WAIT_FLAG     V->MTE3 0
    MTE3 TSTORE        GM[0x8000 + 0x400*i]:f32[16x256/1024], UB[0x2000]:f32[16x256/256] !op 5
    MTE3 SET_FLAG      MTE3->V 1
  }
  MTE2 WAIT_FLAG     V->MTE2 1
  V    WAIT_FLAG     MTE3->V 1
}
task 0 @k0 aiv
)";

TEST(PtoSyncCheck, ACountedLoopIsCheckedRoundByRound) {
    EXPECT_FALSE(check(kLoop));
    // Without the wait that frees the input buffer, a later round's load overwrites what round
    // 0's convert reads: the pair names both rounds and the loop's iterations.
    const std::optional<SyncProblem> p = check(without(kLoop, "    MTE2 WAIT_FLAG     V->MTE2 1"));
    ASSERT_TRUE(p);
    EXPECT_EQ(hazardKindName(*p), "WAR");
    EXPECT_EQ(p->first.opcode, Opcode::TCvt);
    EXPECT_EQ(p->first.loop, 0);
    EXPECT_EQ(p->first.round, 0);
    EXPECT_EQ(p->second.opcode, Opcode::TLoad);
    EXPECT_EQ(p->second.loop, 0);
    EXPECT_GE(p->second.round, 1);
    EXPECT_NE(p->message.find("TCVT (pipe V, instr 6, cols, iter 0, tile op #4)"),
              std::string::npos)
        << p->message;
}

// kLoop with its output buffer stepped by `step` bytes per round and no MTE3->V flags.
std::string steppedOutputs(const std::string& step) {
    std::string text = without(kLoop, "    V    WAIT_FLAG     MTE3->V 1");
    text = without(text, "    MTE3 SET_FLAG      MTE3->V 1");
    text = without(text, "  MTE3 SET_FLAG      MTE3->V 1");
    text = without(text, "  V    WAIT_FLAG     MTE3->V 1");
    for (int i = 0; i < 2; ++i) // the convert's destination and the store's source
        text.replace(text.find("UB[0x2000]"), 10, "UB[0x2000 + " + step + "*i]");
    return text;
}

TEST(PtoSyncCheck, TheStepsOfALoopsOnChipAddressesAreFollowed) {
    // Every round converts into a slot of its own (16 KiB apart): a store never shares bytes
    // with a later convert, so no MTE3->V flag is needed.
    const std::optional<SyncProblem> fresh = check(steppedOutputs("0x4000"));
    EXPECT_FALSE(fresh) << fresh->message;
    // Slots 8 KiB apart overlap by half: round 1's convert rewrites bytes round 0's store reads.
    const std::optional<SyncProblem> p = check(steppedOutputs("0x2000"));
    ASSERT_TRUE(p);
    EXPECT_EQ(hazardKindName(*p), "WAR");
    EXPECT_EQ(p->first.opcode, Opcode::TStore);
    EXPECT_EQ(p->first.round, 0);
    EXPECT_EQ(p->second.opcode, Opcode::TCvt);
    EXPECT_EQ(p->second.round, 1);
    EXPECT_EQ(p->second.region.lo, 0x4000);
}

} // namespace
} // namespace pto
