// Appends the ops of the Tile function expand-tiles builds, each with the provenance given.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/passes/expand/Rewrite.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pto::expand {

// A new op made from `op` of the Tensor function being expanded.
inline Provenance provenanceOf(const Op& op) {
    return {op.id, op.loc};
}

// Appends ops to the Tile function; each carries the provenance it is given.
class TileEmitter {
public:
    explicit TileEmitter(Function& dst) : m_dst(dst) {}

    Function& fn() { return m_dst; }

    ValueId gmTensor(DType dtype, const Shape& shape, std::string name, const char* role,
                     Provenance from) {
        Op op = makeOp(OpKind::GmTensor, {}, {}, from);
        op.attrs.set("role", std::string(role));
        Type t{dtype, shape, MemSpace::GM};
        return m_dst.op(m_dst.addOp(std::move(op), &t, std::move(name))).result;
    }

    // A tile op: its result is a rows × cols tile of `dtype` covering `offset` of `origin`.
    ValueId tile(OpKind kind, std::vector<ValueId> operands, Attrs attrs, DType dtype, int64_t rows,
                 int64_t cols, ValueId origin, const Shape& offset, Provenance from) {
        Type t{dtype, Shape{rows, cols}, MemSpace::None};
        OpId id = m_dst.addOp(makeOp(kind, std::move(operands), std::move(attrs), from), &t);
        ValueId v = m_dst.op(id).result;
        Value& val = m_dst.value(v);
        val.origin = origin;
        val.offset = offset;
        return v;
    }

    void store(ValueId tile, ValueId gm, const Shape& gmOffset, Provenance from) {
        m_dst.addOp(makeOp(OpKind::TStore, {tile, gm}, offsetAttr(gmOffset), from));
    }

    const Type& type(ValueId v) const { return m_dst.type(v); }

private:
    Function& m_dst;
};

} // namespace pto::expand
