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
