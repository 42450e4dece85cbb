// expand-tiles of elementwise ops: one tile op per result tile over the result's vec tile grid.
#include "compiler/passes/expand/Expanders.h"
#include "compiler/passes/expand/HeldAcross.h"

namespace pto::expand {

// Elementwise, scalar, unary, cast, cmp, where, broadcast and fill: one tile op per result
// tile, over the vec tile grid of the result.
void expandElementwise(Ctx& c, const Op& op) {
    const Type& rt = c.src.type(op.result);
    // An operand read as a block of rows other than all or one needs leading tile sizes of 1.
    auto blockBroadcast = [&](const Shape& t) {
        const Region r{zeros(t.rank()), t};
        for (ValueId x : op.operands) {
            const int64_t xr = rowsOf(broadcastRegion(r, rt.shape, c.src.type(x).shape).extent);
            if (xr != rowsOf(t) && xr != 1) return true;
        }
        return false;
    };
    const Shape tile = c.shapes.vecTile(op, rt.shape, dtypesOf(c, op), blockBroadcast);
    // Operands read by several result tiles at the same region get a copy per result tile, and
    // so do operands whose tiles would all wait on chip for a reduction of themselves.
    std::vector<bool> privateOperand;
    bool held = false; // then the private tiles are this op's own, not an earlier reader's
    for (size_t i = 0; i < op.operands.size(); ++i) {
        const bool heldHere = heldAcrossReduction(c, op, i, tile);
        held = held || heldHere;
        privateOperand.push_back(
            heldHere || readersPerRegion(rt.shape, tile, c.src.type(op.operands[i]).shape) > 1);
    }
    c.privateScope = held ? op.id + 1 : 0;
    c.readFromHome.clear();
    for (size_t i = 0; i < op.operands.size(); ++i)
        if (computedBackThroughCube(c, op, i)) c.readFromHome.push_back(op.operands[i]);
    forEachTile(rt.shape, tile, [&](const Region& r) {
        c.values.produce(op.result, r, computeTile(c, op, r, &r, privateOperand, 0));
    });
    c.privateScope = 0;
    c.readFromHome.clear();
}

} // namespace pto::expand
