// Counted loops in the PTO listing (issue 15 item 2): the hand-written loop listing round-trips
// with its count, iteration and address steps, writing it out gives its hand-unrolled twin
// instruction for instruction, and each parse or verifier rule gives its message.
#include "compiler/ir/PtoLoops.h"
#include "compiler/ir/PtoParser.h"
#include "compiler/ir/PtoPrinter.h"
#include "compiler/ir/PtoSyncCheck.h"
#include "compiler/ir/Verifier.h"

#include "tests/support/ReadFile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace pto {
namespace {

using test::readFile;

const std::string kDir = PTO_SOURCE_DIR "/tests/integration/run/programs/";

TEST(LoopListing, RoundTripsWithCountIterationAndSteps) {
    PtoProgram p = parsePtoProgram(readFile(kDir + "loop_copy.ptoasm"), "loop_copy.ptoasm");
    ASSERT_EQ(p.kernels.size(), 1u);
    const Kernel& k = p.kernels[0];
    ASSERT_EQ(k.loops.size(), 1u);
    EXPECT_EQ(k.loops[0].name, "cols");
    EXPECT_EQ(k.loops[0].count, 4);
    EXPECT_EQ(k.loops[0].begin, 2u);
    EXPECT_EQ(k.loops[0].end, 13u);
    EXPECT_EQ(k.loops[0].steps[1][1], 0x200); // the TLOAD's GM source
    EXPECT_EQ(k.loops[0].steps[9][0], 0x400); // the TSTORE's GM destination
    EXPECT_EQ(executedInstrCount(k), 2 + 4 * 11 + 2);
    const std::string text = printPtoProgram(p);
    EXPECT_NE(text.find("  loop \"cols\" 4 iter 0 {\n"), std::string::npos) << text;
    EXPECT_NE(text.find("GM[0x8000 + 0x400*i]:f32[16x256/1024]"), std::string::npos) << text;
    EXPECT_EQ(printPtoProgram(parsePtoProgram(text, "back.ptoasm")), text);
}

TEST(LoopListing, WrittenOutItIsTheHandUnrolledTwin) {
    PtoProgram loop = parsePtoProgram(readFile(kDir + "loop_copy.ptoasm"), "a");
    PtoProgram flat = parsePtoProgram(readFile(kDir + "loop_copy_unrolled.ptoasm"), "b");
    LoopExpansion e = expandInstrLoops(loop, 1000);
    EXPECT_EQ(printPtoProgram(e.flat), printPtoProgram(flat));
    const ExpandedKernelMap& m = e.kernels[0];
    ASSERT_EQ(m.compactIndex.size(), 48u);
    EXPECT_EQ(m.compactIndex[2 + 11 * 3 + 1], 3u); // round 3's TLOAD is instruction 3
    EXPECT_EQ(m.round[2 + 11 * 3 + 1], 3);
    EXPECT_EQ(m.loop[1], -1);
    EXPECT_EQ(loopIterLabel(loop.kernels[0].loops[0], 3), "cols, iter 3");
    EXPECT_THROW(expandInstrLoops(loop, 47), std::length_error);
    // Back from an executed instruction to the one written (fault sites count executed ones).
    for (int64_t x = 0; x < 48; ++x)
        EXPECT_EQ(writtenIndexOf(loop.kernels[0], x), m.compactIndex[size_t(x)]);
    EXPECT_EQ(writtenIndexOf(loop.kernels[0], 48), -1);
}

const std::string kHead = "pto @p\ngm %x : f32[8x32] @0x0 input\nkernel @k aiv {\n";

// The trace names a round of the compiler's `tiles` loop by its round (its iterations are ranks
// of tile corners, which count nothing of the program); every other loop by its iteration.
TEST(LoopListing, TheTraceNamesATilesRoundByItsRound) {
    const std::string text = kHead + R"(  loop "tiles" 3 iter 5 {
    MTE2 TLOAD         UB[0x200 + 0x100*i]:f32[8x8/8], GM[0x0 + 0x20*i]:f32[8x8/32]
  }
  loop "kv" 2 iter 1 by 2 {
    MTE2 TLOAD         UB[0x0]:f32[8x8/8], GM[0x0 + 0x40*i]:f32[8x8/32]
    MTE2 TLOAD         UB[0x100]:f32[8x8/8], GM[0x20 + 0x40*i]:f32[8x8/32] !iter +1
  }
}
task 0 @k aiv
)";
    PtoProgram p = parsePtoProgram(text, "tiles.ptoasm");
    const InstrLoop& tiles = p.kernels[0].loops[0];
    EXPECT_EQ(loopSliceLabel(tiles, 0), "tiles, round 1 of 3");
    EXPECT_EQ(loopSliceLabel(tiles, 2), "tiles, round 3 of 3");
    EXPECT_EQ(loopIterLabel(tiles, 2), "tiles, iter 7"); // the compiler's diagnostics keep it
    const InstrLoop& kv = p.kernels[0].loops[1];
    EXPECT_EQ(loopSliceLabel(kv, 1, 1), loopIterLabel(kv, 1, 1));
    EXPECT_EQ(loopSliceLabel(kv, 1, 1), "kv, iter 4");
}

TEST(LoopListing, RoundsOfSeveralIterationsNameEachInstructionsIteration) {
    const std::string text = kHead + R"(  loop "kv" 2 iter 1 by 2 {
    MTE2 TLOAD         UB[0x0]:f32[8x8/8], GM[0x0 + 0x40*i]:f32[8x8/32]
    MTE2 TLOAD         UB[0x100]:f32[8x8/8], GM[0x20 + 0x40*i]:f32[8x8/32] !iter +1
  }
}
task 0 @k aiv
)";
    PtoProgram p = parsePtoProgram(text, "by.ptoasm");
    const InstrLoop& loop = p.kernels[0].loops[0];
    EXPECT_EQ(loop.iterStride, 2);
    EXPECT_EQ(loop.iterOffsets, (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(loopIterLabel(loop, 1, 0), "kv, iter 3");
    EXPECT_EQ(loopIterLabel(loop, 1, 1), "kv, iter 4");
    EXPECT_EQ(printPtoProgram(parsePtoProgram(printPtoProgram(p), "back.ptoasm")),
              printPtoProgram(p));
    EXPECT_NE(printPtoProgram(p).find("  loop \"kv\" 2 iter 1 by 2 {\n"), std::string::npos);
    EXPECT_NE(printPtoProgram(p).find("GM[0x20 + 0x40*i]:f32[8x8/32] !iter +1\n"),
              std::string::npos)
        << printPtoProgram(p);
}

std::string errorOf(const std::string& body) {
    try {
        parsePtoProgram(kHead + body + "}\ntask 0 @k aiv\n", "l.ptoasm");
    } catch (const CompileError& e) {
        return e.what();
    }
    return "no error";
}

TEST(LoopListing, ParseAndVerifierErrorsNameTheProblem) {
    const std::string load = "MTE2 TLOAD UB[0x0]:f32[8x8/8], GM[0x0 + 0x20*i]:f32[8x8/32]\n";
    EXPECT_EQ(errorOf("loop \"c\" 4 iter 0 {\n" + load + "}\n"), "no error");
    EXPECT_NE(errorOf(load).find("an address step (+ N*i) is only valid inside a loop"),
              std::string::npos);
    EXPECT_NE(errorOf("loop \"c\" 4 iter 0 {\nloop \"d\" 1 iter 0 {\n")
                  .find("loops do not nest in a PTO listing"),
              std::string::npos);
    EXPECT_NE(errorOf("loop \"c\" 4 iter 0 {\n}\n").find("a loop needs at least one instruction"),
              std::string::npos);
    try {
        parsePtoProgram(kHead + "loop \"c\" 4 iter 0 {\n" + load, "u.ptoasm");
        ADD_FAILURE() << "an unterminated loop parsed";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("unterminated loop: expected '}' (it opens at 4:1)"),
                  std::string::npos)
            << e.what();
    }
    // Round 4 would read GM[0x80, 0x160), past the 8x32 tensor: the last round is checked, and
    // the message names it, at the instruction's line.
    const std::string past = errorOf("loop \"c\" 5 iter 0 {\n" + load + "}\n");
    EXPECT_NE(past.find("l.ptoasm:5:1: error: kernel @k instr 0 (TLOAD), loop \"c\" at i = 4 (its "
                        "last round): operand 1 covers GM [0x80, 0x420), which is not inside a "
                        "declared GM tensor"),
              std::string::npos)
        << past;
    // An address stepping below 0 is said so, with a minus sign (not 0x-20).
    const std::string below =
        errorOf("loop \"a\" 3 iter 0 {\n  MTE2 TLOAD UB[0x20 - 0x20*i]:f32[1x8/8], "
                "GM[0x0]:f32[1x8/8]\n}\n");
    EXPECT_NE(below.find("l.ptoasm:5:3: error: kernel @k instr 0 (TLOAD), loop \"a\" at i = 2 "
                         "(its last round): operand 0 covers UB [-0x20, 0x0), which starts below "
                         "address 0"),
              std::string::npos)
        << below;
}

TEST(LoopListing, TheVerifierRejectsMalformedLoops) {
    PtoProgram p = parsePtoProgram(readFile(kDir + "loop_copy.ptoasm"), "loop_copy.ptoasm");
    auto problem = [](PtoProgram q) {
        try {
            verifyPtoProgram(q, "v.ptoasm");
        } catch (const CompileError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    PtoProgram outside = p;
    outside.kernels[0].loops[0].end = 99;
    EXPECT_NE(problem(outside).find("outside the kernel's 15 instructions"), std::string::npos);
    PtoProgram steps = p;
    steps.kernels[0].loops[0].steps.pop_back();
    EXPECT_NE(problem(steps).find("loop 0 has 10 address steps for 11 instructions"),
              std::string::npos);
    PtoProgram negative = p;
    negative.kernels[0].loops[0].count = -1;
    EXPECT_NE(problem(negative).find("negative count -1"), std::string::npos);
}

// A pipe pair's flag taken once per round with the next id each round (insert-sync's
// round-robin ids, a matmul's output blocks folded): `+ N*i` after the event id.
const std::string kRotating = kHead + R"(  loop "blk" 10 iter 0 {
    MTE2 TLOAD         UB[0x0]:f32[8x8/8], GM[0x0]:f32[8x8/32]
    MTE2 SET_FLAG      MTE2->V 6 + 1*i
    V    WAIT_FLAG     MTE2->V 6 + 1*i
    V    TADD          UB[0x100]:f32[8x8/8], UB[0x0]:f32[8x8/8], UB[0x0]:f32[8x8/8]
    V    SET_FLAG      V->MTE2 0 + 3*i
    MTE2 WAIT_FLAG     V->MTE2 0 + 3*i
  }
}
task 0 @k aiv
)";

TEST(LoopListing, RotatingFlagIdsRoundTripAndWriteOutModuloEight) {
    const PtoProgram p = parsePtoProgram(kRotating, "rot.ptoasm");
    const InstrLoop& loop = p.kernels[0].loops[0];
    EXPECT_EQ(loop.eventSteps, (std::vector<uint8_t>{0, 1, 1, 0, 3, 3}));
    const std::string text = printPtoProgram(p);
    EXPECT_NE(text.find("MTE2 SET_FLAG      MTE2->V 6 + 1*i\n"), std::string::npos) << text;
    EXPECT_EQ(printPtoProgram(parsePtoProgram(text, "back.ptoasm")), text);
    const LoopExpansion e = expandInstrLoops(p, 1000);
    std::vector<int> set, wait, back;
    for (const Instr& in : e.flat.kernels[0].instrs) {
        if (in.opcode == Opcode::SetFlag && in.flagDst == Pipe::V) set.push_back(in.event);
        if (in.opcode == Opcode::WaitFlag && in.flagDst == Pipe::V) wait.push_back(in.event);
        if (in.opcode == Opcode::SetFlag && in.flagDst == Pipe::MTE2) back.push_back(in.event);
    }
    EXPECT_EQ(set, (std::vector<int>{6, 7, 0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(wait, set);
    EXPECT_EQ(back, (std::vector<int>{0, 3, 6, 1, 4, 7, 2, 5, 0, 3}));
    // Written out, every set meets its wait: the static check finds the loop well ordered.
    const std::optional<SyncProblem> none = checkPtoSync(p, "rot.ptoasm");
    EXPECT_FALSE(none.has_value()) << none->message;
}

TEST(LoopListing, RotatingFlagErrorsNameTheProblem) {
    EXPECT_NE(errorOf("MTE2 SET_FLAG MTE2->V 1 + 1*i\n")
                  .find("an event step (+ N*i) is only valid inside a loop"),
              std::string::npos);
    EXPECT_NE(
        errorOf("loop \"c\" 2 iter 0 {\nMTE2 SET_FLAG MTE2->V 1 + 8*i\n}\n").find("the event step"),
        std::string::npos);
    // A set whose id rotates and a wait whose id does not: round 1 waits for a set of id 1 that
    // never comes — the static check names the deadlock.
    std::string unmatched = kRotating;
    unmatched.replace(unmatched.find("V    WAIT_FLAG     MTE2->V 6 + 1*i"),
                      std::string("V    WAIT_FLAG     MTE2->V 6 + 1*i").size(),
                      "V    WAIT_FLAG     MTE2->V 6");
    const std::optional<SyncProblem> problem =
        checkPtoSync(parsePtoProgram(unmatched, "u.ptoasm"), "u.ptoasm");
    ASSERT_TRUE(problem.has_value());
    EXPECT_NE(problem->message.find("a deadlock"), std::string::npos) << problem->message;
    // The verifier: a rotating id on an instruction that has none.
    PtoProgram bad = parsePtoProgram(kRotating, "rot.ptoasm");
    bad.kernels[0].loops[0].eventSteps[0] = 1; // the TLOAD
    try {
        verifyPtoProgram(bad, "v.ptoasm");
        ADD_FAILURE() << "a rotating TLOAD verified";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("instruction 0 rotates an event id, but is not a "
                                             "SET_FLAG or WAIT_FLAG"),
                  std::string::npos)
            << e.what();
    }
}

} // namespace
} // namespace pto
