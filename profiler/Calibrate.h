// `pto calibrate`: how much faster or slower each simulated pipe runs than the measured kernels
// it was paired with (profiler/SimVsReal.h), fitted by least squares over all pairs, and the
// per-kernel fixed time the simulation lacks (docs/PROFILER.md, "Calibration").
#pragma once

#include "profiler/SimVsReal.h"

#include <optional>
#include <vector>

namespace pto::prof {

/// Measured pipe time y ≈ scale × simulated pipe time x over the pairs (per core, µs), fitted
/// by least squares on the relative error: scale = Σr ÷ Σr² with r = x ÷ y, so a short kernel
/// weighs as much as a long one. Residuals are the root mean square of the relative error
/// before and after scaling (after ≤ before: scale 1 is one of the candidates).
struct PipeFit {
    PipeId pipe = PipeId::S;
    int pairs = 0;
    double scale = 1;
    double residualBefore = 0, residualAfter = 0;
    bool onAic = false, onAiv = false; ///< core types of the simulated tasks fitted
};

/// Measured kernel time ≈ overhead + slope × simulated time, fitted over the pairs when at
/// least two of them differ in simulated time (otherwise nullopt: the intercept is not
/// identifiable from one size).
struct TimeFit {
    double overheadUs = 0;
    double slope = 1;
};

struct Calibration {
    std::vector<PipeFit> pipes; ///< the pipes with at least one pair busy on both sides
    std::optional<TimeFit> time;
    int pairs = 0; ///< pairs with a measured kernel
};

Calibration calibrate(const std::vector<KernelPair>& pairs);

} // namespace pto::prof
