// expand-tiles of scatter_add: the base copied into the result's GM tensor, then one scatter DMA
// with atomic add (tscatter_add) per source tile (docs/PASSES.md, "scatter_add").
#include "compiler/passes/expand/Expanders.h"

#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

namespace pto::expand {

// scatter_add %base, %idx, %src {axis = 0} with base [N, D]: the result's GM tensor gets a copy
// of base; then per tile of src (index rows × columns) the index tile and one tscatter_add of
// its rows. The copy and the scatters all write the result, so the exec graph and sync keep
// them in program order: contributions land in index order, as the Tensor level defines.
void expandScatterAdd(Ctx& c, const Op& op) {
    const ValueId base = op.operands[0], index = op.operands[1], src = op.operands[2];
    const Type& bt = c.src.type(base);
    const Type& it = c.src.type(index);
    const Type& st = c.src.type(src);
    const int64_t axis = op.attrs.getInt("axis", 0);
    if (bt.shape.rank() != 2 || axis != 0)
        c.shapes.fail(op, fmt::format("lowers only row scatters: a rank-2 base along axis 0, "
                                      "found {} along axis {} by {} (decompose-composites "
                                      "rewrites every other base and axis into one: run it first)",
                                      typeRef(bt), axis, typeRef(it)));
    const Provenance from = provenanceOf(op);
    const ValueId gm = c.values.destinationOf(op.result, from);
    c.values.copyInto(base, gm, zeros(2), from);
    const int n = st.shape.rank();
    forEachTile(st.shape, indexRowsTile(st.shape, st.dtype), [&](const Region& r) {
        Region at{zeros(n - 1), zeros(n - 1)};
        for (int d = 0; d + 1 < n; ++d) {
            at.offset[d] = r.offset[d];
            at.extent[d] = r.extent[d];
        }
        const ValueId rows = c.values.tileOf(src, r, from);
        const ValueId indices = c.values.tileOf(index, at, from);
        c.emit.fn().addOp(makeOp(OpKind::TScatterAdd, {rows, gm, indices},
                                 offsetAttr(Shape{0, r.offset[n - 1]}), from));
    });
    c.values.setHome(op.result, Home{gm, HomeKind::Same, {}});
}

} // namespace pto::expand
