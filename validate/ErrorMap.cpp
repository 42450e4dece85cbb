// The error map: one pass over the examined rows of actual vs golden (every row of outputs up
// to the element budget, every n-th row plus the hinted rows and the neighbours of wrong rows
// above it).
#include "validate/ErrorMap.h"

#include "compiler/ir/Scalar.h"

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <limits>
#include <map>

namespace pto::diag {
namespace {

constexpr size_t kSample = 4096;

double largestFinite(DType d) {
    switch (d) {
    case DType::F32:
        return FLT_MAX;
    case DType::F16:
        return 65504.0;
    case DType::BF16:
        return 0x1.FEp127;
    case DType::I8:
        return 127.0;
    case DType::I32:
        return double(INT32_MAX);
    case DType::Bool:
        return 1.0;
    }
    return FLT_MAX;
}

bool atLimit(double a, DType d, double limit) {
    if (std::isinf(a)) return true;
    if (d == DType::I8) return a == 127.0 || a == -128.0;
    if (d == DType::I32) return a == double(INT32_MAX) || a == double(INT32_MIN);
    if (d == DType::Bool) return false;
    return std::abs(a) == limit;
}

/// Per row band (rows between tile boundaries): which layout tile each column belongs to.
class TileIndex {
public:
    TileIndex(const TileLayout* layout, int64_t cols) : m_layout(layout), m_cols(cols) {}
    /// Tile of each column of `row` (-1: none), rebuilt when the row leaves the current band.
    const std::vector<int32_t>& forRow(int64_t row) {
        if (!m_layout || (row >= m_lo && row < m_hi)) return m_map;
        m_map.assign(size_t(m_cols), -1);
        m_lo = std::numeric_limits<int64_t>::min();
        m_hi = std::numeric_limits<int64_t>::max();
        for (size_t i = 0; i < m_layout->tiles.size(); ++i) {
            const TileRegion& t = m_layout->tiles[i];
            if (row < t.row) {
                m_hi = std::min(m_hi, t.row);
                continue;
            }
            if (row >= t.row + t.rows) {
                m_lo = std::max(m_lo, t.row + t.rows);
                continue;
            }
            m_lo = std::max(m_lo, t.row);
            m_hi = std::min(m_hi, t.row + t.rows);
            for (int64_t c = std::max<int64_t>(0, t.col); c < std::min(m_cols, t.col + t.cols); ++c)
                m_map[size_t(c)] = int32_t(i);
        }
        return m_map;
    }

private:
    const TileLayout* m_layout;
    int64_t m_cols;
    int64_t m_lo = 1, m_hi = 0;
    std::vector<int32_t> m_map;
};

std::vector<int64_t> rowsToExamine(int64_t rows, int64_t stride,
                                   const std::vector<int64_t>& hints) {
    std::vector<int64_t> out;
    for (int64_t r = 0; r < rows; r += stride) out.push_back(r);
    if (stride > 1 && rows > 0 && out.back() != rows - 1) out.push_back(rows - 1); // the tail
    for (int64_t h : hints)
        if (h >= 0 && h < rows) out.push_back(h);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

class MapBuilder {
public:
    MapBuilder(const TensorView& a, const TensorView& g, const DiagnoseOptions& o, ErrorMap& m)
        : m_a(a), m_g(g), m_m(m), m_tiles(o.layout, m.cols), m_ra(size_t(m.cols)),
          m_rg(size_t(m.cols)) {}

    void scanRow(int64_t r) {
        if (m_m.rowWrong[size_t(r)] >= 0) return;
        rowSpan(m_a, m_m.cols, r, 0, m_m.cols, m_ra.data());
        rowSpan(m_g, m_m.cols, r, 0, m_m.cols, m_rg.data());
        const std::vector<int32_t>& tileOf = m_tiles.forRow(r);
        int64_t wrong = 0;
        ScaleSums& rs = m_m.rowSums[size_t(r)];
        for (int64_t c = 0; c < m_m.cols; ++c) {
            const double a = m_ra[size_t(c)], g = m_rg[size_t(c)];
            const bool finite = std::isfinite(a) && std::isfinite(g);
            if (finite) {
                rs.add(a, g);
                m_m.colSums[size_t(c)].add(a, g);
                m_m.errSq += (a - g) * (a - g);
                m_m.goldenSq += g * g;
                ++m_m.finite;
            }
            if (!tileOf.empty() && tileOf[size_t(c)] >= 0)
                ++m_m.tileExamined[size_t(tileOf[size_t(c)])];
            if (isClose(a, g, m_m.rtol, m_m.atol)) [[likely]]
                continue;
            ++wrong;
            onWrong(r, c, a, g, finite, tileOf);
        }
        m_m.rowWrong[size_t(r)] = wrong;
        m_m.examined += m_m.cols;
        m_m.wrong += wrong;
        m_m.examinedRows.push_back(r);
    }

private:
    void onWrong(int64_t r, int64_t c, double a, double g, bool finite,
                 const std::vector<int32_t>& tileOf) {
        ++m_m.colWrong[size_t(c)];
        if (finite) m_m.wrongSums.add(a, g);
        if (!tileOf.empty() && tileOf[size_t(c)] >= 0) ++m_m.tileWrong[size_t(tileOf[size_t(c)])];
        if (!std::isfinite(a) && std::isfinite(g)) {
            if (m_m.nonFiniteWrong++ == 0) m_m.firstNonFinite = {r, c};
        }
        // At the extreme finite value, or ±inf where the true value is beyond it (overflow);
        // an inf where the golden fits is the NaN/Inf pattern's.
        const bool beyond = std::abs(g) >= m_m.limit;
        if (atLimit(a, m_m.actualDType, m_m.limit) && !std::isnan(a) &&
            (std::isfinite(a) || beyond)) {
            ++m_m.saturatedWrong;
            m_m.goldenBeyondLimit += beyond;
        }
        // An evenly spread sample: keep every `m_every`-th wrong element; when full, drop
        // every other one and double the spacing.
        if (m_seen++ % m_every != 0) return;
        m_m.wrongSample.push_back({r, c});
        if (m_m.wrongSample.size() < 2 * kSample) return;
        size_t keep = 0;
        for (size_t i = 0; i < m_m.wrongSample.size(); i += 2)
            m_m.wrongSample[keep++] = m_m.wrongSample[i];
        m_m.wrongSample.resize(keep);
        m_every *= 2;
    }

    const TensorView& m_a;
    const TensorView& m_g;
    ErrorMap& m_m;
    TileIndex m_tiles;
    std::vector<float> m_ra, m_rg;
    int64_t m_seen = 0, m_every = 1;
};

} // namespace

double ScaleSums::residual() const {
    if (gg <= 0) return aa > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    const double s = ag / gg;
    return std::sqrt(std::max(0.0, aa - 2 * s * ag + s * s * gg) / gg);
}

double ErrorMap::goldenRms() const {
    return finite > 0 ? std::sqrt(goldenSq / double(finite)) : 0.0;
}

double ErrorMap::errorRms() const {
    return finite > 0 ? std::sqrt(errSq / double(finite)) : 0.0;
}

void rowSpan(const TensorView& t, int64_t cols, int64_t row, int64_t col, int64_t n, float* out) {
    const int64_t size = dtypeSize(t.dtype);
    convertRowToFloat(t.data + (row * cols + col) * size, t.dtype, out, n);
}

float elementAt(const TensorView& t, int64_t cols, int64_t row, int64_t col) {
    float v = 0;
    rowSpan(t, cols, row, col, 1, &v);
    return v;
}

ErrorMap buildErrorMap(const TensorView& actual, const TensorView& golden,
                       const DiagnoseOptions& options) {
    ErrorMap m;
    std::tie(m.rows, m.cols) = view2d(golden.shape);
    if (golden.numel() == 0) return m;
    m.rtol = options.rtol;
    m.atol = options.atol;
    m.actualDType = actual.dtype;
    m.limit = largestFinite(actual.dtype);
    const int64_t budget = std::max<int64_t>(options.elementBudget, m.cols);
    m.rowStride = std::max<int64_t>(1, (golden.numel() + budget - 1) / budget);
    m.rowWrong.assign(size_t(m.rows), -1);
    m.colWrong.assign(size_t(m.cols), 0);
    m.rowSums.assign(size_t(m.rows), {});
    m.colSums.assign(size_t(m.cols), {});
    if (options.layout) {
        m.tileWrong.assign(options.layout->tiles.size(), 0);
        m.tileExamined.assign(options.layout->tiles.size(), 0);
    }
    MapBuilder builder(actual, golden, options, m);
    for (int64_t r : rowsToExamine(m.rows, m.rowStride, options.hintRows)) builder.scanRow(r);
    if (m.rowStride > 1) {
        // Fill in the rows around wrong ones, so a band thinner than the stride is seen whole
        // (a bounded number: a wrong region covering most rows is sampled well enough).
        std::vector<int64_t> wrongRows;
        for (int64_t r : m.examinedRows)
            if (m.rowWrong[size_t(r)] > 0) wrongRows.push_back(r);
        if (wrongRows.size() <= 64)
            for (int64_t r : wrongRows)
                for (int64_t n = std::max<int64_t>(0, r - m.rowStride + 1);
                     n < std::min(m.rows, r + m.rowStride); ++n)
                    builder.scanRow(n);
        std::sort(m.examinedRows.begin(), m.examinedRows.end());
    }
    return m;
}

} // namespace pto::diag
