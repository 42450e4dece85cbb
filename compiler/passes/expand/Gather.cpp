// expand-tiles of gather: a row gather of a GM tensor by index tiles (one gather DMA per
// result tile; docs/LOWERING.md, "gather").
#include "compiler/passes/expand/Expanders.h"

#include "compiler/passes/DefaultVecTiles.h"
#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::expand {

// The tile grid over the result idx.shape + [D]: one index row piece of `rows` indices by
// `cols` columns per tile, so each tile's indices are consecutive elements of the index.
Shape indexRowsTile(const Shape& result, DType dtype) {
    const int n = result.rank();
    const int64_t elem = dtypeSize(dtype);
    const int64_t cols = std::min(result[n - 1], std::max<int64_t>(1, kDefaultTileBytes / elem));
    const int64_t rows = std::clamp<int64_t>(kDefaultTileBytes / (cols * elem), 1, result[n - 2]);
    Shape tile = result;
    for (int d = 0; d < n; ++d) tile[d] = 1;
    tile[n - 2] = rows;
    tile[n - 1] = cols;
    return tile;
}

// gather %src, %idx {axis} with the axis the second-last of src [B…, N, D] (axis 0 of a
// rank-2 source): per result tile, the index tile of its rows (the producer's tile or a load)
// and one gather of those rows' columns from the matrix [N, D] of src's GM home that the tile's
// leading coordinates B… pick.
void expandGather(Ctx& c, const Op& op) {
    const ValueId src = op.operands[0], index = op.operands[1];
    const Type& st = c.src.type(src);
    const Type& it = c.src.type(index);
    const Type& yt = c.src.type(op.result);
    const int rank = st.shape.rank();
    int64_t axis = op.attrs.getInt("axis", 0);
    if (axis < 0) axis += rank;
    if (rank < 2 || axis != rank - 2 || it.shape.rank() < 1)
        c.shapes.fail(op, fmt::format("lowers only row gathers: along the second-last axis of a "
                                      "source of rank 2 or more (axis 0 of [rows, cols]) by an "
                                      "index of rank 1 or more, found {} along axis {} by {} ({} "
                                      "first)",
                                      typeRef(st), axis, typeRef(it),
                                      axis == rank - 1 && axis > 0
                                          ? "transpose the gathered axis before the last"
                                          : "reshape the source so the gathered axis is the "
                                            "second-last"));
    const Provenance from = provenanceOf(op);
    Home home = c.values.materialise(src);
    if (home.kind != HomeKind::Same) home = c.values.plainHome(src, from);
    const Shape tile = indexRowsTile(yt.shape, yt.dtype);
    const int n = yt.shape.rank(), lead = int(axis), ir = it.shape.rank();
    forEachTile(yt.shape, tile, [&](const Region& r) {
        Region at{zeros(ir), zeros(ir)};
        for (int d = 0; d < ir; ++d) {
            at.offset[d] = r.offset[lead + d];
            at.extent[d] = r.extent[lead + d];
        }
        const ValueId indices = c.values.tileOf(index, at, from);
        Shape corner = zeros(rank);
        for (int d = 0; d < lead; ++d) corner[d] = r.offset[d];
        corner[rank - 1] = r.offset[n - 1];
        const ValueId t =
            c.emit.tile(OpKind::Gather, {home.gm, indices}, offsetAttr(corner), yt.dtype,
                        rowsOf(r.extent), colsOf(r.extent), op.result, r.offset, from);
        c.values.produce(op.result, r, t);
    });
}

} // namespace pto::expand
