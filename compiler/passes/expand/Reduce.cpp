// expand-tiles of reductions: row and column reductions in tiles, outer-axis reductions as an
// elementwise combine per index, partial results combined in index order.
#include "compiler/passes/expand/Expanders.h"

#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::expand {
namespace {

int normalisedAxis(Ctx& c, const Op& op, int rank) {
    const int64_t axis = op.attrs.getInt("axis", -1);
    if (rank == 0) c.shapes.fail(op, "cannot reduce a rank-0 tensor");
    if (axis < -rank || axis >= rank)
        c.shapes.fail(op, fmt::format("axis {} is out of range for a rank-{} tensor", axis, rank));
    return int(axis < 0 ? axis + rank : axis);
}

OpKind combinerOf(OpKind reduce) {
    switch (reduce) {
    case OpKind::ReduceMax:
        return OpKind::Max;
    case OpKind::ReduceMin:
        return OpKind::Min;
    default:
        return OpKind::Add;
    }
}

ValueId castTile(Ctx& c, ValueId tile, DType to, Provenance from) {
    if (tileDType(c, tile) == to) return tile;
    const Value& v = c.emit.fn().value(tile);
    const Shape shape = c.emit.type(tile).shape;
    const ValueId origin = v.origin;
    const Shape offset = v.offset;
    return c.emit.tile(OpKind::Cast, {tile}, {}, to, shape[0], shape[1], origin, offset, from);
}

// A reduction over an axis before the last two: every index along the axis is a whole tile
// of the other dims (leading tile sizes 1), combined elementwise in index order with
// add/max/min (a sum of any dtype but f32 in f32, rounded once at the end).
void expandOuterReduce(Ctx& c, const Op& op, int axis) {
    const ValueId x = op.operands[0];
    const Type& xt = c.src.type(x);
    const Type& yt = c.src.type(op.result);
    const int n = xt.shape.rank();
    const Shape tile =
        c.shapes.vecTile(op, xt.shape, {xt.dtype}, [](const Shape&) { return true; });
    for (int d = 0; d + 2 < n; ++d)
        if (tile[d] != 1)
            c.shapes.fail(op, fmt::format("vec tile {} spans several leading dims; a reduction "
                                          "over axis {} needs leading tile sizes of 1 (e.g. "
                                          "vec_tile = {})",
                                          tile.str(), axis, leadingOnes(tile)));
    const bool keepdim = op.attrs.getBool("keepdim", false);
    const bool sum = op.kind == OpKind::ReduceSum;
    const bool wide = sum && xt.shape[axis] > 1 && yt.dtype != DType::F32;
    const DType acc = wide ? DType::F32 : yt.dtype;
    const Provenance from = provenanceOf(op);
    Shape outer = xt.shape;
    outer[axis] = 1;
    forEachTile(outer, tile, [&](const Region& o) {
        Region yr{Shape{}, Shape{}};
        for (int d = 0; d < n; ++d) {
            if (d == axis && !keepdim) continue;
            yr.offset.push(o.offset[d]);
            yr.extent.push(o.extent[d]);
        }
        const int64_t rows = rowsOf(o.extent), cols = colsOf(o.extent);
        ValueId total = kNoId;
        for (int64_t k = 0; k < xt.shape[axis]; ++k) {
            Region in = o;
            in.offset[axis] = k;
            ValueId t = castTile(c, c.values.tileOf(x, in, from), acc, from);
            total = total == kNoId ? t
                                   : c.emit.tile(combinerOf(op.kind), {total, t}, {}, acc, rows,
                                                 cols, op.result, yr.offset, from);
        }
        if (c.emit.fn().value(total).origin != op.result) {
            // One index along the axis: the result is a copy of the operand's tile.
            Attrs one;
            one.set("scalar", 1.0);
            total = c.emit.tile(OpKind::MulS, {total}, one, acc, rows, cols, op.result, yr.offset,
                                from);
        }
        total = castTile(c, total, yt.dtype, from);
        c.values.produce(op.result, yr, total);
    });
}

} // namespace

// Reductions over the last axis (row reduce → [r×1]) or the second-last (column reduce →
// [1×c], tiles must have leading sizes 1). When the axis spans several tiles the partial
// results are combined in index order with add/max/min; a sum of any dtype but f32 then runs
// in f32 (inputs widened, partials and combine in f32, one rounding at the end).
void expandReduce(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& xt = c.src.type(x);
    const Type& yt = c.src.type(op.result);
    const int n = xt.shape.rank();
    const int axis = normalisedAxis(c, op, n);
    const bool row = axis == n - 1;
    if (!row && axis != n - 2) return expandOuterReduce(c, op, axis);
    const bool keepdim = op.attrs.getBool("keepdim", false);
    const bool sum = op.kind == OpKind::ReduceSum;
    const Shape tile =
        c.shapes.vecTile(op, xt.shape, {xt.dtype}, [&](const Shape&) { return !row || !keepdim; });
    for (int d = 0; d + 2 < n; ++d)
        if (tile[d] != 1 && (!row || !keepdim))
            c.shapes.fail(op, fmt::format("vec tile {} spans several leading dims; a {} "
                                          "needs leading tile sizes of 1 (e.g. vec_tile = {})",
                                          tile.str(),
                                          row ? "reduction without keepdim"
                                              : "reduction over the second-last axis",
                                          leadingOnes(tile)));
    const int64_t spans = (xt.shape[axis] + tile[axis] - 1) / tile[axis];
    // Partial sums stay in f32 (the precision rule: accumulate in f32, round once), also for
    // integers, whose partials would otherwise saturate.
    const bool wide = sum && spans > 1 && yt.dtype != DType::F32;
    const DType acc = wide ? DType::F32 : yt.dtype;
    const Provenance from = provenanceOf(op);
    Attrs attrs;
    attrs.set("axis", int64_t(row ? 1 : 0));
    attrs.set("keepdim", true);

    Shape outer = xt.shape, outerTile = tile;
    outer[axis] = 1;
    outerTile[axis] = 1;
    forEachTile(outer, outerTile, [&](const Region& o) {
        // The result region: keepdim keeps the axis at extent 1, otherwise it is dropped.
        Region yr{Shape{}, Shape{}};
        for (int d = 0; d < n; ++d) {
            if (d == axis && !keepdim) continue;
            yr.offset.push(o.offset[d]);
            yr.extent.push(o.extent[d]);
        }
        ValueId total = kNoId;
        for (int64_t k = 0; k < xt.shape[axis]; k += tile[axis]) {
            Region in = o;
            in.offset[axis] = k;
            in.extent[axis] = std::min(tile[axis], xt.shape[axis] - k);
            const int64_t rows = rowsOf(in.extent), cols = colsOf(in.extent);
            ValueId t = castTile(c, c.values.tileOf(x, in, from), acc, from);
            ValueId part = c.emit.tile(op.kind, {t}, attrs, acc, row ? rows : 1, row ? 1 : cols,
                                       op.result, yr.offset, from);
            total = total == kNoId
                        ? part
                        : c.emit.tile(combinerOf(op.kind), {total, part}, {}, acc, row ? rows : 1,
                                      row ? 1 : cols, op.result, yr.offset, from);
        }
        total = castTile(c, total, yt.dtype, from);
        const int64_t yRows = rowsOf(yr.extent), yCols = colsOf(yr.extent);
        if (c.emit.type(total).shape != Shape{yRows, yCols}) {
            // A row reduction without keepdim: the [r×1] column becomes the row [1×r].
            Attrs perm;
            perm.set("perm", Ints{1, 0});
            total = c.emit.tile(OpKind::Transpose, {total}, perm, yt.dtype, yRows, yCols, op.result,
                                yr.offset, from);
        }
        c.values.produce(op.result, yr, total);
    });
}

} // namespace pto::expand
