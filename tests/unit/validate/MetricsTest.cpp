// Unit tests of validate/ErrorMetrics.h: every metric against an independent NumPy computation
// (metrics_reference.py) on random and edge-case tensors.
#include "validate/ErrorMetrics.h"
#include "validate/TensorCompare.h"
#include "validate/TensorIo.h"

#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <random>

namespace pto {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TensorData fromDoubles(DType dtype, Shape shape, const std::vector<double>& v) {
    std::vector<float> f(v.begin(), v.end());
    return TensorData::fromFloats(dtype, shape, f);
}

TensorData randomLike(DType dtype, Shape shape, uint64_t seed, double scale = 1.0) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> dist(0.0, scale);
    std::vector<double> v(size_t(shape.numel()));
    for (double& x : v) x = dist(rng);
    return fromDoubles(dtype, shape, v);
}

// golden perturbed by a relative noise of `noise` (rounded back to `dtype`).
TensorData perturbed(const TensorData& g, DType dtype, double noise, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> dist(0.0, noise);
    std::vector<double> v(size_t(g.numel()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = g.get(int64_t(i)) * (1.0 + dist(rng));
    return fromDoubles(dtype, g.shape, v);
}

void expectNumber(const nlohmann::json& ref, const nlohmann::json& ours, const std::string& key) {
    ASSERT_TRUE(ref.contains(key)) << key;
    if (ref[key].is_string()) {
        EXPECT_EQ(ref[key], ours[key]) << key;
        return;
    }
    ASSERT_TRUE(ours[key].is_number()) << key << " = " << ours[key];
    const double r = ref[key].get<double>(), o = ours[key].get<double>();
    EXPECT_NEAR(o, r, 1e-9 * std::max(1.0, std::fabs(r)) + 1e-300) << key;
}

// Writes both tensors, runs the NumPy reference and compares every metric.
void checkAgainstNumpy(const TensorData& actual, const TensorData& golden, double rtol,
                       double atol) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
    test::TempDir dir("pto-metrics");
    writeTensor(dir / "a.npy", actual);
    writeTensor(dir / "g.npy", golden);
    test::ProcessResult r =
        test::runCommand("/usr/bin/python3 " +
                         test::shellQuote(std::string(PTO_SOURCE_DIR) +
                                          "/tests/unit/validate/metrics_reference.py") +
                         " " + test::shellQuote((dir / "a.npy").string()) + " " +
                         test::shellQuote((dir / "g.npy").string()) + " " +
                         fmt::format("{:.17g} {:.17g}", rtol, atol));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json ref = nlohmann::json::parse(r.out);
    const nlohmann::json ours = metricsJson(computeMetrics(actual, golden, {rtol, atol, 0}));
    for (const char* key : {"count", "finite_pairs", "mismatch_count", "nan_mismatch",
                            "inf_mismatch", "zero_golden", "unequal"})
        EXPECT_EQ(ours[key], ref[key]) << key;
    for (const char* key : {"max_abs", "max_rel", "mean_rel", "mean_abs", "rmse", "rel_l2",
                            "cosine", "ulp_max", "ulp_mean", "within_1e-3", "within_5e-3",
                            "mismatch_ratio", "min_rtol", "min_atol", "zero_golden_max_abs"})
        expectNumber(ref, ours, key);
    EXPECT_EQ(ours["max_abs_index"], ref["max_abs_index"]);
    EXPECT_EQ(ours["max_rel_index"], ref["max_rel_index"]);
    EXPECT_EQ(ours["actual"], ref["actual"]);
    EXPECT_EQ(ours["golden"], ref["golden"]);
}

TEST(MetricsNumpy, RandomF32) {
    TensorData g = randomLike(DType::F32, {37, 53}, 1);
    checkAgainstNumpy(perturbed(g, DType::F32, 1e-6, 2), g, 1.3e-6, 1e-5);
}

TEST(MetricsNumpy, RandomF16AndBf16) {
    for (DType d : {DType::F16, DType::BF16}) {
        TensorData g = randomLike(d, {4, 9, 31}, 3);
        checkAgainstNumpy(perturbed(g, d, 3e-3, 4), g, 1e-3, 1e-5);
    }
}

TEST(MetricsNumpy, F32AgainstF16Golden) {
    TensorData g = randomLike(DType::F16, {64, 64}, 5);
    checkAgainstNumpy(perturbed(g, DType::F32, 1e-4, 6), g, 1e-3, 1e-5);
}

TEST(MetricsNumpy, LargeTensorUsesThreads) {
    TensorData g = randomLike(DType::F32, {1100, 1000}, 7, 10.0);
    checkAgainstNumpy(perturbed(g, DType::F32, 1e-5, 8), g, 1.3e-6, 1e-5);
}

TEST(MetricsNumpy, Zeros) {
    TensorData z(DType::F32, {16, 16});
    checkAgainstNumpy(z, z, 1.3e-6, 1e-5);
    TensorData small = randomLike(DType::F32, {16, 16}, 9, 1e-3);
    checkAgainstNumpy(small, z, 1.3e-6, 1e-5);
    checkAgainstNumpy(z, small, 1.3e-6, 1e-5);
}

TEST(MetricsNumpy, Denormals) {
    checkAgainstNumpy(fromDoubles(DType::F32, {6}, {1e-40, -3e-39, 0, 1e-45, 2e-38, 1.0}),
                      fromDoubles(DType::F32, {6}, {2e-40, -3e-39, 1e-44, 0, 1e-38, 1.0}), 1.3e-6,
                      1e-5);
    checkAgainstNumpy(fromDoubles(DType::F16, {5}, {1e-7, 3e-5, 6.1e-5, 0.0, -2e-6}),
                      fromDoubles(DType::F16, {5}, {2e-7, 3e-5, 6e-5, 6e-8, -2e-6}), 1e-3, 1e-5);
}

TEST(MetricsNumpy, InfAndNan) {
    TensorData a = fromDoubles(DType::F32, {2, 4}, {kNaN, 1, kInf, -kInf, kNaN, 2, 3, kInf});
    TensorData g = fromDoubles(DType::F32, {2, 4}, {kNaN, kNaN, kInf, kInf, 1, 2, 3.5, 4});
    checkAgainstNumpy(a, g, 1.3e-6, 1e-5);
    TensorData same = fromDoubles(DType::F32, {3}, {kNaN, kInf, -kInf});
    checkAgainstNumpy(same, same, 1.3e-6, 1e-5);
}

// f32 × f32 chunks go through the fused vector pass unless they hold NaN or ±inf: a long
// tensor mixing both kinds of chunk (2048 pairs each), with zeros, subnormals, FLT_MAX and
// tied maxima in different chunks, must still match NumPy, first positions included.
TEST(MetricsNumpy, F32FusedAndExactChunksTogether) {
    TensorData g = randomLike(DType::F32, {5, 2011}, 13);
    TensorData a = perturbed(g, DType::F32, 1e-5, 14);
    auto set = [](TensorData& t, int64_t i, double v) { t.set(i, static_cast<float>(v)); };
    set(g, 17, 0.0), set(a, 17, 0.0);                                   // zero golden, equal
    set(g, 18, 0.0), set(a, 18, 1e-7);                                  // zero golden, unequal
    set(g, 19, 1e-40), set(a, 19, 2e-40);                               // subnormals
    set(g, 20, FLT_MAX), set(a, 20, FLT_MAX);                           // saturated, equal
    for (int64_t i : {100, 3000, 7001}) set(g, i, 1.0), set(a, i, 9.0); // tied max |a − g|
    set(a, 4500, kNaN);                                                 // one exact chunk
    checkAgainstNumpy(a, g, 1.3e-6, 1e-5);
    const DiffMetrics m = computeMetrics(a, g, {1.3e-6, 1e-5, 1});
    EXPECT_EQ(m.maxAbsIndex, (std::vector<int64_t>{0, 100}));
}

TEST(MetricsNumpy, F16Saturation) {
    TensorData a = fromDoubles(DType::F16, {6}, {65504, -65504, 70000, 1, 2, -65504});
    TensorData g = fromDoubles(DType::F16, {6}, {65504, 65504, 65504, 1, 2.002, -65000});
    checkAgainstNumpy(a, g, 1e-3, 1e-5);
}

TEST(MetricsNumpy, IntegersAndBool) {
    checkAgainstNumpy(fromDoubles(DType::I8, {5}, {127, -128, 3, 0, 5}),
                      fromDoubles(DType::I8, {5}, {127, -127, 3, 1, 5}), 0, 0);
    checkAgainstNumpy(fromDoubles(DType::I32, {3}, {100000, -7, 0}),
                      fromDoubles(DType::I32, {3}, {100001, -7, 0}), 0, 0);
    checkAgainstNumpy(fromDoubles(DType::Bool, {4}, {1, 0, 1, 0}),
                      fromDoubles(DType::Bool, {4}, {1, 1, 1, 0}), 0, 0);
}

TEST(MetricsNumpy, EmptyAndOneElement) {
    TensorData e(DType::F32, {0, 5});
    checkAgainstNumpy(e, e, 1.3e-6, 1e-5);
    checkAgainstNumpy(fromDoubles(DType::F32, {1}, {1.5}), fromDoubles(DType::F32, {1}, {1.25}),
                      1.3e-6, 1e-5);
}

TEST(Metrics, SizeMismatchThrows) {
    EXPECT_THROW(computeMetrics(TensorData(DType::F32, {3}), TensorData(DType::F32, {4})),
                 std::invalid_argument);
}

TEST(Metrics, ThreadCountDoesNotChangeResults) {
    TensorData g = randomLike(DType::F32, {3000, 700}, 11);
    TensorData a = perturbed(g, DType::F32, 1e-6, 12);
    DiffMetrics one = computeMetrics(a, g, {1.3e-6, 1e-5, 1});
    DiffMetrics two = computeMetrics(a, g, {1.3e-6, 1e-5, 2});
    EXPECT_EQ(one.maxAbs, two.maxAbs);
    EXPECT_EQ(one.maxAbsIndex, two.maxAbsIndex);
    EXPECT_EQ(one.mismatchCount, two.mismatchCount);
    EXPECT_NEAR(one.rmse, two.rmse, 1e-15);
}

TEST(Metrics, UnflattenIndex) {
    EXPECT_EQ(unflattenIndex(0, {2, 3}), (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(unflattenIndex(5, {2, 3}), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(unflattenIndex(7, {2, 2, 2}), (std::vector<int64_t>{1, 1, 1}));
    EXPECT_TRUE(unflattenIndex(0, {}).empty());
}

} // namespace
} // namespace pto
