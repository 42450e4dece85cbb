// The error map the pattern detectors read: one (row-sampled) pass over actual vs golden that
// counts wrong elements per row, column and tile, least-squares sums per row and column, and a
// spread sample of wrong positions. Internal to the diagnosis (validate/Diagnosis.h).
#pragma once

#include "validate/Diagnosis.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace pto::diag {

/// Σa², Σag, Σg² over finite pairs: the least-squares scale ag/gg and its residual.
struct ScaleSums {
    double aa = 0, ag = 0, gg = 0;
    int64_t n = 0;
    void add(double a, double g) {
        aa += a * a;
        ag += a * g;
        gg += g * g;
        ++n;
    }
    double scale() const { return gg > 0 ? ag / gg : 0.0; }
    /// ‖a − s·g‖ / ‖g‖ at the best s.
    double residual() const;
};

struct Position {
    int64_t row = 0, col = 0;
};

struct ErrorMap {
    int64_t rows = 0, cols = 0;
    int64_t rowStride = 1;
    double rtol = 0, atol = 0;
    DType actualDType = DType::F32;
    std::vector<int64_t> examinedRows; // ascending
    std::vector<int64_t> rowWrong;     // per row; -1 for rows not examined
    std::vector<int64_t> colWrong;     // over the examined rows
    std::vector<ScaleSums> rowSums;    // per row (examined rows only)
    std::vector<ScaleSums> colSums;    // per column
    ScaleSums total, wrongSums;        // all finite pairs / wrong finite pairs
    std::vector<int64_t> tileWrong;    // per layout tile
    std::vector<int64_t> tileExamined;
    int64_t examined = 0, wrong = 0;
    int64_t nonFiniteWrong = 0; // actual NaN/Inf where the golden is finite
    Position firstNonFinite{-1, -1};
    int64_t saturatedWrong = 0;    // actual at the dtype's extreme finite value or ±inf
    int64_t goldenBeyondLimit = 0; // … and |golden| at or beyond that value
    double limit = 0;              // the actual dtype's largest finite value
    double goldenSq = 0;           // Σg² over finite pairs (rms(g))
    double errSq = 0;              // Σ(a − g)² over finite pairs
    int64_t finite = 0;
    std::vector<Position> wrongSample; // evenly spread wrong positions (at most kSample)
    double goldenRms() const;
    double errorRms() const;
};

/// Builds the map; the tiles of `layout` (if any) get per-tile counts.
ErrorMap buildErrorMap(const TensorView& actual, const TensorView& golden,
                       const DiagnoseOptions& options);

/// Element (row, col) of the 2-D view as a float.
float elementAt(const TensorView& t, int64_t cols, int64_t row, int64_t col);
/// n elements from (row, col) on, into out.
void rowSpan(const TensorView& t, int64_t cols, int64_t row, int64_t col, int64_t n, float* out);

/// np.isclose(a, g, rtol, atol, equal_nan=True), the metrics' mismatch rule: NaN matches NaN,
/// an infinity only the same infinity (rtol·|inf| would let any finite a match an inf golden).
inline bool isClose(double a, double g, double rtol, double atol) {
    if (a == g) return true;
    if (!std::isfinite(a) || !std::isfinite(g)) return (a != a) && (g != g);
    return std::abs(a - g) <= atol + rtol * std::abs(g);
}

} // namespace pto::diag
