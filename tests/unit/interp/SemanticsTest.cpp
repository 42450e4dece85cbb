// Scalar op semantics (Semantics.h): values, NaN/inf conventions, predicates, reductions.
#include "compiler/ir/Semantics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace pto {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Semantics, UnaryValues) {
    EXPECT_EQ(applyUnary(OpKind::Exp, 0.0f), 1.0f);
    EXPECT_EQ(applyUnary(OpKind::Log, 1.0f), 0.0f);
    EXPECT_EQ(applyUnary(OpKind::Sqrt, 9.0f), 3.0f);
    EXPECT_EQ(applyUnary(OpKind::Rsqrt, 4.0f), 0.5f);
    EXPECT_EQ(applyUnary(OpKind::Reciprocal, 4.0f), 0.25f);
    EXPECT_EQ(applyUnary(OpKind::Abs, -2.5f), 2.5f);
    EXPECT_EQ(applyUnary(OpKind::Neg, 2.5f), -2.5f);
    EXPECT_EQ(applyUnary(OpKind::Relu, -2.5f), 0.0f);
    EXPECT_EQ(applyUnary(OpKind::Relu, 2.5f), 2.5f);
    EXPECT_EQ(applyUnary(OpKind::Cast, 1.25f), 1.25f);
    EXPECT_EQ(applyUnary(OpKind::Sigmoid, 0.0f), 0.5f);
    EXPECT_EQ(applyUnary(OpKind::Tanh, 0.0f), 0.0f);
    EXPECT_EQ(applyUnary(OpKind::Gelu, 0.0f), 0.0f);
    EXPECT_EQ(applyUnary(OpKind::Silu, 0.0f), 0.0f);
    // gelu(1) tanh form = 0.5 (1 + tanh(0.79788456 · 1.044715)) = 0.8411920...
    EXPECT_NEAR(applyUnary(OpKind::Gelu, 1.0f), 0.841192, 1e-6);
    EXPECT_NEAR(applyUnary(OpKind::Silu, 1.0f), 0.7310586, 1e-6);
    EXPECT_TRUE(std::isnan(applyUnary(OpKind::Add, 1.0f))); // not a unary kind
}

TEST(Semantics, UnarySpecialValues) {
    EXPECT_TRUE(std::isnan(applyUnary(OpKind::Relu, kNaN)));
    EXPECT_EQ(applyUnary(OpKind::Exp, -kInf), 0.0f);
    EXPECT_EQ(applyUnary(OpKind::Exp, kInf), kInf);
    EXPECT_EQ(applyUnary(OpKind::Sigmoid, -200.0f), 0.0f);
    EXPECT_EQ(applyUnary(OpKind::Sigmoid, 200.0f), 1.0f);
    EXPECT_EQ(applyUnary(OpKind::Gelu, -20.0f), -0.0f);
    EXPECT_EQ(applyUnary(OpKind::Gelu, 20.0f), 20.0f);
    EXPECT_EQ(applyUnary(OpKind::Log, 0.0f), -kInf);
}

TEST(Semantics, BinaryAndScalar) {
    EXPECT_EQ(applyBinary(OpKind::Add, 1.5f, 2.0f), 3.5f);
    EXPECT_EQ(applyBinary(OpKind::Sub, 1.5f, 2.0f), -0.5f);
    EXPECT_EQ(applyBinary(OpKind::Mul, 1.5f, 2.0f), 3.0f);
    EXPECT_EQ(applyBinary(OpKind::Div, 1.5f, 2.0f), 0.75f);
    EXPECT_EQ(applyBinary(OpKind::Max, 1.5f, 2.0f), 2.0f);
    EXPECT_EQ(applyBinary(OpKind::Min, 1.5f, 2.0f), 1.5f);
    // The scalar is rounded to f32 before the operation: 0.1 + 0.2 in f32, not in f64.
    EXPECT_EQ(applyScalarOp(OpKind::AddS, 0.2f, 0.1), 0.2f + 0.1f);
    EXPECT_EQ(applyScalarOp(OpKind::DivS, 1.0f, 3.0), 1.0f / 3.0f);
    EXPECT_EQ(applyScalarOp(OpKind::MaxS, -1.0f, 0.0), 0.0f);
    EXPECT_EQ(applyScalarOp(OpKind::MinS, -1.0f, 0.0), -1.0f);
}

TEST(Semantics, MaxMinPropagateNaN) {
    for (OpKind k : {OpKind::Max, OpKind::Min, OpKind::MaxS, OpKind::MinS}) {
        EXPECT_TRUE(std::isnan(applyBinary(k, kNaN, 1.0f))) << opName(k);
        EXPECT_TRUE(std::isnan(applyBinary(k, 1.0f, kNaN))) << opName(k);
        EXPECT_TRUE(std::isnan(applyBinary(k, kNaN, kNaN))) << opName(k);
    }
    EXPECT_EQ(applyBinary(OpKind::Max, -kInf, 3.0f), 3.0f);
    EXPECT_EQ(applyBinary(OpKind::Min, kInf, 3.0f), 3.0f);
}

TEST(Semantics, Compare) {
    EXPECT_TRUE(applyCompare("eq", 1.0f, 1.0f));
    EXPECT_TRUE(applyCompare("ne", 1.0f, 2.0f));
    EXPECT_TRUE(applyCompare("lt", 1.0f, 2.0f));
    EXPECT_TRUE(applyCompare("le", 2.0f, 2.0f));
    EXPECT_TRUE(applyCompare("gt", 3.0f, 2.0f));
    EXPECT_TRUE(applyCompare("ge", 2.0f, 2.0f));
    EXPECT_TRUE(applyCompare("eq", 0.0f, -0.0f));
    for (const char* p : {"eq", "lt", "le", "gt", "ge"}) EXPECT_FALSE(applyCompare(p, kNaN, kNaN));
    EXPECT_TRUE(applyCompare("ne", kNaN, kNaN));
    EXPECT_FALSE(applyCompare("bogus", 1.0f, 1.0f));
    for (CmpPred p : {CmpPred::Eq, CmpPred::Ne, CmpPred::Lt, CmpPred::Le, CmpPred::Gt, CmpPred::Ge})
        EXPECT_EQ(parseCmpPred(cmpPredName(p)), p);
    EXPECT_EQ(parseCmpPred("lte"), std::nullopt);
}

TEST(Semantics, Reductions) {
    EXPECT_EQ(reduceInit(OpKind::ReduceSum), 0.0f);
    EXPECT_EQ(reduceInit(OpKind::ReduceMax), -kInf);
    EXPECT_EQ(reduceInit(OpKind::ReduceMin), kInf);
    float acc = reduceInit(OpKind::ReduceMax);
    for (float x : {1.0f, 5.0f, -2.0f}) acc = reduceCombine(OpKind::ReduceMax, acc, x);
    EXPECT_EQ(acc, 5.0f);
    acc = reduceCombine(OpKind::ReduceMax, acc, kNaN);
    acc = reduceCombine(OpKind::ReduceMax, acc, 9.0f); // NaN sticks once seen
    EXPECT_TRUE(std::isnan(acc));
    // Index-order f32 accumulation: 1e8 + 1 + 1 + ... loses each 1 (f32 ulp at 1e8 is 8).
    acc = reduceInit(OpKind::ReduceSum);
    acc = reduceCombine(OpKind::ReduceSum, acc, 1e8f);
    for (int i = 0; i < 4; ++i) acc = reduceCombine(OpKind::ReduceSum, acc, 1.0f);
    EXPECT_EQ(acc, 1e8f);
}

TEST(Semantics, DispatchCoversEveryElementwiseKind) {
    for (int i = 0; i < opKindCount(); ++i) {
        const auto k = static_cast<OpKind>(i);
        const OpClass c = opInfo(k).cls;
        const bool unary = c == OpClass::Unary || (c == OpClass::Composite &&
                                                   opInfo(k).maxArity == 1 && k != OpKind::Softmax);
        EXPECT_EQ(isUnaryKind(k), unary) << opName(k);
        bool called = false;
        dispatchUnary(k, [&](auto) { called = true; });
        EXPECT_EQ(called, unary) << opName(k);
        const bool arith =
            (c == OpClass::Binary || c == OpClass::Scalar) && k != OpKind::Cmp && k != OpKind::CmpS;
        EXPECT_EQ(arithmeticKind(k).has_value(), arith) << opName(k);
        EXPECT_EQ(isReduceKind(k), c == OpClass::Reduce) << opName(k);
    }
}

} // namespace
} // namespace pto
