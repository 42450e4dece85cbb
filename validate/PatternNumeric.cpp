// Numeric patterns: NaN/Inf where the golden is finite, and a reduction's error judged against
// the propagated error bound of a K-term sum (accumulation order or precision) versus a real
// defect.
#include "validate/Detectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

namespace pto::diag {
namespace {

/// Unit roundoff of the precisions a K-term sum may be accumulated in, finest first.
struct Precision {
    DType dtype;
    const char* name;
    double u;
};
constexpr Precision kPrecisions[] = {
    {DType::F32, "f32", 0x1p-24}, {DType::F16, "f16", 0x1p-11}, {DType::BF16, "bf16", 0x1p-8}};

/// The precisions a sum may be kept in, finest first: f32 always, the coarser ones only when
/// the program holds values of that dtype (`dtypes` empty: every one).
std::vector<Precision> plausiblePrecisions(const std::vector<DType>& dtypes) {
    std::vector<Precision> out;
    for (const Precision& p : kPrecisions)
        if (p.dtype == DType::F32 || dtypes.empty() ||
            std::find(dtypes.begin(), dtypes.end(), p.dtype) != dtypes.end())
            out.push_back(p);
    return out;
}
// A recursive sum's rms error is ≈ 0.4·√K·u·rms(result) (random signs); the bound is √K·u·rms.
constexpr double kWithinBound = 1.0;

/// The unit roundoff of a float dtype (0 for the exact ones).
double outputRoundoff(DType d) {
    for (const Precision& p : kPrecisions)
        if (p.dtype == d) return p.u;
    return 0.0;
}

/// The wrong elements are spread over the output (not a region a detector names).
bool spread(const ErrorMap& m) {
    int64_t rows = 0, cols = 0;
    for (int64_t r : m.examinedRows) rows += m.rowWrong[size_t(r)] > 0;
    for (int64_t c : m.colWrong) cols += c > 0;
    const bool rowsSpread = m.examinedRows.size() < 4 || rows * 2 >= int64_t(m.examinedRows.size());
    const bool colsSpread = m.cols < 4 || cols * 2 >= m.cols;
    return rowsSpread && colsSpread;
}

} // namespace

std::optional<PatternFinding> detectNanInf(const ErrorMap& m) {
    if (m.nonFiniteWrong == 0) return std::nullopt;
    PatternFinding f;
    f.pattern = "nan_inf";
    f.confidence = 1.0;
    f.summary = fmt::format("NaN/Inf where the golden is finite: {} element(s), the first at "
                            "row {} col {} of the 2-D view",
                            m.nonFiniteWrong, m.firstNonFinite.row, m.firstNonFinite.col);
    f.evidence = {{"count", m.nonFiniteWrong},
                  {"first", {m.firstNonFinite.row, m.firstNonFinite.col}}};
    return f;
}

std::optional<PatternFinding> detectAccumulation(const ErrorMap& m, ToleranceClass cls, int64_t k,
                                                 const std::vector<DType>& sumDTypes) {
    if (cls == ToleranceClass::Elementwise || k <= 1 || m.wrong == 0 || m.nonFiniteWrong > 0 ||
        !spread(m))
        return std::nullopt;
    const double rms = m.goldenRms();
    if (rms <= 0) return std::nullopt;
    // The output's own rounding (one per element, uniform: u·|g|/√3) is not the sum's.
    const double out = outputRoundoff(m.actualDType) * rms;
    const double err = std::sqrt(std::max(0.0, m.errorRms() * m.errorRms() - out * out / 3));
    const double sqrtK = std::sqrt(double(k));
    PatternFinding f;
    f.evidence = {{"k", k}, {"error_rms", err}, {"golden_rms", rms}};
    const std::vector<Precision> precisions = plausiblePrecisions(sumDTypes);
    for (const Precision& p : precisions) {
        const double bound = sqrtK * p.u * rms;
        const double ratio = err / bound;
        f.evidence[fmt::format("ratio_{}", p.name)] = ratio;
        if (ratio > kWithinBound) continue;
        const bool f32 = std::string_view(p.name) == "f32";
        f.pattern = "accumulation";
        f.confidence = 0.85;
        f.summary = fmt::format(
            "error of a {}-term reduction within its propagated bound: rms error {:.3g} = {:.2f} "
            "× √K·u·rms(golden) with u = 2^{} ({}): {}, not a defect",
            k, err, ratio, int(std::log2(p.u)), p.name,
            f32 ? "accumulation order (an f32 sum in another order)"
                : fmt::format("accumulation precision (the sum is kept in {}, not f32)", p.name));
        f.evidence["precision"] = p.name;
        return f;
    }
    const Precision& coarsest = precisions.back();
    const double bound = sqrtK * coarsest.u * rms;
    f.pattern = "defect";
    f.confidence = 0.7;
    f.summary = fmt::format("error of a {}-term reduction {:.3g}× beyond its propagated bound even "
                            "if summed in {} (√K·u·rms(golden) = {:.3g}): a real defect, not "
                            "accumulation order or precision",
                            k, err / bound, coarsest.name, bound);
    return f;
}

} // namespace pto::diag
