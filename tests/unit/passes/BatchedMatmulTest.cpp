// Batched matmul through expand-tiles: the Tile function computes what the Tensor interpreter
// computes (rank 3 and 4, transposed operands, k split over several L1 blocks, edge tiles).
#include "compiler/interp/TensorInterpreter.h"
#include "compiler/interp/TileInterpreter.h"
#include "tests/unit/passes/PassTestUtil.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

// The largest relative difference allowed: per output tile the k-tiles are summed in f32 in
// another grouping than the Tensor interpreter's single loop (docs/SIMULATOR_NUMERICS.md).
constexpr double kRtol = 1e-5, kAtol = 1e-5;

void expectBatchedAgreement(const std::string& text, int expectedMatmuls) {
    const Function tensor = parse(text);
    const Function tile =
        lowerToTile(tensor, TileStage::Copied, TargetInfo{}, kVerifierAcceptsContract);
    EXPECT_EQ(countOps(tile, OpKind::Matmul), expectedMatmuls);
    const std::vector<TensorData> in = randomInputs(tensor, 11);
    const EvalResult want = evaluateTensor(tensor, in);
    const EvalResult got = evaluateTile(tile, in);
    ASSERT_EQ(got.outputs.size(), 1u);
    EXPECT_EQ(compare(got.outputs[0], want.outputs[0], kRtol, kAtol), "") << text;
}

TEST(BatchedMatmul, Rank3TransposeBLikeAttentionScores) {
    // 4 heads × (2 × 3 output tiles): one matmul per output tile and head, k in one L1 block.
    expectBatchedAgreement(R"(
func @f(%q: tensor<4x64x32xf16>, %k: tensor<4x96x32xf16>) -> tensor<4x64x96xf32> {
  cube_tile [32, 32], [32, 32], [32, 32]
  %s = matmul %q, %k {transpose_b}
  return %s
})",
                           4 * 2 * 3);
}

TEST(BatchedMatmul, Rank4WithKSplitAndEdgeTiles) {
    // m = 40 and n = 24 leave edge tiles; k = 96 runs over three L1 blocks of 32.
    expectBatchedAgreement(R"(
func @f(%a: tensor<2x3x40x96xf16>, %b: tensor<2x3x96x24xf16>) -> tensor<2x3x40x24xf32> {
  cube_tile [32, 32], [32, 32], [16, 16]
  %c = matmul %a, %b
  return %c
})",
                           6 * 2 * 2);
}

TEST(BatchedMatmul, TransposeAAndAVectorEpilogue) {
    // The result is consumed by vector ops through its GM workspace, batch index and all.
    expectBatchedAgreement(R"(
func @f(%a: tensor<2x32x48xf16>, %b: tensor<2x32x64xf16>) -> tensor<2x48x64xf16> {
  cube_tile [16, 16], [32, 32], [64, 64]
  %c = matmul %a, %b {transpose_a}
  %y = cast (muls %c, 0.5) : tensor<2x48x64xf16>
  return %y
})",
                           2 * 3 * 1);
}

} // namespace
} // namespace pto::test
