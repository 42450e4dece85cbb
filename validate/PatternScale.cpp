// Scale and range patterns: the wrong elements are the golden times one factor, or each row or
// column its own factor (least squares per channel, from the sums of the error map); and
// saturation at the limits of the actual dtype.
#include "validate/Detectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pto::diag {
namespace {

bool isOne(double s, double limit) {
    return std::abs(s - 1.0) <= 2 * limit;
}

std::optional<PatternFinding> constantScale(const ErrorMap& m) {
    const ScaleSums& w = m.wrongSums;
    const double limit = scaleResidualLimit(m);
    if (w.n < 8) return std::nullopt;
    const double s = w.scale(), residual = w.residual();
    if (residual > limit || isOne(s, limit) || std::abs(s) <= limit) return std::nullopt;
    const double coverage = double(m.wrong) / double(std::max<int64_t>(1, m.examined));
    PatternFinding f;
    f.pattern = "scale";
    f.confidence = residual <= limit / 4 ? 0.95 : 0.8;
    f.summary =
        coverage >= 0.99
            ? fmt::format("constant scale factor: actual = {:.6g} × golden (residual {:.2g})", s,
                          residual)
            : fmt::format("constant scale factor on the wrong elements ({:.1f}% of the output): "
                          "actual = {:.6g} × golden there (residual {:.2g})",
                          100 * coverage, s, residual);
    f.evidence = {{"factor", s}, {"residual", residual}, {"coverage", coverage}};
    return f;
}

/// Each channel (a row or a column) is its golden times its own factor, not all the same.
std::optional<PatternFinding> channelScale(const ErrorMap& m, const std::vector<ScaleSums>& sums,
                                           int64_t minTerms, const char* axis) {
    const double limit = scaleResidualLimit(m);
    int64_t channels = 0, fitting = 0, notOne = 0;
    double lo = INFINITY, hi = -INFINITY;
    std::vector<double> first;
    for (const ScaleSums& c : sums) {
        if (c.n < minTerms || c.gg <= 0) continue;
        ++channels;
        if (c.residual() > limit) continue;
        ++fitting;
        const double s = c.scale();
        lo = std::min(lo, s);
        hi = std::max(hi, s);
        notOne += !isOne(s, limit) && std::abs(s) > limit; // zeros are not a scale
        if (first.size() < 4) first.push_back(s);
    }
    if (channels < 2 || notOne == 0 || double(fitting) < 0.95 * double(channels) ||
        hi - lo <= 2 * limit * std::max(std::abs(hi), std::abs(lo)))
        return std::nullopt;
    PatternFinding f;
    f.pattern = "channel_scale";
    f.confidence = 0.6 + 0.35 * double(fitting) / double(channels);
    f.summary = fmt::format("per-channel scale along the {}: each one is its golden times its own "
                            "factor ({:.4g} … {:.4g}; {} of {} not 1)",
                            axis, lo, hi, notOne, channels);
    f.evidence = {{"axis", axis},          {"channels", channels}, {"fitting", fitting},
                  {"not_one", notOne},     {"min_factor", lo},     {"max_factor", hi},
                  {"first_factors", first}};
    return f;
}

std::string limitText(DType d, double limit) {
    if (d == DType::I8) return "i8 limits 127/-128";
    if (d == DType::I32) return "i32 limits";
    return fmt::format("{} limit ±{:.6g}", dtypeName(d), limit);
}

} // namespace

double scaleResidualLimit(const ErrorMap& m) {
    const double rms = m.goldenRms();
    return 4 * m.rtol + (rms > 0 ? m.atol / rms : 0.0) + 1e-6;
}

std::vector<PatternFinding> detectScale(const ErrorMap& m) {
    std::vector<PatternFinding> out;
    if (m.wrong == 0) return out;
    if (auto f = constantScale(m)) {
        out.push_back(*f);
        return out;
    }
    if (auto f = channelScale(m, m.colSums, 4, "last dim (columns)"))
        out.push_back(*f);
    else if (auto g = channelScale(m, m.rowSums, 4, "rows (dim -2)"))
        out.push_back(*g);
    return out;
}

std::optional<PatternFinding> detectSaturation(const ErrorMap& m) {
    if (m.wrong == 0 || m.saturatedWrong * 2 < m.wrong) return std::nullopt;
    const double share = double(m.saturatedWrong) / double(m.wrong);
    PatternFinding f;
    f.pattern = "saturation";
    f.confidence = std::min(1.0, 0.5 + 0.5 * share);
    f.summary = fmt::format("saturation at the {}: {} of {} wrong elements sit at the limit "
                            "(or ±inf); |golden| is at or beyond it for {} of them{}",
                            limitText(m.actualDType, m.limit), m.saturatedWrong, m.wrong,
                            m.goldenBeyondLimit,
                            m.goldenBeyondLimit * 2 >= m.saturatedWrong
                                ? " (overflow: the true values do not fit the dtype)"
                                : " (the golden fits: something upstream overflowed)");
    f.evidence = {{"dtype", dtypeName(m.actualDType)},
                  {"limit", m.limit},
                  {"saturated_wrong", m.saturatedWrong},
                  {"golden_beyond_limit", m.goldenBeyondLimit},
                  {"share", share}};
    return f;
}

} // namespace pto::diag
