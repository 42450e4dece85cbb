// The lowering on Tile functions written as .pto text (compiler/ir/Parser.h), end to end.
#include "LoweringTestUtil.h"

#include "compiler/Pipeline.h"
#include "compiler/ir/Parser.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

constexpr const char* kSoftmax = R"(func @softmax(%x: tensor<32x256xf32>) -> tensor<32x256xf32> {
  %y = gm_tensor {role = "output"} : tensor<32x256xf32>
  %t0 = tload %x {offset = [0, 0]} : tile<16x256xf32, UB>
  %m0 = reduce_max %t0 {axis = 1, keepdim}
  %d0 = sub %t0, %m0
  %e0 = exp %d0
  %s0 = reduce_sum %e0 {axis = 1, keepdim}
  %q0 = div %e0, %s0
  tstore %q0, %y {offset = [0, 0]}
  %t1 = tload %x {offset = [16, 0]} : tile<16x256xf32, UB>
  %m1 = reduce_max %t1 {axis = 1, keepdim}
  %d1 = sub %t1, %m1
  %e1 = exp %d1
  %s1 = reduce_sum %e1 {axis = 1, keepdim}
  %q1 = div %e1, %s1
  tstore %q1, %y {offset = [16, 0]}
  return %y
}
)";

TEST(ParsedProgram, SoftmaxEndToEnd) {
    Lowered l = lowerAll(parseFunctionText(kSoftmax, "softmax.pto"), {24, 1, 0});
    ASSERT_EQ(l.block.blocks.size(), 1u);
    for (const std::string& problem : checkBuffers(l.block, TargetInfo{})) ADD_FAILURE() << problem;
    for (const std::string& problem : checkSync(l.block)) ADD_FAILURE() << problem;
    std::vector<Opcode> ops;
    for (const Instr& in : l.pto.kernels[0].instrs)
        if (in.opcode != Opcode::SetFlag && in.opcode != Opcode::WaitFlag) ops.push_back(in.opcode);
    const std::vector<Opcode> tile = {Opcode::TLoad, Opcode::TRowMax, Opcode::TRowExpandSub,
                                      Opcode::TExp,  Opcode::TRowSum, Opcode::TRowExpandDiv,
                                      Opcode::TStore};
    std::vector<Opcode> expected = tile;
    expected.insert(expected.end(), tile.begin(), tile.end());
    EXPECT_EQ(ops, expected);
    EXPECT_EQ(l.pto.kernels[0].instrs.front().loc, (SourceLoc{3, 9}));
}

TEST(ParsedProgram, CapacityErrorNamesTheValueAsWritten) {
    const char* text = R"(func @big(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %y = gm_tensor {role = "output"} : tensor<256x256xf32>
  %t = tload %x {offset = [0, 0]} : tile<256x256xf32, UB>
  tstore %t, %y {offset = [0, 0]}
  return %y
}
)";
    try {
        lowerAll(parseFunctionText(text, "big.pto"));
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "test.pto:3:8: error: tload %t: tile 256x256xf32 (256 KiB) does not fit UB"),
                  std::string::npos)
            << e.what();
    }
}

// A hand-written kernel has no vec_tile to shrink (a directive there is a parse error): a tile
// too large for UB is advised by its tload type.
TEST(ParsedProgram, AHandWrittenTileTooLargeForUbIsAdvisedByItsTileType) {
    CompileState s = loadProgramText(R"(func @k(%x: tensor<64x1024xf32>, %y: tensor<64x1024xf32>) {
  %t = tload %x {offset = [0, 0]} : tile<40x1024xf32, UB>
  %u = exp %t
  tstore %u, %y {offset = [0, 0]}
  return
}
)",
                                     "big.pto");
    try {
        compileProgram(s, CompileOptions{});
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("big.pto:3:8: error: exp %u: tile 40x1024xf32 (160 KiB) does not fit UB"),
                  std::string::npos)
            << m;
        EXPECT_NE(m.find("load smaller tiles: give the tload a tile type of fewer rows or "
                         "columns"),
                  std::string::npos)
            << m;
        EXPECT_EQ(m.find("vec_tile"), std::string::npos) << m;
    }
}

// The arguments a kernel stores into are its outputs whatever the trip count: with a loop of 0
// trips (bound when the program runs) %y is still an output (given data, unchanged), %x not.
TEST(ParsedProgram, AnArgumentStoredOnlyInALoopOfZeroTripsIsStillAnOutput) {
    const char* text = R"(func @k(%x: tensor<16x256xf32>, %y: tensor<16x256xf32>, %n: index) {
  for "b" %i = 0 to %n {
    %t = tload %x {offset = [0, %i * 64]} : tile<16x64xf32, UB>
    tstore (exp %t), %y {offset = [0, %i * 64]}
  }
  return
}
)";
    for (int64_t n : {0, 2}) {
        SCOPED_TRACE(n);
        const ScalarBind bind{"n", n};
        CompileState s = loadProgramText(text, "zero.pto", {}, std::span(&bind, 1));
        compileProgram(s, CompileOptions{});
        ASSERT_GE(s.pto.gm.size(), 2u);
        EXPECT_EQ(s.pto.gm[0].name, "x");
        EXPECT_EQ(s.pto.gm[0].role, GmRole::Input);
        EXPECT_EQ(s.pto.gm[1].name, "y");
        EXPECT_EQ(s.pto.gm[1].role, GmRole::InOut);
    }
}

} // namespace
} // namespace pto::test
