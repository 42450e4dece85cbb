// How much UB a topk or cumsum line may take, and when strips of whole columns fit: shared by
// expand-tiles (which lowers a line along the second-last axis by such strips) and
// decompose-composites (which swaps the last two axes first when they do not fit).
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"

#include <algorithm>
#include <cstdint>

namespace pto {

/// The UB one topk or cumsum tile may take, in bytes of its own dtype: a line of x (the
/// elements along the axis) and its result line (k values or i32 positions, or the prefix sums)
/// each. The source tile and the result tile then sit in the 184 KiB of UB together.
inline constexpr int64_t kMaxLineBytes = 64 * 1024;

/// The UB a strip of whole columns (a topk or cumsum along the second-last axis) may take in
/// bytes of its own dtype: the strip and its result strip stay live together with whatever the
/// ops around them hold, so a strip is kept to twice the default tile (DefaultVecTiles.h); a
/// longer column runs through a transpose and whole rows (decompose-composites).
inline constexpr int64_t kMaxStripBytes = 32 * 1024;

/// The bytes of the larger of a line of x along `axis` and the result's line along it.
inline int64_t lineBytes(const Type& x, const Type& y, int axis) {
    return std::max(x.shape[axis] * dtypeSize(x.dtype), y.shape[axis] * dtypeSize(y.dtype));
}

/// The columns of the narrowest strip of whole columns expand-tiles takes along the
/// second-last axis: one 32 B tile row (topk: of x's dtype; cumsum: of its f32 width, the
/// step expand/CumSum.cpp tiles by), or every column when there are fewer.
inline int64_t minStripColumns(OpKind kind, const Type& x) {
    const int64_t elem =
        kind == OpKind::CumSum ? std::max<int64_t>(dtypeSize(x.dtype), 4) : dtypeSize(x.dtype);
    const int64_t step = std::max<int64_t>(1, kRowAlignBytes / elem);
    return std::min(step, x.shape[x.shape.rank() - 1]);
}

/// True when a topk or cumsum of x into y along the second-last axis lowers as strips of whole
/// columns whose every tile takes at most kMaxStripBytes.
inline bool columnStripsFit(OpKind kind, const Type& x, const Type& y) {
    const int n = x.shape.rank();
    return lineBytes(x, y, n - 2) * minStripColumns(kind, x) <= kMaxStripBytes;
}

} // namespace pto
