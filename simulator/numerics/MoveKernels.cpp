// Data-movement kernels: 2-D copies (with conversion), transposes and fills.
#include "simulator/numerics/TileKernels.h"

#include <cstring>
#include <vector>

namespace pto::numerics {

void copyTile(const TileView& src, const TileView& dst, RoundMode mode) {
    const SafeSource safe(src, dst);
    const TileView& s = safe.view();
    if (s.dtype == dst.dtype) {
        const size_t bytes = size_t(dst.cols * dst.elemSize());
        for (int64_t r = 0; r < dst.rows; ++r) std::memmove(dst.row(r), s.row(r), bytes);
        return;
    }
    std::vector<float> buffer(size_t(dst.cols));
    for (int64_t r = 0; r < dst.rows; ++r) {
        convertRowToFloat(s.row(r), s.dtype, buffer.data(), dst.cols);
        convertRowFromFloat(buffer.data(), dst.dtype, dst.row(r), dst.cols, mode);
    }
}

void transposeTile(const TileView& src, const TileView& dst) {
    const SafeSource safe(src, dst);
    const TileView& s = safe.view();
    const int64_t es = dst.elemSize();
    if (s.dtype == dst.dtype) {
        for (int64_t r = 0; r < s.rows; ++r) {
            const std::byte* in = s.row(r);
            for (int64_t c = 0; c < s.cols; ++c)
                std::memcpy(dst.row(c) + r * es, in + c * es, size_t(es));
        }
        return;
    }
    std::vector<float> buffer(size_t(s.cols));
    for (int64_t r = 0; r < s.rows; ++r) {
        convertRowToFloat(s.row(r), s.dtype, buffer.data(), s.cols);
        for (int64_t c = 0; c < s.cols; ++c)
            convertRowFromFloat(&buffer[size_t(c)], dst.dtype, dst.row(c) + r * es, 1,
                                RoundMode::NearestEven);
    }
}

void fillTile(const TileView& dst, float value) {
    std::vector<std::byte> row(size_t(dst.cols * dst.elemSize()));
    const std::vector<float> values(size_t(dst.cols), value);
    convertRowFromFloat(values.data(), dst.dtype, row.data(), dst.cols, RoundMode::NearestEven);
    for (int64_t r = 0; r < dst.rows; ++r) std::memcpy(dst.row(r), row.data(), row.size());
}

} // namespace pto::numerics
