// expand-tiles of topk: whole rows along the last axis per tile, one Tile-level topk each
// (docs/PASSES.md, "topk").
#include "compiler/passes/expand/Expanders.h"

#include "compiler/passes/DefaultVecTiles.h"
#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::expand {
namespace {

constexpr int64_t kMaxRowBytes = 64 * 1024; // a row and its result must sit in UB together

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
    if (axis != n - 1)
        c.shapes.fail(op, fmt::format("lowers only a topk along the last axis, found axis {} of "
                                      "{} (transpose the axis last first)",
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
    Attrs attrs;
    attrs.set("k", yt.shape[n - 1]);
    attrs.set("axis", int64_t{1});
    if (!op.attrs.getBool("largest", true)) attrs.set("largest", false);
    if (op.attrs.getBool("indices")) attrs.set("indices", true);
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
