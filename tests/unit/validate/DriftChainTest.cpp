// Unit tests of validate/DriftChain.h: the accumulation drift a value inherits through a chain
// (sums add their K, max/min and elementwise ops pass it on, integers carry none, a narrowing
// cast of a drifted value carries one ulp of its type, loops add theirs per iteration) and the
// class and K a drifted value is judged by.
#include "validate/DriftChain.h"

#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace pto {
namespace {

ValueId named(const Function& f, std::string_view name) {
    const NameTable names(f);
    for (ValueId v = 0; v < f.valueCount(); ++v)
        if (names[v] == name) return v;
    ADD_FAILURE() << "no value %" << name;
    return 0;
}

const char* kChain =
    R"(func @f(%a: tensor<16x256xf16>, %b: tensor<256x64xf16>) -> tensor<16x64xf16> {
  %c = matmul %a, %b
  %m = reduce_max %c {axis = 1, keepdim}
  %e = exp (sub %c, %m)
  %s = reduce_sum %e {axis = 1, keepdim}
  %p = div %e, %s
  %h = cast %p : tensor<16x64xf16>
  %i = topk %p {k = 2, indices}
  %q = cast %c {round = "rne"} : tensor<16x64xi8>
  %g = gather %b, %i {axis = 0}
  %x = mul %a, %a
  return %h
}
)";

TEST(DriftChain, SumsAddTheirKAndEverythingElsePassesItOn) {
    const Function f = parseFunctionText(kChain, "<chain>");
    const std::vector<int64_t> k = propagatedAccumulation(f);
    EXPECT_EQ(k[named(f, "a")], 0);
    EXPECT_EQ(k[named(f, "c")], 256);      // the matmul's own K
    EXPECT_EQ(k[named(f, "m")], 256);      // a max is the same in any order: nothing added
    EXPECT_EQ(k[named(f, "e")], 256);      // elementwise: its inputs' drift
    EXPECT_EQ(k[named(f, "s")], 256 + 64); // a 64-term sum of drifted terms
    EXPECT_EQ(k[named(f, "p")], 320);
    EXPECT_EQ(k[named(f, "h")], 1 << 14); // f16 of a drifted value: one f16 ulp
    EXPECT_EQ(k[named(f, "i")], 0);       // indices are exact or wrong
    EXPECT_EQ(k[named(f, "q")], 0);
    EXPECT_EQ(k[named(f, "g")], 0); // rows of an argument picked by an (exact) index
    EXPECT_EQ(k[named(f, "x")], 0); // no accumulation upstream
}

TEST(DriftChain, DriftedValuesAreJudgedByTheAccumulationTheyCarry) {
    const Function f = parseFunctionText(kChain, "<chain>");
    const std::vector<int64_t> k = propagatedAccumulation(f);
    using TC = ToleranceClass;
    // An elementwise op behind a matmul: the accumulation rule with the chain's K.
    EXPECT_EQ(driftedTolerance(f, named(f, "e"), k),
              std::make_pair(TC::Accumulation, int64_t{256}));
    // A reduction keeps its class, with the K of the whole chain.
    EXPECT_EQ(driftedTolerance(f, named(f, "s"), k),
              std::make_pair(TC::Accumulation, int64_t{320}));
    // A float rounded to an integer may round the other way: one step (the Composite rule).
    EXPECT_EQ(driftedTolerance(f, named(f, "q"), k).first, TC::Composite);
    EXPECT_DOUBLE_EQ(opTolerance(DType::I8, TC::Composite, 1, 0.0).atol, 1.0);
    // Indices stay exact; an argument is elementwise.
    EXPECT_EQ(driftedTolerance(f, named(f, "i"), k), std::make_pair(TC::Elementwise, int64_t{1}));
    EXPECT_EQ(driftedTolerance(f, named(f, "a"), k), std::make_pair(TC::Elementwise, int64_t{1}));
    EXPECT_TRUE(inputsMayDrift(f, named(f, "e"), k));
    EXPECT_FALSE(inputsMayDrift(f, named(f, "c"), k));
    EXPECT_FALSE(inputsMayDrift(f, named(f, "g"), k));
}

TEST(DriftChain, ALoopCarriesItsBodysDriftThroughEveryIteration) {
    const Function f =
        parseFunctionText(R"(func @f(%w: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %z = fill {value = 1.0} : tensor<8x8xf32>
  %r:2 = for "i" %i = 0 to 5 step 1 iter_args(%acc = %z, %keep = %z) {
    %t = matmul %acc, %w
    %u = add %keep, (reduce_sum %w {axis = 1, keepdim})
    yield %t, %u
  }
  return %r#0, %r#1
}
)",
                          "<loop>");
    const std::vector<int64_t> k = propagatedAccumulation(f);
    EXPECT_EQ(k[f.results[0]], 5 * 8); // a product of five 8-term matmuls
    EXPECT_EQ(k[f.results[1]], 8);     // a sum of drifted terms: as drifted as the worst
}

// A composite is decomposed into primitives: its f16/bf16 result may round the other way, one
// ulp of the type (2^14 resp. 2^17 units of 2^-24), whatever its inputs carry; an f32 one
// carries nothing of its own. (Bisecting a random loop program with a bf16 gelu before a matmul
// reported a false divergence at the matmul's K = 16.)
TEST(DriftChain, ANarrowCompositeCarriesOneUlpOfItsType) {
    const Function f = parseFunctionText(
        R"(func @f(%x: tensor<2x16xbf16>, %w: tensor<16x16xbf16>, %y: tensor<2x16xf32>)
    -> (tensor<2x16xf32>, tensor<2x16xf32>) {
  %g = gelu %x
  %m = matmul %g, %w
  %h = gelu %y
  return %m, %h
}
)",
        "<composite>");
    const std::vector<int64_t> k = propagatedAccumulation(f);
    EXPECT_EQ(k[f.results[0]], (int64_t{1} << 17) + 16);
    EXPECT_EQ(k[f.results[1]], 0);
}

// exp(x) turns a relative error e of x into |x|·e of its result: with the reference values at
// hand the drift it passes on is multiplied by max(1, max |x|) (sigmoid, silu, gelu and softmax by
// their condition numbers). Bisecting a random program whose gelu saw inputs near -60 reported
// its exp, whose result was 1e27, as "not within the drift" although it was right.
TEST(DriftChain, ExpAndItsCompositesAmplifyTheDriftByTheirLargestInput) {
    const Function f = parseFunctionText(
        R"(func @f(%a: tensor<16x256xf32>, %b: tensor<256x64xf32>) -> tensor<16x64xf32> {
  %c = matmul %a, %b
  %e = exp %c
  %g = sigmoid %c
  %s = silu %c
  %t = tanh %c
  %d = add %c, %c
  return %e
}
)",
        "<amplify>");
    std::vector<TensorData> values(f.valueCount());
    std::vector<float> c(16 * 64, 1.0f);
    c[5] = -32.0f; // the largest magnitude decides, whatever its sign
    c[9] = std::numeric_limits<float>::infinity(); // not finite: ignored
    values[named(f, "c")] = TensorData::fromFloats(DType::F32, Shape{16, 64}, c);
    const std::vector<int64_t> k = propagatedAccumulation(f, values);
    EXPECT_EQ(k[named(f, "c")], 256);
    EXPECT_EQ(k[named(f, "e")], 256 * 32);
    EXPECT_EQ(k[named(f, "g")], 256 * 32);
    EXPECT_EQ(k[named(f, "s")], 256 * 33);
    EXPECT_EQ(k[named(f, "t")], 256); // |x·tanh'(x) / tanh(x)| ≤ 1
    EXPECT_EQ(k[named(f, "d")], 256);
    // Without values nothing is amplified; an exp of an undrifted value stays exact.
    EXPECT_EQ(propagatedAccumulation(f)[named(f, "e")], 256);
    const Function g = parseFunctionText(
        "func @g(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %e = exp %x\n  return %e\n}\n", "<g>");
    std::vector<TensorData> gv(g.valueCount());
    gv[g.args[0]] = TensorData::fromFloats(DType::F32, Shape{4}, std::vector<float>(4, 50.0f));
    EXPECT_EQ(propagatedAccumulation(g, gv)[g.results[0]], 0);
}

} // namespace
} // namespace pto
