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
        loadRow(s.row(r), s.dtype, dst.cols, buffer.data());
        storeRow(buffer.data(), dst.cols, dst.dtype, mode, dst.row(r));
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
        loadRow(s.row(r), s.dtype, s.cols, buffer.data());
        for (int64_t c = 0; c < s.cols; ++c)
            storeRow(&buffer[size_t(c)], 1, dst.dtype, RoundMode::NearestEven, dst.row(c) + r * es);
    }
}

void fillTile(const TileView& dst, float value) {
    std::vector<std::byte> row(size_t(dst.cols * dst.elemSize()));
    const std::vector<float> values(size_t(dst.cols), value);
    storeRow(values.data(), dst.cols, dst.dtype, RoundMode::NearestEven, row.data());
    for (int64_t r = 0; r < dst.rows; ++r) std::memcpy(dst.row(r), row.data(), row.size());
}

} // namespace pto::numerics
