// Least-squares fits of measured pipe and kernel times against simulated ones.
#include "profiler/Calibrate.h"

#include <cmath>

namespace pto::prof {
namespace {

double rmsRelative(const std::vector<double>& x, const std::vector<double>& y, double scale) {
    double sum = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double e = (scale * x[i] - y[i]) / y[i];
        sum += e * e;
    }
    return x.empty() ? 0 : std::sqrt(sum / double(x.size()));
}

std::optional<PipeFit> fitPipe(const std::vector<KernelPair>& pairs, PipeId pipe) {
    std::vector<double> x, y; // simulated and measured pipe time per core, µs
    bool aic = false, aiv = false;
    for (const KernelPair& p : pairs) {
        const auto& sim = p.simPipes[std::size_t(pipe)];
        const auto& real = p.realPipes[std::size_t(pipe)];
        if (p.realCount == 0 || !sim || !real || *sim <= 0 || *real <= 0) continue;
        x.push_back(*sim * p.simUs);
        y.push_back(*real * p.realUs);
        aic = aic || p.simOnAic;
        aiv = aiv || p.simOnAiv;
    }
    if (x.empty()) return std::nullopt;
    // Least squares on the relative error Σ((s·x − y) ÷ y)²: s = Σr ÷ Σr², r = x ÷ y.
    double sumR = 0, sumRR = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double r = x[i] / y[i];
        sumR += r;
        sumRR += r * r;
    }
    PipeFit fit;
    fit.pipe = pipe;
    fit.pairs = int(x.size());
    fit.scale = sumR / sumRR;
    fit.residualBefore = rmsRelative(x, y, 1);
    fit.residualAfter = rmsRelative(x, y, fit.scale);
    fit.onAic = aic;
    fit.onAiv = aiv;
    return fit;
}

std::optional<TimeFit> fitTime(const std::vector<KernelPair>& pairs) {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const KernelPair& p : pairs) {
        if (p.realCount == 0) continue;
        n += 1;
        sx += p.simUs;
        sy += p.realUs;
        sxx += p.simUs * p.simUs;
        sxy += p.simUs * p.realUs;
    }
    const double det = n * sxx - sx * sx;
    if (n < 2 || det <= 1e-12 * n * sxx) return std::nullopt;
    TimeFit fit;
    fit.slope = (n * sxy - sx * sy) / det;
    fit.overheadUs = (sy - fit.slope * sx) / n;
    return fit;
}

} // namespace

Calibration calibrate(const std::vector<KernelPair>& pairs) {
    Calibration c;
    for (const KernelPair& p : pairs) c.pairs += p.realCount > 0 ? 1 : 0;
    for (std::size_t i = 0; i < kPipeCount; ++i)
        if (auto fit = fitPipe(pairs, PipeId(i))) c.pipes.push_back(*fit);
    c.time = fitTime(pairs);
    return c;
}

} // namespace pto::prof
