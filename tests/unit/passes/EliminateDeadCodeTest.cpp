// dead-code at the Tensor level (unused chains) and the Tile level (stores nobody reads).
#include "compiler/passes/EliminateDeadCode.h"
#include "tests/unit/passes/PassTestUtil.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

TEST(EliminateDeadCode, TensorLevelDropsUnusedChainsKeepsDirectivesAndArguments) {
    Function f = parse(R"(
func @f(%x: tensor<8x32xf32>, %unused: tensor<8x32xf32>) -> tensor<8x32xf32> {
  vec_tile [4, 32]
  %a = exp %x
  %dead1 = neg %a
  %dead2 = add %dead1, %x
  %b = relu %a
  return %b
})");
    runPass(f, eliminateDeadCode);
    ASSERT_EQ(f.ops().size(), 3u);
    EXPECT_EQ(f.ops()[0].kind, OpKind::VecTile);
    EXPECT_EQ(f.ops()[1].kind, OpKind::Exp);
    EXPECT_EQ(f.ops()[2].kind, OpKind::Relu);
    EXPECT_EQ(f.args.size(), 2u);
    EXPECT_EQ(f.ops()[2].parent, 4u); // provenance: relu was op #4
}

TEST(EliminateDeadCode, TileLevelDropsStoresIntoWorkspacesNobodyReads) {
    Function f = parse(R"(
func @f(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %y = gm_tensor {role = "output"} : tensor<16x64xf32>
  %ws = gm_tensor {role = "workspace"} : tensor<16x64xf32>
  %spill = gm_tensor {role = "workspace"} : tensor<16x64xf32>
  %t = tload %x {offset = [0, 0]} : tile<16x64xf32, UB>
  %e = exp %t
  tstore %e, %ws {offset = [0, 0]}
  %n = neg %t
  tstore %n, %spill {offset = [0, 0]}
  %back = tload %ws {offset = [0, 0]} : tile<16x64xf32, UB>
  tstore %back, %y {offset = [0, 0]}
  %late = relu %t
  tstore %late, %ws {offset = [0, 0]}
  return %y
})");
    runPass(f, eliminateDeadCode);
    // Kept: %y, %ws, tload %x, exp, its store into %ws, the read-back and the output store.
    // Gone: %spill with neg and its store, and relu whose store into %ws nobody reads after.
    EXPECT_EQ(f.ops().size(), 7u);
    EXPECT_EQ(countOps(f, OpKind::GmTensor), 2);
    EXPECT_EQ(countOps(f, OpKind::TStore), 2);
    EXPECT_EQ(countOps(f, OpKind::Neg), 0);
    EXPECT_EQ(countOps(f, OpKind::Relu), 0);
}

TEST(EliminateDeadCode, LiveFunctionIsUntouched) {
    Function f = parse(R"(
func @f(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %a = exp %x
  return %a
})");
    const size_t before = f.ops().size();
    runPass(f, eliminateDeadCode);
    EXPECT_EQ(f.ops().size(), before);
}

} // namespace
} // namespace pto::test
