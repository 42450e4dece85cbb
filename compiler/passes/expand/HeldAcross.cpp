// Operand tiles an elementwise op reads from GM: held across a reduction, or back from the cube.
#include "compiler/passes/expand/HeldAcross.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pto::expand {
namespace {

// How far up the Tensor graph the searches look (recomputation goes 8 ops deep).
constexpr int kSearchDepth = 16;

// The ops up to kSearchDepth producers above `from` (itself included when it is an op's
// result), breadth first.
std::vector<const Op*> producersAbove(const Function& f, ValueId from) {
    std::vector<const Op*> found;
    std::vector<ValueId> level{from}, next;
    std::vector<ValueId> seen{from};
    for (int d = 0; d < kSearchDepth && !level.empty(); ++d) {
        next.clear();
        for (ValueId v : level) {
            const Op* p = f.producer(v);
            if (!p) continue;
            found.push_back(p);
            for (ValueId x : p->operands)
                if (std::find(seen.begin(), seen.end(), x) == seen.end()) {
                    seen.push_back(x);
                    next.push_back(x);
                }
        }
        std::swap(level, next);
    }
    return found;
}

bool computedFrom(const Function& f, ValueId v, ValueId from) {
    if (v == from) return true;
    for (const Op* p : producersAbove(f, v))
        if (std::find(p->operands.begin(), p->operands.end(), from) != p->operands.end())
            return true;
    return false;
}

// The tiles of the grid `tile` over `shape` that a reduction over `reduce`'s axis sees
// together: those along that axis when the ranks match, every tile otherwise.
int64_t tilesPerReduction(const Function& f, const Op& reduce, const Shape& shape,
                          const Shape& tile) {
    const Shape& in = f.type(reduce.operands[0]).shape;
    int64_t axis = reduce.attrs.getInt("axis", -1);
    if (axis < 0) axis += in.rank();
    if (in.rank() == shape.rank() && axis >= 0 && axis < shape.rank() && in[axis] == shape[axis])
        return ceilDiv(shape[axis], tile[axis]);
    int64_t all = 1;
    for (int d = 0; d < shape.rank(); ++d) all *= ceilDiv(shape[d], tile[d]);
    return all;
}

// Whether some path up the Tensor graph from `from` reaches `target` through a matmul. Ops
// come after the producers of their operands, so the search stops at values made before
// `target`: it covers the ops between the two, not everything above (a loop's unrolled
// iterations chain every iteration to the ones before).
bool reachesThroughMatmul(const Function& f, ValueId from, ValueId target) {
    const OpId targetDef = f.value(target).def;
    std::unordered_map<ValueId, uint8_t> seen; // bit 0: reached, bit 1: through a matmul
    std::vector<std::pair<ValueId, bool>> stack{{from, false}};
    while (!stack.empty()) {
        auto [v, cube] = stack.back();
        stack.pop_back();
        const uint8_t bit = cube ? 2 : 1;
        uint8_t& mark = seen[v];
        if (mark & bit) continue;
        mark |= bit;
        if (v == target) {
            if (cube) return true;
            continue;
        }
        const Op* p = f.producer(v);
        if (!p || (targetDef != kNoId && p->id < targetDef)) continue;
        const bool next = cube || p->kind == OpKind::Matmul;
        for (ValueId x : p->operands) stack.push_back({x, next});
    }
    return false;
}

// Whether a private tile of x (Compute.cpp, privateTile) at this recomputation depth is made
// without an on-chip tile shared across the reduction: x comes from GM, is a reduction's (small)
// result, or is recomputed from such values within kMaxRecompute ops.
bool recomputedFromGm(const Ctx& c, ValueId x, int depth) {
    const Op* p = c.src.producer(x);
    if (!p || c.values.produced(x).empty() || opInfo(p->kind).cls == OpClass::Reduce) return true;
    if (!recomputable(*p) || depth >= kMaxRecompute) return false;
    return std::all_of(p->operands.begin(), p->operands.end(),
                       [&](ValueId v) { return recomputedFromGm(c, v, depth + 1); });
}

} // namespace

bool computedBackThroughCube(const Ctx& c, const Op& op, size_t i) {
    const ValueId x = op.operands[i];
    // the matmul read x from GM, so x has a home by now
    if (c.values.produced(x).empty() || !c.values.hasHome(x)) return false;
    for (size_t j = 0; j < op.operands.size(); ++j)
        if (op.operands[j] != x && reachesThroughMatmul(c.src, op.operands[j], x)) return true;
    return false;
}

bool heldAcrossReduction(const Ctx& c, const Op& op, size_t i, const Shape& tile) {
    const ValueId x = op.operands[i];
    const Type& xt = c.src.type(x);
    const int64_t budget = c.shapes.target().ubBytes / 2;
    if (xt.shape.numel() * dtypeSize(xt.dtype) <= budget) return false; // never the issue
    const Shape& shape = c.src.type(op.result).shape;
    const Region first = broadcastRegion(Region{zeros(shape.rank()), tile}, shape, xt.shape);
    const int64_t tileBytes = first.extent.numel() * dtypeSize(xt.dtype);
    if (!recomputedFromGm(c, x, 0)) return false; // a private copy would hold as much
    for (size_t j = 0; j < op.operands.size(); ++j) {
        if (op.operands[j] == x) continue;
        for (const Op* p : producersAbove(c.src, op.operands[j]))
            if (opInfo(p->kind).cls == OpClass::Reduce && computedFrom(c.src, p->operands[0], x) &&
                tilesPerReduction(c.src, *p, shape, tile) * tileBytes > budget)
                return true;
    }
    return false;
}

} // namespace pto::expand
