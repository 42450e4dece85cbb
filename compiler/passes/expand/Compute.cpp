// One tile of an elementwise result: operand tiles at their broadcast regions, private
// recomputation for result tiles that run apart, the tile op itself.
#include "compiler/passes/expand/Compute.h"

#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace pto::expand {
namespace {

Attrs computeAttrs(const Op& op) {
    Attrs a;
    for (const Attr& attr : op.attrs.items())
        if (attr.name != "vec_tile" && attr.name != "cube_tile") a.set(attr.name, attr.value);
    return a;
}

// Expands a broadcast-shaped tile ([r×1], [1×c], [1×1]) to rows × cols.
ValueId broadcastTile(Ctx& c, ValueId tile, int64_t rows, int64_t cols, Provenance from) {
    const Value& v = c.emit.fn().value(tile);
    const ValueId origin = v.origin;
    const Shape offset = v.offset;
    return c.emit.tile(OpKind::Broadcast, {tile}, {}, tileDType(c, tile), rows, cols, origin,
                       offset, from);
}

bool isCommutative(OpKind k) {
    return k == OpKind::Add || k == OpKind::Mul || k == OpKind::Max || k == OpKind::Min;
}

// The tile of `region` of x for the result tile `position` of a reader, private to it, so
// that result tiles (chains) do not share on-chip tiles and can run on different cores: an
// elementwise producer is recomputed for this region (up to kMaxRecompute ops deep), a value
// in GM is loaded again; what a reduction or transpose produced is shared (its readers
// depend on all of it anyway).
ValueId privateTile(Ctx& c, ValueId x, const Region& region, const Region& position,
                    Provenance from, int depth) {
    const PrivateKey key{x, region, position, c.privateScope};
    if (auto it = c.privateTiles.find(key); it != c.privateTiles.end()) return it->second;
    const Op* producer = c.src.producer(x);
    ValueId tile = kNoId;
    if (producer && recomputable(*producer) && depth < kMaxRecompute) {
        const std::vector<bool> all(producer->operands.size(), true);
        tile = computeTile(c, *producer, region, &position, all, depth + 1);
    } else if ((tile = c.values.producedTile(x, region)) == kNoId) {
        tile = c.values.loadFresh(x, c.values.materialise(x), region, from);
    }
    c.privateTiles.emplace(key, tile);
    return tile;
}

// Operand i of `op` read at region rx for the result tile `position`.
ValueId operandTile(Ctx& c, const Op& op, size_t i, const Region& rx, const Region* position,
                    const std::vector<bool>& privateOperand, int depth) {
    const Provenance from = provenanceOf(op);
    const ValueId x = op.operands[i];
    if (c.values.readsFromHome(x, op.id)) return c.values.splitTile(x, rx, from);
    if (std::find(c.readFromHome.begin(), c.readFromHome.end(), x) != c.readFromHome.end())
        return c.values.homeTile(x, rx, from);
    if (position && privateOperand[i]) return privateTile(c, x, rx, *position, from, depth);
    return c.values.tileOf(x, rx, from);
}

// Operand tiles of one result tile, each read at its broadcast region and lined up with the
// rows × cols result: at most one [r×1]/[1×c]/[1×1] operand, and it is the second one.
std::vector<ValueId> operandTiles(Ctx& c, const Op& op, const Region& r, const Region* position,
                                  const std::vector<bool>& privateOperand, int depth) {
    const int64_t rows = rowsOf(r.extent), cols = colsOf(r.extent);
    const Provenance from = provenanceOf(op);
    const Shape& shape = c.src.type(op.result).shape;
    std::vector<ValueId> tiles;
    std::vector<bool> full;
    bool column = false; // an [r×1] or [1×1] operand read by an r×c tile (c > 1)
    for (size_t i = 0; i < op.operands.size(); ++i) {
        const ValueId x = op.operands[i];
        const Region rx = broadcastRegion(r, shape, c.src.type(x).shape);
        const int64_t xr = rowsOf(rx.extent), xc = colsOf(rx.extent);
        if ((xr != rows && xr != 1) || (xc != cols && xc != 1))
            c.shapes.fail(op, fmt::format("operand {} ({}) is read as a {}x{} block of a {}x{} "
                                          "tile; a tile operand may only broadcast as [r×1], "
                                          "[1×c] or [1×1]; use a vec_tile with leading sizes 1 "
                                          "(e.g. vec_tile = {})",
                                          valueRef(c.src, x), typeRef(c.src.type(x)), xr, xc, rows,
                                          cols, leadingOnes(r.extent)));
        tiles.push_back(operandTile(c, op, i, rx, position, privateOperand, depth));
        full.push_back(xr == rows && xc == cols);
        column = column || (xc == 1 && cols > 1);
    }
    // TCMP has no row-broadcast form: cmp expands an [r×1] or [1×1] operand explicitly.
    const bool binary = opInfo(op.kind).cls == OpClass::Binary && tiles.size() == 2 &&
                        !(op.kind == OpKind::Cmp && column);
    const size_t partial = size_t(std::count(full.begin(), full.end(), false));
    if (binary && partial == 1 && !full[0] && isCommutative(op.kind)) {
        std::swap(tiles[0], tiles[1]);
        return tiles;
    }
    for (size_t i = 0; i < tiles.size(); ++i) {
        const bool lastBroadcastOfBinary = binary && i == 1;
        if (!full[i] && !lastBroadcastOfBinary)
            tiles[i] = broadcastTile(c, tiles[i], rows, cols, from);
    }
    return tiles;
}

} // namespace

bool recomputable(const Op& op) {
    switch (opInfo(op.kind).cls) {
    case OpClass::Binary:
    case OpClass::Scalar:
    case OpClass::Unary:
    case OpClass::Select:
        return true;
    case OpClass::Layout:
        return op.kind == OpKind::Broadcast || op.kind == OpKind::Fill;
    default:
        return false;
    }
}

DType tileDType(const Ctx& c, ValueId tile) {
    return c.emit.type(tile).dtype;
}

// Emits the tile op computing region r of op's result.
ValueId computeTile(Ctx& c, const Op& op, const Region& r, const Region* position,
                    const std::vector<bool>& privateOperand, int depth) {
    const Type& rt = c.src.type(op.result);
    const int64_t rows = rowsOf(r.extent), cols = colsOf(r.extent);
    if (op.kind == OpKind::Broadcast) {
        const Region rx = broadcastRegion(r, rt.shape, c.src.type(op.operands[0]).shape);
        // Nothing to expand inside this tile: the operand's tile is the result's tile.
        if (rowsOf(rx.extent) == rows && colsOf(rx.extent) == cols)
            return operandTile(c, op, 0, rx, position, privateOperand, depth);
    }
    std::vector<ValueId> operands = operandTiles(c, op, r, position, privateOperand, depth);
    return c.emit.tile(op.kind, std::move(operands), computeAttrs(op), rt.dtype, rows, cols,
                       op.result, r.offset, provenanceOf(op));
}

std::vector<DType> dtypesOf(const Ctx& c, const Op& op) {
    std::vector<DType> d;
    if (op.result != kNoId) d.push_back(c.src.type(op.result).dtype);
    const Shape& shape = c.src.type(op.result).shape;
    for (ValueId x : op.operands) {
        const Shape& xs = c.src.type(x).shape;
        // Operands broadcast along the last dim occupy a column only.
        if (xs.rank() == 0 || (xs.back() == 1 && shape.rank() && shape.back() != 1)) continue;
        d.push_back(c.src.type(x).dtype);
    }
    return d;
}

} // namespace pto::expand
