// Tensor interpreter vs NumPy/PyTorch (reference.py) for every Tensor-level op, plus the
// interpreter's error reporting and value bookkeeping.
#include "compiler/interp/TensorInterpreter.h"
#include "tests/support/TestTensors.h"
#include "tests/unit/interp/ReferenceHarness.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace pto::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TensorData rnd(DType dtype, Shape shape, uint64_t seed) {
    return randomTensor(dtype, shape, seed);
}
TensorData rnd(DType dtype, Shape shape, uint64_t seed, double lo, double hi) {
    return randomTensor(dtype, shape, seed, {lo, hi});
}

// Small integers stored in a float dtype: comparisons then hit ties (eq) often.
TensorData integerValued(DType dtype, Shape shape, uint64_t seed, int lo, int hi) {
    const TensorData ints = randomTensor(DType::I32, shape, seed, {double(lo), double(hi)});
    TensorData t(dtype, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, ints.get(i));
    return t;
}

TensorData values(DType dtype, Shape shape, std::initializer_list<float> xs) {
    TensorData t(dtype, shape);
    int64_t i = 0;
    for (float x : xs) t.set(i++, x);
    return t;
}

using test::extremeInt8;

Attrs attrs(std::initializer_list<std::pair<const char*, AttrValue>> items) {
    Attrs a;
    for (const auto& [name, value] : items) a.set(name, value);
    return a;
}

OpCase opCase(std::string name, OpKind kind, std::vector<TensorData> inputs, DType dtype,
              Shape shape, Attrs a = {}) {
    OpCase c;
    c.name = std::move(name);
    c.kind = kind;
    c.attrs = std::move(a);
    c.inputs = std::move(inputs);
    c.resultDType = dtype;
    c.resultShape = shape;
    c.tol = defaultTolerance(dtype);
    return c;
}

OpCase withTol(OpCase c, Tolerance tol) {
    c.tol = tol;
    return c;
}

TEST(TensorInterpreterReference, BinaryWithBroadcasting) {
    std::vector<OpCase> cases;
    const OpKind kinds[] = {OpKind::Add, OpKind::Sub, OpKind::Mul,
                            OpKind::Div, OpKind::Max, OpKind::Min};
    uint64_t seed = 100;
    for (OpKind k : kinds) {
        const std::string n(opName(k));
        // Denominators of div kept away from 0 so the f32 quotient is well conditioned.
        auto b = [&](DType d, Shape s) {
            return k == OpKind::Div ? rnd(d, s, seed++, 0.5, 2.0) : rnd(d, s, seed++);
        };
        cases.push_back(opCase(n + "_f32", k,
                               {rnd(DType::F32, {8, 64}, seed++), b(DType::F32, {8, 64})},
                               DType::F32, {8, 64}));
        cases.push_back(opCase(n + "_f32_bcast3d", k,
                               {rnd(DType::F32, {4, 1, 32}, seed++), b(DType::F32, {3, 1})},
                               DType::F32, {4, 3, 32}));
        cases.push_back(opCase(n + "_f32_row", k,
                               {rnd(DType::F32, {16, 32}, seed++), b(DType::F32, {32})}, DType::F32,
                               {16, 32}));
        cases.push_back(opCase(n + "_f16_col", k,
                               {rnd(DType::F16, {16, 64}, seed++), b(DType::F16, {16, 1})},
                               DType::F16, {16, 64}));
        cases.push_back(opCase(n + "_bf16", k,
                               {rnd(DType::BF16, {16, 64}, seed++), b(DType::BF16, {16, 64})},
                               DType::BF16, {16, 64}));
        cases.push_back(opCase(n + "_scalar_tensor", k,
                               {rnd(DType::F32, {1}, seed++), b(DType::F32, {5, 7})}, DType::F32,
                               {5, 7}));
    }
    // Integer results: exact (values stay far below 2^24, where f32 holds every integer).
    cases.push_back(opCase("add_i32", OpKind::Add,
                           {rnd(DType::I32, {8, 32}, 1), rnd(DType::I32, {8, 32}, 2)}, DType::I32,
                           {8, 32}));
    cases.push_back(opCase("mul_i32", OpKind::Mul,
                           {rnd(DType::I32, {8, 32}, 3), rnd(DType::I32, {8, 32}, 4)}, DType::I32,
                           {8, 32}));
    // f32 inputs into an f16 result: the f32 sum is rounded once to f16.
    cases.push_back(opCase("add_f32_to_f16", OpKind::Add,
                           {rnd(DType::F32, {8, 32}, 5), rnd(DType::F32, {8, 32}, 6)}, DType::F16,
                           {8, 32}));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, ScalarOps) {
    std::vector<OpCase> cases;
    const OpKind kinds[] = {OpKind::AddS, OpKind::SubS, OpKind::MulS,
                            OpKind::DivS, OpKind::MaxS, OpKind::MinS};
    uint64_t seed = 200;
    for (OpKind k : kinds) {
        const std::string n(opName(k));
        // 0.3 is not an f32: both sides round the double scalar to f32 first.
        cases.push_back(opCase(n + "_f32", k, {rnd(DType::F32, {8, 48}, seed++)}, DType::F32,
                               {8, 48}, attrs({{"scalar", 0.3}})));
        cases.push_back(opCase(n + "_f16", k, {rnd(DType::F16, {8, 48}, seed++)}, DType::F16,
                               {8, 48}, attrs({{"scalar", -1.7}})));
        cases.push_back(opCase(n + "_bf16_int_scalar", k, {rnd(DType::BF16, {4, 32}, seed++)},
                               DType::BF16, {4, 32}, attrs({{"scalar", int64_t{3}}})));
    }
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, UnaryPrimitives) {
    std::vector<OpCase> cases;
    struct Spec {
        OpKind kind;
        double lo, hi; // input range inside the op's domain
    };
    const Spec specs[] = {{OpKind::Exp, -5, 5},         {OpKind::Log, 0.01, 8},
                          {OpKind::Sqrt, 0, 8},         {OpKind::Rsqrt, 0.01, 8},
                          {OpKind::Reciprocal, 0.1, 4}, {OpKind::Abs, -2, 2},
                          {OpKind::Neg, -2, 2},         {OpKind::Relu, -2, 2}};
    uint64_t seed = 300;
    for (const Spec& s : specs) {
        const std::string n(opName(s.kind));
        for (DType d : {DType::F32, DType::F16, DType::BF16})
            cases.push_back(opCase(n + "_" + std::string(dtypeName(d)), s.kind,
                                   {rnd(d, {8, 64}, seed++, s.lo, s.hi)}, d, {8, 64}));
    }
    // exp overflows to inf, log(0) = -inf, log(-1) = NaN, sqrt(-1) = NaN, 1/0 = inf.
    cases.push_back(opCase("exp_special", OpKind::Exp,
                           {values(DType::F32, {6}, {kNaN, kInf, -kInf, 100.0f, -100.0f, 0.0f})},
                           DType::F32, {6}));
    cases.push_back(opCase("log_special", OpKind::Log,
                           {values(DType::F32, {4}, {0.0f, -1.0f, kInf, kNaN})}, DType::F32, {4}));
    cases.push_back(opCase("reciprocal_zero", OpKind::Reciprocal,
                           {values(DType::F32, {3}, {0.0f, -0.0f, kInf})}, DType::F32, {3}));
    cases.push_back(opCase("relu_nan", OpKind::Relu, {values(DType::F32, {3}, {kNaN, -kInf, kInf})},
                           DType::F32, {3}));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, CompositeUnaries) {
    std::vector<OpCase> cases;
    uint64_t seed = 400;
    for (OpKind k : {OpKind::Sigmoid, OpKind::Tanh, OpKind::Gelu, OpKind::Silu}) {
        const std::string n(opName(k));
        cases.push_back(opCase(n + "_f32", k, {rnd(DType::F32, {16, 64}, seed++, -6, 6)},
                               DType::F32, {16, 64}));
        cases.push_back(opCase(n + "_f16", k, {rnd(DType::F16, {16, 64}, seed++, -6, 6)},
                               DType::F16, {16, 64}));
        cases.push_back(opCase(n + "_bf16", k, {rnd(DType::BF16, {16, 64}, seed++, -6, 6)},
                               DType::BF16, {16, 64}));
        cases.push_back(opCase(n + "_tails", k,
                               {values(DType::F32, {4}, {-100.0f, 100.0f, -20.0f, 20.0f})},
                               DType::F32, {4}));
    }
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, Reductions) {
    std::vector<OpCase> cases;
    uint64_t seed = 500;
    for (OpKind k : {OpKind::ReduceSum, OpKind::ReduceMax, OpKind::ReduceMin}) {
        const std::string n(opName(k));
        cases.push_back(opCase(n + "_last", k, {rnd(DType::F32, {16, 64}, seed++)}, DType::F32,
                               {16}, attrs({{"axis", int64_t{1}}})));
        cases.push_back(opCase(n + "_neg_keepdim", k, {rnd(DType::F32, {16, 64}, seed++)},
                               DType::F32, {16, 1},
                               attrs({{"axis", int64_t{-1}}, {"keepdim", true}})));
        cases.push_back(opCase(n + "_axis0_keepdim", k, {rnd(DType::F32, {16, 64}, seed++)},
                               DType::F32, {1, 64},
                               attrs({{"axis", int64_t{0}}, {"keepdim", true}})));
        cases.push_back(opCase(n + "_3d_middle", k, {rnd(DType::F32, {4, 12, 32}, seed++)},
                               DType::F32, {4, 32}, attrs({{"axis", int64_t{1}}})));
        cases.push_back(opCase(n + "_3d_neg3", k, {rnd(DType::F32, {4, 12, 32}, seed++)},
                               DType::F32, {12, 32}, attrs({{"axis", int64_t{-3}}})));
        cases.push_back(opCase(n + "_f16", k, {rnd(DType::F16, {8, 128}, seed++)}, DType::F16,
                               {8, 1}, attrs({{"axis", int64_t{1}}, {"keepdim", true}})));
    }
    // A long f32 sum: we add in index order, torch in blocks; for 4096 terms of [0, 1) (sum
    // ~2048) both are within ~4096·2^-24 relative of the exact sum, so rtol 2.5e-4 bounds it.
    cases.push_back(withTol(opCase("reduce_sum_long", OpKind::ReduceSum,
                                   {rnd(DType::F32, {2, 4096}, 590, 0, 1)}, DType::F32, {2},
                                   attrs({{"axis", int64_t{1}}})),
                            {2.5e-4, 1e-5}));
    // NaN in a row propagates through max and min; inf is an ordinary extreme.
    TensorData special = rnd(DType::F32, {4, 8}, 591);
    special.set(1, kNaN);
    special.set(8 + 3, kInf);
    special.set(16 + 5, -kInf);
    for (OpKind k : {OpKind::ReduceMax, OpKind::ReduceMin, OpKind::ReduceSum})
        cases.push_back(opCase(std::string(opName(k)) + "_special", k, {special}, DType::F32, {4},
                               attrs({{"axis", int64_t{1}}})));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, Softmax) {
    std::vector<OpCase> cases;
    cases.push_back(opCase("softmax_last", OpKind::Softmax,
                           {rnd(DType::F32, {16, 128}, 600, -4, 4)}, DType::F32, {16, 128}));
    cases.push_back(opCase("softmax_axis0", OpKind::Softmax,
                           {rnd(DType::F32, {32, 16}, 601, -4, 4)}, DType::F32, {32, 16},
                           attrs({{"axis", int64_t{0}}})));
    cases.push_back(opCase("softmax_3d_axis1", OpKind::Softmax,
                           {rnd(DType::F32, {2, 24, 8}, 602, -4, 4)}, DType::F32, {2, 24, 8},
                           attrs({{"axis", int64_t{-2}}})));
    cases.push_back(opCase("softmax_f16", OpKind::Softmax, {rnd(DType::F16, {8, 256}, 603, -8, 8)},
                           DType::F16, {8, 256}));
    cases.push_back(opCase("softmax_bf16", OpKind::Softmax, {rnd(DType::BF16, {8, 64}, 604, -8, 8)},
                           DType::BF16, {8, 64}));
    // Max subtraction keeps large logits finite; a -inf logit gets probability 0.
    cases.push_back(
        opCase("softmax_large", OpKind::Softmax,
               {values(DType::F32, {2, 3}, {1000.0f, 999.0f, -kInf, 88.0f, 89.0f, 90.0f})},
               DType::F32, {2, 3}));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, Normalisations) {
    std::vector<OpCase> cases;
    const TensorData x = rnd(DType::F32, {16, 96}, 700, -3, 3);
    const TensorData w = rnd(DType::F32, {96}, 701, 0.5, 1.5);
    const TensorData b = rnd(DType::F32, {96}, 702);
    cases.push_back(opCase("rms_norm_plain", OpKind::RmsNorm, {x}, DType::F32, {16, 96}));
    cases.push_back(opCase("rms_norm_weight", OpKind::RmsNorm, {x, w}, DType::F32, {16, 96},
                           attrs({{"eps", 1e-5}})));
    cases.push_back(opCase("rms_norm_f16", OpKind::RmsNorm,
                           {rnd(DType::F16, {4, 8, 64}, 703, -3, 3), rnd(DType::F16, {64}, 704)},
                           DType::F16, {4, 8, 64}));
    cases.push_back(opCase("layer_norm_plain", OpKind::LayerNorm, {x}, DType::F32, {16, 96}));
    cases.push_back(opCase("layer_norm_gamma", OpKind::LayerNorm, {x, w}, DType::F32, {16, 96}));
    cases.push_back(opCase("layer_norm_affine", OpKind::LayerNorm, {x, w, b}, DType::F32, {16, 96},
                           attrs({{"eps", 1e-3}})));
    cases.push_back(opCase("layer_norm_f16", OpKind::LayerNorm,
                           {rnd(DType::F16, {8, 128}, 705, -3, 3), rnd(DType::F16, {128}, 706),
                            rnd(DType::F16, {128}, 707)},
                           DType::F16, {8, 128}));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, Matmul) {
    std::vector<OpCase> cases;
    // f32 results: torch sums k in blocks, we in order; over k ≤ 128 products of [-1, 1) the
    // two differ by a few ulps of the largest partial sum (≤ ~8), i.e. < 1e-5 absolute.
    const Tolerance f32Sum{1.3e-6, 2e-5};
    cases.push_back(withTol(opCase("mm_f32", OpKind::Matmul,
                                   {rnd(DType::F32, {32, 64}, 800), rnd(DType::F32, {64, 48}, 801)},
                                   DType::F32, {32, 48}),
                            f32Sum));
    cases.push_back(
        withTol(opCase("mm_f16_f32acc", OpKind::Matmul,
                       {rnd(DType::F16, {32, 128}, 802), rnd(DType::F16, {128, 64}, 803)},
                       DType::F32, {32, 64}),
                f32Sum));
    cases.push_back(opCase("mm_f16_out_f16", OpKind::Matmul,
                           {rnd(DType::F16, {32, 128}, 804), rnd(DType::F16, {128, 64}, 805)},
                           DType::F16, {32, 64}));
    cases.push_back(opCase("mm_bf16_out_bf16", OpKind::Matmul,
                           {rnd(DType::BF16, {16, 64}, 806), rnd(DType::BF16, {64, 32}, 807)},
                           DType::BF16, {16, 32}));
    cases.push_back(withTol(opCase("mm_ta", OpKind::Matmul,
                                   {rnd(DType::F32, {64, 32}, 808), rnd(DType::F32, {64, 48}, 809)},
                                   DType::F32, {32, 48}, attrs({{"transpose_a", true}})),
                            f32Sum));
    cases.push_back(withTol(opCase("mm_tb", OpKind::Matmul,
                                   {rnd(DType::F32, {32, 64}, 810), rnd(DType::F32, {48, 64}, 811)},
                                   DType::F32, {32, 48}, attrs({{"transpose_b", true}})),
                            f32Sum));
    cases.push_back(
        withTol(opCase("mm_ta_tb_f16", OpKind::Matmul,
                       {rnd(DType::F16, {64, 32}, 812), rnd(DType::F16, {48, 64}, 813)}, DType::F32,
                       {32, 48}, attrs({{"transpose_a", true}, {"transpose_b", true}})),
                f32Sum));
    cases.push_back(
        withTol(opCase("mm_batched_bcast", OpKind::Matmul,
                       {rnd(DType::F32, {3, 16, 32}, 814), rnd(DType::F32, {32, 8}, 815)},
                       DType::F32, {3, 16, 8}),
                f32Sum));
    cases.push_back(
        withTol(opCase("mm_batched_both", OpKind::Matmul,
                       {rnd(DType::F32, {2, 1, 8, 16}, 816), rnd(DType::F32, {3, 16, 8}, 817)},
                       DType::F32, {2, 3, 8, 8}),
                f32Sum));
    // i8 x i8 -> i32 must be exact: |sum| ≤ 256·128·128 = 2^22 < 2^24, so every f32 partial
    // sum is an exact integer.
    cases.push_back(opCase("mm_i8_i32", OpKind::Matmul,
                           {rnd(DType::I8, {16, 256}, 818), rnd(DType::I8, {256, 32}, 819)},
                           DType::I32, {16, 32}));
    cases.push_back(opCase("mm_i8_i32_tb", OpKind::Matmul,
                           {rnd(DType::I8, {16, 256}, 820), rnd(DType::I8, {32, 256}, 821)},
                           DType::I32, {16, 32}, attrs({{"transpose_b", true}})));
    // k = 4096 at the extremes: the cube's exact int32 accumulation (an f32 one is off by
    // hundreds here), against NumPy's int64 matmul; into i32 and, rounded once, into f32.
    cases.push_back(opCase("mm_i8_k4096_extremes", OpKind::Matmul,
                           {extremeInt8(16, 4096, false, 1), extremeInt8(4096, 16, true, 2)},
                           DType::I32, {16, 16}));
    cases.push_back(opCase("mm_i8_k4096_extremes_tb", OpKind::Matmul,
                           {extremeInt8(16, 4096, false, 3), extremeInt8(16, 4096, false, 4)},
                           DType::I32, {16, 16}, attrs({{"transpose_b", true}})));
    cases.push_back(opCase("mm_i8_k4096_extremes_f32", OpKind::Matmul,
                           {extremeInt8(16, 4096, false, 5), extremeInt8(4096, 16, true, 6)},
                           DType::F32, {16, 16}));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, CompareAndSelect) {
    std::vector<OpCase> cases;
    uint64_t seed = 900;
    for (const char* p : {"eq", "ne", "lt", "le", "gt", "ge"}) {
        const std::string n(p);
        cases.push_back(opCase("cmp_" + n, OpKind::Cmp,
                               {integerValued(DType::F32, {8, 32}, seed++, -3, 3),
                                integerValued(DType::F32, {32}, seed++, -3, 3)},
                               DType::Bool, {8, 32}, attrs({{"pred", std::string(p)}})));
        cases.push_back(opCase("cmps_" + n, OpKind::CmpS,
                               {integerValued(DType::F16, {8, 32}, seed++, -3, 3)}, DType::Bool,
                               {8, 32}, attrs({{"pred", std::string(p)}, {"scalar", 1.0}})));
        // NaN compares false under every predicate but ne.
        cases.push_back(opCase("cmp_nan_" + n, OpKind::Cmp,
                               {values(DType::F32, {4}, {kNaN, 1.0f, kNaN, kInf}),
                                values(DType::F32, {4}, {1.0f, kNaN, kNaN, kInf})},
                               DType::Bool, {4}, attrs({{"pred", std::string(p)}})));
    }
    cases.push_back(opCase(
        "where_bcast", OpKind::Where,
        {rnd(DType::Bool, {8, 1}, 950), rnd(DType::F32, {8, 16}, 951), rnd(DType::F32, {16}, 952)},
        DType::F32, {8, 16}));
    cases.push_back(opCase("where_f16", OpKind::Where,
                           {rnd(DType::Bool, {8, 16}, 953), rnd(DType::F16, {8, 16}, 954),
                            rnd(DType::F16, {8, 16}, 955)},
                           DType::F16, {8, 16}));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, QuantizeDequantize) {
    std::vector<OpCase> cases;
    // Per-channel scales: values up to 4 / 0.01 = 400 saturate at ±127/-128.
    cases.push_back(
        opCase("quantize_per_channel", OpKind::Quantize,
               {rnd(DType::F16, {16, 64}, 1000, -4, 4), rnd(DType::F32, {1, 64}, 1001, 0.01, 0.05)},
               DType::I8, {16, 64}));
    // Ties round to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0, 127.5 -> 127 + sat).
    cases.push_back(
        opCase("quantize_ties_sat", OpKind::Quantize,
               {values(DType::F32, {10},
                       {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 127.5f, -128.5f, 200.0f, -1e9f, kNaN}),
                values(DType::F32, {1}, {1.0f})},
               DType::I8, {10}));
    cases.push_back(
        opCase("dequantize_f16", OpKind::Dequantize,
               {rnd(DType::I8, {16, 64}, 1002), rnd(DType::F32, {64}, 1003, 0.001, 0.1)},
               DType::F16, {16, 64}));
    cases.push_back(opCase("dequantize_f32_scalar", OpKind::Dequantize,
                           {rnd(DType::I8, {8, 32}, 1004), values(DType::F32, {1}, {0.0375f})},
                           DType::F32, {8, 32}));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, CastRoundingModes) {
    std::vector<OpCase> cases;
    // Values around f16 ties, subnormals, overflow (65520 is the RNE overflow threshold) and
    // the sign of zero.
    TensorData toF16 = rnd(DType::F32, {64}, 1100, -70000, 70000);
    const float edge[] = {65504.0f,        65519.0f, 65520.0f, -65520.0f,
                          1e-10f,          -1e-10f,  3e-5f,    1.00048828125f /* tie */,
                          -1.00048828125f, 2049.0f,  kNaN,     kInf};
    for (size_t i = 0; i < std::size(edge); ++i) toF16.set(int64_t(i), edge[i]);
    TensorData toInt = rnd(DType::F32, {64}, 1101, -300, 300);
    const float ties[] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 127.5f, -128.5f, kNaN, kInf, -kInf};
    for (size_t i = 0; i < std::size(ties); ++i) toInt.set(int64_t(i), ties[i]);
    for (const char* mode : {"rne", "trunc", "floor", "ceil", "rna"}) {
        const std::string m(mode);
        const Attrs a = attrs({{"round", std::string(mode)}});
        // Exact: one correctly rounded value per input.
        cases.push_back(
            withTol(opCase("cast_f16_" + m, OpKind::Cast, {toF16}, DType::F16, {64}, a), {0, 0}));
        cases.push_back(opCase("cast_i8_" + m, OpKind::Cast, {toInt}, DType::I8, {64}, a));
        cases.push_back(opCase("cast_i32_" + m, OpKind::Cast, {toInt}, DType::I32, {64}, a));
    }
    // bf16 RNE (torch .to(bfloat16)); the default round mode is rne.
    TensorData toBf16 = rnd(DType::F32, {256}, 1102, -10, 10);
    toBf16.set(0, 1.00390625f); // tie between 1 and 1 + 2^-7: rounds to even (1)
    toBf16.set(1, 1.01171875f); // tie between 1 + 2^-7 and 1 + 2^-6: rounds up to even
    cases.push_back(
        withTol(opCase("cast_bf16", OpKind::Cast, {toBf16}, DType::BF16, {256}), {0, 0}));
    cases.push_back(withTol(
        opCase("cast_f16_to_f32", OpKind::Cast, {rnd(DType::F16, {64}, 1103)}, DType::F32, {64}),
        {0, 0}));
    cases.push_back(opCase("cast_f32_to_i1", OpKind::Cast,
                           {values(DType::F32, {5}, {0.0f, -0.0f, 0.25f, kNaN, -3.0f})},
                           DType::Bool, {5}));
    cases.push_back(withTol(
        opCase("cast_i8_to_f16", OpKind::Cast, {rnd(DType::I8, {64}, 1104)}, DType::F16, {64}),
        {0, 0}));
    cases.push_back(
        withTol(opCase("cast_i32_to_bf16", OpKind::Cast,
                       {rnd(DType::I32, {64}, 1105, -100000, 100000)}, DType::BF16, {64}),
                {0, 0}));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, LayoutOps) {
    std::vector<OpCase> cases;
    cases.push_back(opCase("reshape", OpKind::Reshape, {rnd(DType::F32, {4, 6, 8}, 1200)},
                           DType::F32, {24, 8}));
    cases.push_back(opCase("transpose_perm_bf16", OpKind::Transpose,
                           {rnd(DType::BF16, {4, 6, 8}, 1201)}, DType::BF16, {8, 4, 6},
                           attrs({{"perm", std::vector<int64_t>{2, 0, 1}}})));
    cases.push_back(opCase("transpose_default", OpKind::Transpose, {rnd(DType::F16, {5, 7}, 1202)},
                           DType::F16, {7, 5}));
    // An i32 beyond 2^24 must survive layout ops bit for bit.
    TensorData big = rnd(DType::I32, {4, 4}, 1203);
    const int32_t odd = 16777217; // not representable in f32

    std::memcpy(big.data(), &odd, 4);
    cases.push_back(opCase("transpose_i32_exact", OpKind::Transpose, {big}, DType::I32, {4, 4}));
    cases.push_back(opCase(
        "view", OpKind::View, {rnd(DType::F32, {8, 16}, 1204)}, DType::F32, {3, 5},
        attrs({{"offsets", std::vector<int64_t>{2, 7}}, {"sizes", std::vector<int64_t>{3, 5}}})));
    cases.push_back(opCase("concat_axis1", OpKind::Concat,
                           {rnd(DType::F16, {4, 3}, 1205), rnd(DType::F16, {4, 5}, 1206),
                            rnd(DType::F16, {4, 1}, 1207)},
                           DType::F16, {4, 9}, attrs({{"axis", int64_t{1}}})));
    cases.push_back(opCase("concat_axis_neg", OpKind::Concat,
                           {rnd(DType::I8, {2, 2, 3}, 1208), rnd(DType::I8, {2, 2, 3}, 1209)},
                           DType::I8, {4, 2, 3}, attrs({{"axis", int64_t{-3}}})));
    cases.push_back(opCase("broadcast_row", OpKind::Broadcast, {rnd(DType::F32, {1, 8}, 1210)},
                           DType::F32, {4, 8}));
    cases.push_back(opCase("broadcast_col_rank_up", OpKind::Broadcast,
                           {rnd(DType::F32, {8, 1}, 1211)}, DType::F32, {2, 8, 16}));
    cases.push_back(
        opCase("fill_f16", OpKind::Fill, {}, DType::F16, {4, 8}, attrs({{"value", 0.1}})));
    cases.push_back(
        opCase("fill_i32", OpKind::Fill, {}, DType::I32, {3}, attrs({{"value", int64_t{-7}}})));
    checkAgainstReference(cases);
}

// gather against torch.index_select: every axis, repeated indices, 2-D indices, and dtypes whose
// bits must survive (bf16, i8, an i32 beyond 2^24).
TEST(TensorInterpreterReference, Gather) {
    auto index = [](Shape shape, uint64_t seed, int n) {
        return randomTensor(DType::I32, shape, seed, {0.0, double(n - 1)});
    };
    TensorData repeated = index({6}, 1300, 8);
    repeated.set(1, repeated.get(0)); // the same row twice
    TensorData big = rnd(DType::I32, {8, 3}, 1301);
    const int32_t odd = 16777217;
    std::memcpy(big.data(), &odd, 4);
    std::vector<OpCase> cases;
    cases.push_back(opCase("gather_rows_f16", OpKind::Gather,
                           {rnd(DType::F16, {8, 5}, 1302), repeated}, DType::F16, {6, 5},
                           attrs({{"axis", int64_t{0}}})));
    cases.push_back(opCase("gather_rows_2d_index", OpKind::Gather,
                           {rnd(DType::F32, {9, 7}, 1303), index({3, 4}, 1304, 9)}, DType::F32,
                           {3, 4, 7}, attrs({{"axis", int64_t{0}}})));
    cases.push_back(opCase("gather_mid_bf16", OpKind::Gather,
                           {rnd(DType::BF16, {2, 5, 3}, 1305), index({4}, 1306, 5)}, DType::BF16,
                           {2, 4, 3}, attrs({{"axis", int64_t{1}}})));
    cases.push_back(opCase("gather_last_i8", OpKind::Gather,
                           {rnd(DType::I8, {3, 11}, 1307), index({2, 2}, 1308, 11)}, DType::I8,
                           {3, 2, 2}, attrs({{"axis", int64_t{-1}}})));
    cases.push_back(opCase("gather_i32_exact", OpKind::Gather, {big, index({5}, 1309, 8)},
                           DType::I32, {5, 3}, attrs({{"axis", int64_t{0}}})));
    checkAgainstReference(cases);
}

// topk against torch.topk (values) and a stable sort (positions, lower index first on ties):
// every axis, k = 1 and k = n, largest and smallest, frequent ties, odd sizes.
TEST(TensorInterpreterReference, TopK) {
    auto kAttrs = [](int64_t k, int64_t axis, bool largest, bool indices) {
        Attrs a = attrs({{"k", k}, {"axis", axis}});
        if (!largest) a.set("largest", false);
        if (indices) a.set("indices", true);
        return a;
    };
    const TensorData ties = integerValued(DType::F32, {5, 33}, 1400, -3, 3);
    const TensorData ties16 = integerValued(DType::F16, {3, 4, 9}, 1401, -2, 2);
    const TensorData normal = rnd(DType::BF16, {7, 6}, 1402);
    const TensorData ints = rnd(DType::I32, {2, 17}, 1403);
    std::vector<OpCase> cases;
    cases.push_back(opCase("topk_ties_values", OpKind::TopK, {ties}, DType::F32, {5, 4},
                           kAttrs(4, -1, true, false)));
    cases.push_back(opCase("topk_ties_indices", OpKind::TopK, {ties}, DType::I32, {5, 4},
                           kAttrs(4, -1, true, true)));
    cases.push_back(opCase("topk_k1_smallest", OpKind::TopK, {ties}, DType::I32, {5, 1},
                           kAttrs(1, 1, false, true)));
    cases.push_back(
        opCase("topk_k_n", OpKind::TopK, {ties}, DType::I32, {5, 33}, kAttrs(33, 1, true, true)));
    cases.push_back(opCase("topk_mid_axis_f16", OpKind::TopK, {ties16}, DType::I32, {3, 3, 9},
                           kAttrs(3, 1, true, true)));
    cases.push_back(opCase("topk_first_axis_bf16", OpKind::TopK, {normal}, DType::BF16, {2, 6},
                           kAttrs(2, 0, false, false)));
    cases.push_back(
        opCase("topk_i32", OpKind::TopK, {ints}, DType::I32, {2, 5}, kAttrs(5, -1, true, false)));
    checkAgainstReference(cases);
}

// scatter_add against torch.index_add in the op's dtype (contributions in index order, one
// rounding each) and cumsum against NumPy's sequential f32 add.accumulate: bit for bit, with
// duplicate indices (many onto one row), every axis, odd sizes, f32/f16/bf16 and an i32 that
// saturates.
TEST(TensorInterpreterReference, ScatterAddAndCumSum) {
    auto index = [](Shape shape, uint64_t seed, int n) {
        return randomTensor(DType::I32, shape, seed, {0.0, double(n - 1)});
    };
    auto axis = [](int64_t a) { return attrs({{"axis", a}}); };
    auto exact = [](OpCase c) {
        c.tol = {0.0, 0.0};
        return c;
    };
    TensorData crowded = index({13}, 1500, 3); // 13 rows onto 3: duplicates accumulate
    TensorData saturating = rnd(DType::I32, {2, 3}, 1501);
    saturating.set(0, 2147483000.0f);
    TensorData plus(DType::I32, {4, 3});
    for (int64_t i = 0; i < plus.numel(); ++i) plus.set(i, 1000.0f);
    std::vector<OpCase> cases;
    cases.push_back(
        exact(opCase("scatter_add_f32_dups", OpKind::ScatterAdd,
                     {rnd(DType::F32, {3, 7}, 1502), crowded, rnd(DType::F32, {13, 7}, 1503)},
                     DType::F32, {3, 7}, axis(0))));
    cases.push_back(exact(opCase(
        "scatter_add_f16_2d_index", OpKind::ScatterAdd,
        {rnd(DType::F16, {9, 5}, 1504), index({3, 4}, 1505, 9), rnd(DType::F16, {3, 4, 5}, 1506)},
        DType::F16, {9, 5}, axis(0))));
    cases.push_back(exact(opCase(
        "scatter_add_bf16_mid", OpKind::ScatterAdd,
        {rnd(DType::BF16, {2, 5, 3}, 1507), index({7}, 1508, 5), rnd(DType::BF16, {2, 7, 3}, 1509)},
        DType::BF16, {2, 5, 3}, axis(1))));
    cases.push_back(
        exact(opCase("scatter_add_i32_saturates", OpKind::ScatterAdd,
                     {saturating, index({4}, 1510, 2), plus}, DType::I32, {2, 3}, axis(0))));
    cases.push_back(exact(opCase("cumsum_f32_last", OpKind::CumSum,
                                 {rnd(DType::F32, {5, 37}, 1511)}, DType::F32, {5, 37}, axis(-1))));
    cases.push_back(exact(opCase("cumsum_f16_rows", OpKind::CumSum,
                                 {rnd(DType::F16, {33, 3}, 1512)}, DType::F16, {33, 3}, axis(0))));
    cases.push_back(
        exact(opCase("cumsum_bf16_mid", OpKind::CumSum, {rnd(DType::BF16, {2, 9, 4}, 1513)},
                     DType::BF16, {2, 9, 4}, axis(1))));
    cases.push_back(exact(opCase("cumsum_i32_onehot", OpKind::CumSum,
                                 {integerValued(DType::I32, {11, 4}, 1514, 0, 1)}, DType::I32,
                                 {11, 4}, axis(0))));
    cases.push_back(exact(
        opCase("cumsum_i32_saturates", OpKind::CumSum, {saturating}, DType::I32, {2, 3}, axis(0))));
    checkAgainstReference(cases);
}

TEST(TensorInterpreterReference, NanInfPropagation) {
    std::vector<OpCase> cases;
    const TensorData a = values(DType::F32, {6}, {kNaN, 1.0f, kInf, -kInf, kNaN, 0.0f});
    const TensorData b = values(DType::F32, {6}, {1.0f, kNaN, 5.0f, -kInf, kNaN, -0.0f});
    cases.push_back(opCase("max_nan", OpKind::Max, {a, b}, DType::F32, {6}));
    cases.push_back(opCase("min_nan", OpKind::Min, {a, b}, DType::F32, {6}));
    cases.push_back(
        opCase("maxs_nan", OpKind::MaxS, {a}, DType::F32, {6}, attrs({{"scalar", 0.5}})));
    cases.push_back(opCase("add_inf", OpKind::Add, {a, b}, DType::F32, {6}));
    cases.push_back(opCase("exp_nan_f16", OpKind::Exp,
                           {values(DType::F16, {4}, {kNaN, kInf, -kInf, 12.0f})}, DType::F16, {4}));
    checkAgainstReference(cases);
}

// --- Errors and bookkeeping (no reference needed) -----------------------------------------------

std::string errorOf(const Function& fn, const std::vector<TensorData>& inputs) {
    try {
        evaluateTensor(fn, inputs);
    } catch (const CompileError& e) {
        return e.message();
    }
    return "<no error>";
}

TEST(TensorInterpreterErrors, InputMismatches) {
    const OpCase c =
        opCase("add", OpKind::Add, {rnd(DType::F32, {4, 8}, 1), rnd(DType::F32, {4, 8}, 2)},
               DType::F32, {4, 8});
    const Function fn = makeOpFunction(c);
    EXPECT_EQ(errorOf(fn, {c.inputs[0]}), "@add takes 2 inputs, got 1");
    EXPECT_EQ(errorOf(fn, {c.inputs[0], rnd(DType::F16, {4, 8}, 3)}),
              "input 1 (%in1) of @add must be 4x8xf32, got 4x8xf16 with 64 bytes");
    EXPECT_EQ(errorOf(fn, {c.inputs[0], rnd(DType::F32, {4, 9}, 3)}),
              "input 1 (%in1) of @add must be 4x8xf32, got 4x9xf32 with 144 bytes");
}

TEST(TensorInterpreterErrors, BadOps) {
    OpCase c = opCase("bad", OpKind::Add, {rnd(DType::F32, {4, 8}, 1), rnd(DType::F32, {4, 3}, 2)},
                      DType::F32, {4, 8});
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "add %out: operands %in0 (4x8xf32) and %in1 (4x3xf32) do not broadcast");

    c = opCase("bad", OpKind::ReduceSum, {rnd(DType::F32, {4, 8}, 1)}, DType::F32, {4},
               attrs({{"axis", int64_t{2}}}));
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "reduce_sum %out: axis 2 is out of range for %in0 (4x8xf32) (rank 2)");

    c = opCase("bad", OpKind::Add, {rnd(DType::F32, {4, 8}, 1), rnd(DType::F32, {8}, 2)},
               DType::F32, {4, 9});
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "add %out: result type is 4x9xf32 but the operands give shape 4x8");

    c = opCase("bad", OpKind::Matmul, {rnd(DType::F16, {4, 8}, 1), rnd(DType::F16, {4, 8}, 2)},
               DType::F32, {4, 8});
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "matmul %out: cannot multiply %in0 (4x8xf16) by %in1 (4x8xf16): operands need "
              "rank >= 2, equal contraction dims and broadcastable batches");

    c = opCase("bad", OpKind::Cast, {rnd(DType::F32, {4}, 1)}, DType::F16, {4},
               attrs({{"round", std::string("up")}}));
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "cast %out: round mode 'up' is not one of rne, trunc, floor, ceil, rna");

    c = opCase("bad", OpKind::Cmp, {rnd(DType::F32, {4}, 1), rnd(DType::F32, {4}, 2)}, DType::Bool,
               {4}, attrs({{"pred", std::string("lte")}}));
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "cmp %out: predicate 'lte' is not one of eq, ne, lt, le, gt, ge (attr pred)");

    c = opCase("bad", OpKind::AddS, {rnd(DType::F32, {4}, 1)}, DType::F32, {4});
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "adds %out: needs a numeric attribute 'scalar'");

    c = opCase(
        "bad", OpKind::View, {rnd(DType::F32, {4, 4}, 1)}, DType::F32, {2, 2},
        attrs({{"offsets", std::vector<int64_t>{3, 0}}, {"sizes", std::vector<int64_t>{2, 2}}}));
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "view %out: slice at offsets [3, 0] of sizes [2, 2] is not inside %in0 (4x4xf32)");

    c = opCase("bad", OpKind::Transpose, {rnd(DType::F32, {4, 4}, 1)}, DType::F32, {4, 4},
               attrs({{"perm", std::vector<int64_t>{0, 0}}}));
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "transpose %out: perm [0, 0] is not a permutation of the dims of %in0 (4x4xf32)");

    c = opCase("bad", OpKind::Reshape, {rnd(DType::F32, {4, 4}, 1)}, DType::F32, {3, 5});
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "reshape %out: cannot reshape %in0 (4x4xf32) (16 elements) to 3x5 (15 elements)");

    TensorData outside = values(DType::I32, {3}, {0, 2, 4});
    c = opCase("bad", OpKind::Gather, {rnd(DType::F32, {4, 2}, 1), outside}, DType::F32, {3, 2},
               attrs({{"axis", int64_t{0}}}));
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "gather %out: index 4 at element 2 of %in1 (3xi32) is outside [0, 4) (axis 0 of "
              "%in0 (4x2xf32))");

    c = opCase("bad", OpKind::TLoad, {rnd(DType::F32, {4, 4}, 1)}, DType::F32, {4, 4});
    EXPECT_EQ(errorOf(makeOpFunction(c), c.inputs),
              "tload is a tile-level op; it cannot appear in tensor-level @bad");
}

TEST(TensorInterpreter, ProgramWithDirectivesAndKeepValues) {
    // %h = matmul %x, %w; vec_tile; %y = softmax(%h + %bias); result %y
    Function fn;
    fn.name = "main";
    const ValueId x = fn.addArg({DType::F16, {8, 32}}, "x");
    const ValueId w = fn.addArg({DType::F16, {32, 16}}, "w");
    const ValueId bias = fn.addArg({DType::F32, {16}}, "bias");
    auto add = [&](OpKind kind, std::vector<ValueId> operands, const Type& t, const char* name) {
        Op op;
        op.kind = kind;
        op.operands = std::move(operands);
        return fn.op(fn.addOp(op, &t, name)).result;
    };
    const Type h{DType::F32, {8, 16}};
    const ValueId hv = add(OpKind::Matmul, {x, w}, h, "h");
    Op dir;
    dir.kind = OpKind::VecTile;
    dir.attrs.set("sizes", std::vector<int64_t>{8, 16});
    fn.addOp(dir);
    const ValueId s = add(OpKind::Add, {hv, bias}, h, "s");
    const ValueId y = add(OpKind::Softmax, {s}, Type{DType::F16, {8, 16}}, "y");
    fn.results = {y};

    const std::vector<TensorData> in = {rnd(DType::F16, {8, 32}, 1), rnd(DType::F16, {32, 16}, 2),
                                        rnd(DType::F32, {16}, 3)};
    const EvalResult kept = evaluateTensor(fn, in, true);
    ASSERT_EQ(kept.values.size(), fn.valueCount());
    EXPECT_EQ(kept.values[x], in[0]);
    EXPECT_EQ(kept.values[hv].shape, (Shape{8, 16}));
    EXPECT_EQ(kept.values[y], kept.outputs[0]);
    const EvalResult plain = evaluateTensor(fn, in);
    EXPECT_TRUE(plain.values.empty());
    EXPECT_EQ(plain.outputs[0], kept.outputs[0]);
    // Each softmax row sums to 1 within f16 rounding.
    for (int r = 0; r < 8; ++r) {
        double sum = 0;
        for (int c = 0; c < 16; ++c) sum += plain.outputs[0].get(r * 16 + c);
        EXPECT_NEAR(sum, 1.0, 16 * 1e-3);
    }
}

} // namespace
} // namespace pto::test
