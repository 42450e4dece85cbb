// The streaming metric pass: chunks of both tensors widened to f64, one accumulator per thread.
#include "validate/ErrorMetrics.h"
#include "validate/ErrorMetricsF32.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <thread>

namespace pto {
namespace {

constexpr int64_t kChunk = 2048;
constexpr int64_t kParallelMin = int64_t(1) << 20;
constexpr double kInf = std::numeric_limits<double>::infinity();

// What the pass needs to know of a dtype: its extremes and its last place.
struct DTypeFacts {
    double satMax;    // largest finite value
    double satMin;    // smallest (most negative) finite value
    double minNormal; // smallest positive normal (0 for integers: no subnormals)
    int ulpMinExp;    // smallest normal exponent (integers: a huge value, so ulp = 1)
    int fractionBits; // bits after the binary point of a normal value
};

DTypeFacts factsOf(DType d) {
    switch (d) {
    case DType::F32:
        return {FLT_MAX, -FLT_MAX, FLT_MIN, -126, 23};
    case DType::F16:
        return {65504.0, -65504.0, 0x1p-14, -14, 10};
    case DType::BF16:
        return {0x1.FEp127, -0x1.FEp127, 0x1p-126, -126, 7};
    case DType::I8:
        return {127.0, -128.0, 0.0, 2000, 2000};
    case DType::I32:
        return {double(INT32_MAX), double(INT32_MIN), 0.0, 2000, 2000};
    case DType::Bool:
        return {1.0, 0.0, 0.0, 2000, 2000};
    }
    return {0, 0, 0, 2000, 2000};
}

// out[0, n) = elements [first, first + n) of t as f64.
void widen(const TensorView& t, int64_t first, int64_t n, double* out) {
    const std::byte* p = t.data + first * dtypeSize(t.dtype);
    if (t.dtype == DType::I32) { // exact: an i32 does not fit a float's 24-bit mantissa
        for (int64_t i = 0; i < n; ++i) {
            int32_t v;
            std::memcpy(&v, p + 4 * i, 4);
            out[i] = v;
        }
        return;
    }
    float row[kChunk]; // every other dtype is exact in f32: the shared row conversion
    convertRowToFloat(p, t.dtype, row, n);
    for (int64_t i = 0; i < n; ++i) out[i] = row[i];
}

// Counts NaN, ±inf, saturated and subnormal elements. Most elements are normal and inside the
// range, which one test with three comparisons rules out.
void countElements(const double* x, int64_t n, const DTypeFacts& f, ElementCounts& c) {
    ElementCounts local;
    for (int64_t i = 0; i < n; ++i) {
        const double v = x[i];
        const double m = std::fabs(v);
        if (v > f.satMin && v < f.satMax && m >= f.minNormal) [[likely]]
            continue;
        local.nan += v != v;
        local.posInf += v == kInf;
        local.negInf += v == -kInf;
        local.saturated += v == f.satMax || v == f.satMin;
        local.subnormal += m > 0.0 && m < f.minNormal;
    }
    c.nan += local.nan;
    c.posInf += local.posInf;
    c.negInf += local.negInf;
    c.saturated += local.saturated;
    c.subnormal += local.subnormal;
}

// 2^k as a double, for k in the normal range of f64.
double pow2(int k) {
    return std::bit_cast<double>(uint64_t(k + 1023) << 52);
}

// 1 / ulp(g) in the golden dtype, ulp(g) = 2^(max(floor(log2|g|), eMin) − p): a power of two,
// so d · (1/ulp) is exactly d / ulp.
double inverseUlp(double g, const DTypeFacts& f) {
    if (f.ulpMinExp >= 2000) return 1.0;
    const int e = int((std::bit_cast<uint64_t>(g) >> 52) & 0x7FF) - 1023;
    return pow2(f.fractionBits - std::max(e, f.ulpMinExp));
}

struct Accumulator {
    int64_t finite = 0;
    double sumAbs = 0, sumSq = 0, sumA2 = 0, sumG2 = 0, sumAG = 0, sumUlp = 0, sumRel = 0;
    double maxAbs = -1, maxRel = -1, ulpMax = 0, zeroMaxAbs = 0;
    int64_t maxAbsAt = -1, maxRelAt = -1;
    int64_t within1 = 0, within5 = 0, zeroGolden = 0;
    int64_t mismatch = 0, nanMismatch = 0, infMismatch = 0, unequal = 0;
    double minRtol = 0, minAtol = 0;
    bool rtolUnreachable = false;
    ElementCounts actual, golden;

    void merge(const Accumulator& o) {
        finite += o.finite;
        sumAbs += o.sumAbs;
        sumSq += o.sumSq;
        sumA2 += o.sumA2;
        sumG2 += o.sumG2;
        sumAG += o.sumAG;
        sumUlp += o.sumUlp;
        sumRel += o.sumRel;
        // `o` covers later elements: it wins only with a strictly larger maximum.
        if (o.maxAbs > maxAbs) maxAbs = o.maxAbs, maxAbsAt = o.maxAbsAt;
        if (o.maxRel > maxRel) maxRel = o.maxRel, maxRelAt = o.maxRelAt;
        ulpMax = std::max(ulpMax, o.ulpMax);
        zeroMaxAbs = std::max(zeroMaxAbs, o.zeroMaxAbs);
        within1 += o.within1;
        within5 += o.within5;
        zeroGolden += o.zeroGolden;
        mismatch += o.mismatch;
        unequal += o.unequal;
        nanMismatch += o.nanMismatch;
        infMismatch += o.infMismatch;
        minRtol = std::max(minRtol, o.minRtol);
        minAtol = std::max(minAtol, o.minAtol);
        rtolUnreachable |= o.rtolUnreachable;
        for (auto [mine, theirs] : {std::pair{&actual, &o.actual}, std::pair{&golden, &o.golden}}) {
            mine->nan += theirs->nan;
            mine->posInf += theirs->posInf;
            mine->negInf += theirs->negInf;
            mine->saturated += theirs->saturated;
            mine->subnormal += theirs->subnormal;
        }
    }
};

struct PassContext {
    const TensorView& actual;
    const TensorView& golden;
    DTypeFacts actualFacts;
    DTypeFacts goldenFacts;
    double rtol;
    double atol;
};

void nonFinitePair(double a, double g, Accumulator& acc) {
    const bool na = a != a, ng = g != g;
    if (na != ng) {
        ++acc.nanMismatch;
        ++acc.mismatch;
        ++acc.unequal;
    } else if (!na && a != g) {
        ++acc.infMismatch;
        ++acc.mismatch;
        ++acc.unequal;
    }
}

// The per-element work over one chunk. Running maxima live in locals (the compiler cannot keep
// members of `acc` in registers across the loads of a and g, which may alias them).
void scanChunk(const PassContext& c, const double* a, const double* g, int64_t n, int64_t first,
               Accumulator& acc) {
    double sumAbs = 0, sumSq = 0, sumA2 = 0, sumG2 = 0, sumAG = 0, sumUlp = 0, sumRel = 0;
    int64_t finite = 0, within1 = 0, within5 = 0, mismatch = 0, unequal = 0, zeroGolden = 0;
    double maxAbs = acc.maxAbs, maxRel = acc.maxRel, ulpMax = acc.ulpMax;
    double zeroMaxAbs = acc.zeroMaxAbs;
    double minRtol = acc.minRtol, minAtol = acc.minAtol;
    int64_t maxAbsAt = acc.maxAbsAt, maxRelAt = acc.maxRelAt;
    bool rtolUnreachable = acc.rtolUnreachable;
    const double atol = c.atol, rtol = c.rtol;
    for (int64_t i = 0; i < n; ++i) {
        const double av = a[i], gv = g[i];
        if (!std::isfinite(av) || !std::isfinite(gv)) [[unlikely]] {
            nonFinitePair(av, gv, acc);
            continue;
        }
        const double d = std::fabs(av - gv);
        const double ag = std::fabs(gv);
        ++finite;
        unequal += d != 0.0;
        sumAbs += d;
        sumSq += d * d;
        sumA2 += av * av;
        sumG2 += gv * gv;
        sumAG += av * gv;
        if (d > maxAbs) maxAbs = d, maxAbsAt = first + i;
        if (ag != 0.0) [[likely]] {
            const double rel = d / ag;
            sumRel += rel;
            if (rel > maxRel) maxRel = rel, maxRelAt = first + i;
            within1 += rel <= 1e-3;
            within5 += rel <= 5e-3;
            if (d - atol > minRtol * ag) minRtol = std::max(minRtol, (d - atol) / ag);
        } else {
            ++zeroGolden;
            zeroMaxAbs = std::max(zeroMaxAbs, d);
            within1 += d == 0.0;
            within5 += d == 0.0;
            rtolUnreachable |= d > atol;
        }
        const double ulp = d * inverseUlp(gv, c.goldenFacts);
        sumUlp += ulp;
        ulpMax = std::max(ulpMax, ulp);
        mismatch += !(d <= atol + rtol * ag);
        minAtol = std::max(minAtol, d - rtol * ag);
    }
    acc.maxAbs = maxAbs;
    acc.maxAbsAt = maxAbsAt;
    acc.maxRel = maxRel;
    acc.maxRelAt = maxRelAt;
    acc.ulpMax = ulpMax;
    acc.zeroMaxAbs = zeroMaxAbs;
    acc.minRtol = minRtol;
    acc.minAtol = minAtol;
    acc.rtolUnreachable = rtolUnreachable;
    acc.zeroGolden += zeroGolden;
    acc.finite += finite;
    acc.sumAbs += sumAbs;
    acc.sumSq += sumSq;
    acc.sumA2 += sumA2;
    acc.sumG2 += sumG2;
    acc.sumAG += sumAG;
    acc.sumUlp += sumUlp;
    acc.sumRel += sumRel;
    acc.within1 += within1;
    acc.within5 += within5;
    acc.mismatch += mismatch;
    acc.unequal += unequal;
}

// The first element of a chunk of f32 pairs whose |a − g| (relative: ÷ |g| where g ≠ 0) is
// `target`, computed as scanChunk computes it (so the match is exact).
int64_t firstF32Where(const float* a, const float* g, int64_t n, double target, bool relative) {
    for (int64_t i = 0; i < n; ++i) {
        float fa, fg; // the file's bytes, possibly unaligned
        std::memcpy(&fa, a + i, sizeof fa);
        std::memcpy(&fg, g + i, sizeof fg);
        const double av = fa, gv = fg, d = std::fabs(av - gv), ag = std::fabs(gv);
        if (relative ? ag != 0.0 && d / ag == target : d == target) return i;
    }
    return 0; // not reached: the maximum came from one of these pairs
}

// Adds a fused f32 chunk's sums to `acc`; a new maximum gets its (first) position by a rescan.
void mergeF32(const detail::F32ChunkSums& s, const float* a, const float* g, int64_t n,
              int64_t first, Accumulator& acc) {
    acc.finite += n;
    acc.sumAbs += s.sumAbs;
    acc.sumSq += s.sumSq;
    acc.sumA2 += s.sumA2;
    acc.sumG2 += s.sumG2;
    acc.sumAG += s.sumAG;
    acc.sumUlp += s.sumUlp;
    acc.sumRel += s.sumRel;
    if (s.maxAbs > acc.maxAbs)
        acc.maxAbs = s.maxAbs, acc.maxAbsAt = first + firstF32Where(a, g, n, s.maxAbs, false);
    if (s.maxRel > acc.maxRel)
        acc.maxRel = s.maxRel, acc.maxRelAt = first + firstF32Where(a, g, n, s.maxRel, true);
    acc.ulpMax = std::max(acc.ulpMax, s.ulpMax);
    acc.zeroMaxAbs = std::max(acc.zeroMaxAbs, s.zeroMaxAbs);
    acc.minRtol = std::max(acc.minRtol, s.minRtol);
    acc.minAtol = std::max(acc.minAtol, s.minAtol);
    acc.rtolUnreachable |= s.rtolUnreachable;
    acc.unequal += s.unequal;
    acc.within1 += s.within1;
    acc.within5 += s.within5;
    acc.zeroGolden += s.zeroGolden;
    acc.mismatch += s.mismatch;
    acc.actual.saturated += s.actualSaturated;
    acc.actual.subnormal += s.actualSubnormal;
    acc.golden.saturated += s.goldenSaturated;
    acc.golden.subnormal += s.goldenSubnormal;
}

Accumulator scanRange(const PassContext& c, int64_t begin, int64_t end) {
    Accumulator acc;
    std::vector<double> a(kChunk), g(kChunk);
    // f32 × f32 (the common case): one fused vector pass per chunk straight from the files'
    // floats; a chunk holding NaN or ±inf takes the exact path below.
    const bool f32 = c.actual.dtype == DType::F32 && c.golden.dtype == DType::F32;
    const auto* fa = reinterpret_cast<const float*>(c.actual.data);
    const auto* fg = reinterpret_cast<const float*>(c.golden.data);
    for (int64_t first = begin; first < end; first += kChunk) {
        const int64_t n = std::min(kChunk, end - first);
        if (detail::F32ChunkSums s;
            f32 && detail::scanF32Chunk(fa + first, fg + first, n, c.atol, c.rtol, s)) {
            mergeF32(s, fa + first, fg + first, n, first, acc);
            continue;
        }
        widen(c.actual, first, n, a.data());
        widen(c.golden, first, n, g.data());
        countElements(a.data(), n, c.actualFacts, acc.actual);
        countElements(g.data(), n, c.goldenFacts, acc.golden);
        scanChunk(c, a.data(), g.data(), n, first, acc);
    }
    return acc;
}

int threadCount(const MetricOptions& o, int64_t n) {
    if (o.threads > 0) return o.threads;
    if (n < kParallelMin) return 1;
    return int(std::clamp(std::thread::hardware_concurrency(), 1u, 2u));
}

Accumulator scanAll(const PassContext& c, int64_t n, int threads) {
    if (threads <= 1) return scanRange(c, 0, n);
    std::vector<Accumulator> parts(static_cast<size_t>(threads));
    std::vector<std::thread> workers;
    const int64_t step = (n + threads - 1) / threads;
    for (int t = 1; t < threads; ++t)
        workers.emplace_back([&, t] {
            parts[size_t(t)] = scanRange(c, std::min(n, t * step), std::min(n, (t + 1) * step));
        });
    parts[0] = scanRange(c, 0, std::min(n, step));
    for (std::thread& w : workers) w.join();
    for (size_t t = 1; t < parts.size(); ++t) parts[0].merge(parts[t]);
    return parts[0];
}

double cosineOf(const Accumulator& acc) {
    if (acc.sumA2 == 0.0 && acc.sumG2 == 0.0) return 1.0;
    if (acc.sumA2 == 0.0 || acc.sumG2 == 0.0) return 0.0;
    return acc.sumAG / (std::sqrt(acc.sumA2) * std::sqrt(acc.sumG2));
}

DiffMetrics finish(const Accumulator& acc, const TensorView& golden, int64_t n,
                   const MetricOptions& o) {
    DiffMetrics m;
    m.count = n;
    m.finitePairs = acc.finite;
    m.rtol = o.rtol;
    m.atol = o.atol;
    m.actual = acc.actual;
    m.golden = acc.golden;
    m.mismatchCount = acc.mismatch;
    m.unequal = acc.unequal;
    m.mismatchRatio = n ? double(acc.mismatch) / double(n) : 0.0;
    m.nanMismatch = acc.nanMismatch;
    m.infMismatch = acc.infMismatch;
    m.zeroGolden = acc.zeroGolden;
    m.zeroGoldenMaxAbs = acc.zeroMaxAbs;
    const bool nonFinite = acc.nanMismatch + acc.infMismatch > 0;
    m.minRtol = nonFinite || acc.rtolUnreachable ? kInf : acc.minRtol;
    m.minAtol = nonFinite ? kInf : acc.minAtol;
    if (acc.finite == 0) return m;
    const double f = double(acc.finite);
    m.maxAbs = acc.maxAbs;
    m.maxAbsIndex = unflattenIndex(acc.maxAbsAt, golden.shape);
    if (acc.maxRelAt >= 0) {
        m.maxRel = acc.maxRel;
        m.maxRelIndex = unflattenIndex(acc.maxRelAt, golden.shape);
        m.meanRel = acc.sumRel / double(acc.finite - acc.zeroGolden);
    }
    m.meanAbs = acc.sumAbs / f;
    m.rmse = std::sqrt(acc.sumSq / f);
    m.relL2 = acc.sumG2 > 0   ? std::sqrt(acc.sumSq) / std::sqrt(acc.sumG2)
              : acc.sumSq > 0 ? kInf
                              : 0.0;
    m.cosine = cosineOf(acc);
    m.ulpMax = acc.ulpMax;
    m.ulpMean = acc.sumUlp / f;
    m.within1e3 = double(acc.within1) / f;
    m.within5e3 = double(acc.within5) / f;
    return m;
}

} // namespace

std::vector<int64_t> unflattenIndex(int64_t flat, const Shape& shape) {
    std::vector<int64_t> index(size_t(shape.rank()));
    for (int d = shape.rank() - 1; d >= 0; --d) {
        const int64_t extent = std::max<int64_t>(shape[d], 1);
        index[size_t(d)] = flat % extent;
        flat /= extent;
    }
    return index;
}

DiffMetrics computeMetrics(const TensorView& actual, const TensorView& golden,
                           const MetricOptions& options) {
    const int64_t n = golden.numel();
    if (actual.numel() != n)
        throw std::invalid_argument(
            fmt::format("cannot compare {} ({} elements) with golden {} ({} elements)",
                        typeString(actual.dtype, actual.shape), actual.numel(),
                        typeString(golden.dtype, golden.shape), n));
    PassContext c{actual,       golden,      factsOf(actual.dtype), factsOf(golden.dtype),
                  options.rtol, options.atol};
    Accumulator acc = scanAll(c, n, threadCount(options, n));
    return finish(acc, golden, n, options);
}

} // namespace pto
