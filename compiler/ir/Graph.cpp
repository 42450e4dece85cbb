// Construction and renumbering of Tensor/Tile-level functions.
#include "compiler/ir/Graph.h"

#include "base/TripCount.h"

namespace pto {

std::string_view levelName(Level level) {
    return level == Level::Tensor ? "tensor" : "tile";
}

ValueId Function::addValue(Value v) {
    m_values.push_back(std::move(v));
    return ValueId(m_values.size() - 1);
}

ValueId Function::addArg(Type type, std::string argName) {
    Value v;
    v.type = std::move(type);
    v.name = std::move(argName);
    ValueId id = addValue(std::move(v));
    args.push_back(id);
    return id;
}

OpId Function::addOp(Op op, const Type* resultType, std::string resultName) {
    OpId id = OpId(m_ops.size());
    op.id = id;
    if (resultType) {
        Value v;
        v.type = *resultType;
        v.name = std::move(resultName);
        v.def = id;
        op.result = addValue(std::move(v));
    }
    m_ops.push_back(std::move(op));
    return id;
}

void Function::linkToPreviousStage() {
    for (Op& o : m_ops) o.parent = o.id;
}

void Function::renumber() {
    // New value ids by first mention (arguments, then each op's operands and results, then the
    // function's results); unmentioned values are dropped.
    std::vector<ValueId> remap(m_values.size(), kNoId);
    std::vector<ValueId> order; // new id → old id
    order.reserve(m_values.size());
    auto keep = [&](ValueId v) {
        if (v == kNoId) return kNoId;
        if (remap[v] == kNoId) {
            remap[v] = ValueId(order.size());
            order.push_back(v);
        }
        return remap[v];
    };
    for (ValueId& a : args) a = keep(a);
    for (size_t i = 0; i < m_ops.size(); ++i) {
        Op& o = m_ops[i];
        o.id = OpId(i);
        for (ValueId& v : o.operands) v = keep(v);
        o.result = keep(o.result);
        for (ValueId& r : o.results) r = keep(r);
    }
    for (ValueId& r : results) r = keep(r);
    // Most passes keep every value in place: then the values need not move.
    bool inPlace = order.size() == m_values.size();
    for (size_t i = 0; inPlace && i < order.size(); ++i) inPlace = order[i] == ValueId(i);
    if (!inPlace) {
        std::vector<Value> kept;
        kept.reserve(order.size());
        for (ValueId old : order) kept.push_back(std::move(m_values[old]));
        m_values = std::move(kept);
    }
    for (const Op& o : m_ops) {
        if (o.result != kNoId) m_values[o.result].def = o.id;
        for (ValueId r : o.results) m_values[r].def = o.id;
    }
}

std::vector<OpId> definingOps(const Function& f) {
    std::vector<OpId> defs;
    defs.reserve(f.valueCount());
    for (const Value& v : f.values()) defs.push_back(v.def);
    return defs;
}

int64_t loopTripCount(const Op& op) {
    const int64_t lower = op.attrs.getInt("lower"), upper = op.attrs.getInt("upper");
    return tripCount(lower, upper, op.attrs.getInt("step", 1));
}

std::optional<size_t> affineOperandBase(OpKind kind) {
    switch (kind) {
    case OpKind::View:
    case OpKind::TLoad:
        return 1;
    case OpKind::TStore:
        return 2;
    default:
        return std::nullopt;
    }
}

std::string_view affineOffsetAttr(OpKind kind) {
    return kind == OpKind::View ? "offsets" : "offset";
}

bool hasAffineOffsets(const Op& op) {
    std::optional<size_t> base = affineOperandBase(op.kind);
    return base && op.operands.size() > *base;
}

std::vector<int64_t> affineViewOffsets(const Op& op, std::span<const int64_t> ivValues) {
    std::vector<int64_t> offsets =
        op.attrs.getInts(affineOffsetAttr(op.kind)).value_or(std::vector<int64_t>{});
    std::vector<int64_t> strides = op.attrs.getInts("iv_strides").value_or(std::vector<int64_t>{});
    const size_t rank = offsets.size();
    for (size_t k = 0; k < ivValues.size(); ++k)
        for (size_t d = 0; d < rank && k * rank + d < strides.size(); ++d)
            offsets[d] += strides[k * rank + d] * ivValues[k];
    return offsets;
}

Function* Module::entry() {
    for (Function& f : functions)
        if (f.name == "main") return &f;
    return functions.empty() ? nullptr : &functions.back();
}

const Function* Module::entry() const {
    return const_cast<Module*>(this)->entry();
}

} // namespace pto
