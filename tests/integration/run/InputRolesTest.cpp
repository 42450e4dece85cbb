// Seeded inputs per argument role: roles from the uses of each argument (mask before a
// softmax, dequantisation and quantisation scales, positive operands), and the values drawn.
#include "driver/InputRoles.h"
#include "compiler/ir/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pto {
namespace {

std::vector<InputRole> rolesOf(std::string_view text) {
    Module m = parseModule(text, "roles.pto");
    std::vector<InputRole> out;
    for (const InputRoleInfo& r : inferInputRoles(*m.entry())) out.push_back(r.role);
    return out;
}

TEST(InputRoles, ComeFromHowEachArgumentIsUsed) {
    using R = InputRole;
    EXPECT_EQ(rolesOf(R"(
func @f(%s: tensor<8x8xf32>, %m: tensor<8x8xf32>, %x: tensor<8x32xf32>, %q: tensor<8x1xf32>,
        %d: tensor<8x32xf32>, %v: tensor<8x32xf32>) -> (tensor<8x8xf32>, tensor<8x32xi8>, tensor<8x32xf32>) {
  %a = add %s, %m
  %p = softmax %a
  %qi = quantize %x, %q
  %r = div %x, %d
  %l = log %v
  %o = add %r, %l
  return %p, %qi, %o
})"),
              (std::vector<R>{R::Data, R::Mask, R::Data, R::QuantScale, R::Positive, R::Positive}));
    EXPECT_EQ(rolesOf(R"(
func @f(%a: tensor<16x64xi8>, %b: tensor<64x16xi8>, %k: tensor<16xf32>, %w: tensor<16xf32>)
    -> tensor<16x16xf16> {
  %acc = matmul %a, %b
  %c = dequantize %acc, %k : tensor<16x16xf16>
  %y = mul %c, (cast %w : tensor<16xf16>)
  return %y
})"),
              (std::vector<R>{R::Data, R::Data, R::DequantScale, R::Data}));
    // Without a telling use, the name decides.
    EXPECT_EQ(rolesOf(R"(
func @f(%attn_mask: tensor<4x4xf32>, %scale: tensor<4xf32>) -> tensor<4x4xf32> {
  %y = mul %attn_mask, %scale
  return %y
})"),
              (std::vector<R>{R::Mask, R::DequantScale}));
}

TEST(InputRoles, TheDequantScaleShrinksWithTheMatmulDepth) {
    Module m = parseModule(R"(
func @f(%a: tensor<16x4096xi8>, %b: tensor<4096x16xi8>, %k: tensor<16xf32>) -> tensor<16x16xf16> {
  %acc = matmul %a, %b
  %c = dequantize %acc, %k : tensor<16x16xf16>
  return %c
})",
                           "roles.pto");
    const InputRoleInfo role = inferInputRoles(*m.entry()).at(2);
    EXPECT_EQ(role.depth, 4096);
    const TensorData s = seededInput(DType::F32, Shape{16}, role, 3);
    for (int64_t i = 0; i < s.numel(); ++i) {
        EXPECT_GE(s.get(i), 0.5 / (127.0 * 4096) * 0.999);
        EXPECT_LT(s.get(i), 1.0 / (127.0 * 4096));
    }
}

// A Tile-level kernel's i32 argument loaded into the index tile of a gather (rows of the GM
// matrix) or a tscatter_add (rows of its tensor) is an index of those rows, the fewer of the two.
TEST(InputRoles, ATileLevelIndexIsAnIndexOfTheRowsItPicks) {
    Module m = parseModule(R"(
func @main(%src: tensor<2x37x129xf32>, %idx: tensor<8xi32>, %acc: tensor<50x64xf32>,
           %n: tensor<8xi32>, %o: tensor<8xi32>) {
  %it = tload %idx : tile<1x8xi32, UB>
  %g = gather %src, %it {offset = [1, 0, 64]} : tile<8x64xf32, UB>
  tscatter_add %g, %acc, %it {offset = [0, 0]}
  %nt = tload %n : tile<1x8xi32, UB>
  tstore %nt, %o {offset = [0]}
  return
})",
                           "roles.pto");
    const std::vector<InputRoleInfo> roles = inferInputRoles(*m.entry());
    ASSERT_EQ(roles.size(), 5u);
    EXPECT_EQ(roles[1].role, InputRole::Index);
    EXPECT_EQ(roles[1].depth, 37);
    EXPECT_EQ(roles[3].role, InputRole::Data); // loaded, but no gather indexes with it
    Module scatter = parseModule(R"(
func @main(%t: tensor<8x64xf32>, %idx: tensor<8xi32>, %acc: tensor<3x5x64xf32>) {
  %v = tload %t : tile<8x64xf32, UB>
  %it = tload %idx : tile<1x8xi32, UB>
  tscatter_add %v, %acc, %it {offset = [0, 0, 0]}
  return
})",
                                 "roles.pto");
    const InputRoleInfo role = inferInputRoles(*scatter.entry()).at(1);
    EXPECT_EQ(role.role, InputRole::Index);
    EXPECT_EQ(role.depth, 15); // the 3x5 rows of acc's rows x cols view
}

TEST(InputRoles, AMaskIsCausalAndKeepsTheFirstColumn) {
    const TensorData m = seededInput(DType::F16, Shape{2, 3, 4}, {InputRole::Mask, 1}, 1);
    for (int64_t i = 0; i < m.numel(); ++i) {
        const int64_t col = i % 4, row = (i / 4) % 3;
        if (col > row)
            EXPECT_TRUE(std::isinf(m.get(i)) && m.get(i) < 0) << i;
        else
            EXPECT_EQ(m.get(i), 0.0f) << i;
    }
}

} // namespace
} // namespace pto
