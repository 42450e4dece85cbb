// expand-tiles of transpose: a tile transpose of the last two dims, or a GM → UB → GM copy
// that permutes the leading dims.
#include "compiler/passes/expand/Expanders.h"

#include "compiler/ir/Target.h"
#include "compiler/passes/DefaultVecTiles.h"
#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

namespace pto::expand {
namespace {

// Tile transpose of the last two dims (perm [.., n-1, n-2]); tiles need leading sizes 1.
void expandTileTranspose(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& yt = c.src.type(op.result);
    const int n = yt.shape.rank();
    const Shape tile =
        c.shapes.vecTile(op, yt.shape, {yt.dtype}, [](const Shape&) { return true; });
    for (int d = 0; d + 2 < n; ++d)
        if (tile[d] != 1)
            c.shapes.fail(op, fmt::format("vec tile {} spans several leading dims; a transpose "
                                          "of the last two dims needs leading tile sizes of 1 "
                                          "(e.g. vec_tile = {})",
                                          tile.str(), leadingOnes(tile)));
    const Shape& xs = c.src.type(x).shape;
    if (tile[n - 2] < yt.shape[n - 2] && (tile[n - 2] * dtypeSize(yt.dtype)) % kRowAlignBytes != 0)
        c.shapes.fail(op, fmt::format("vec tile {} reads source rows of {} elements ({} B of "
                                      "{}); they must be a multiple of {} B unless whole ({}): "
                                      "make the second-last vec_tile size a multiple of {}",
                                      tile.str(), tile[n - 2], tile[n - 2] * dtypeSize(yt.dtype),
                                      dtypeName(yt.dtype), kRowAlignBytes, xs[n - 1],
                                      kRowAlignBytes / dtypeSize(yt.dtype)));
    const Provenance from = provenanceOf(op);
    Attrs perm;
    perm.set("perm", Ints{1, 0});
    forEachTile(yt.shape, tile, [&](const Region& r) {
        Region rx = r;
        std::swap(rx.offset[n - 1], rx.offset[n - 2]);
        std::swap(rx.extent[n - 1], rx.extent[n - 2]);
        const ValueId src = c.values.tileOf(x, rx, from);
        ValueId t = c.emit.tile(OpKind::Transpose, {src}, perm, yt.dtype, rowsOf(r.extent),
                                colsOf(r.extent), op.result, r.offset, from);
        c.values.produce(op.result, r, t);
    });
}

// Copy of x into y's GM tensor with dims permuted (the last dim stays last): GM → UB → GM.
void expandPermutingCopy(Ctx& c, const Op& op, const Ints& perm) {
    const ValueId x = op.operands[0];
    const Type& yt = c.src.type(op.result);
    const int n = yt.shape.rank();
    const Provenance from = provenanceOf(op);
    const ValueId gm = c.values.destinationOf(op.result, from);
    const Home home = c.values.materialise(x);
    Shape tile = defaultCopyTile(yt.shape, yt.dtype);
    if (n >= 2 && perm[size_t(n - 2)] != n - 2) tile[n - 2] = 1;
    forEachTile(yt.shape, tile, [&](const Region& r) {
        Region rx = r;
        for (int d = 0; d < n; ++d) {
            rx.offset[int(perm[size_t(d)])] = r.offset[d];
            rx.extent[int(perm[size_t(d)])] = r.extent[d];
        }
        ValueId t = c.values.loadFresh(x, home, rx, from);
        c.emit.store(t, gm, r.offset, from);
    });
    c.values.setHome(op.result, Home{gm, HomeKind::Same, {}});
}

} // namespace

void expandTranspose(Ctx& c, const Op& op) {
    const int n = c.src.type(op.result).shape.rank();
    Ints perm = op.attrs.getInts("perm").value_or(Ints{});
    if (perm.empty() && n == 2) perm = {1, 0};
    Ints sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    Ints identity(static_cast<size_t>(n), 0);
    std::iota(identity.begin(), identity.end(), int64_t(0));
    if (sorted != identity)
        c.shapes.fail(op,
                      fmt::format("perm {} is not a permutation of the {} dims", listRef(perm), n));
    if (perm == identity) {
        c.values.setHome(op.result, c.values.materialise(op.operands[0]));
        return;
    }
    Ints swapLast = identity;
    if (n >= 2) std::swap(swapLast[size_t(n - 1)], swapLast[size_t(n - 2)]);
    if (perm == swapLast) return expandTileTranspose(c, op);
    if (perm[size_t(n - 1)] == n - 1) return expandPermutingCopy(c, op, perm);
    c.shapes.fail(op, fmt::format("transpose perm {} moves the last dim and is not a swap of "
                                  "the last two dims; not supported at Tile level",
                                  listRef(perm)));
}

} // namespace pto::expand
