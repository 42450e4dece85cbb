// Unit tests of validate/Tolerance.h: per-dtype defaults, the K and composite rules, overrides,
// and verdicts that name metric, value, threshold and source.
#include "validate/Tolerance.h"
#include "validate/TensorCompare.h"

#include <gtest/gtest.h>

namespace pto {
namespace {

TEST(Tolerance, TorchDefaultsPerDType) {
    EXPECT_DOUBLE_EQ(dtypeTolerance(DType::F32).rtol, 1.3e-6);
    EXPECT_DOUBLE_EQ(dtypeTolerance(DType::F32).atol, 1e-5);
    EXPECT_DOUBLE_EQ(dtypeTolerance(DType::F16).rtol, 1e-3);
    EXPECT_DOUBLE_EQ(dtypeTolerance(DType::BF16).rtol, 1.6e-2);
    EXPECT_EQ(dtypeTolerance(DType::I8).rtol, 0.0);
    EXPECT_EQ(dtypeTolerance(DType::I32).atol, 0.0);
    EXPECT_NE(dtypeTolerance(DType::F16).source.find("torch.testing"), std::string::npos);
}

TEST(Tolerance, AccumulationScalesWithK) {
    Tolerance t1 = opTolerance(DType::F32, ToleranceClass::Accumulation, 64, 2.0);
    Tolerance t2 = opTolerance(DType::F32, ToleranceClass::Accumulation, 4096, 2.0);
    EXPECT_GT(t2.rtol, t1.rtol);
    EXPECT_GT(t2.atol, t1.atol);
    EXPECT_DOUBLE_EQ(t2.rtol, 1.3e-6 + 4096 * 0x1p-24);
    EXPECT_DOUBLE_EQ(t2.atol, 1e-5 + 4096 * 0x1p-24 * 2.0);
    EXPECT_NE(t2.source.find("K = 4096"), std::string::npos);
}

TEST(Tolerance, CompositeUsesAscendBound) {
    Tolerance t = opTolerance(DType::F16, ToleranceClass::Composite, 1, 1.0);
    EXPECT_DOUBLE_EQ(t.rtol, 10 * 0x1p-10);
    EXPECT_NE(t.source.find("Ascend"), std::string::npos);
    EXPECT_EQ(opTolerance(DType::I8, ToleranceClass::Composite, 1, 1.0).atol, 1.0);
}

TEST(Tolerance, OverridesSaySo) {
    Tolerance t = applyOverrides(dtypeTolerance(DType::F16), {0.5, std::nullopt});
    EXPECT_EQ(t.rtol, 0.5);
    EXPECT_EQ(t.atol, 1e-5);
    EXPECT_NE(t.source.find("--rtol"), std::string::npos);
}

TEST(Tolerance, VerdictNamesMetricValueThresholdAndSource) {
    TensorData g = TensorData::fromFloats(DType::F16, {4}, std::vector<float>{1, 2, 3, 4});
    TensorData a = TensorData::fromFloats(DType::F16, {4}, std::vector<float>{1, 2, 3.5, 4});
    TensorComparison c = compareTensors("x", a, g);
    EXPECT_FALSE(c.verdict.passed);
    const Check* f = c.verdict.firstFailure();
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->metric, "mismatch_count");
    EXPECT_EQ(f->value, 1.0);
    EXPECT_EQ(f->threshold, 0.0);
    const std::string s = c.verdict.summary();
    EXPECT_NE(s.find("mismatch_count = 1 > 0"), std::string::npos) << s;
    EXPECT_NE(s.find("torch.testing.assert_close default for f16"), std::string::npos) << s;
    EXPECT_TRUE(compareTensors("x", g, g).verdict.passed);
}

TEST(Tolerance, StandardsAscendAndMsprobe) {
    TensorData g = TensorData::fromFloats(DType::F16, {4}, std::vector<float>{1, 2, 3, 4});
    TensorData a = TensorData::fromFloats(DType::F16, {4}, std::vector<float>{1, 2, 3.01f, 4});
    ComparePolicy ascend;
    ascend.standard = Standard::Ascend;
    TensorComparison c = compareTensors("x", a, g, ascend);
    EXPECT_TRUE(c.verdict.passed) << c.verdict.summary();
    ComparePolicy msprobe;
    msprobe.standard = Standard::Msprobe;
    TensorData neg = TensorData::fromFloats(DType::F16, {4}, std::vector<float>{-1, -2, -3, -4});
    TensorComparison m = compareTensors("x", neg, g, msprobe);
    EXPECT_FALSE(m.verdict.passed);
    EXPECT_EQ(m.verdict.firstFailure()->metric, "cosine");
}

TEST(Tolerance, ShapeMismatchIsAnInputError) {
    EXPECT_THROW(
        compareTensors("x", TensorData(DType::F32, {2, 3}), TensorData(DType::F32, {3, 2})),
        std::invalid_argument);
}

TEST(Tolerance, AccumulationLengthOfOps) {
    Function f;
    ValueId a = f.addArg({DType::F16, {64, 256}}, "a");
    ValueId b = f.addArg({DType::F16, {256, 32}}, "b");
    Op mm;
    mm.kind = OpKind::Matmul;
    mm.operands = {a, b};
    Type out{DType::F32, {64, 32}};
    OpId id = f.addOp(mm, &out, "c");
    EXPECT_EQ(accumulationLength(f, f.op(id)), 256);
    Op red;
    red.kind = OpKind::ReduceSum;
    red.operands = {a};
    red.attrs.set("axis", int64_t(0));
    Type rout{DType::F16, {256}};
    OpId rid = f.addOp(red, &rout, "r");
    EXPECT_EQ(accumulationLength(f, f.op(rid)), 64);
    EXPECT_EQ(toleranceClassOf(OpKind::Matmul), ToleranceClass::Accumulation);
    EXPECT_EQ(toleranceClassOf(OpKind::Softmax), ToleranceClass::Composite);
    EXPECT_EQ(toleranceClassOf(OpKind::Add), ToleranceClass::Elementwise);
}

} // namespace
} // namespace pto
