// The fused f32 × f32 chunk pass of Metrics.cpp: four pairs per step in f64 lanes (GCC vector
// extensions), compiled three times by target_clones — x86-64-v4 (AVX-512: twice the vector
// registers), AVX2 and the x86-64 baseline (two SSE2 halves) — and picked at load time by the
// CPU. Running maxima and counts stay per lane until the end.
#include "validate/ErrorMetricsF32.h"

#include <cfloat>
#include <cstring>

namespace pto::detail {
namespace {

typedef double V4d __attribute__((vector_size(32)));
typedef long long V4i __attribute__((vector_size(32)));
typedef float V4f __attribute__((vector_size(16)));

// Saturated and subnormal counts of a chunk; false if it holds NaN or ±inf.
bool countUnusual(const float* a, const float* g, int64_t n, F32ChunkSums& out) {
    for (int64_t i = 0; i < n; ++i) {
        float v[2];
        std::memcpy(&v[0], a + i, sizeof(float));
        std::memcpy(&v[1], g + i, sizeof(float));
        for (int side = 0; side < 2; ++side) {
            const float m = v[side] < 0 ? -v[side] : v[side];
            if (!(m <= FLT_MAX)) return false;
            (side ? out.goldenSaturated : out.actualSaturated) += m == FLT_MAX;
            (side ? out.goldenSubnormal : out.actualSubnormal) += m > 0 && m < FLT_MIN;
        }
    }
    return true;
}

} // namespace

// ThreadSanitizer instruments the ifunc resolver that target_clones adds, and the dynamic linker
// runs that resolver while it relocates the program, before TSan's runtime is up: every TSan
// binary linking this crashed at load (`pto --version` included). The TSan build gets the
// baseline clone only, which computes the same sums (four f64 lanes in every clone).
#if defined(__SANITIZE_THREAD__)
#define PTO_F32_CLONES
#else
#define PTO_F32_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif

// One function body on purpose: vector values never cross a call (the baseline clone would
// pass them in memory, and its helpers would not get the AVX2 target).
PTO_F32_CLONES bool scanF32Chunk(const float* a, const float* g, int64_t n, double atol,
                                 double rtol, F32ChunkSums& out) {
    const V4d zero = {0, 0, 0, 0}, one = {1, 1, 1, 1}, minusOne = {-1, -1, -1, -1};
    const V4d atolV = zero + atol, rtolV = zero + rtol;
    const V4d fltMax = zero + double(FLT_MAX), fltMin = zero + double(FLT_MIN);
    const V4i absMask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    const V4i allSet = {-1, -1, -1, -1};
    V4d sAbs = zero, sSq = zero, sA2 = zero, sG2 = zero, sAG = zero, sUlp = zero, sRel = zero;
    V4d mAbs = minusOne, mRel = minusOne, mUlp = zero, mRtol = zero, mAtol = zero, mZero = zero;
    V4i cUnequal{}, cWithin1{}, cWithin5{}, cZero{}, cMismatch{}, unreachable{}, unusual{};
    float padA[4] = {}, padG[4] = {};
    for (int64_t i = 0; i < n; i += 4) {
        const float* pa = a + i;
        const float* pg = g + i;
        V4i valid = allSet;
        if (n - i < 4) { // the tail: zero pairs, masked out where zeros would count
            const int64_t left = n - i;
            std::memcpy(padA, pa, size_t(left) * sizeof(float));
            std::memcpy(padG, pg, size_t(left) * sizeof(float));
            pa = padA;
            pg = padG;
            const V4i lane = {0, 1, 2, 3};
            valid = lane < left;
        }
        V4f fa, fg;
        std::memcpy(&fa, pa, sizeof fa);
        std::memcpy(&fg, pg, sizeof fg);
        const V4d av = __builtin_convertvector(fa, V4d), gv = __builtin_convertvector(fg, V4d);
        const V4d absA = (V4d)((V4i)av & absMask), ag = (V4d)((V4i)gv & absMask);
        // Normal and below FLT_MAX (NaN compares false); anything else — zero, subnormal,
        // saturated, inf, NaN — is classified after the loop, for this chunk only.
        unusual |= ~((absA < fltMax) & (absA >= fltMin) & (ag < fltMax) & (ag >= fltMin)) & valid;

        const V4d d = (V4d)((V4i)(av - gv) & absMask);
        sAbs += d;
        sSq += d * d;
        sA2 += av * av;
        sG2 += gv * gv;
        sAG += av * gv;
        mAbs = d > mAbs ? d : mAbs;
        cUnequal -= d != zero;

        const V4i nz = ag != zero;
        const V4d safe = nz ? ag : one;
        const V4d rel = d / safe;
        sRel += nz ? rel : zero;
        mRel = (nz & (rel > mRel)) ? rel : mRel;
        const V4i dZero = d == zero;
        cWithin1 -= ((nz & (rel <= 1e-3)) | (~nz & dZero)) & valid;
        cWithin5 -= ((nz & (rel <= 5e-3)) | (~nz & dZero)) & valid;
        cZero -= ~nz & valid;
        mZero = (~nz & (d > mZero)) ? d : mZero; // padded lanes have d = 0
        unreachable |= ~nz & (d > atolV);
        // The smallest passing rtol grows rarely: divide only when some lane's bound grows.
        const V4i grow = nz & ((d - atolV) > mRtol * ag);
        if ((grow[0] | grow[1] | grow[2] | grow[3]) != 0) {
            const V4d rt = (d - atolV) / safe;
            mRtol = (grow & (rt > mRtol)) ? rt : mRtol;
        }

        // 1 / ulp(g) in f32: 2^(23 − max(exponent of g, −126)), built from the exponent bits.
        const V4i e = (((V4i)gv >> 52) & 0x7FF) - 1023;
        const V4i clamped = e > -126 ? e : V4i{} - 126;
        const V4d inverseUlp = (V4d)((23 - clamped + 1023) << 52);
        const V4d ulp = d * inverseUlp;
        sUlp += ulp;
        mUlp = ulp > mUlp ? ulp : mUlp;

        cMismatch -= ~(d <= atolV + rtolV * ag);
        const V4d slack = d - rtolV * ag;
        mAtol = slack > mAtol ? slack : mAtol;
    }
    if ((unusual[0] | unusual[1] | unusual[2] | unusual[3]) != 0 && !countUnusual(a, g, n, out))
        return false;
    auto sum = [](const V4d& v) { return (v[0] + v[1]) + (v[2] + v[3]); };
    auto count = [](const V4i& v) { return int64_t(v[0] + v[1] + v[2] + v[3]); };
    auto max = [](const V4d& v) {
        const double x = v[0] > v[1] ? v[0] : v[1], y = v[2] > v[3] ? v[2] : v[3];
        return x > y ? x : y;
    };
    out.sumAbs = sum(sAbs);
    out.sumSq = sum(sSq);
    out.sumA2 = sum(sA2);
    out.sumG2 = sum(sG2);
    out.sumAG = sum(sAG);
    out.sumUlp = sum(sUlp);
    out.sumRel = sum(sRel);
    out.maxAbs = max(mAbs);
    out.maxRel = max(mRel);
    out.ulpMax = max(mUlp);
    out.minRtol = max(mRtol);
    out.minAtol = max(mAtol);
    out.zeroMaxAbs = max(mZero);
    out.unequal = count(cUnequal);
    out.within1 = count(cWithin1);
    out.within5 = count(cWithin5);
    out.zeroGolden = count(cZero);
    out.mismatch = count(cMismatch);
    out.rtolUnreachable = (unreachable[0] | unreachable[1] | unreachable[2] | unreachable[3]) != 0;
    return true;
}

} // namespace pto::detail
