// The tolerance policy and the verdict (the rules are listed in Tolerance.h and docs/VALIDATE.md).
#include "validate/Tolerance.h"

#include "compiler/ir/ShapeInference.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace pto {
namespace {

constexpr double kAccumulatorUlp = 0x1p-24; // unit roundoff of the f32 accumulator
constexpr std::string_view kTorchSource = "torch.testing.assert_close default for {}";
constexpr std::string_view kNanSource =
    "NaN and Inf must sit in the same places (torch.testing equal_nan; msprobe)";

std::string fmtNumber(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return fmt::format("{:.6g}", v);
}

int64_t dim(const Shape& s, int64_t axis) {
    if (s.rank() == 0) return 1;
    if (axis < 0) axis += s.rank();
    return axis >= 0 && axis < s.rank() ? s[int(axis)] : 1;
}

Check nanInfCheck(const DiffMetrics& m) {
    return {"nan_inf_mismatch", double(m.nanMismatch + m.infMismatch), "<=", 0.0,
            std::string(kNanSource)};
}

void addAllclose(Verdict& v, const DiffMetrics& m, const Tolerance& tol) {
    v.checks.push_back(nanInfCheck(m));
    v.checks.push_back({"mismatch_count", double(m.mismatchCount), "<=", 0.0,
                        fmt::format("|a−g| ≤ atol + rtol·|g| with rtol {} atol {}: {}",
                                    fmtNumber(tol.rtol), fmtNumber(tol.atol), tol.source)});
}

void addAscend(Verdict& v, const DiffMetrics& m, DType dtype) {
    const double t = ascendThreshold(dtype);
    const std::string name(dtypeName(dtype));
    v.checks.push_back(nanInfCheck(m));
    v.checks.push_back({"mean_rel", m.meanRel, "<", t == 0 ? 1e-300 : t,
                        fmt::format("Ascend precision standard: mean relative error < T, T = {} "
                                    "for {}",
                                    fmtNumber(t), name)});
    v.checks.push_back(
        {"max_rel", m.maxRel, "<", t == 0 ? 1e-300 : 10 * t,
         fmt::format("Ascend precision standard: max relative error < 10·T for {}", name)});
    // Relative errors leave out g = 0: without this check an all-zero golden passed anything.
    v.checks.push_back({"zero_golden_max_abs", m.zeroGoldenMaxAbs,
                        "<=", ascendZeroGoldenAtol(dtype),
                        fmt::format("elements whose golden is 0 have no relative error: |a| ≤ "
                                    "the small-value atol for {} (msprobe absolute threshold)",
                                    name)});
}

void addMsprobe(Verdict& v, const DiffMetrics& m) {
    v.checks.push_back(nanInfCheck(m));
    // msprobe fails on cos < 0.99 only when max abs > 0.001 as well.
    if (m.maxAbs > 1e-3)
        v.checks.push_back({"cosine", m.cosine, ">=", 0.99,
                            "msprobe: cosine < 0.99 with max abs error > 0.001 fails"});
    v.checks.push_back({"cosine", m.cosine, ">=", 0.9, "msprobe: cosine < 0.9 fails"});
}

bool holds(const Check& c) {
    if (std::isnan(c.value)) return false;
    if (c.relation == "<=") return c.value <= c.threshold;
    if (c.relation == "<") return c.value < c.threshold;
    return c.value >= c.threshold;
}

} // namespace

Tolerance dtypeTolerance(DType dtype) {
    const std::string src = fmt::format(kTorchSource, dtypeName(dtype));
    switch (dtype) {
    case DType::F32:
        return {1.3e-6, 1e-5, src};
    case DType::F16:
        return {1e-3, 1e-5, src};
    case DType::BF16:
        return {1.6e-2, 1e-5, src};
    default:
        return {0.0, 0.0, fmt::format("{} results are exact (torch.testing)", dtypeName(dtype))};
    }
}

double ascendThreshold(DType dtype) {
    switch (dtype) {
    case DType::F32:
        return 0x1p-13;
    case DType::F16:
        return 0x1p-10;
    case DType::BF16:
        return 0x1p-7;
    default:
        return 0.0;
    }
}

double ascendZeroGoldenAtol(DType dtype) {
    switch (dtype) {
    case DType::F32:
        return 1e-9;
    case DType::F16:
    case DType::BF16:
        return 1e-5;
    default:
        return 0.0;
    }
}

ToleranceClass toleranceClassOf(OpKind kind) {
    switch (opInfo(kind).cls) {
    case OpClass::Matmul:
    case OpClass::Reduce:
        return ToleranceClass::Accumulation;
    case OpClass::Composite:
        return ToleranceClass::Composite;
    default:
        return ToleranceClass::Elementwise;
    }
}

int64_t accumulationLength(const Function& fn, const Op& op) {
    auto shapeOf = [&](size_t i) -> Shape {
        return i < op.operands.size() ? fn.type(op.operands[i]).shape : Shape{};
    };
    switch (op.kind) {
    case OpKind::Matmul:
    case OpKind::MatmulAcc: {
        const Shape a = shapeOf(op.kind == OpKind::Matmul ? 0 : 1);
        return dim(a, op.attrs.getBool("transpose_a") ? -2 : -1);
    }
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMin:
        return dim(shapeOf(0), op.attrs.getInt("axis", -1));
    case OpKind::Softmax:
        return dim(shapeOf(0), op.attrs.getInt("axis", -1));
    case OpKind::RmsNorm:
    case OpKind::LayerNorm:
        return dim(shapeOf(0), -1);
    default:
        return 1;
    }
}

Tolerance opTolerance(DType dtype, ToleranceClass cls, int64_t k, double goldenRms) {
    Tolerance tol = dtypeTolerance(dtype);
    if (cls == ToleranceClass::Elementwise) return tol;
    const double kTerm = double(std::max<int64_t>(k, 1)) * kAccumulatorUlp;
    if (!isFloatType(dtype)) {
        if (cls == ToleranceClass::Composite) {
            tol.atol = 1.0;
            tol.source += "; a decomposed quantisation may be one step off";
        }
        return tol;
    }
    if (cls == ToleranceClass::Accumulation) {
        tol.rtol += kTerm;
        tol.atol += kTerm * goldenRms;
        tol.source += fmt::format("; + K·u (K = {}, u = 2^-24) on rtol and K·u·rms(g) on atol "
                                  "for f32 accumulation order (Higham & Mary 2019)",
                                  k);
        return tol;
    }
    const double t = ascendThreshold(dtype);
    tol.rtol = std::max(tol.rtol, 10 * t) + (k > 1 ? kTerm : 0.0);
    tol.atol += (t + (k > 1 ? kTerm : 0.0)) * goldenRms;
    tol.source = fmt::format("decomposed composite in {}: rtol 10·T, atol T·rms(g) with T = {} "
                             "(Ascend precision standard max relative error){}",
                             dtypeName(dtype), fmtNumber(t),
                             k > 1 ? fmt::format("; + K·u for its {}-term reduction", k) : "");
    return tol;
}

Tolerance applyOverrides(Tolerance tol, const ToleranceOverrides& o) {
    if (o.rtol) {
        tol.rtol = *o.rtol;
        tol.source = "rtol from --rtol; " + tol.source;
    }
    if (o.atol) {
        tol.atol = *o.atol;
        tol.source = "atol from --atol; " + tol.source;
    }
    return tol;
}

void checkReductionLength(int64_t k, std::string_view what) {
    if (k < 1 || k > kMaxElements)
        throw std::invalid_argument(
            fmt::format("{} {}: a reduction length is a number of terms, from 1 to {} (the most "
                        "elements a tensor holds)",
                        what, k, kMaxElements));
}

void checkOverrides(const ToleranceOverrides& o) {
    for (auto [flag, value] : {std::pair{"--rtol", o.rtol}, std::pair{"--atol", o.atol}})
        if (value && !(std::isfinite(*value) && *value >= 0))
            throw std::invalid_argument(
                fmt::format("{} {}: must be a finite number ≥ 0", flag, fmtNumber(*value)));
}

std::string_view standardName(Standard s) {
    switch (s) {
    case Standard::Allclose:
        return "allclose";
    case Standard::Ascend:
        return "ascend";
    case Standard::Msprobe:
        return "msprobe";
    }
    return "?";
}

std::optional<Standard> parseStandard(std::string_view name) {
    for (Standard s : {Standard::Allclose, Standard::Ascend, Standard::Msprobe})
        if (standardName(s) == name) return s;
    return std::nullopt;
}

const Check* Verdict::firstFailure() const {
    for (const Check& c : checks)
        if (!c.passed) return &c;
    return nullptr;
}

std::string Verdict::summary() const {
    const Check* c = firstFailure();
    if (!c) return "PASS";
    const char* negated = c->relation == "<=" ? ">" : c->relation == "<" ? ">=" : "<";
    return fmt::format("FAIL: {} = {} {} {} ({})", c->metric, fmtNumber(c->value), negated,
                       fmtNumber(c->threshold), c->source);
}

Verdict judge(const DiffMetrics& m, const Tolerance& tol, DType goldenDType, Standard standard) {
    Verdict v;
    switch (standard) {
    case Standard::Allclose:
        addAllclose(v, m, tol);
        break;
    case Standard::Ascend:
        addAscend(v, m, goldenDType);
        break;
    case Standard::Msprobe:
        addMsprobe(v, m);
        break;
    }
    for (Check& c : v.checks) {
        c.passed = holds(c);
        v.passed &= c.passed;
    }
    return v;
}

double rmsOf(const TensorView& t) {
    const int64_t n = t.numel();
    const int64_t size = dtypeSize(t.dtype);
    double sum = 0.0;
    int64_t finite = 0;
    for (int64_t i = 0; i < n; ++i) {
        const double v = loadElement(t.data + i * size, t.dtype);
        if (!std::isfinite(v)) continue;
        sum += v * v;
        ++finite;
    }
    return finite ? std::sqrt(sum / double(finite)) : 0.0;
}

} // namespace pto
