// The diagnosis: builds the error map, runs every detector family, ranks what they found, and
// prints it as text or JSON.
#include "validate/Diagnosis.h"

#include "validate/Detectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pto {

namespace {
constexpr int64_t kMaxColumns = int64_t(1) << 20;
} // namespace

std::pair<int64_t, int64_t> view2d(const Shape& shape) {
    if (shape.rank() == 0) return {1, 1};
    int64_t rows = 1;
    for (int i = 0; i + 1 < shape.rank(); ++i) rows *= shape[i];
    return {rows, shape[shape.rank() - 1]};
}

TileLayout uniformTiles(int64_t rows, int64_t cols, int64_t tileRows, int64_t tileCols) {
    TileLayout layout;
    layout.source = fmt::format("--tile {}x{}", tileRows, tileCols);
    if (tileRows <= 0 || tileCols <= 0) return layout;
    for (int64_t r = 0; r < rows; r += tileRows)
        for (int64_t c = 0; c < cols; c += tileCols)
            layout.tiles.push_back(
                {r, c, std::min(tileRows, rows - r), std::min(tileCols, cols - c), {}, -1});
    return layout;
}

Diagnosis diagnose(const TensorView& actual, const TensorView& golden,
                   const DiagnoseOptions& options) {
    if (actual.numel() != golden.numel())
        throw std::invalid_argument(fmt::format("diagnosis: actual has {} elements, golden {}",
                                                actual.numel(), golden.numel()));
    Diagnosis d;
    if (const int64_t cols = view2d(golden.shape).second; cols > kMaxColumns) {
        // Per-column statistics of a longer row would cost more than the comparison itself.
        d.note = fmt::format("rows of {} elements (above {}): not diagnosed", cols, kMaxColumns);
        return d;
    }
    const diag::ErrorMap m = diag::buildErrorMap(actual, golden, options);
    d.wrong = m.wrong;
    d.examined = m.examined;
    d.rowStride = m.rowStride;
    if (m.wrong == 0) return d;
    const auto add = [&d](std::optional<PatternFinding> f) {
        if (f) d.findings.push_back(std::move(*f));
    };
    add(diag::detectNanInf(m));
    add(diag::detectSaturation(m));
    for (PatternFinding& f : diag::detectSpatial(m, options.layout)) d.findings.push_back(f);
    add(diag::detectShift(m, actual, golden));
    const std::vector<PatternFinding> scale = diag::detectScale(m);
    d.findings.insert(d.findings.end(), scale.begin(), scale.end());
    // Accumulation vs defect speaks of errors no other pattern explains.
    if (d.findings.empty())
        add(diag::detectAccumulation(m, options.cls, options.k, options.sumDTypes));
    std::stable_sort(d.findings.begin(), d.findings.end(),
                     [](const PatternFinding& a, const PatternFinding& b) {
                         return a.confidence > b.confidence;
                     });
    if (!options.layout || options.layout->empty())
        d.note = "no tiling known: tile patterns not checked";
    if (d.findings.empty() && m.wrong == 1 && !m.wrongSample.empty())
        d.note = fmt::format("no known pattern: one wrong element, at row {} column {} of the "
                             "2-D view",
                             m.wrongSample.front().row, m.wrongSample.front().col);
    else if (d.findings.empty())
        d.note = fmt::format("no known pattern: {} wrong element(s) over {} examined, scattered",
                             m.wrong, m.examined);
    return d;
}

nlohmann::json diagnosisJson(const Diagnosis& d) {
    nlohmann::json patterns = nlohmann::json::array();
    for (const PatternFinding& f : d.findings)
        patterns.push_back({{"pattern", f.pattern},
                            {"confidence", std::round(f.confidence * 100) / 100},
                            {"summary", f.summary},
                            {"evidence", f.evidence}});
    nlohmann::json j = {{"patterns", patterns},
                        {"wrong", d.wrong},
                        {"examined", d.examined},
                        {"row_stride", d.rowStride}};
    if (!d.note.empty()) j["note"] = d.note;
    return j;
}

std::string formatDiagnosis(const Diagnosis& d) {
    std::string out;
    if (d.findings.empty())
        out = fmt::format("diagnosis: no pattern{}\n", d.note.empty() ? "" : " (" + d.note + ")");
    for (const PatternFinding& f : d.findings)
        out += fmt::format("diagnosis: {} (confidence {:.2f}): {}\n", f.pattern, f.confidence,
                           f.summary);
    if (d.rowStride > 1)
        out += fmt::format("  (every {}-th row examined, plus the worst rows and their "
                           "neighbours)\n",
                           d.rowStride);
    return out;
}

} // namespace pto
