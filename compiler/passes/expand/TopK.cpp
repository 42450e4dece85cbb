// expand-tiles of topk: whole rows along the last axis per tile, one Tile-level topk each; along
// the second-last axis through tile transposes (docs/PASSES.md, "topk").
#include "compiler/passes/expand/Expanders.h"

#include "compiler/ir/Target.h"
#include "compiler/passes/DefaultVecTiles.h"
#include "compiler/passes/LineBudget.h"
#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::expand {
namespace {

// Bytes per element that size the tiles (not the bound): the wider of x's dtype and the i32
// positions a topk with `indices` yields.
int64_t sizingBytes(const Type& x) {
    return std::max<int64_t>(dtypeSize(x.dtype), 4);
}

// The Tile-level topk attrs of a result of k per row.
Attrs topkAttrs(const Op& op, int64_t k) {
    Attrs attrs;
    attrs.set("k", k);
    attrs.set("axis", int64_t{1});
    if (!op.attrs.getBool("largest", true)) attrs.set("largest", false);
    if (op.attrs.getBool("indices")) attrs.set("indices", true);
    return attrs;
}

// Fails unless a line of x along `axis` ("row" or "column") and its result line each take at
// most kMaxLineBytes of their dtypes.
void checkLine(Ctx& c, const Op& op, int axis, const char* line) {
    const Type& xt = c.src.type(op.operands[0]);
    const Type& yt = c.src.type(op.result);
    const int64_t n = xt.shape[axis], k = yt.shape[axis];
    if (n * dtypeSize(xt.dtype) > kMaxLineBytes)
        c.shapes.fail(op, fmt::format("a {} of {} elements of {} ({}) exceeds the {} a topk line "
                                      "may take in UB",
                                      line, n, typeRef(xt),
                                      kibOver(n * dtypeSize(xt.dtype), kMaxLineBytes),
                                      kib(kMaxLineBytes)));
    if (k * dtypeSize(yt.dtype) > kMaxLineBytes) // k <= n: only i32 positions of a narrower x
        c.shapes.fail(op, fmt::format("the {} {} positions of the top k of each {} ({}) exceed "
                                      "the {} a topk result line may take in UB",
                                      k, dtypeName(yt.dtype), line,
                                      kibOver(k * dtypeSize(yt.dtype), kMaxLineBytes),
                                      kib(kMaxLineBytes)));
}

// topk along the second-last axis: per strip of w columns, the source tile of whole columns
// [n, w] transposed to [w, n], a row topk to [w, k], and that transposed back to [k, w].
// decompose-composites swapped the last two axes first when even the narrowest strip is too
// big for UB (LineBudget.h).
void expandColumnTopK(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& xt = c.src.type(x);
    const Type& yt = c.src.type(op.result);
    const int n = xt.shape.rank();
    const int64_t depth = xt.shape[n - 2], k = yt.shape[n - 2];
    checkLine(c, op, n - 2, "column");
    if (!columnStripsFit(OpKind::TopK, xt, yt))
        c.shapes.fail(op, fmt::format("a strip of {} whole columns of {} exceeds the {} a topk "
                                      "tile may take in UB (decompose-composites runs such a "
                                      "topk along the last axis)",
                                      minStripColumns(OpKind::TopK, xt), typeRef(xt),
                                      kib(kMaxStripBytes)));
    const int64_t elem = sizingBytes(xt);
    const int64_t step = std::max<int64_t>(1, kRowAlignBytes / dtypeSize(xt.dtype));
    int64_t w = std::max(step, kDefaultTileBytes / (depth * elem) / step * step);
    w = std::min(w, xt.shape[n - 1]);
    const Provenance from = provenanceOf(op);
    Shape tile = yt.shape;
    for (int d = 0; d < n; ++d) tile[d] = 1;
    tile[n - 2] = k;
    tile[n - 1] = w;
    Attrs perm;
    perm.set("perm", Ints{1, 0});
    const Attrs attrs = topkAttrs(op, k);
    forEachTile(yt.shape, tile, [&](const Region& r) {
        Region col = r;
        col.extent[n - 2] = depth;
        const int64_t cols = r.extent[n - 1];
        const ValueId src = c.values.tileOf(x, col, from);
        const ValueId rows = c.emit.tile(OpKind::Transpose, {src}, perm, xt.dtype, cols, depth,
                                         op.result, r.offset, from);
        const ValueId best =
            c.emit.tile(OpKind::TopK, {rows}, attrs, yt.dtype, cols, k, op.result, r.offset, from);
        const ValueId t = c.emit.tile(OpKind::Transpose, {best}, perm, yt.dtype, k, cols, op.result,
                                      r.offset, from);
        c.values.produce(op.result, r, t);
    });
}

} // namespace

// topk %x {k, axis = last}: result tiles [1, …, r, k] over rows of x's tiles [1, …, r, n].
void expandTopK(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& xt = c.src.type(x);
    const Type& yt = c.src.type(op.result);
    const int n = xt.shape.rank();
    int64_t axis = op.attrs.getInt("axis", -1);
    if (axis < 0) axis += n;
    const int64_t width = xt.shape[n - 1];
    if (n >= 2 && axis == n - 2) return expandColumnTopK(c, op);
    if (axis != n - 1)
        c.shapes.fail(op, fmt::format("lowers a topk along one of the last two axes only, found "
                                      "axis {} of {} (transpose the axis last first)",
                                      axis, typeRef(xt)));
    checkLine(c, op, n - 1, "row");
    const Provenance from = provenanceOf(op);
    Shape tile = yt.shape;
    for (int d = 0; d < n; ++d) tile[d] = 1;
    tile[n - 1] = yt.shape[n - 1];
    if (n >= 2)
        tile[n - 2] =
            std::clamp<int64_t>(kDefaultTileBytes / (width * sizingBytes(xt)), 1, yt.shape[n - 2]);
    const Attrs attrs = topkAttrs(op, yt.shape[n - 1]);
    forEachTile(yt.shape, tile, [&](const Region& r) {
        Region row = r;
        row.extent[n - 1] = width;
        const ValueId src = c.values.tileOf(x, row, from);
        const ValueId t = c.emit.tile(OpKind::TopK, {src}, attrs, yt.dtype, rowsOf(r.extent),
                                      colsOf(r.extent), op.result, r.offset, from);
        c.values.produce(op.result, r, t);
    });
}

} // namespace pto::expand
