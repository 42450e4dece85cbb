// Regions of a Tensor value and their 2-D tile form (rows × cols: cols = the last extent,
// rows = the product of the others), the tile grid over a tensor, and broadcast reads.
#pragma once

#include "compiler/ir/Shape.h"
#include "compiler/passes/expand/Rewrite.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace pto::expand {

struct Region {
    Shape offset;
    Shape extent;
    friend bool operator==(const Region& a, const Region& b) {
        return a.offset == b.offset && a.extent == b.extent;
    }
};

struct RegionHash {
    size_t operator()(const Region& r) const noexcept {
        uint64_t h = 1469598103934665603ull;
        for (int64_t v : r.offset) h = (h ^ uint64_t(v)) * 1099511628211ull;
        for (int64_t v : r.extent) h = (h ^ uint64_t(v)) * 1099511628211ull;
        return size_t(h);
    }
};

int64_t rowsOf(const Shape& extent);
int64_t colsOf(const Shape& extent);

// The region is consecutive rows of its tensor: after the first leading dim whose extent
// exceeds 1, every leading dim is whole.
bool spansContiguousRows(const Shape& shape, const Shape& extent);

bool contains(const Shape& shape, const Region& r);

// Row of `offset` in the rows × cols view of a tensor of `shape`.
int64_t rowIndex(const Shape& shape, const Shape& offset);

// The corner whose rows × cols position is (row, col).
Shape cornerAt(const Shape& shape, int64_t row, int64_t col);

// The region of operand shape `xs` read by the result region `r` of `shape` under numpy
// broadcasting (dims aligned at the right; an extent-1 dim is read at 0).
Region broadcastRegion(const Region& r, const Shape& shape, const Shape& xs);

// How many result tiles of the grid `tile` over `shape` read the same region of an operand of
// shape `xs` (the product of the grid's extents along the dims the operand broadcasts).
int64_t readersPerRegion(const Shape& shape, const Shape& tile, const Shape& xs);

// Tiles of extent b that cover a extent (positive b).
inline int64_t ceilDiv(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// Calls f(region) for every tile of `tile` over `shape`, row-major, edge tiles clipped.
template <class F> void forEachTile(const Shape& shape, const Shape& tile, F&& f) {
    const int n = shape.rank();
    for (int d = 0; d < n; ++d)
        if (shape[d] <= 0) return;
    Region r{zeros(n), shape};
    for (int d = 0; d < n; ++d) r.extent[d] = std::min(tile[d], shape[d]);
    for (;;) {
        f(const_cast<const Region&>(r));
        int d = n - 1;
        for (; d >= 0; --d) {
            r.offset[d] += tile[d];
            if (r.offset[d] < shape[d]) {
                r.extent[d] = std::min(tile[d], shape[d] - r.offset[d]);
                break;
            }
            r.offset[d] = 0;
            r.extent[d] = std::min(tile[d], shape[d]);
        }
        if (d < 0) return;
    }
}

} // namespace pto::expand
