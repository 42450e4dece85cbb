// The pattern detectors of the diagnosis, one family per file: spatial (tail tile, stripes,
// one task's or core's tiles), shift, scale and saturation, NaN/Inf and accumulation.
#pragma once

#include "validate/ErrorMap.h"

#include <optional>
#include <vector>

namespace pto::diag {

// PatternSpatial.cpp
std::vector<PatternFinding> detectSpatial(const ErrorMap& m, const TileLayout* layout);
// PatternShift.cpp: the output against the golden moved by (dr, dc), |dr|, |dc| ≤ 8.
std::optional<PatternFinding> detectShift(const ErrorMap& m, const TensorView& actual,
                                          const TensorView& golden);
// PatternScale.cpp
std::vector<PatternFinding> detectScale(const ErrorMap& m);
std::optional<PatternFinding> detectSaturation(const ErrorMap& m);
// PatternNumeric.cpp
std::optional<PatternFinding> detectNanInf(const ErrorMap& m);
std::optional<PatternFinding> detectAccumulation(const ErrorMap& m, ToleranceClass cls, int64_t k,
                                                 const std::vector<DType>& sumDTypes = {});

/// Rows or columns listed as ranges: "3–5, 9".
std::string rangesText(const std::vector<int64_t>& sorted, size_t maxRanges = 6);
/// The tolerance of a fitted scale: how close a·g/g·g must fit to be called a scale.
double scaleResidualLimit(const ErrorMap& m);

} // namespace pto::diag
