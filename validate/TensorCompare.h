// Comparing one tensor with its golden: shape check, metrics, tolerance and verdict, and their
// text and JSON forms (shared by `pto diff`, the golden diff of a run and bisection).
#pragma once

#include "compiler/ir/TensorData.h"
#include "validate/ErrorMetrics.h"
#include "validate/Tolerance.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace pto {

struct ComparePolicy {
    ToleranceOverrides overrides;
    Standard standard = Standard::Allclose;
    ToleranceClass cls = ToleranceClass::Elementwise;
    int64_t k = 1;   // accumulation length (Accumulation/Composite classes)
    int threads = 0; // for the metric pass (0 = automatic)
    /// The float dtypes the program holds values in (pto diff --bisect): a sum may have been
    /// kept in one of them or in f32, no other. Empty: any (two files of an unknown program).
    std::vector<DType> programDTypes;
};

struct TensorComparison {
    std::string name;
    DType actualDType = DType::F32;
    DType goldenDType = DType::F32;
    Shape shape;
    DiffMetrics metrics;
    Tolerance tolerance;
    Verdict verdict;
};

// The dtype whose tolerance applies when `a` is compared with `b`: the less precise one.
DType toleranceDType(DType a, DType b);

// Compares `actual` with `golden`. Throws std::invalid_argument naming both types when the
// shapes differ.
TensorComparison compareTensors(std::string name, const TensorView& actual,
                                const TensorView& golden, const ComparePolicy& policy = {});
inline TensorComparison compareTensors(std::string name, const TensorData& actual,
                                       const TensorData& golden, const ComparePolicy& policy = {}) {
    return compareTensors(std::move(name), TensorView(actual), TensorView(golden), policy);
}

// The tolerance `policy` gives for `golden` (computing rms(golden) only when a rule needs it).
Tolerance policyTolerance(const ComparePolicy& policy, DType actual, const TensorView& golden);

// JSON: numbers as numbers, ±inf as the strings "inf"/"-inf", indices as arrays.
nlohmann::json metricsJson(const DiffMetrics& m);
nlohmann::json verdictJson(const Verdict& v);
nlohmann::json comparisonJson(const TensorComparison& c);
// A short text table of the metrics and the verdict line.
std::string formatComparison(const TensorComparison& c);

} // namespace pto
