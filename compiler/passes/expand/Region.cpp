// Region arithmetic of expand-tiles: rows × cols views, corners, broadcast reads.
#include "compiler/passes/expand/Region.h"

namespace pto::expand {

int64_t rowsOf(const Shape& extent) {
    int64_t rows = 1;
    for (int d = 0; d + 1 < extent.rank(); ++d) rows *= extent[d];
    return rows;
}
int64_t colsOf(const Shape& extent) {
    return extent.rank() ? extent.back() : 1;
}

// The region is consecutive rows of its tensor: after the first leading dim whose extent
// exceeds 1, every leading dim is whole.
bool spansContiguousRows(const Shape& shape, const Shape& extent) {
    bool spanning = false;
    for (int d = 0; d + 1 < shape.rank(); ++d) {
        if (spanning && extent[d] != shape[d]) return false;
        if (extent[d] != 1) spanning = true;
    }
    return true;
}

bool contains(const Shape& shape, const Region& r) {
    for (int d = 0; d < shape.rank(); ++d)
        if (r.offset[d] < 0 || r.offset[d] + r.extent[d] > shape[d]) return false;
    return true;
}

// Row of `offset` in the rows × cols view of a tensor of `shape`.
int64_t rowIndex(const Shape& shape, const Shape& offset) {
    int64_t row = 0;
    for (int d = 0; d + 1 < shape.rank(); ++d) row = row * shape[d] + offset[d];
    return row;
}

// The corner whose rows × cols position is (row, col).
Shape cornerAt(const Shape& shape, int64_t row, int64_t col) {
    Shape corner = shape;
    const int n = shape.rank();
    if (n == 0) return corner;
    corner[n - 1] = col;
    for (int d = n - 2; d >= 0; --d) {
        corner[d] = row % shape[d];
        row /= shape[d];
    }
    return corner;
}

// The region of operand shape `xs` read by the result region `r` of `shape` under numpy
// broadcasting (dims aligned at the right; an extent-1 dim is read at 0).
Region broadcastRegion(const Region& r, const Shape& shape, const Shape& xs) {
    const int lead = shape.rank() - xs.rank();
    Region out{xs, xs};
    for (int d = 0; d < xs.rank(); ++d) {
        const bool bcast = xs[d] == 1 && shape[d + lead] != 1;
        out.offset[d] = bcast ? 0 : r.offset[d + lead];
        out.extent[d] = bcast ? 1 : r.extent[d + lead];
    }
    return out;
}

// How many result tiles of the grid `tile` over `shape` read the same region of an operand of
// shape `xs` (the product of the grid's extents along the dims the operand broadcasts).
int64_t readersPerRegion(const Shape& shape, const Shape& tile, const Shape& xs) {
    const int lead = shape.rank() - xs.rank();
    int64_t n = 1;
    for (int d = 0; d < shape.rank(); ++d)
        if (d < lead || (xs[d - lead] == 1 && shape[d] != 1))
            n *= (shape[d] + tile[d] - 1) / tile[d];
    return n;
}

} // namespace pto::expand
