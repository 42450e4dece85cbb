// Helpers of the passes that rewrite a function op by op (expand-tiles, insert-copies): the
// provenance a new op carries, building an op, and the `offset` attribute of tile ops.
#pragma once

#include "compiler/ir/Graph.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace pto::expand {

using Ints = std::vector<int64_t>;

// What a new op records of the op it was made from: `parent` and the source location.
struct Provenance {
    OpId parent = kNoId;
    SourceLoc loc;
};

// An op of `kind` (no result yet) carrying `from`'s provenance.
inline Op makeOp(OpKind kind, std::vector<ValueId> operands, Attrs attrs, Provenance from) {
    Op op;
    op.kind = kind;
    op.operands = std::move(operands);
    op.attrs = std::move(attrs);
    op.parent = from.parent;
    op.loc = from.loc;
    return op;
}

// The all-zero offset of a tensor of `rank` dims.
inline Shape zeros(int rank) {
    Shape s;
    for (int i = 0; i < rank; ++i) s.push(0);
    return s;
}

inline Ints toInts(const Shape& s) {
    return Ints(s.begin(), s.end());
}

// The `offset` attribute of a tload, tstore or tmove.
inline Attrs offsetAttr(const Shape& offset) {
    Attrs a;
    a.set("offset", toInts(offset));
    return a;
}

} // namespace pto::expand
