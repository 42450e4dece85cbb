// Error-pattern diagnosis: names what kind of wrong an output is (tail tile, stripe, one core's
// tiles, shift, scale, saturation, NaN/Inf, accumulation vs defect) with evidence and a
// confidence, from the element errors and the program's tiling.
#pragma once

#include "validate/ErrorMetrics.h"
#include "validate/Tolerance.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace pto {

/// One region an output was written in, in the output's 2-D view (leading dims folded into
/// rows), with who wrote it when the trace knows (task name, core index; -1 unknown).
struct TileRegion {
    int64_t row = 0, col = 0;
    int64_t rows = 0, cols = 0;
    std::string task;
    int core = -1;
};

struct TileLayout {
    std::vector<TileRegion> tiles;
    std::string source; // where it came from: "trace", "--tile 16x64"
    bool empty() const { return tiles.empty(); }
};

/// A grid of tileRows × tileCols tiles over a rows × cols view, the last ones clipped.
TileLayout uniformTiles(int64_t rows, int64_t cols, int64_t tileRows, int64_t tileCols);

/// (rows, cols) of the 2-D view of a shape: leading dims folded into rows, rank 0/1 one row.
std::pair<int64_t, int64_t> view2d(const Shape& shape);

struct DiagnoseOptions {
    double rtol = 0.0; // an element is wrong when not isclose(a, g, rtol, atol)
    double atol = 0.0;
    ToleranceClass cls = ToleranceClass::Elementwise;
    int64_t k = 1; // reduction length of the producing op
    const TileLayout* layout = nullptr;
    std::vector<int64_t> hintRows;   // rows always examined (e.g. the row of max |a − g|)
    int64_t elementBudget = 1 << 20; // larger outputs are examined every n-th row
    std::vector<DType> sumDTypes;    // precisions a sum may be kept in besides f32 (empty: any)
};

/// One named pattern: `pattern` is a stable id (tail_tile, row_stripe, column_stripe,
/// core_tiles, task_tiles, shift, scale, channel_scale, saturation, nan_inf, accumulation,
/// defect), `summary` one sentence, `evidence` the numbers behind it.
struct PatternFinding {
    std::string pattern;
    double confidence = 0.0; // in [0, 1]
    std::string summary;
    nlohmann::json evidence = nlohmann::json::object();
};

struct Diagnosis {
    std::vector<PatternFinding> findings; // most confident first; empty: no pattern claimed
    int64_t wrong = 0;                    // wrong elements among the examined ones
    int64_t examined = 0;
    int64_t rowStride = 1; // 1: every row examined
    std::string note;      // e.g. "no tiling known: tile patterns not checked"
};

/// Diagnoses `actual` against `golden` (same element count). Claims nothing when no examined
/// element is wrong.
Diagnosis diagnose(const TensorView& actual, const TensorView& golden,
                   const DiagnoseOptions& options);

nlohmann::json diagnosisJson(const Diagnosis& d);
/// "diagnosis: …" lines for the text output ("diagnosis: no pattern" when none).
std::string formatDiagnosis(const Diagnosis& d);

} // namespace pto
