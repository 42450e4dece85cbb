// expand-tiles of cumsum: tiles that hold whole lines along the scanned axis (the last axis:
// whole rows; the second-last: whole columns), one Tile-level cumsum each (docs/PASSES.md,
// "cumsum").
#include "compiler/passes/expand/Expanders.h"

#include "compiler/ir/Target.h"
#include "compiler/passes/DefaultVecTiles.h"
#include "compiler/passes/LineBudget.h"
#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::expand {
namespace {

// The tile grid: leading dims 1; along the scanned axis whole; the other of the last two dims
// as many as fit kDefaultTileBytes (columns in 32 B steps unless whole).
Shape cumsumTile(const Shape& shape, int axis, int64_t elem) {
    const int n = shape.rank();
    Shape tile = shape;
    for (int d = 0; d < n; ++d) tile[d] = 1;
    tile[axis] = shape[axis];
    if (axis == n - 1) {
        if (n >= 2)
            tile[n - 2] =
                std::clamp<int64_t>(kDefaultTileBytes / (shape[n - 1] * elem), 1, shape[n - 2]);
        return tile;
    }
    const int64_t step = std::max<int64_t>(1, kRowAlignBytes / elem);
    int64_t cols = kDefaultTileBytes / (shape[axis] * elem);
    cols = std::max(step, cols / step * step);
    tile[n - 1] = std::min(cols, shape[n - 1]);
    return tile;
}

// Fails unless a line along `axis` takes at most kMaxLineBytes of its dtype, and (along the
// second-last axis) the narrowest strip of whole columns does too: decompose-composites ran a
// cumsum whose strips do not fit along the last axis instead (LineBudget.h).
void checkLines(Ctx& c, const Op& op, int axis) {
    const Type& xt = c.src.type(op.operands[0]);
    const Type& yt = c.src.type(op.result);
    const int64_t n = yt.shape[axis];
    if (lineBytes(xt, yt, axis) > kMaxLineBytes)
        c.shapes.fail(op, fmt::format("a line of {} elements of {} along axis {} ({}) exceeds "
                                      "the {} a cumsum line may take in UB",
                                      n, typeRef(yt), axis,
                                      kibOver(lineBytes(xt, yt, axis), kMaxLineBytes),
                                      kib(kMaxLineBytes)));
    if (axis == yt.shape.rank() - 2 && !columnStripsFit(OpKind::CumSum, xt, yt))
        c.shapes.fail(op, fmt::format("a strip of {} whole columns of {} exceeds the {} a cumsum "
                                      "tile may take in UB (decompose-composites runs such a "
                                      "cumsum along the last axis)",
                                      minStripColumns(OpKind::CumSum, xt), typeRef(yt),
                                      kib(kMaxStripBytes)));
}

} // namespace

// cumsum %x {axis}: along the last axis, tiles of whole rows scanned along each row (Tile
// axis 1); along the second-last, tiles of whole columns scanned down each column (Tile axis 0).
void expandCumSum(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& yt = c.src.type(op.result);
    const int n = yt.shape.rank();
    int64_t axis = op.attrs.getInt("axis", -1);
    if (axis < 0) axis += n;
    if (axis != n - 1 && axis != n - 2)
        c.shapes.fail(op, fmt::format("lowers a cumsum along one of the last two axes only, found "
                                      "axis {} of {} (transpose or reshape the axis into the last "
                                      "two first)",
                                      axis, typeRef(yt)));
    checkLines(c, op, int(axis));
    const int64_t elem = std::max<int64_t>(dtypeSize(yt.dtype), 4);
    const Provenance from = provenanceOf(op);
    const Shape tile = cumsumTile(yt.shape, int(axis), elem);
    Attrs attrs;
    attrs.set("axis", int64_t{axis == n - 1 ? 1 : 0});
    forEachTile(yt.shape, tile, [&](const Region& r) {
        const ValueId src = c.values.tileOf(x, r, from);
        const ValueId t = c.emit.tile(OpKind::CumSum, {src}, attrs, yt.dtype, rowsOf(r.extent),
                                      colsOf(r.extent), op.result, r.offset, from);
        c.values.produce(op.result, r, t);
    });
}

} // namespace pto::expand
