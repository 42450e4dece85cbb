// Numerical agreement of the lowered Tile function with the Tensor function it came from:
// the Tile interpreter on the output of expand-tiles → assign-memory → insert-copies against
// the Tensor interpreter on the program as written (composites evaluated directly in f32).
#include "compiler/interp/TensorInterpreter.h"
#include "compiler/interp/TileInterpreter.h"
#include "tests/unit/passes/PassTestUtil.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

struct Tol {
    double rtol, atol;
};

// Lowers `text`, runs both interpreters on the same random inputs and compares every output.
// `verify`: run the Tile verifier on every stage (see kVerifierAcceptsContract).
void expectAgreement(const std::string& text, Tol tol, uint64_t seed = 7, double lo = -1.0,
                     double hi = 1.0, bool verify = true) {
    const Function tensor = parse(text);
    const Function tile = lowerToTile(tensor, TileStage::Copied, TargetInfo{}, verify);
    const std::vector<TensorData> in = randomInputs(tensor, seed, lo, hi);
    const EvalResult want = evaluateTensor(tensor, in);
    const EvalResult got = evaluateTile(tile, in);
    ASSERT_EQ(got.outputs.size(), want.outputs.size());
    for (size_t i = 0; i < want.outputs.size(); ++i)
        EXPECT_EQ(compare(got.outputs[i], want.outputs[i], tol.rtol, tol.atol), "")
            << "output " << i << " of\n"
            << text;
}

constexpr Tol kF32{1e-5, 1e-6};
constexpr Tol kF16{2e-3, 1e-4}; // about 2 f16 ulps
constexpr Tol kExact{0, 0};

TEST(TileNumerics, SoftmaxF16) {
    expectAgreement(R"(
func @f(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  vec_tile [16, 1024]
  %y = softmax %x
  return %y
})",
                    kF16, 1, -4, 4);
}

TEST(TileNumerics, SoftmaxRowsSpanningSeveralTiles) {
    // The row max and sum are combined from 4 column tiles per row.
    expectAgreement(R"(
func @f(%x: tensor<32x512xf32>) -> tensor<32x512xf32> {
  vec_tile [8, 128]
  %y = softmax %x
  return %y
})",
                    kF32, 2, -4, 4);
}

TEST(TileNumerics, RmsNormWithWeight) {
    expectAgreement(R"(
func @f(%x: tensor<16x512xf16>, %w: tensor<512xf16>) -> tensor<16x512xf16> {
  vec_tile [4, 512]
  %y = rms_norm %x, %w {eps = 1e-06}
  return %y
})",
                    kF16, 3, -1.0, 1.0, kVerifierAcceptsContract);
}

TEST(TileNumerics, LayerNorm) {
    expectAgreement(R"(
func @f(%x: tensor<16x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<16x256xf32> {
  vec_tile [8, 256]
  %y = layer_norm %x, %g, %b
  return %y
})",
                    Tol{1e-4, 1e-5}, 4, -1.0, 1.0, kVerifierAcceptsContract);
}

TEST(TileNumerics, GeluF16) {
    expectAgreement(R"(
func @f(%x: tensor<64x512xf16>) -> tensor<64x512xf16> {
  vec_tile [32, 128]
  %y = gelu %x
  return %y
})",
                    kF16, 5, -6, 6);
}

TEST(TileNumerics, MatmulF16InF32Out) {
    expectAgreement(R"(
func @f(%a: tensor<256x512xf16>, %b: tensor<512x384xf16>) -> tensor<256x384xf32> {
  cube_tile [128, 128], [64, 256], [128, 128]
  %c = matmul %a, %b
  return %c
})",
                    Tol{1e-4, 1e-5}, 6); // k-tile partial sums: another summation order
}

TEST(TileNumerics, MatmulTransposedWithEdgeTilesAndSeveralAccumulators) {
    expectAgreement(R"(
func @f(%a: tensor<200x100xf16>, %b: tensor<90x200xf16>) -> tensor<100x90xf16> {
  cube_tile [32, 64], [32, 64], [48, 96]
  %c = matmul %a, %b {transpose_a, transpose_b} : tensor<100x90xf16>
  return %c
})",
                    kF16, 7, -1.0, 1.0, kVerifierAcceptsContract);
}

TEST(TileNumerics, MatmulThenGeluCrossesCoresThroughGm) {
    expectAgreement(R"(
func @f(%a: tensor<128x256xf16>, %b: tensor<256x256xf16>) -> tensor<128x256xf16> {
  cube_tile [64, 64], [64, 128], [128, 128]
  %c = matmul %a, %b : tensor<128x256xf16>
  vec_tile [32, 256]
  %y = gelu %c
  return %y
})",
                    kF16, 8, -1.0, 1.0, kVerifierAcceptsContract);
}

TEST(TileNumerics, BroadcastingAdd) {
    expectAgreement(R"(
func @f(%x: tensor<64x256xf32>, %row: tensor<64x1xf32>, %col: tensor<256xf32>) -> tensor<64x256xf32> {
  vec_tile [16, 128]
  %a = add %x, %row
  %b = sub %col, %a
  %c = add %row, %col
  %d = mul %b, %c
  return %d
})",
                    kExact, 9, -1.0, 1.0, kVerifierAcceptsContract);
}

TEST(TileNumerics, ReductionsSpanningSeveralTiles) {
    expectAgreement(R"(
func @f(%x: tensor<48x640xf16>) -> (tensor<48x1xf16>, tensor<48xf16>, tensor<1x640xf16>, tensor<640xf16>) {
  vec_tile [16, 128]
  %s = reduce_sum %x {axis = 1, keepdim}
  %m = reduce_max %x {axis = 1}
  %c = reduce_sum %x {axis = 0, keepdim}
  %n = reduce_min %x {axis = 0}
  return %s, %m, %c, %n
})",
                    Tol{2e-3, 2e-3}, 10, -1.0, 1.0, kVerifierAcceptsContract);
}

// Layout ops: view (offset arithmetic), concat (stores at offsets), 2-D transposes (tile
// transposes), reshapes keeping and changing the last dim, broadcast, fill. Bytes only: exact.
TEST(TileNumerics, LayoutOpsAreExact) {
    expectAgreement(R"(
func @layout(%x: tensor<64x1024xf16>, %y: tensor<64x512xf16>, %r: tensor<1024xf16>) -> (tensor<128x1536xf16>, tensor<64x2048xf16>) {
  %v = view %x {offsets = [0, 512], sizes = [64, 512]}
  %c = concat %x, %y, %v {axis = -1}
  %t = transpose %c {perm = [1, 0]}
  %tt = transpose %t {perm = [1, 0]}
  %rs = reshape %tt : tensor<2x32x2048xf16>
  %back = reshape %rs : tensor<64x2048xf16>
  %b = broadcast %r : tensor<2x64x1024xf16>
  %flat = reshape %b : tensor<128x1024xf16>
  %z = fill {value = 0} : tensor<128x512xf16>
  %cat = concat %flat, %z {axis = 1}
  return %cat, %back
})",
                    kExact, 11, -1.0, 1.0, kVerifierAcceptsContract);
}

TEST(TileNumerics, ViewsReshapesAndPermutationsFeedingCompute) {
    expectAgreement(R"(
func @f(%x: tensor<8x64x128xf32>, %y: tensor<64x8x128xf32>) -> (tensor<4x32x128xf32>, tensor<8x64x128xf32>, tensor<64x16x64xf32>) {
  vec_tile [1, 16, 128]
  %v = view %x {offsets = [2, 16, 0], sizes = [4, 32, 128]}
  %e = exp %v
  %p = transpose %y {perm = [1, 0, 2]}
  %s = add %p, %x
  %r = reshape %x : tensor<512x128xf32>
  %r2 = reshape %r : tensor<64x16x64xf32>
  %n = neg %r2 {vec_tile = [1, 16, 64]}
  return %e, %s, %n
})",
                    kExact, 12, -1.0, 1.0, kVerifierAcceptsContract);
}

TEST(TileNumerics, SelectCompareAndFill) {
    expectAgreement(R"(
func @select(%a: tensor<16x128xf32>, %b: tensor<16x128xf32>) -> tensor<16x128xf32> {
  vec_tile [8, 64]
  %lt = cmp %a, %b {pred = "lt"}
  %pos = cmps %a, 0.0 {pred = "gt"}
  %w = where %lt, %a, %b
  %z = fill {value = -inf} : tensor<1x128xf32>
  %y = where %pos, %w, %z
  return %y
})",
                    kExact, 13);
}

TEST(TileNumerics, QuantizeDequantize) {
    expectAgreement(R"(
func @quant(%x: tensor<32x256xf16>, %s: tensor<1x256xf16>, %s32: tensor<256xf32>) -> (tensor<32x256xi8>, tensor<32x256xf16>, tensor<32x256xbf16>) {
  vec_tile [16, 256]
  %q = quantize %x, %s
  %d = dequantize %q, %s
  %d2 = dequantize %q, %s32 : tensor<32x256xbf16>
  return %q, %d, %d2
})",
                    kExact, 14, -1.0, 1.0, kVerifierAcceptsContract);
}

TEST(TileNumerics, ResidualBlockWithDefaultTiles) {
    // No directives: default vec tiles (whole tensor if it fits a quarter of UB, else rows of
    // at most 16 KiB) and the default cube tile.
    expectAgreement(R"(
func @f(%x: tensor<256x512xf16>, %w: tensor<512x512xf16>, %g: tensor<512xf16>) -> tensor<256x512xf16> {
  %h = rms_norm %x, %g
  %m = matmul %h, %w : tensor<256x512xf16>
  %a = silu %m
  %y = add %a, %x
  return %y
})",
                    Tol{4e-3, 4e-3}, 15, -1.0, 1.0, kVerifierAcceptsContract);
}

} // namespace
} // namespace pto::test
