// expand-tiles of view, reshape and concat: offset arithmetic on the loads of their readers
// where the layout allows it, GM → UB → GM copies otherwise.
#include "compiler/passes/expand/Expanders.h"

#include "compiler/passes/DefaultVecTiles.h"
#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace pto::expand {
namespace {

constexpr int64_t kMaxCopyTiles = 1 << 20; // guard against element-wise GM copies

} // namespace

// view (a slice): offset arithmetic on the loads of its consumers.
void expandView(Ctx& c, const Op& op) {
    const Type& xt = c.src.type(op.operands[0]);
    const Type& yt = c.src.type(op.result);
    const int n = xt.shape.rank();
    Ints offsets = op.attrs.getInts("offsets").value_or(Ints(size_t(n), 0));
    if (int(offsets.size()) != n || yt.shape.rank() != n)
        c.shapes.fail(op, fmt::format("view offsets {} do not match the rank {} of {}",
                                      listRef(offsets), n, typeRef(xt)));
    Home home = c.values.materialise(op.operands[0]);
    // A view of a reshaped tensor: give the reshape a workspace of its own first.
    if (home.kind == HomeKind::Rows) home = c.values.plainHome(op.operands[0], provenanceOf(op));
    Shape offset = home.kind == HomeKind::Offset ? home.offset : zeros(n);
    for (int d = 0; d < n; ++d) {
        offset[d] += offsets[size_t(d)];
        if (offsets[size_t(d)] < 0 || offsets[size_t(d)] + yt.shape[d] > xt.shape[d])
            c.shapes.fail(op, fmt::format("view at {} of size {} falls outside {}",
                                          listRef(offsets), yt.shape.str(), typeRef(xt)));
    }
    c.values.setHome(op.result, Home{home.gm, HomeKind::Offset, offset});
}

// reshape: same last dim → the two share their rows × cols view (offset arithmetic);
// otherwise a GM → UB → GM copy in runs that stay inside one row of both shapes.
void expandReshape(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& xt = c.src.type(x);
    const Type& yt = c.src.type(op.result);
    if (xt.shape.numel() != yt.shape.numel())
        c.shapes.fail(op, fmt::format("reshape of {} to {} changes the element count", typeRef(xt),
                                      typeRef(yt)));
    const Provenance from = provenanceOf(op);
    Home home = c.values.materialise(x);
    if (home.kind == HomeKind::Offset) home = c.values.plainHome(x, from);
    if (colsOf(xt.shape) == colsOf(yt.shape)) {
        c.values.setHome(op.result, Home{home.gm, HomeKind::Rows, {}});
        return;
    }
    const int64_t run = std::gcd(colsOf(xt.shape), colsOf(yt.shape));
    if (yt.shape.numel() / run > kMaxCopyTiles)
        c.shapes.fail(op, fmt::format("reshape of {} to {} changes the last dim and would need "
                                      "{} row-piece copies of {} elements; reshape so the last "
                                      "dims share a larger factor",
                                      typeRef(xt), typeRef(yt), yt.shape.numel() / run, run));
    const ValueId gm = c.values.destinationOf(op.result, from);
    const int64_t piece =
        std::min(run, std::max<int64_t>(1, kDefaultTileBytes / dtypeSize(yt.dtype)));
    auto regionAt = [](const Shape& shape, int64_t flat, int64_t len) {
        const int64_t cols = colsOf(shape);
        Region r{cornerAt(shape, flat / cols, flat % cols), shape};
        for (int d = 0; d < shape.rank(); ++d) r.extent[d] = 1;
        if (shape.rank()) r.extent[shape.rank() - 1] = len;
        return r;
    };
    for (int64_t flat = 0; flat < yt.shape.numel(); flat += run) {
        for (int64_t p = 0; p < run; p += piece) {
            const int64_t len = std::min(piece, run - p);
            ValueId t = c.values.loadFresh(x, home, regionAt(xt.shape, flat + p, len), from);
            c.emit.store(t, gm, regionAt(yt.shape, flat + p, len).offset, from);
        }
    }
    c.values.setHome(op.result, Home{gm, HomeKind::Same, {}});
}

// concat: every input written into the result's GM tensor at its place along the axis —
// straight from its on-chip tiles when they are consecutive rows there, else GM → UB → GM.
void expandConcat(Ctx& c, const Op& op) {
    const Type& yt = c.src.type(op.result);
    const int n = yt.shape.rank();
    const int64_t rawAxis = op.attrs.getInt("axis", 0);
    if (n == 0 || rawAxis < -n || rawAxis >= n)
        c.shapes.fail(op, fmt::format("axis {} is out of range for {}", rawAxis, typeRef(yt)));
    const int axis = int(rawAxis < 0 ? rawAxis + n : rawAxis);
    const Provenance from = provenanceOf(op);
    const ValueId gm = c.values.destinationOf(op.result, from);
    int64_t at = 0;
    for (ValueId x : op.operands) {
        Shape shift = zeros(n);
        shift[axis] = at;
        bool direct = !c.values.produced(x).empty();
        for (const auto& [region, tile] : c.values.produced(x))
            direct = direct && spansContiguousRows(yt.shape, region.extent);
        if (direct) {
            c.values.copyInto(x, gm, shift, from);
        } else {
            const Home home = c.values.materialise(x);
            const Type& xt = c.src.type(x);
            forEachTile(xt.shape, defaultCopyTile(xt.shape, xt.dtype), [&](const Region& r) {
                ValueId t = c.values.loadFresh(x, home, r, from);
                Shape o = r.offset;
                o[axis] += at;
                c.emit.store(t, gm, o, from);
            });
        }
        at += c.src.type(x).shape[axis];
    }
    c.values.setHome(op.result, Home{gm, HomeKind::Same, {}});
}

} // namespace pto::expand
