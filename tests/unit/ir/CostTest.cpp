// The roofline's work count (compiler/ir/Cost.h): each PTO instruction's FLOPs, GM bytes and
// rate-setting operand, and the Tensor-level total `pto run` prints, checked by hand counts.
#include "compiler/ir/Cost.h"
#include "compiler/ir/Parser.h"
#include "compiler/ir/PtoParser.h"

#include "tests/support/HandWrittenKernels.h"

#include <gtest/gtest.h>

#include <string>

namespace pto {
namespace {

// The instructions of a one-kernel listing, as a user would write them.
std::vector<Instr> listing(const std::string& core, const std::string& body) {
    PtoProgram p = parsePtoProgram("pto @t\nkernel @k0 " + core + " {\n" + body + "}\n",
                                   "cost.ptoasm", /*verify=*/false);
    return p.kernels.at(0).instrs;
}

TEST(Cost, MatmulCountsTwoMNKFromTheL0AOperand) {
    auto in =
        listing("aic", "  M TMATMUL L0C[0x0]:f32[128x128/128], L0A[0x0]:f16[128x64/64], "
                       "L0B[0x0]:f16[64x128/128]\n"
                       "  M TMATMUL_ACC L0C[0x0]:f32[128x128/128], L0C[0x0]:f32[128x128/128], "
                       "L0A[0x4000]:i8[128x64/64], L0B[0x4000]:i8[64x128/128]\n");
    EXPECT_DOUBLE_EQ(instrFlops(in[0]), 2.0 * 128 * 128 * 64);
    EXPECT_DOUBLE_EQ(instrFlops(in[1]), 2.0 * 128 * 128 * 64); // the accumulator is not A
    EXPECT_EQ(rateOperand(in[0]), 1);
    EXPECT_EQ(rateOperand(in[1]), 2);
    EXPECT_EQ(instrGmBytes(in[0]), 0);
}

TEST(Cost, VectorOpsCountResultElementsReductionsSourceElements) {
    auto in =
        listing("aiv", "  V TADD UB[0x0]:f16[16x1024/1024], UB[0x8000]:f16[16x1024/1024], "
                       "UB[0x10000]:f16[16x1024/1024]\n"
                       "  V TROWSUM UB[0x0]:f32[16x1/8], UB[0x100]:f32[16x1024/1024]\n"
                       "  V TCVT UB[0x0]:f32[16x64/64], UB[0x800]:f16[16x64/64] {round = rne}\n"
                       "  V SET_FLAG V->MTE3 0\n");
    EXPECT_DOUBLE_EQ(instrFlops(in[0]), 16.0 * 1024);
    EXPECT_DOUBLE_EQ(instrFlops(in[1]), 16.0 * 1024);
    EXPECT_DOUBLE_EQ(instrFlops(in[2]), 0); // casts compute nothing the roofline counts
    EXPECT_DOUBLE_EQ(instrFlops(in[3]), 0);
    EXPECT_EQ(rateOperand(in[3]), -1);
}

TEST(Cost, TransfersMoveTheirGmOperandsBytes) {
    auto in = listing("aic", "  MTE2 TLOAD L1[0x0]:f16[128x128/128], GM[0x0]:f16[128x128/256]\n"
                             "  FIX TSTORE GM[0x0]:f32[128x128/512], L0C[0x0]:f32[128x128/128]\n");
    EXPECT_EQ(instrGmBytes(in[0]), 128 * 128 * 2); // the region, not the stride's span
    EXPECT_EQ(instrGmBytes(in[1]), 128 * 128 * 4);
    EXPECT_DOUBLE_EQ(instrFlops(in[0]), 0);
}

TEST(Cost, TensorTotalFollowsTheSameRule) {
    Module m = parseModule("func @main(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>) -> "
                           "tensor<64x1xf32> {\n"
                           "  %c = matmul %a, %b : tensor<64x16xf32>\n"
                           "  %d = exp %c\n"
                           "  %e = reduce_sum %d {axis = 1, keepdim}\n"
                           "  return %e\n"
                           "}\n",
                           "cost.pto");
    EXPECT_DOUBLE_EQ(countFlops(m.functions.at(0)), 2.0 * 64 * 16 * 32 + 64 * 16 + 64 * 16);
}

// A hand-written kernel keeps its loop as written: its body counts once per trip, and a
// matmul_acc is a matmul (2·M·N·K) as much as the matmul that starts the sum.
TEST(Cost, ATileLevelLoopCountsItsBodyEveryTrip) {
    Module m = parseModule(test::kKLoopKernel, "kloop.pto");
    EXPECT_DOUBLE_EQ(countFlops(m.functions.at(0)), 2.0 * 32 * 64 * 256);
}

// A PTO listing has no Tensor program: its work is that of the instructions it executes, each
// round of a counted loop and each task running a kernel counted (pto run printed 0 FLOP).
TEST(Cost, AListingCountsEveryExecutedInstruction) {
    const PtoProgram p = parsePtoProgram(R"(pto @t
kernel @k aiv {
  V TMULS UB[0x0]:f32[16x64/64], UB[0x0]:f32[16x64/64] {scalar = 2}
  loop "cols" 4 iter 0 {
    V TADDS UB[0x1000]:f32[8x64/64], UB[0x1000]:f32[8x64/64] {scalar = 1}
    V TEXP UB[0x2000]:f32[8x32/32], UB[0x2000]:f32[8x32/32]
  }
}
kernel @mm aic {
  M TMATMUL L0C[0x0]:f32[16x32/32], L0A[0x0]:f16[16x64/64], L0B[0x0]:f16[64x32/32]
}
task 0 @k aiv
task 1 @k aiv
task 2 @mm aic
)",
                                         "flops.ptoasm", /*verify=*/false);
    const double vector = 16 * 64 + 4 * (8 * 64 + 8 * 32);
    EXPECT_DOUBLE_EQ(countFlops(p), 2 * vector + 2.0 * 16 * 32 * 64);
}

} // namespace
} // namespace pto
