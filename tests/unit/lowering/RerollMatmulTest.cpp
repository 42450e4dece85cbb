// Tests that reroll-loops folds a matmul's K steps (expand-tiles' `k_step` labels), a task's
// output blocks, or the tiles a vector kernel streams, into counted loops that write out to
// exactly the unrolled kernels (compiler/passes/RerollLoops.h).
#include "compiler/Pipeline.h"
#include "compiler/ir/PtoLoops.h"
#include "compiler/ir/PtoSyncCheck.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pto::test {
namespace {

PtoProgram compiled(const std::string& text, bool reroll) {
    CompileState state = loadProgramText(text, "gemm.pto", "");
    CompileOptions options;
    options.rerollLoops = reroll;
    options.fuse = false;
    compileProgram(state, options);
    return state.pto;
}

// C = A·B in f16 with M×K and K×N operands, L1 blocks of 128×256 and K steps of 256; the
// matmul sits at 3:8.
std::string gemmText(int64_t m, int64_t k, int64_t n) {
    return fmt::format(
        R"(func @gemm(%a: tensor<{0}x{1}xf16>, %b: tensor<{1}x{2}xf16>) -> tensor<{0}x{2}xf32> {{
  cube_tile [128, 128], [64, 256], [256, 256]
  %c = matmul %a, %b
  return %c
}}
)",
        m, k, n);
}

int64_t instrCount(const PtoProgram& p) {
    int64_t n = 0;
    for (const Kernel& k : p.kernels) n += int64_t(k.instrs.size());
    return n;
}

// Every executed instruction of `folded` (loops written out) is the one of `flat` at the same
// place, field for field (the tile op aside: a loop's rounds share round 0's).
void expectSameStream(const PtoProgram& folded, const PtoProgram& flat) {
    const LoopExpansion e = expandInstrLoops(folded, int64_t(1) << 40);
    ASSERT_EQ(e.flat.kernels.size(), flat.kernels.size());
    for (size_t k = 0; k < flat.kernels.size(); ++k) {
        const std::vector<Instr>& got = e.flat.kernels[k].instrs;
        const std::vector<Instr>& want = flat.kernels[k].instrs;
        ASSERT_EQ(got.size(), want.size()) << flat.kernels[k].name;
        for (size_t i = 0; i < want.size(); ++i) {
            ASSERT_TRUE(sameButAddresses(got[i], want[i])) << flat.kernels[k].name << " #" << i;
            for (size_t j = 0; j < want[i].operandCount; ++j)
                ASSERT_EQ(got[i].operands[j].addr, want[i].operands[j].addr)
                    << flat.kernels[k].name << " #" << i << " operand " << j;
        }
    }
}

TEST(RerollMatmul, KStepsOfAGemmBecomeCountedLoopsThatWriteOutToTheUnrolledKernels) {
    const std::string text = gemmText(128, 8192, 512);
    const PtoProgram folded = compiled(text, true);
    const PtoProgram flat = compiled(text, false);
    ASSERT_EQ(folded.kernels.size(), 2u); // two output blocks of 128×256
    for (const Kernel& k : folded.kernels) {
        ASSERT_FALSE(k.loops.empty()) << k.name;
        for (const InstrLoop& loop : k.loops) {
            EXPECT_EQ(loop.name, "matmul@3:8.k");
            EXPECT_TRUE(loop.outerIters.empty());
        }
        // 32 K steps: the first two and the last partial round written out, the rest rounds
        // of 4 steps (insert-sync's event ids repeat every 4).
        EXPECT_EQ(k.loops.front().firstIter, 2);
        EXPECT_EQ(k.loops.front().iterStride, 4);
        EXPECT_EQ(k.loops.front().count, 7);
    }
    EXPECT_LT(3 * instrCount(folded), instrCount(flat));
    expectSameStream(folded, flat);
}

TEST(RerollMatmul, ATasksOutputBlocksAlongARowBecomeOneLoopWithRotatingFlagIds) {
    // 192 output blocks of 128×256 in one row, 8 per cube core; K = 1024 is 4 K steps each,
    // too few rounds for the K steps to pay, while the blocks repeat but for their GM columns
    // and the M<->FIX flag ids insert-sync hands out once per block.
    const std::string text = gemmText(128, 1024, 49152);
    const PtoProgram folded = compiled(text, true);
    const PtoProgram flat = compiled(text, false);
    ASSERT_EQ(folded.kernels.size(), 24u);
    for (const Kernel& k : folded.kernels) {
        ASSERT_EQ(k.loops.size(), 1u) << k.name;
        const InstrLoop& loop = k.loops.front();
        EXPECT_EQ(loop.name, "matmul@3:8.block");
        // The first and last blocks stay written out: the first sets the flags up, the last has
        // no next block to prefetch for.
        EXPECT_EQ(loop.count, 6);
        EXPECT_EQ(loopIterLabel(loop, 2),
                  fmt::format("matmul@3:8.block, iter {}", loop.firstIter + 2));
        int rotating = 0;
        for (size_t i = 0; i < loop.eventSteps.size(); ++i)
            if (loop.eventSteps[i] != 0) {
                const Instr& in = k.instrs[loop.begin + i];
                EXPECT_TRUE(in.opcode == Opcode::SetFlag || in.opcode == Opcode::WaitFlag);
                ++rotating;
            }
        EXPECT_GT(rotating, 0) << k.name;
    }
    EXPECT_LT(2 * instrCount(folded), instrCount(flat)); // 3 of 8 blocks written
    expectSameStream(folded, flat);
    EXPECT_FALSE(checkPtoSync(folded, "wide.pto").has_value());
}

TEST(RerollTiles, TheTilesOfAnElementwiseChainBecomeOneLoopPerKernel) {
    // 512 tiles of 2×1024 over 48 vector cores: each kernel streams ~11 tiles of one chain,
    // equal but for their GM addresses, their double-buffer slot and their flag ids.
    const std::string text = R"(func @act(%x: tensor<1024x1024xf16>) -> tensor<1024x1024xf16> {
  vec_tile [2, 1024]
  %y = cast (exp (cast %x : tensor<1024x1024xf32>)) : tensor<1024x1024xf16>
  return %y
}
)";
    const PtoProgram folded = compiled(text, true);
    const PtoProgram flat = compiled(text, false);
    int looped = 0;
    for (const Kernel& k : folded.kernels)
        for (const InstrLoop& loop : k.loops) {
            EXPECT_EQ(loop.name, "tiles");
            ++looped;
        }
    EXPECT_GT(looped, 0);
    EXPECT_LT(2 * instrCount(folded), instrCount(flat));
    expectSameStream(folded, flat);
    EXPECT_FALSE(checkPtoSync(folded, "act.pto").has_value());
}

TEST(RerollMatmul, KStepsInsideAProgramLoopAreAnInnerLoopOfIt) {
    const std::string text =
        R"(func @heads(%a: tensor<2x128x4096xf16>, %b: tensor<4096x256xf16>) -> tensor<128x256xf32> {
  cube_tile [128, 128], [64, 256], [256, 256]
  %z = fill {value = 0.0} : tensor<128x256xf32>
  %r:1 = for "head" %h = 0 to 2 step 1 iter_args(%acc = %z) {
    %ah = view %a {offsets = [%h, 0, 0], sizes = [1, 128, 4096]}
    %a2 = reshape %ah : tensor<128x4096xf16>
    %p = matmul %a2, %b
    %acc1 = add %acc, %p
    yield %acc1
  }
  return %r#0
}
)";
    const PtoProgram folded = compiled(text, true);
    const PtoProgram flat = compiled(text, false);
    // One cube kernel per head, its K steps a loop named and numbered inside the head's.
    std::vector<int64_t> heads;
    for (const Kernel& k : folded.kernels)
        for (const InstrLoop& loop : k.loops) {
            if (loop.name == "tiles") continue; // the vector kernels' tiles outside the loop
            EXPECT_EQ(loop.name, "head/matmul@7:10.k") << k.name;
            ASSERT_EQ(loop.outerIters.size(), 1u);
            heads.push_back(loop.outerIters.front());
            // Round 1 is K step firstIter + iterStride of that head.
            EXPECT_EQ(loopIterLabel(loop, 1),
                      fmt::format("head/matmul@7:10.k, iter {}/{}", loop.outerIters.front(),
                                  loop.firstIter + loop.iterStride));
        }
    EXPECT_EQ(heads, (std::vector<int64_t>{0, 1}));
    expectSameStream(folded, flat);
}

} // namespace
} // namespace pto::test
