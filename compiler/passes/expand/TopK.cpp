// expand-tiles of topk: whole rows along the last axis per tile, one Tile-level topk each; along
// the second-last axis through tile transposes (docs/PASSES.md, "topk").
#include "compiler/passes/expand/Expanders.h"

#include "compiler/ir/Target.h"
#include "compiler/passes/DefaultVecTiles.h"
#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::expand {
namespace {

constexpr int64_t kMaxRowBytes = 64 * 1024; // a row and its result must sit in UB together

// The Tile-level topk attrs of a result of k per row.
Attrs topkAttrs(const Op& op, int64_t k) {
    Attrs attrs;
    attrs.set("k", k);
    attrs.set("axis", int64_t{1});
    if (!op.attrs.getBool("largest", true)) attrs.set("largest", false);
    if (op.attrs.getBool("indices")) attrs.set("indices", true);
    return attrs;
}

// topk along the second-last axis: per strip of w columns, the source tile of whole columns
// [n, w] transposed to [w, n], a row topk to [w, k], and that transposed back to [k, w].
void expandColumnTopK(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& xt = c.src.type(x);
    const Type& yt = c.src.type(op.result);
    const int n = xt.shape.rank();
    const int64_t depth = xt.shape[n - 2], k = yt.shape[n - 2];
    const int64_t elem = std::max<int64_t>(dtypeSize(xt.dtype), 4);
    const int64_t step = std::max<int64_t>(1, kRowAlignBytes / dtypeSize(xt.dtype));
    if (depth * elem * std::min(step, xt.shape[n - 1]) > kMaxRowBytes)
        c.shapes.fail(op, fmt::format("a column of {} elements of {} exceeds the {} KiB a topk "
                                      "line may take in UB",
                                      depth, typeRef(xt), kMaxRowBytes / 1024));
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
    const int64_t elem = std::max<int64_t>(dtypeSize(xt.dtype), 4);
    if (n >= 2 && axis == n - 2) return expandColumnTopK(c, op);
    if (axis != n - 1)
        c.shapes.fail(op, fmt::format("lowers a topk along one of the last two axes only, found "
                                      "axis {} of {} (transpose the axis last first)",
                                      axis, typeRef(xt)));
    if (width * elem > kMaxRowBytes)
        c.shapes.fail(op, fmt::format("a row of {} elements of {} exceeds the {} KiB a topk row "
                                      "may take in UB",
                                      width, typeRef(xt), kMaxRowBytes / 1024));
    const Provenance from = provenanceOf(op);
    Shape tile = yt.shape;
    for (int d = 0; d < n; ++d) tile[d] = 1;
    tile[n - 1] = yt.shape[n - 1];
    if (n >= 2)
        tile[n - 2] = std::clamp<int64_t>(kDefaultTileBytes / (width * elem), 1, yt.shape[n - 2]);
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
