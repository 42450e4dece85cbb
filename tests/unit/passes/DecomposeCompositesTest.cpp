// decompose-composites: the expansions' structure (primitives only, f32 inside, provenance,
// tile sizes) and their numbers against the Tensor interpreter's direct f32 composites.
#include "compiler/passes/DecomposeComposites.h"
#include "compiler/interp/TensorInterpreter.h"
#include "tests/unit/passes/PassTestUtil.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

std::vector<OpKind> kinds(const Function& f) {
    std::vector<OpKind> k;
    for (const Op& op : f.ops()) k.push_back(op.kind);
    return k;
}

Function decomposed(const Function& f) {
    Function g = f;
    runPass(g, decomposeComposites);
    return g;
}

TEST(DecomposeComposites, SigmoidIsNegExpAddsReciprocal) {
    const Function f = decomposed(parse(R"(
func @f(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %y = sigmoid %x
  return %y
})"));
    EXPECT_EQ(kinds(f),
              (std::vector<OpKind>{OpKind::Neg, OpKind::Exp, OpKind::AddS, OpKind::Reciprocal}));
    EXPECT_EQ(f.ops()[2].attrs.getFloat("scalar"), 1.0);
    // The last op defines the composite's own value: name and uses are kept.
    EXPECT_EQ(f.value(f.results[0]).name, "y");
    EXPECT_EQ(f.results[0], f.ops().back().result);
}

TEST(DecomposeComposites, NarrowInputsComputeInF32AndRoundOnce) {
    const Function f = decomposed(parse(R"(
func @f(%x: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %y = gelu %x
  return %y
})"));
    ASSERT_GE(f.ops().size(), 3u);
    EXPECT_EQ(f.ops().front().kind, OpKind::Cast);
    EXPECT_EQ(f.ops().back().kind, OpKind::Cast);
    for (size_t i = 0; i + 1 < f.ops().size(); ++i)
        EXPECT_EQ(f.type(f.ops()[i].result).dtype, DType::F32) << "op " << i;
    EXPECT_EQ(f.type(f.results[0]).dtype, DType::F16);
}

TEST(DecomposeComposites, NoCompositeIsLeftAndUsersReadTheExpansion) {
    const Function f = decomposed(parse(R"(
func @f(%x: tensor<8x32xf32>, %w: tensor<32xf32>) -> tensor<8x32xf32> {
  %a = softmax %x
  %b = silu %a
  %c = tanh %b
  %d = rms_norm %c, %w
  %e = layer_norm %d, %w, %w
  %g = add %e, %a
  return %g
})"));
    for (const Op& op : f.ops())
        EXPECT_NE(opInfo(op.kind).cls, OpClass::Composite) << opName(op.kind);
    // %g = add %e, %a still reads the values named e and a, now defined by primitives.
    const Op& add = f.ops().back();
    EXPECT_EQ(f.value(add.operands[0]).name, "e");
    EXPECT_EQ(f.value(add.operands[1]).name, "a");
    EXPECT_EQ(f.producer(add.operands[1])->kind, OpKind::Div);
}

TEST(DecomposeComposites, EveryNewOpKeepsTheCompositesLocAndParent) {
    Function f = parse(R"(
func @f(%x: tensor<8x32xf16>) -> tensor<8x32xf16> {
  %a = exp %x
  %y = softmax %a
  return %y
})");
    const SourceLoc softmaxLoc = f.ops()[1].loc;
    runPass(f, decomposeComposites);
    EXPECT_EQ(f.ops()[0].parent, 0u);
    for (size_t i = 1; i < f.ops().size(); ++i) {
        EXPECT_EQ(f.ops()[i].parent, 1u) << i;
        EXPECT_EQ(f.ops()[i].loc, softmaxLoc) << i;
    }
}

TEST(DecomposeComposites, TileSizesFollowTheComposite) {
    const Function f = decomposed(parse(R"(
func @f(%x: tensor<16x256xf16>, %w: tensor<256xf16>) -> (tensor<16x256xf16>, tensor<16x256xf16>) {
  vec_tile [4, 256]
  %y = rms_norm %x, %w
  %z = softmax %x {vec_tile = [8, 128]}
  return %y, %z
})"));
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::VecTile) continue;
        const bool ofSoftmax = op.loc.line == 5;
        const auto sizes = op.attrs.getInts("vec_tile");
        if (ofSoftmax) {
            // The composite's own override is copied to every op of its expansion.
            EXPECT_EQ(sizes, (std::vector<int64_t>{8, 128})) << opName(op.kind);
        } else if (f.type(op.result).shape.rank() == 1) {
            // The scoped [4, 256] restated for the rank-1 weight: trailing sizes.
            EXPECT_EQ(sizes, (std::vector<int64_t>{256})) << opName(op.kind);
        } else {
            EXPECT_FALSE(sizes) << opName(op.kind); // the scope applies as written
        }
    }
}

TEST(DecomposeComposites, UnsupportedGeluApproximationIsAnError) {
    Function f;
    f.name = "f";
    const ValueId x = f.addArg(Type{DType::F32, Shape{4, 32}}, "x");
    Op op;
    op.kind = OpKind::Gelu;
    op.operands = {x};
    op.attrs.set("approximate", std::string("none"));
    op.loc = {3, 8};
    const Type t{DType::F32, Shape{4, 32}};
    f.results.push_back(f.op(f.addOp(op, &t, "y")).result);
    try {
        decomposeComposites(f);
        FAIL() << "expected a CompileError";
    } catch (const CompileError& e) {
        EXPECT_EQ(e.loc(), (SourceLoc{3, 8}));
        EXPECT_NE(e.message().find("gelu %y: approximate = \"none\" is not supported"),
                  std::string::npos)
            << e.message();
    }
}

// --- gather, topk and cumsum along the axes expand-tiles does not lower as written ---

// Every index op left reads an axis expand-tiles lowers as written.
void expectLowerableAxes(const Function& f) {
    for (const Op& op : f.ops()) {
        if (op.kind != OpKind::Gather && op.kind != OpKind::TopK && op.kind != OpKind::CumSum)
            continue;
        const int rank = f.type(op.operands[0]).shape.rank();
        int64_t axis = op.attrs.getInt("axis", op.kind == OpKind::Gather ? 0 : -1);
        if (axis < 0) axis += rank;
        if (op.kind == OpKind::Gather) {
            EXPECT_EQ(axis, rank - 2) << "a gather not along the second-last axis";
            EXPECT_GE(f.type(op.operands[1]).shape.rank(), 1);
        } else
            EXPECT_GE(axis, rank - 2) << "a topk or cumsum before the last two axes";
    }
}

TEST(DecomposeComposites, IndexOpsAlongOtherAxesMoveElementsOnlyAndKeepTheirValues) {
    const Function f = parse(R"(
func @f(%v: tensor<33xf32>, %t: tensor<5x7x9xf16>, %i: tensor<2x3xi32>, %j: tensor<4xi32>,
        %x: tensor<6x3x2x5xf32>, %c: tensor<7x3x4xi32>)
    -> (tensor<2x3xf32>, tensor<5x7x2x3xf16>, tensor<4x7x9xf16>, tensor<5x4x9xf16>,
        tensor<3x3x2x5xf32>, tensor<6x3x2x5xi32>, tensor<7x3x4xi32>) {
  %a = gather %v, %i {axis = 0}
  %b = gather %t, %i {axis = -1}
  %d = gather %t, %j {axis = 0}
  %e = gather %t, %j {axis = 1}
  %g = topk %x {k = 3, axis = 0, largest = false}
  %h = topk %x {k = 6, axis = -4, indices}
  %s = cumsum %c {axis = 0}
  return %a, %b, %d, %e, %g, %h, %s
})");
    const Function g = decomposed(f);
    expectLowerableAxes(g);
    EXPECT_EQ(g.value(g.results[1]).name, "b");
    std::vector<TensorData> in;
    for (size_t k = 0; k < f.args.size(); ++k)
        in.push_back(randomTensor(f.type(f.args[k]).dtype, f.type(f.args[k]).shape, 10 + k));
    for (int64_t e = 0; e < 6; ++e) in[2].set(e, float((e * 4) % 5)); // 0..4: rows of %t too
    for (int64_t e = 0; e < 4; ++e) in[3].set(e, float(4 - e));
    const EvalResult want = evaluateTensor(f, in);
    const EvalResult got = evaluateTensor(g, in);
    ASSERT_EQ(got.outputs.size(), want.outputs.size());
    for (size_t k = 0; k < want.outputs.size(); ++k)
        EXPECT_EQ(got.outputs[k], want.outputs[k]) << "result " << k;
}

// topk and cumsum down columns so long that even the narrowest strip of whole columns exceeds
// the 32 KiB a strip may take (while a line fits 64 KiB) run along the rows of the transpose:
// the swap of the last two axes, the op along the last axis, the swap back. A column that fits
// a strip (%s: 1024 rows x 16 f16 columns, 32 KiB) stays as written; %h (4096x4 i32, 64 KiB:
// moe_dispatch_combine's routing cumsum at 2048 tokens) does not.
TEST(DecomposeComposites, ColumnsTooTallForAStripRunAlongTheRowsOfTheTranspose) {
    const Function f = parse(R"(
func @f(%x: tensor<4096x64xf32>, %c: tensor<3072x8xi32>, %s: tensor<2x1024x20xf16>,
        %t: tensor<3000x2x64xf32>, %h: tensor<4096x4xi32>)
    -> (tensor<8x64xi32>, tensor<3072x8xi32>, tensor<2x3x20xf16>, tensor<3000x2x64xf32>,
        tensor<4096x4xi32>) {
  %a = topk %x {k = 8, axis = 0, indices}
  %b = cumsum %c {axis = 0}
  %d = topk %s {k = 3, axis = 1}
  %e = cumsum %t {axis = 0}
  %r = cumsum %h {axis = 0}
  return %a, %b, %d, %e, %r
})");
    const Function g = decomposed(f);
    std::vector<int64_t> axes;
    for (const Op& op : g.ops())
        if (op.kind == OpKind::TopK || op.kind == OpKind::CumSum)
            axes.push_back(op.attrs.getInt("axis", -1));
    EXPECT_EQ(axes, (std::vector<int64_t>{1, 1, 1, 2, 1}));
    EXPECT_EQ(countOps(g, OpKind::Transpose), 10); // 2 + 2 + 0 + 4 (%e: to axis 1, then last) + 2
    std::vector<TensorData> in;
    for (size_t k = 0; k < f.args.size(); ++k)
        in.push_back(randomTensor(f.type(f.args[k]).dtype, f.type(f.args[k]).shape, 20 + k));
    const EvalResult want = evaluateTensor(f, in);
    const EvalResult got = evaluateTensor(g, in);
    ASSERT_EQ(got.outputs.size(), want.outputs.size());
    for (size_t k = 0; k < want.outputs.size(); ++k)
        EXPECT_EQ(got.outputs[k], want.outputs[k]) << "result " << k;
}

// --- numbers: decomposed (primitives, each rounded) vs the composite evaluated directly ---

struct NumCase {
    const char* name;
    const char* text;
    double rtol, atol;
    double lo = -1.0, hi = 1.0;
};

class DecomposeNumerics : public ::testing::TestWithParam<NumCase> {};

TEST_P(DecomposeNumerics, MatchesTheDirectF32Composite) {
    const NumCase& c = GetParam();
    const Function f = parse(c.text);
    const Function g = decomposed(f);
    const std::vector<TensorData> in = randomInputs(f, 42, c.lo, c.hi);
    const EvalResult want = evaluateTensor(f, in);
    const EvalResult got = evaluateTensor(g, in);
    for (size_t i = 0; i < want.outputs.size(); ++i)
        EXPECT_EQ(compare(got.outputs[i], want.outputs[i], c.rtol, c.atol), "") << c.name;
}

const NumCase kNumCases[] = {
    {"sigmoid_f32",
     "func @f(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {\n %y = sigmoid %x\n return %y\n}",
     1e-6, 1e-7, -60, 60},
    {"sigmoid_f16",
     "func @f(%x: tensor<64x128xf16>) -> tensor<64x128xf16> {\n %y = sigmoid %x\n return %y\n}",
     1e-3, 1e-4, -12, 12},
    {"tanh_f32",
     "func @f(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {\n %y = tanh %x\n return %y\n}", 1e-6,
     1e-6, -40, 40},
    {"tanh_bf16",
     "func @f(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16> {\n %y = tanh %x\n return %y\n}",
     8e-3, 1e-3, -4, 4},
    {"gelu_f32",
     "func @f(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {\n %y = gelu %x\n return %y\n}", 1e-5,
     1e-6, -30, 30},
    {"gelu_f16",
     "func @f(%x: tensor<64x128xf16>) -> tensor<64x128xf16> {\n %y = gelu %x\n return %y\n}", 1e-3,
     1e-4, -8, 8},
    {"silu_f32",
     "func @f(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {\n %y = silu %x\n return %y\n}", 1e-6,
     1e-7, -60, 60},
    {"softmax_f16",
     "func @f(%x: tensor<32x256xf16>) -> tensor<32x256xf16> {\n %y = softmax %x\n return %y\n}",
     1e-3, 1e-6, -8, 8},
    {"softmax_axis0_f32",
     "func @f(%x: tensor<32x256xf32>) -> tensor<32x256xf32> {\n %y = softmax %x {axis = 0}\n "
     "return %y\n}",
     1e-6, 1e-8, -8, 8},
    {"rms_norm_f16",
     "func @f(%x: tensor<32x256xf16>, %w: tensor<256xf16>) -> tensor<32x256xf16> {\n %y = rms_norm "
     "%x, %w {eps = 1e-06}\n return %y\n}",
     1e-3, 1e-4},
    {"rms_norm_f32",
     "func @f(%x: tensor<2x16x256xf32>) -> tensor<2x16x256xf32> {\n %y = rms_norm %x\n return "
     "%y\n}",
     2e-6, 1e-6},
    {"layer_norm_f32",
     "func @f(%x: tensor<32x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>) -> "
     "tensor<32x256xf32> {\n %y = layer_norm %x, %g, %b\n return %y\n}",
     1e-5, 1e-5},
    {"layer_norm_f16",
     "func @f(%x: tensor<32x256xf16>) -> tensor<32x256xf16> {\n %y = layer_norm %x {eps = 1e-05}\n "
     "return %y\n}",
     1e-3, 2e-3},
    {"quantize",
     "func @f(%x: tensor<32x256xf16>, %s: tensor<1x256xf16>) -> tensor<32x256xi8> {\n %y = "
     "quantize %x, %s\n return %y\n}",
     0, 0, -4, 4},
    {"dequantize",
     "func @f(%q: tensor<32x256xi8>, %s: tensor<256xf32>) -> tensor<32x256xbf16> {\n %y = "
     "dequantize %q, %s : tensor<32x256xbf16>\n return %y\n}",
     0, 0},
};

INSTANTIATE_TEST_SUITE_P(Composites, DecomposeNumerics, ::testing::ValuesIn(kNumCases),
                         [](const auto& p) { return std::string(p.param.name); });

} // namespace
} // namespace pto::test
