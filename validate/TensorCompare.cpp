// One tensor against its golden: metrics, tolerance, verdict, and how they print.
#include "validate/TensorCompare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <stdexcept>

namespace pto {
namespace {

nlohmann::json number(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (std::isnan(v)) return "nan";
    return v;
}

nlohmann::json countsJson(const ElementCounts& c) {
    return {{"nan", c.nan},
            {"pos_inf", c.posInf},
            {"neg_inf", c.negInf},
            {"saturated", c.saturated},
            {"subnormal", c.subnormal}};
}

std::string fmtNumber(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return fmt::format("{:.6g}", v);
}

std::string indexText(const std::vector<int64_t>& index) {
    return index.empty() ? std::string("-") : fmt::format("[{}]", fmt::join(index, ", "));
}

} // namespace

DType toleranceDType(DType a, DType b) {
    return dtypeTolerance(a).rtol >= dtypeTolerance(b).rtol ? a : b;
}

Tolerance policyTolerance(const ComparePolicy& policy, DType actual, const TensorView& golden) {
    const DType d = toleranceDType(actual, golden.dtype);
    const double rms = policy.cls == ToleranceClass::Elementwise ? 0.0 : rmsOf(golden);
    return applyOverrides(opTolerance(d, policy.cls, policy.k, rms), policy.overrides);
}

TensorComparison compareTensors(std::string name, const TensorView& actual,
                                const TensorView& golden, const ComparePolicy& policy) {
    if (actual.shape != golden.shape)
        throw std::invalid_argument(fmt::format("{}: shape mismatch: actual is {} but golden is {}",
                                                name, typeString(actual.dtype, actual.shape),
                                                typeString(golden.dtype, golden.shape)));
    TensorComparison c;
    c.name = std::move(name);
    c.actualDType = actual.dtype;
    c.goldenDType = golden.dtype;
    c.shape = golden.shape;
    c.tolerance = policyTolerance(policy, actual.dtype, golden);
    MetricOptions mo{c.tolerance.rtol, c.tolerance.atol, policy.threads};
    c.metrics = computeMetrics(actual, golden, mo);
    c.verdict =
        judge(c.metrics, c.tolerance, toleranceDType(actual.dtype, golden.dtype), policy.standard);
    return c;
}

nlohmann::json metricsJson(const DiffMetrics& m) {
    nlohmann::json j;
    j["count"] = m.count;
    j["finite_pairs"] = m.finitePairs;
    j["max_abs"] = number(m.maxAbs);
    j["max_abs_index"] = m.maxAbsIndex;
    j["max_rel"] = number(m.maxRel);
    j["max_rel_index"] = m.maxRelIndex;
    j["mean_rel"] = number(m.meanRel);
    j["mean_abs"] = number(m.meanAbs);
    j["rmse"] = number(m.rmse);
    j["rel_l2"] = number(m.relL2);
    j["cosine"] = number(m.cosine);
    j["ulp_max"] = number(m.ulpMax);
    j["ulp_mean"] = number(m.ulpMean);
    j["within_1e-3"] = m.within1e3;
    j["within_5e-3"] = m.within5e3;
    j["zero_golden"] = m.zeroGolden;
    j["zero_golden_max_abs"] = number(m.zeroGoldenMaxAbs);
    j["unequal"] = m.unequal;
    j["mismatch_count"] = m.mismatchCount;
    j["mismatch_ratio"] = m.mismatchRatio;
    j["nan_mismatch"] = m.nanMismatch;
    j["inf_mismatch"] = m.infMismatch;
    j["rtol"] = m.rtol;
    j["atol"] = m.atol;
    j["min_rtol"] = number(m.minRtol);
    j["min_atol"] = number(m.minAtol);
    j["actual"] = countsJson(m.actual);
    j["golden"] = countsJson(m.golden);
    return j;
}

nlohmann::json verdictJson(const Verdict& v) {
    nlohmann::json checks = nlohmann::json::array();
    for (const Check& c : v.checks)
        checks.push_back({{"metric", c.metric},
                          {"value", number(c.value)},
                          {"relation", c.relation},
                          {"threshold", number(c.threshold)},
                          {"source", c.source},
                          {"passed", c.passed}});
    return {{"passed", v.passed}, {"summary", v.summary()}, {"checks", checks}};
}

nlohmann::json comparisonJson(const TensorComparison& c) {
    return {
        {"name", c.name},
        {"actual_dtype", std::string(dtypeName(c.actualDType))},
        {"golden_dtype", std::string(dtypeName(c.goldenDType))},
        {"shape", std::vector<int64_t>(c.shape.begin(), c.shape.end())},
        {"tolerance",
         {{"rtol", c.tolerance.rtol}, {"atol", c.tolerance.atol}, {"source", c.tolerance.source}}},
        {"metrics", metricsJson(c.metrics)},
        {"verdict", verdictJson(c.verdict)}};
}

std::string formatComparison(const TensorComparison& c) {
    const DiffMetrics& m = c.metrics;
    std::string s = fmt::format("{}: [{}] {} vs golden {}, {} elements\n", c.name,
                                fmt::join(c.shape.dims(), ", "), dtypeName(c.actualDType),
                                dtypeName(c.goldenDType), m.count);
    auto row = [&](std::string_view k, const std::string& v) {
        s += fmt::format("  {:<16} {}\n", k, v);
    };
    row("max_abs", fmt::format("{} at {}", fmtNumber(m.maxAbs), indexText(m.maxAbsIndex)));
    row("max_rel", fmt::format("{} at {}", fmtNumber(m.maxRel), indexText(m.maxRelIndex)));
    row("mean_abs", fmtNumber(m.meanAbs));
    row("mean_rel", fmtNumber(m.meanRel));
    row("zero golden",
        fmt::format("{} elements, max_abs {}", m.zeroGolden, fmtNumber(m.zeroGoldenMaxAbs)));
    row("rmse", fmtNumber(m.rmse));
    row("rel_l2", fmtNumber(m.relL2));
    row("cosine", fmt::format("{:.9f}", m.cosine));
    row("ulp max/mean", fmt::format("{} / {}", fmtNumber(m.ulpMax), fmtNumber(m.ulpMean)));
    row("within 1e-3/5e-3", fmt::format("{:.4f}% / {:.4f}%", 100 * m.within1e3, 100 * m.within5e3));
    row("mismatch", fmt::format("{} ({:.4f}%) under rtol {} atol {}", m.mismatchCount,
                                100 * m.mismatchRatio, fmtNumber(m.rtol), fmtNumber(m.atol)));
    row("nan/inf mismatch", fmt::format("{} / {}", m.nanMismatch, m.infMismatch));
    row("passing tol",
        fmt::format("rtol ≥ {} (atol {}) or atol ≥ {} (rtol {})", fmtNumber(m.minRtol),
                    fmtNumber(m.atol), fmtNumber(m.minAtol), fmtNumber(m.rtol)));
    row("saturated a/g", fmt::format("{} / {}", m.actual.saturated, m.golden.saturated));
    row("subnormal a/g", fmt::format("{} / {}", m.actual.subnormal, m.golden.subnormal));
    row("nan a/g", fmt::format("{} / {}", m.actual.nan, m.golden.nan));
    row("inf a/g", fmt::format("{} / {}", m.actual.posInf + m.actual.negInf,
                               m.golden.posInf + m.golden.negInf));
    s += fmt::format("  tolerance        rtol {} atol {} — {}\n", fmtNumber(c.tolerance.rtol),
                     fmtNumber(c.tolerance.atol), c.tolerance.source);
    s += "  " + c.verdict.summary() + "\n";
    return s;
}

} // namespace pto
