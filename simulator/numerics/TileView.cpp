// Hazard-free sources and broadcasting row readers of resolved tile views.
#include "simulator/numerics/TileView.h"

#include <algorithm>

namespace pto::numerics {

bool overlaps(const TileView& a, const TileView& b) {
    return a.base < b.base + b.span() && b.base < a.base + a.span();
}

SafeSource::SafeSource(const TileView& src, const TileView& dst) : m_view(src) {
    const bool sameRegion = src.base == dst.base && src.rowBytes == dst.rowBytes &&
                            src.rows == dst.rows && src.cols == dst.cols && src.dtype == dst.dtype;
    if (sameRegion || !overlaps(src, dst)) return;
    m_copy.assign(src.base, src.base + src.span());
    m_view.base = m_copy.data();
}

BroadcastReader::BroadcastReader(const TileView& src, const TileView& dst, int64_t cols)
    : m_src(src, dst), m_cols(cols), m_buffer(size_t(cols)) {}

const float* BroadcastReader::row(int64_t r) {
    const TileView& v = m_src.view();
    const int64_t sr = v.rows == 1 ? 0 : r;
    if (sr == m_loaded) return m_buffer.data();
    if (v.cols == 1 && m_cols != 1) {
        float value = 0.0f;
        convertRowToFloat(v.row(sr), v.dtype, &value, 1);
        std::fill(m_buffer.begin(), m_buffer.end(), value);
    } else {
        convertRowToFloat(v.row(sr), v.dtype, m_buffer.data(), m_cols);
    }
    m_loaded = sr;
    return m_buffer.data();
}

} // namespace pto::numerics
