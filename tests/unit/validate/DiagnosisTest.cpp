// Unit tests of validate/Diagnosis.h on arrays (no simulator): each error pattern planted into a
// golden and named, none claimed on a clean or within-tolerance copy, the accumulation bound
// judged against a float64 reference sum.
#include "validate/Diagnosis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace pto {
namespace {

TensorData uniform(Shape shape, uint64_t seed, double scale = 1.0) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-scale, scale);
    std::vector<float> v(size_t(shape.numel()));
    for (float& x : v) x = float(dist(rng));
    return TensorData::fromFloats(DType::F32, shape, v);
}

Diagnosis run(const TensorData& a, const TensorData& g, const TileLayout* layout = nullptr,
              ToleranceClass cls = ToleranceClass::Elementwise, int64_t k = 1, double rtol = 1.3e-6,
              double atol = 1e-5) {
    DiagnoseOptions o;
    o.rtol = rtol;
    o.atol = atol;
    o.cls = cls;
    o.k = k;
    o.layout = layout;
    return diagnose(TensorView(a), TensorView(g), o);
}

const PatternFinding* find(const Diagnosis& d, const std::string& pattern) {
    for (const PatternFinding& f : d.findings)
        if (f.pattern == pattern) return &f;
    return nullptr;
}

std::string names(const Diagnosis& d) {
    std::string out;
    for (const PatternFinding& f : d.findings) out += f.pattern + " ";
    return out;
}

TEST(Diagnosis, CleanAndWithinToleranceClaimNothing) {
    const TensorData g = uniform({100, 96}, 1);
    TensorData near = g;
    for (int64_t i = 0; i < near.numel(); i += 7) near.set(i, g.get(i) * (1 + 1e-7f));
    const TileLayout tiles = uniformTiles(100, 96, 32, 32);
    for (const TensorData* a : {&g, static_cast<const TensorData*>(&near)}) {
        const Diagnosis d = run(*a, g, &tiles);
        EXPECT_TRUE(d.findings.empty()) << names(d);
        EXPECT_EQ(d.wrong, 0);
    }
}

TEST(Diagnosis, TailTileOfAPartialTiling) {
    const TensorData g = uniform({100, 96}, 2);
    TensorData a = g;
    for (int64_t r = 96; r < 100; ++r)
        for (int64_t c = 0; c < 96; ++c) a.set(r * 96 + c, 0.0f); // rows 96–99: the tail tiles
    const TileLayout tiles = uniformTiles(100, 96, 32, 32);
    const Diagnosis d = run(a, g, &tiles);
    ASSERT_FALSE(d.findings.empty());
    EXPECT_EQ(d.findings[0].pattern, "tail_tile") << names(d);
    EXPECT_EQ(d.findings[0].evidence["dim"], "-2");
    EXPECT_TRUE(d.findings[0].evidence["partial"].get<bool>());
    EXPECT_GE(d.findings[0].confidence, 0.8);
}

TEST(Diagnosis, StripesOfRowsAndColumns) {
    const TensorData g = uniform({64, 80}, 3);
    TensorData rows = g, cols = g;
    for (int64_t c = 0; c < 80; ++c)
        for (int64_t r = 10; r < 13; ++r) rows.set(r * 80 + c, g.get(r * 80 + c) + 1.0f);
    for (int64_t r = 0; r < 64; ++r) cols.set(r * 80 + 7, g.get(r * 80 + 7) + 0.5f);
    const Diagnosis dr = run(rows, g);
    ASSERT_TRUE(find(dr, "row_stripe")) << names(dr);
    EXPECT_EQ(find(dr, "row_stripe")->evidence["rows"], (std::vector<int64_t>{10, 11, 12}));
    EXPECT_FALSE(find(dr, "column_stripe"));
    const Diagnosis dc = run(cols, g);
    ASSERT_TRUE(find(dc, "column_stripe")) << names(dc);
    EXPECT_EQ(find(dc, "column_stripe")->evidence["columns"], (std::vector<int64_t>{7}));
}

// A 1-D tensor is one row and a single column is one element per row: their scattered wrong
// elements are no stripe, nor is one wrong element (before: "column_stripe ... columns 3, 700"
// for two elements of a vector, "row_stripe" for one element of a 16x1 array, "column stripe"
// for one NaN in a length-4 vector).
TEST(Diagnosis, VectorsAndSingleElementsAreNoStripe) {
    std::vector<float> ramp(1024);
    for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = float(i + 1);
    const TensorData g = TensorData::fromFloats(DType::F32, {1024}, ramp);
    TensorData a = g;
    a.set(3, g.get(3) + 1);
    a.set(700, g.get(700) + 1);
    const Diagnosis vec = run(a, g);
    EXPECT_EQ(vec.wrong, 2);
    EXPECT_EQ(find(vec, "column_stripe"), nullptr) << names(vec);
    EXPECT_EQ(find(vec, "row_stripe"), nullptr) << names(vec);
    EXPECT_NE(vec.note.find("scattered"), std::string::npos) << vec.note;

    const TensorData col = uniform({16, 1}, 9);
    TensorData c = col;
    c.set(5, col.get(5) + 1);
    const Diagnosis one = run(c, col);
    EXPECT_EQ(find(one, "row_stripe"), nullptr) << names(one);
    EXPECT_EQ(find(one, "column_stripe"), nullptr) << names(one);
    if (one.findings.empty()) {
        EXPECT_NE(one.note.find("one wrong element, at row 5 column 0"), std::string::npos)
            << one.note;
    }

    const std::vector<float> small{1, 2, 3, 4};
    const TensorData four = TensorData::fromFloats(DType::F32, {4}, small);
    TensorData n = four;
    n.set(2, std::nanf(""));
    const Diagnosis nan = run(n, four);
    EXPECT_EQ(find(nan, "column_stripe"), nullptr) << names(nan);
    EXPECT_NE(find(nan, "nan_inf"), nullptr) << names(nan);
}

TEST(Diagnosis, WholeTilesOfOneCore) {
    const TensorData g = uniform({64, 64}, 4);
    TileLayout tiles = uniformTiles(64, 64, 16, 64);
    for (size_t i = 0; i < tiles.tiles.size(); ++i) {
        tiles.tiles[i].core = int(i % 2); // two cores, two tiles each
        tiles.tiles[i].task = "t" + std::to_string(i);
    }
    TensorData a = g;
    for (int64_t r : {0, 32}) // the tiles of core 0 (rows 0–15, 32–47)
        for (int64_t i = r * 64; i < (r + 16) * 64; ++i) a.set(i, -g.get(i) + 0.25f);
    const Diagnosis d = run(a, g, &tiles);
    const PatternFinding* f = find(d, "core_tiles");
    ASSERT_TRUE(f) << names(d);
    EXPECT_EQ(f->evidence["core"], 0);
    EXPECT_EQ(f->evidence["wrong_tiles"], 2);
    EXPECT_GE(f->confidence, 0.9);
}

TEST(Diagnosis, ShiftByRowsAndByElements) {
    const TensorData g = uniform({48, 40}, 5);
    TensorData rows = g;
    for (int64_t r = 0; r + 2 < 48; ++r) // actual row r = golden row r + 2
        for (int64_t c = 0; c < 40; ++c) rows.set(r * 40 + c, g.get((r + 2) * 40 + c));
    const Diagnosis d = run(rows, g);
    const PatternFinding* f = find(d, "shift");
    ASSERT_TRUE(f) << names(d);
    EXPECT_EQ(f->evidence["rows"], 2);
    EXPECT_EQ(f->evidence["columns"], 0);
    EXPECT_GT(f->evidence["correlation_shifted"].get<double>(), 0.99);

    const TensorData v = uniform({4096}, 6);
    TensorData flat = v;
    for (int64_t i = 3; i < 4096; ++i) flat.set(i, v.get(i - 3)); // moved right by 3 elements
    const Diagnosis dv = run(flat, v);
    const PatternFinding* fv = find(dv, "shift");
    ASSERT_TRUE(fv) << names(dv);
    EXPECT_EQ(fv->evidence["columns"], -3);
}

TEST(Diagnosis, ConstantAndPerChannelScale) {
    const TensorData g = uniform({32, 48}, 7);
    TensorData half = g, channels = g;
    for (int64_t i = 0; i < g.numel(); ++i) {
        half.set(i, g.get(i) * 0.5f);
        channels.set(i, g.get(i) * float(1 + (i % 48) / 16.0));
    }
    const Diagnosis d = run(half, g);
    ASSERT_FALSE(d.findings.empty());
    EXPECT_EQ(d.findings[0].pattern, "scale") << names(d);
    EXPECT_NEAR(d.findings[0].evidence["factor"].get<double>(), 0.5, 1e-6);
    const Diagnosis dc = run(channels, g);
    ASSERT_TRUE(find(dc, "channel_scale")) << names(dc);
    EXPECT_FALSE(find(dc, "scale"));
    EXPECT_NEAR(find(dc, "channel_scale")->evidence["max_factor"].get<double>(), 1 + 47 / 16.0,
                1e-5);
}

TEST(Diagnosis, SaturationAtTheF16Limit) {
    const TensorData g = uniform({32, 32}, 8, 1e5);                           // half beyond ±65504
    TensorData a = TensorData::fromFloats(DType::F16, g.shape, g.toFloats()); // → ±inf
    for (int64_t i = 0; i < a.numel(); ++i)
        if (std::isinf(a.get(i))) a.set(i, a.get(i) > 0 ? 65504.0f : -65504.0f); // saturating
    const Diagnosis d = run(a, g, nullptr, ToleranceClass::Elementwise, 1, 1e-3, 1e-5);
    const PatternFinding* f = find(d, "saturation");
    ASSERT_TRUE(f) << names(d);
    EXPECT_EQ(f->evidence["saturated_wrong"], f->evidence["golden_beyond_limit"]);
    EXPECT_FALSE(find(d, "nan_inf"));
}

TEST(Diagnosis, NanInfWithItsFirstPosition) {
    const TensorData g = uniform({16, 16}, 9);
    TensorData a = g;
    a.set(3 * 16 + 4, NAN);
    a.set(9 * 16 + 1, INFINITY);
    const Diagnosis d = run(a, g);
    ASSERT_FALSE(d.findings.empty());
    EXPECT_EQ(d.findings[0].pattern, "nan_inf");
    EXPECT_EQ(d.findings[0].evidence["count"], 2);
    EXPECT_EQ(d.findings[0].evidence["first"], (std::vector<int64_t>{3, 4}));
    EXPECT_FALSE(find(d, "saturation")) << names(d); // the golden fits: not an overflow
}

// C = A·B with K terms: the float64 reference, an f16-accumulated sum and a real defect.
struct Product {
    TensorData reference, f16Sum, defect;
};

Product product(int64_t m, int64_t n, int64_t k) {
    const TensorData a = uniform({m, k}, 10), b = uniform({k, n}, 11);
    std::vector<float> ref(size_t(m * n)), low(size_t(m * n)), bad(size_t(m * n));
    std::mt19937_64 rng(12);
    std::normal_distribution<double> noise(0.0, 1.0);
    TensorData acc = TensorData::fromFloats(DType::F16, {1}, std::vector<float>{0.0f});
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double sum = 0;
            acc.set(0, 0.0f);
            for (int64_t t = 0; t < k; ++t) {
                const double p = double(a.get(i * k + t)) * double(b.get(t * n + j));
                sum += p;
                acc.set(0, acc.get(0) + float(p)); // kept in f16 after every term
            }
            ref[size_t(i * n + j)] = float(sum);
            low[size_t(i * n + j)] = acc.get(0);
            bad[size_t(i * n + j)] = float(sum + 0.3 * std::sqrt(double(k) / 9) * noise(rng));
        }
    return {TensorData::fromFloats(DType::F32, {m, n}, ref),
            TensorData::fromFloats(DType::F32, {m, n}, low),
            TensorData::fromFloats(DType::F32, {m, n}, bad)};
}

TEST(Diagnosis, AccumulationPrecisionVersusADefect) {
    const int64_t k = 1024;
    const Product p = product(32, 32, k);
    const Diagnosis low = run(p.f16Sum, p.reference, nullptr, ToleranceClass::Accumulation, k);
    ASSERT_FALSE(low.findings.empty());
    EXPECT_EQ(low.findings[0].pattern, "accumulation") << names(low);
    EXPECT_EQ(low.findings[0].evidence["precision"], "f16");
    const Diagnosis bad = run(p.defect, p.reference, nullptr, ToleranceClass::Accumulation, k);
    ASSERT_FALSE(bad.findings.empty());
    EXPECT_EQ(bad.findings[0].pattern, "defect") << names(bad);
    // Elementwise results are not judged as sums.
    EXPECT_FALSE(find(run(p.f16Sum, p.reference), "accumulation"));
}

TEST(Diagnosis, LargeOutputsAreRowSampledButKeepNarrowStripes) {
    const TensorData g = uniform({4096, 1024}, 13);
    TensorData a = g;
    for (int64_t c = 0; c < 1024; ++c) a.set(1001 * 1024 + c, g.get(1001 * 1024 + c) + 1);
    DiagnoseOptions o;
    o.rtol = 1.3e-6;
    o.atol = 1e-5;
    o.elementBudget = 1 << 20;
    o.hintRows = {1001}; // the row of max |a − g|, which pto diff passes
    const Diagnosis d = diagnose(TensorView(a), TensorView(g), o);
    EXPECT_GT(d.rowStride, 1);
    const PatternFinding* f = find(d, "row_stripe");
    ASSERT_TRUE(f) << names(d);
    EXPECT_EQ(f->evidence["rows"], (std::vector<int64_t>{1001}));
}

TEST(Diagnosis, VeryLongRowsAreNotDiagnosedButSaySo) {
    const TensorData g = uniform({(1 << 20) + 1}, 14);
    TensorData a = g;
    a.set(5, 9.0f);
    const Diagnosis d = run(a, g);
    EXPECT_TRUE(d.findings.empty());
    EXPECT_NE(d.note.find("not diagnosed"), std::string::npos) << d.note;
}

} // namespace
} // namespace pto
