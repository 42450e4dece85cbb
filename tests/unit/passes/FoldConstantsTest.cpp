// fold-constants: each exact identity is removed, the inexact look-alikes are kept, results
// are redirected, and the function computes bit-identical outputs afterwards.
#include "compiler/passes/FoldConstants.h"
#include "compiler/interp/TensorInterpreter.h"
#include "compiler/passes/EliminateDeadCode.h"
#include "tests/unit/passes/PassTestUtil.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

// Folds, then drops what folding left unused (as the pipeline does).
Function folded(const Function& f) {
    Function g = f;
    runPass(g, foldConstants);
    runPass(g, eliminateDeadCode);
    return g;
}

// The folded function gives the same bits as the original on random inputs.
void expectSameBits(const Function& f, const Function& g) {
    const std::vector<TensorData> in = randomInputs(f, 3, -4, 4);
    const EvalResult a = evaluateTensor(f, in), b = evaluateTensor(g, in);
    ASSERT_EQ(a.outputs.size(), b.outputs.size());
    for (size_t i = 0; i < a.outputs.size(); ++i) EXPECT_EQ(a.outputs[i], b.outputs[i]) << i;
}

TEST(FoldConstants, ExactScalarIdentitiesAreRemoved) {
    const Function f = parse(R"(
func @f(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %a = muls %x, 1.0
  %b = divs %a, 1.0
  %c = subs %b, 0.0
  %d = adds %c, -0.0
  %e = exp %d
  return %e
})");
    const Function g = folded(f);
    ASSERT_EQ(g.ops().size(), 1u);
    EXPECT_EQ(g.ops()[0].kind, OpKind::Exp);
    EXPECT_EQ(g.ops()[0].operands[0], g.args[0]);
    expectSameBits(f, g);
}

TEST(FoldConstants, AddingPositiveZeroIsKeptForFloatsOnly) {
    // −0 + 0 = +0: not an identity in IEEE arithmetic; for integers it is.
    const Function f = parse(R"(
func @f(%x: tensor<8x32xf32>, %i: tensor<8x32xi32>) -> (tensor<8x32xf32>, tensor<8x32xi32>) {
  %a = adds %x, 0.0
  %b = adds %i, 0.0
  %c = abs %b
  return %a, %c
})");
    const Function g = folded(f);
    ASSERT_EQ(g.ops().size(), 2u);
    EXPECT_EQ(g.ops()[0].kind, OpKind::AddS);
    EXPECT_EQ(g.type(g.ops()[0].result).dtype, DType::F32);
    EXPECT_EQ(g.ops()[1].operands[0], g.args[1]);
}

TEST(FoldConstants, CastsFoldOnlyWhenExact) {
    const Function f = parse(R"(
func @f(%h: tensor<8x32xf16>, %x: tensor<8x32xf32>) -> (tensor<8x32xf16>, tensor<8x32xf32>) {
  %same = cast %h : tensor<8x32xf16>
  %wide = cast %same : tensor<8x32xf32>
  %back = cast %wide : tensor<8x32xf16>
  %narrow = cast %x : tensor<8x32xf16>
  %lossy = cast %narrow : tensor<8x32xf32>
  %r = exp %back
  return %r, %lossy
})");
    const Function g = folded(f);
    // f16 → f32 → f16 is the identity; f32 → f16 → f32 rounds and stays.
    EXPECT_EQ(countOps(g, OpKind::Cast), 2);
    EXPECT_EQ(g.producer(g.results[0])->operands[0], g.args[0]);
    expectSameBits(f, g);
}

TEST(FoldConstants, LayoutIdentitiesAndDoubleNegation) {
    const Function f = parse(R"(
func @f(%x: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<32x8xf32>, tensor<4x64xf32>) {
  %r = reshape %x : tensor<8x32xf32>
  %b = broadcast %r : tensor<8x32xf32>
  %v = view %b {offsets = [0, 0], sizes = [8, 32]}
  %n = neg %v
  %nn = neg %n
  %t = transpose %nn {perm = [1, 0]}
  %tt = transpose %t {perm = [1, 0]}
  %t3 = transpose %tt {perm = [1, 0]}
  %r1 = reshape %x : tensor<2x128xf32>
  %r2 = reshape %r1 : tensor<4x64xf32>
  %o = exp %tt
  return %o, %t3, %r2
})");
    const Function g = folded(f);
    // neg(neg(view(broadcast(reshape x)))) ∘ transpose² is x
    EXPECT_EQ(g.producer(g.results[0])->operands[0], g.args[0]);
    EXPECT_EQ(countOps(g, OpKind::Neg), 0);
    ASSERT_EQ(countOps(g, OpKind::Transpose), 1); // transpose³ = one transpose of %x
    ASSERT_EQ(countOps(g, OpKind::Reshape), 1);   // reshape(reshape x) = one reshape of %x
    for (const Op& op : g.ops()) EXPECT_EQ(op.operands[0], g.args[0]) << opName(op.kind);
    expectSameBits(f, g);
}

TEST(FoldConstants, ReturnedValuesKeepTheirNames) {
    // Replaced by an argument or by another returned value, a returned value would lose its
    // name (its output file): the op stays. Replaced by an intermediate, that one takes it.
    const Function f = parse(R"(
func @f(%x: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) {
  %y = muls %x, 1.0
  %e = exp %x
  %z = muls %e, 1.0
  %t = exp %e
  %w = reshape %t : tensor<8x32xf32>
  return %y, %e, %z, %w
})");
    const Function g = folded(f);
    EXPECT_EQ(countOps(g, OpKind::MulS), 2);
    EXPECT_EQ(countOps(g, OpKind::Reshape), 0);
    std::vector<std::string> names;
    for (ValueId r : g.results) names.push_back(g.value(r).name);
    EXPECT_EQ(names, (std::vector<std::string>{"y", "e", "z", "w"}));
    expectSameBits(f, g);
}

TEST(FoldConstants, IntegerDoubleNegationIsKept) {
    // neg(−128) saturates to 127 in i8, so neg(neg x) ≠ x there.
    const Function f = parse(R"(
func @f(%x: tensor<8x32xi8>) -> tensor<8x32xi8> {
  %n = neg %x
  %nn = neg %n
  return %nn
})");
    EXPECT_EQ(countOps(folded(f), OpKind::Neg), 2);
}

TEST(FoldConstants, KeptOpsKeepTheirProvenance) {
    Function f = parse(R"(
func @f(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %a = muls %x, 1.0
  %e = exp %a
  return %e
})");
    runPass(f, foldConstants);
    ASSERT_EQ(f.ops().size(), 1u);
    EXPECT_EQ(f.ops()[0].parent, 1u); // exp was op #1 before the pass
    EXPECT_EQ(f.ops()[0].loc.line, 4u);
}

} // namespace
} // namespace pto::test
