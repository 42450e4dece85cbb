// Construction and renumbering of Tensor/Tile-level functions.
#include "compiler/ir/Graph.h"

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
    std::vector<ValueId> remap(m_values.size(), kNoId);
    std::vector<Value> kept;
    kept.reserve(m_values.size());
    auto keep = [&](ValueId v) {
        if (v == kNoId) return kNoId;
        if (remap[v] == kNoId) {
            remap[v] = ValueId(kept.size());
            kept.push_back(std::move(m_values[v]));
        }
        return remap[v];
    };
    for (ValueId& a : args) a = keep(a);
    for (size_t i = 0; i < m_ops.size(); ++i) {
        Op& o = m_ops[i];
        o.id = OpId(i);
        for (ValueId& v : o.operands) v = keep(v);
        o.result = keep(o.result);
        if (o.result != kNoId) kept[o.result].def = o.id;
    }
    for (ValueId& r : results) r = keep(r);
    m_values = std::move(kept);
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
