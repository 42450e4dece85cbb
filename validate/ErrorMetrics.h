// Error metrics of an actual tensor against a golden one, computed in f64 in one streaming pass.
#pragma once

// Definitions (docs/VALIDATE.md has the long form). a = actual, g = golden, both read exactly
// as values (f16/bf16 widened, integers as integers) into f64; d = |a − g|.
// - "Finite pairs" are the elements where a and g are both finite. The error metrics (max/mean
//   abs, RMSE, relative L2, cosine, ULP, relative shares) are over finite pairs only; NaN/Inf
//   are judged by position: nanMismatch counts elements where exactly one side is NaN,
//   infMismatch those where a side is ±inf and the other is not the same infinity (and
//   neither is NaN).
// - rel = d / |g| for g ≠ 0. Elements with g = 0 have no relative error: they are left out of
//   maxRel (zeroGolden counts them, zeroGoldenMaxAbs is their largest d: what the Ascend
//   standard judges them by) and count as "within" a relative bound only when a == 0.
// - ULP error = d / ulp(g) with ulp(g) = 2^(max(e, eMin) − p), e = floor(log2 |g|), p the
//   golden dtype's fraction bits (f32 23, f16 10, bf16 7) and eMin its smallest normal exponent
//   (−126, −14, −126); integers have ulp 1. (The msprobe definition: error in units of the
//   golden's last place, so an f32 result can be compared with an f16 golden.)
// - mismatch: not (d ≤ atol + rtol·|g|), NaN == NaN and equal infinities matching — exactly
//   ~np.isclose(a, g, rtol, atol, equal_nan=True) evaluated in f64.
// - The smallest tolerances that would have passed: minRtol = max over finite pairs of
//   (d − atol)/|g| (0 if none is positive; +inf if some g = 0 has d > atol or any NaN/Inf
//   mismatches), with atol the one given; minAtol = max of d − rtol·|g| (at least 0; +inf on
//   NaN/Inf mismatches) with rtol the one given.
// - Saturated elements sit at the extreme finite values of their own tensor's dtype (f16
//   ±65504, bf16 ±0x1.FEp127, f32 ±FLT_MAX, i8 127/−128, i32 INT32_MAX/INT32_MIN); subnormal
//   ones have 0 < |x| < the dtype's smallest normal. Counted for each side.
// Empty tensors give zeros everywhere, cosine 1.

#include "compiler/ir/TensorData.h"

#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace pto {

struct MetricOptions {
    double rtol = 0.0; // for the mismatch count and minAtol
    double atol = 0.0; // for the mismatch count and minRtol
    int threads = 0;   // 0 = up to 2, for tensors of ≥ 1M elements
};

struct ElementCounts {
    int64_t nan = 0;
    int64_t posInf = 0;
    int64_t negInf = 0;
    int64_t saturated = 0;
    int64_t subnormal = 0;
};

struct DiffMetrics {
    int64_t count = 0;       // elements
    int64_t finitePairs = 0; // elements where both sides are finite
    double maxAbs = 0.0;
    std::vector<int64_t> maxAbsIndex; // multi-dim index of the first maximum (empty: none)
    double maxRel = 0.0;
    std::vector<int64_t> maxRelIndex;
    double meanRel = 0.0; // over finite pairs with g ≠ 0
    double meanAbs = 0.0;
    double rmse = 0.0;
    double relL2 = 0.0; // ‖a − g‖₂ / ‖g‖₂ (0 when both are 0, inf when only g is)
    double cosine = 1.0;
    double ulpMax = 0.0;
    double ulpMean = 0.0;
    double within1e3 = 1.0;        // share of finite pairs with rel ≤ 1/1000 (g = 0: a == 0)
    double within5e3 = 1.0;        // … ≤ 5/1000
    int64_t zeroGolden = 0;        // finite pairs with g == 0 (no relative error)
    double zeroGoldenMaxAbs = 0.0; // max d over those pairs (0 when there are none)
    int64_t unequal = 0;           // elements whose values differ at all (NaN == NaN)
    int64_t mismatchCount = 0;
    double mismatchRatio = 0.0;
    int64_t nanMismatch = 0;
    int64_t infMismatch = 0;
    double rtol = 0.0; // the tolerances the mismatch count used
    double atol = 0.0;
    double minRtol = 0.0; // smallest rtol that would have passed with `atol`
    double minAtol = 0.0; // smallest atol that would have passed with `rtol`
    ElementCounts actual;
    ElementCounts golden;

    bool exact() const { return maxAbs == 0.0 && nanMismatch == 0 && infMismatch == 0; }
};

// A read-only view of tensor elements laid out as in TensorData (they may live in a mapped
// file rather than a TensorData).
struct TensorView {
    DType dtype = DType::F32;
    Shape shape;
    const std::byte* data = nullptr; // shape.numel() · dtypeSize(dtype) bytes
    TensorView() = default;
    TensorView(DType d, Shape s, const std::byte* p) : dtype(d), shape(s), data(p) {}
    TensorView(const TensorData& t) : dtype(t.dtype), shape(t.shape), data(t.data()) {}
    int64_t numel() const { return shape.numel(); }
};

// Metrics of `actual` against `golden`. They must have the same number of elements (shapes
// are the caller's business: compareTensors checks them); dtypes may differ. Throws
// std::invalid_argument naming both sizes otherwise.
DiffMetrics computeMetrics(const TensorView& actual, const TensorView& golden,
                           const MetricOptions& options = {});
inline DiffMetrics computeMetrics(const TensorData& actual, const TensorData& golden,
                                  const MetricOptions& options = {}) {
    if (int64_t(actual.bytes.size()) < actual.byteSize() ||
        int64_t(golden.bytes.size()) < golden.byteSize())
        throw std::invalid_argument("tensor data is shorter than its shape says");
    return computeMetrics(TensorView(actual), TensorView(golden), options);
}

// Flat row-major index → multi-dim index of `shape`.
std::vector<int64_t> unflattenIndex(int64_t flat, const Shape& shape);

} // namespace pto
