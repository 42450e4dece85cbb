// The shift pattern: the wrong elements equal the golden moved by (dr, dc) rows and columns
// (|dr|, |dc| ≤ 8), found by matching a sample of them against every shifted golden and
// confirmed by the correlation of actual with the shifted golden.
#include "validate/Detectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace pto::diag {
namespace {

constexpr int kReach = 8;
constexpr int kSpan = 2 * kReach + 1;
constexpr size_t kMaxSample = 1024;

struct Candidate {
    int dr = 0, dc = 0;
    double match = 0; // share of sampled wrong elements equal to the shifted golden
};

std::vector<Position> thinSample(const std::vector<Position>& all) {
    std::vector<Position> s;
    const size_t step = std::max<size_t>(1, all.size() / kMaxSample);
    for (size_t i = 0; i < all.size(); i += step) s.push_back(all[i]);
    return s;
}

double correlation(const std::vector<std::pair<double, double>>& xy) {
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (auto [x, y] : xy) {
        sx += x;
        sy += y;
        sxx += x * x;
        syy += y * y;
        sxy += x * y;
    }
    const double n = double(xy.size());
    const double vx = sxx - sx * sx / n, vy = syy - sy * sy / n;
    return vx > 0 && vy > 0 ? (sxy - sx * sy / n) / std::sqrt(vx * vy) : 0.0;
}

double correlationAt(const ErrorMap& m, const std::vector<Position>& sample,
                     const TensorView& actual, const TensorView& golden, int dr, int dc) {
    std::vector<std::pair<double, double>> xy;
    for (const Position& p : sample) {
        const int64_t r = p.row + dr, c = p.col + dc;
        if (r < 0 || r >= m.rows || c < 0 || c >= m.cols) continue;
        const double a = elementAt(actual, m.cols, p.row, p.col);
        const double g = elementAt(golden, m.cols, r, c);
        if (std::isfinite(a) && std::isfinite(g)) xy.emplace_back(a, g);
    }
    return xy.size() >= 2 ? correlation(xy) : 0.0;
}

std::string directionText(int dr, int dc) {
    std::string out;
    if (dr != 0) out = fmt::format("{} row(s) {}", std::abs(dr), dr > 0 ? "up" : "down");
    if (dc != 0)
        out += fmt::format("{}{} column(s) {}", out.empty() ? "" : " and ", std::abs(dc),
                           dc > 0 ? "left" : "right");
    return out;
}

} // namespace

std::optional<PatternFinding> detectShift(const ErrorMap& m, const TensorView& actual,
                                          const TensorView& golden) {
    const std::vector<Position> sample = thinSample(m.wrongSample);
    if (sample.size() < 4) return std::nullopt;
    std::array<int64_t, kSpan * kSpan> matches{}, valid{};
    std::array<float, kSpan> g{};
    for (const Position& p : sample) {
        const double a = elementAt(actual, m.cols, p.row, p.col);
        const int64_t c0 = std::max<int64_t>(0, p.col - kReach);
        const int64_t c1 = std::min<int64_t>(m.cols, p.col + kReach + 1);
        for (int dr = -kReach; dr <= kReach; ++dr) {
            const int64_t r = p.row + dr;
            if (r < 0 || r >= m.rows) continue;
            rowSpan(golden, m.cols, r, c0, c1 - c0, g.data());
            for (int64_t c = c0; c < c1; ++c) {
                const size_t k = size_t((dr + kReach) * kSpan + (c - p.col + kReach));
                ++valid[k];
                matches[k] += isClose(a, g[size_t(c - c0)], m.rtol, m.atol);
            }
        }
    }
    std::vector<Candidate> ranked;
    for (int dr = -kReach; dr <= kReach; ++dr)
        for (int dc = -kReach; dc <= kReach; ++dc) {
            const size_t k = size_t((dr + kReach) * kSpan + dc + kReach);
            if ((dr == 0 && dc == 0) || valid[k] * 2 < int64_t(sample.size())) continue;
            ranked.push_back({dr, dc, double(matches[k]) / double(valid[k])});
        }
    std::sort(ranked.begin(), ranked.end(),
              [](const Candidate& x, const Candidate& y) { return x.match > y.match; });
    if (ranked.empty() || ranked[0].match < 0.75) return std::nullopt;
    if (ranked.size() > 1 && ranked[1].match > ranked[0].match - 0.25) return std::nullopt;
    const Candidate& best = ranked[0];
    const double shifted = correlationAt(m, sample, actual, golden, best.dr, best.dc);
    const double unshifted = correlationAt(m, sample, actual, golden, 0, 0);
    if (shifted < 0.9) return std::nullopt;
    PatternFinding f;
    f.pattern = "shift";
    f.confidence = std::min(1.0, 0.5 * best.match + 0.5 * shifted);
    f.summary = fmt::format("the wrong elements are the golden shifted by {}: actual[r, c] = "
                            "golden[r{:+d}, c{:+d}] for {:.0f}% of them (correlation {:.3f} "
                            "with the shifted golden, {:.3f} unshifted)",
                            directionText(best.dr, best.dc), best.dr, best.dc, 100 * best.match,
                            shifted, unshifted);
    f.evidence = {{"rows", best.dr},
                  {"columns", best.dc},
                  {"match", best.match},
                  {"next_best_match", ranked.size() > 1 ? ranked[1].match : 0.0},
                  {"correlation_shifted", shifted},
                  {"correlation_unshifted", unshifted},
                  {"sampled", sample.size()}};
    return f;
}

} // namespace pto::diag
