// The tolerance policy: which (rtol, atol) a result must meet, where each threshold comes from,
// and the verdict on a set of metrics that names the metric, value, threshold and source.
#pragma once

// The rules (docs/VALIDATE.md gives the table and the reasoning):
// - Per dtype (torch.testing.assert_close defaults): f32 rtol 1.3e-6 atol 1e-5, f16 1e-3/1e-5,
//   bf16 1.6e-2/1e-5; integers and bool exact.
// - Accumulating ops (matmul, matmul_acc, reduce_*; K = the accumulation length): two f32
//   accumulations of K terms in different orders differ by about √K·u·Σ|x| (Higham & Mary 2019,
//   probabilistic bound with λ = 1; u = 2^-24) and Σ|x| ≈ √K·rms(g) for sums of terms of
//   random sign, so rtol += K·u and atol += K·u·rms(g).
// - Composites (sigmoid, tanh, gelu, silu, softmax, rms_norm, layer_norm, quantize, dequantize)
//   after decompose-composites round after every primitive instead of once: the Ascend
//   precision standard's bound on the max relative error, 10·T (T = 2^-10 f16, 2^-7 bf16,
//   2^-13 f32), becomes rtol, atol += T·rms(g) (plus the K rule for the ones that reduce);
//   integer results (quantize) may be one step off.
// - Flags (--rtol, --atol) replace either number; the source then says so.
// - K is a number of terms: 1 ≤ K ≤ kMaxElements (no tensor holds more); overrides are finite
//   and ≥ 0. checkReductionLength / checkOverrides refuse anything else.
// Standards for the verdict: Allclose (torch.testing: no mismatch under atol + rtol·|g|, NaN/Inf
// in the same places), Ascend (mean rel < T, max rel < 10·T over g ≠ 0, and |a| ≤ the small-value
// atol of msprobe's absolute-threshold method where g = 0 — f16/bf16 1e-5, f32 1e-9, integers 0
// — plus NaN/Inf), Msprobe (cosine ≥ 0.99 unless max abs ≤ 0.001, cosine ≥ 0.9, plus NaN/Inf).

#include "compiler/ir/DType.h"
#include "compiler/ir/Graph.h"
#include "validate/ErrorMetrics.h"

#include <optional>
#include <string>
#include <vector>

namespace pto {

enum class ToleranceClass : uint8_t { Elementwise, Accumulation, Composite };

struct Tolerance {
    double rtol = 0.0;
    double atol = 0.0;
    std::string source; // where the numbers come from, in words
};

// The torch.testing.assert_close default of a dtype (integers and bool: exact).
Tolerance dtypeTolerance(DType dtype);
// T of the Ascend precision standard: 2^-10 f16, 2^-7 bf16, 2^-13 f32, 0 for integers.
double ascendThreshold(DType dtype);
// The absolute bound on elements whose golden is 0 (they have no relative error): msprobe's
// small-value atol, 1e-5 f16 and bf16, 1e-9 f32, 0 for integers.
double ascendZeroGoldenAtol(DType dtype);

ToleranceClass toleranceClassOf(OpKind kind);
// The number of terms one result element of `op` sums (matmul K, the reduced extent, the
// normalised axis of softmax/rms_norm/layer_norm); 1 for the others.
int64_t accumulationLength(const Function& fn, const Op& op);

// The tolerance of a result of `dtype` from an op of class `cls` over `k` terms, whose golden
// has root-mean-square `goldenRms` (only the Accumulation/Composite rules use it).
Tolerance opTolerance(DType dtype, ToleranceClass cls, int64_t k, double goldenRms);

struct ToleranceOverrides {
    std::optional<double> rtol;
    std::optional<double> atol;
};
Tolerance applyOverrides(Tolerance tol, const ToleranceOverrides& overrides);

// Throw std::invalid_argument naming `what` (a flag, a manifest entry) and the value: a K below
// 1 or above kMaxElements; an rtol or atol that is negative, NaN or infinite.
void checkReductionLength(int64_t k, std::string_view what);
void checkOverrides(const ToleranceOverrides& overrides);

enum class Standard : uint8_t { Allclose, Ascend, Msprobe };
std::string_view standardName(Standard s);
std::optional<Standard> parseStandard(std::string_view name);

// One criterion of a verdict: "metric relation threshold" must hold.
struct Check {
    std::string metric;   // "mismatch_count", "cosine", …
    double value = 0.0;   // the metric's value
    std::string relation; // "<=", "<", ">="
    double threshold = 0.0;
    std::string source; // where the threshold comes from
    bool passed = true;
};

struct Verdict {
    bool passed = true;
    std::vector<Check> checks;
    const Check* firstFailure() const;
    // "PASS" or "FAIL: mismatch_count = 12 > 0 (rtol 0.001 + atol 1e-05·… — source)".
    std::string summary() const;
};

// The verdict of `standard` on `m` (computed with tol.rtol/atol) for a golden of `dtype`.
Verdict judge(const DiffMetrics& m, const Tolerance& tol, DType goldenDType,
              Standard standard = Standard::Allclose);

// Root mean square of a tensor's finite elements (0 for none), for the K and composite rules.
double rmsOf(const TensorView& t);

} // namespace pto
