// The C++ builder API: ops appended with shape inference, errors at the caller's line.
#include "compiler/frontend/Builder.h"

#include "compiler/ir/Printer.h"
#include "compiler/ir/ShapeInference.h"
#include "compiler/ir/Verifier.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

namespace pto {
namespace {

bool isPlainName(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.'))
            return false;
    return true;
}

SourceLoc toSourceLoc(const std::source_location& loc) {
    return SourceLoc{uint32_t(loc.line()), uint32_t(loc.column())};
}

} // namespace

struct ModuleBuilder::State {
    Function f;
    std::unordered_set<std::string> names;
    bool returned = false;
    // A loop body under construction: the function it is nested in, the outer values behind
    // its capture arguments, and whether the loop took it already (closed).
    int64_t outer = -1;
    bool closed = false;
    std::vector<ValueId> captureSources;
    std::unordered_map<ValueId, ValueId> captured; // outer value -> capture argument
};

Type tensorType(std::initializer_list<int64_t> shape, DType dtype) {
    return tensorType(Shape(shape), dtype);
}

Type tensorType(const Shape& shape, DType dtype) {
    return Type{dtype, shape, MemSpace::None};
}

// --- ModuleBuilder -------------------------------------------------------------------------

ModuleBuilder::ModuleBuilder(std::string file) : m_file(std::move(file)) {}
ModuleBuilder::~ModuleBuilder() = default;

void ModuleBuilder::fail(Loc loc, const std::string& message) {
    throw CompileError(loc.file_name(), toSourceLoc(loc), message);
}

ModuleBuilder::State& ModuleBuilder::state(uint32_t function, Loc loc) {
    if (m_finished) fail(loc, "the module was already finished (finish() hands it over once)");
    if (function >= m_functions.size()) fail(loc, "invalid function handle");
    if (m_functions[function]->closed)
        fail(loc, "the loop body was closed: its builder is only valid inside forLoop's callback");
    return *m_functions[function];
}

ValueId ModuleBuilder::resolve(uint32_t function, const ValueRef& v, Loc loc) {
    if (v.m_builder != this || v.m_id == kNoId) return kNoId;
    if (v.m_function == function) return v.m_id;
    State& s = state(function, loc);
    if (s.outer < 0) return kNoId;
    const ValueId outer = resolve(uint32_t(s.outer), v, loc);
    if (outer == kNoId) return kNoId;
    if (auto it = s.captured.find(outer); it != s.captured.end()) return it->second;
    const Function& of = m_functions[size_t(s.outer)]->f;
    const ValueId arg = s.f.addArg(of.type(outer), of.value(outer).name);
    s.captureSources.push_back(outer);
    s.captured.emplace(outer, arg);
    return arg;
}

FunctionBuilder ModuleBuilder::function(const std::string& name, Loc loc) {
    if (m_finished) fail(loc, "the module was already finished");
    if (!isPlainName(name))
        fail(loc, fmt::format("invalid function name '{}' (letters, digits, '_' and '.')", name));
    for (const auto& s : m_functions)
        if (s->outer < 0 && s->f.name == name)
            fail(loc, fmt::format("redefinition of function @{}", name));
    auto s = std::make_unique<State>();
    s->f.name = name;
    s->f.level = Level::Tensor;
    s->f.loc = toSourceLoc(loc);
    m_functions.push_back(std::move(s));
    return FunctionBuilder(this, uint32_t(m_functions.size() - 1));
}

Module ModuleBuilder::finish(Loc loc) {
    if (m_finished) fail(loc, "the module was already finished");
    if (m_functions.empty()) fail(loc, "the module has no function");
    Module m;
    m.file = m_file;
    for (auto& s : m_functions) {
        if (s->outer >= 0) continue; // a loop body: its loop owns it
        if (!s->returned) fail(loc, fmt::format("@{} has no ret()", s->f.name));
        verifyFunction(s->f, m_file);
        m.functions.push_back(std::move(s->f));
    }
    m_finished = true;
    return m;
}

// --- ValueRef ------------------------------------------------------------------------------

const Type& ValueRef::type() const {
    if (!m_builder) throw CompileError({}, {}, "type() of an empty ValueRef");
    return m_builder->state(m_function, std::source_location::current()).f.type(m_id);
}

ValueRef ValueRef::named(const std::string& name, Loc loc) const {
    if (!m_builder) ModuleBuilder::fail(loc, "named() on an empty ValueRef");
    ModuleBuilder::State& s = m_builder->state(m_function, loc);
    if (!isPlainName(name))
        ModuleBuilder::fail(
            loc, fmt::format("invalid value name '{}' (letters, digits, '_', '.')", name));
    Value& v = s.f.value(m_id);
    if (v.name == name) return *this;
    if (!s.names.insert(name).second)
        ModuleBuilder::fail(loc, fmt::format("redefinition of %{} in @{}", name, s.f.name));
    if (!v.name.empty()) s.names.erase(v.name);
    v.name = name;
    return *this;
}

ValueRef ValueRef::vecTile(std::vector<int64_t> sizes, Loc loc) const {
    if (!m_builder) ModuleBuilder::fail(loc, "vecTile() on an empty ValueRef");
    ModuleBuilder::State& s = m_builder->state(m_function, loc);
    OpId def = s.f.value(m_id).def;
    if (def == kNoId) ModuleBuilder::fail(loc, "vecTile() on a function argument (no op)");
    Op& op = s.f.op(def);
    Attrs attrs = op.attrs;
    attrs.set("vec_tile", std::move(sizes));
    try {
        inferResultType(s.f, op.kind, op.operands, attrs, &s.f.type(m_id));
    } catch (const ShapeError& e) {
        ModuleBuilder::fail(loc, e.what());
    }
    op.attrs = std::move(attrs);
    return *this;
}

ValueRef ValueRef::cubeTile(std::array<int64_t, 2> m, std::array<int64_t, 2> k,
                            std::array<int64_t, 2> n, Loc loc) const {
    if (!m_builder) ModuleBuilder::fail(loc, "cubeTile() on an empty ValueRef");
    ModuleBuilder::State& s = m_builder->state(m_function, loc);
    OpId def = s.f.value(m_id).def;
    if (def == kNoId || s.f.op(def).kind != OpKind::Matmul)
        ModuleBuilder::fail(loc, "cubeTile() applies to the result of a matmul");
    Op& op = s.f.op(def);
    Attrs attrs = op.attrs;
    attrs.set("cube_tile", std::vector<int64_t>{m[0], m[1], k[0], k[1], n[0], n[1]});
    try {
        inferResultType(s.f, op.kind, op.operands, attrs, &s.f.type(m_id));
    } catch (const ShapeError& e) {
        ModuleBuilder::fail(loc, e.what());
    }
    op.attrs = std::move(attrs);
    return *this;
}

// --- FunctionBuilder -----------------------------------------------------------------------

const Function& FunctionBuilder::function() const {
    return m_builder->state(m_index, std::source_location::current()).f;
}

ValueRef FunctionBuilder::arg(const std::string& name, const Type& type, Loc loc) {
    ModuleBuilder::State& s = m_builder->state(m_index, loc);
    if (!s.f.ops().empty() || s.returned)
        ModuleBuilder::fail(loc, fmt::format("@{}: arguments come before the first op", s.f.name));
    if (!isPlainName(name))
        ModuleBuilder::fail(loc, fmt::format("invalid argument name '{}'", name));
    if (!s.names.insert(name).second)
        ModuleBuilder::fail(loc, fmt::format("redefinition of %{} in @{}", name, s.f.name));
    if (type.space != MemSpace::None || !checkedElementCount(type.shape))
        ModuleBuilder::fail(
            loc, fmt::format("argument %{} needs a tensor type with positive dims", name));
    return ValueRef(m_builder, m_index, s.f.addArg(type, name));
}

ValueRef FunctionBuilder::build(OpKind kind, const std::vector<ValueRef>& operands, Attrs attrs,
                                const Type* declared, Loc loc) {
    ModuleBuilder::State& s = m_builder->state(m_index, loc);
    if (s.returned)
        ModuleBuilder::fail(loc, fmt::format("@{}: '{}' after ret()", s.f.name, opName(kind)));
    Op op;
    op.kind = kind;
    op.loc = toSourceLoc(loc);
    std::vector<Type> types;
    for (size_t i = 0; i < operands.size(); ++i) {
        const ValueId id = m_builder->resolve(m_index, operands[i], loc);
        if (id == kNoId)
            ModuleBuilder::fail(loc, fmt::format("{}: operand {} is not a value of @{}",
                                                 opName(kind), i, s.f.name));
        op.operands.push_back(id);
        types.push_back(s.f.type(id));
    }
    normalizeAttrs(kind, types, attrs);
    op.attrs = std::move(attrs);
    Type type;
    try {
        type = inferResultType(Level::Tensor, kind, types, op.attrs, declared);
    } catch (const ShapeError& e) {
        ModuleBuilder::fail(loc, e.what());
    }
    bool hasResult = opHasResult(kind);
    OpId id = s.f.addOp(std::move(op), hasResult ? &type : nullptr);
    return hasResult ? ValueRef(m_builder, m_index, s.f.op(id).result) : ValueRef();
}

void FunctionBuilder::vecTile(std::vector<int64_t> sizes, Loc loc) {
    Attrs attrs;
    attrs.set("sizes", std::move(sizes));
    build(OpKind::VecTile, {}, std::move(attrs), nullptr, loc);
}

void FunctionBuilder::cubeTile(std::array<int64_t, 2> m, std::array<int64_t, 2> k,
                               std::array<int64_t, 2> n, Loc loc) {
    Attrs attrs;
    attrs.set("sizes", std::vector<int64_t>{m[0], m[1], k[0], k[1], n[0], n[1]});
    build(OpKind::CubeTile, {}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::matmul(ValueRef a, ValueRef b, MatmulOptions options, Loc loc) {
    Attrs attrs;
    if (options.transposeA) attrs.set("transpose_a", true);
    if (options.transposeB) attrs.set("transpose_b", true);
    if (!options.resultDType) return build(OpKind::Matmul, {a, b}, std::move(attrs), nullptr, loc);
    // The declared type only changes the dtype; take the shape from inference.
    std::vector<Type> types{a.type(), b.type()};
    Type t;
    try {
        t = inferResultType(Level::Tensor, OpKind::Matmul, types, attrs, nullptr);
    } catch (const ShapeError& e) {
        ModuleBuilder::fail(loc, e.what());
    }
    t.dtype = *options.resultDType;
    return build(OpKind::Matmul, {a, b}, std::move(attrs), &t, loc);
}

ValueRef FunctionBuilder::scalar(OpKind kind, ValueRef a, double s, Loc loc) {
    Attrs attrs;
    attrs.set("scalar", s);
    return build(kind, {a}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::cast(ValueRef x, DType to, RoundMode round, Loc loc) {
    Attrs attrs;
    if (round != RoundMode::NearestEven) attrs.set("round", std::string(roundModeName(round)));
    Type t = tensorType(x.shape(), to);
    return build(OpKind::Cast, {x}, std::move(attrs), &t, loc);
}

ValueRef FunctionBuilder::softmax(ValueRef x, std::optional<int64_t> axis, Loc loc) {
    Attrs attrs;
    if (axis) attrs.set("axis", *axis);
    return build(OpKind::Softmax, {x}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::rmsNorm(ValueRef x, std::optional<ValueRef> weight,
                                  std::optional<double> eps, Loc loc) {
    Attrs attrs;
    if (eps) attrs.set("eps", *eps);
    std::vector<ValueRef> operands{x};
    if (weight) operands.push_back(*weight);
    return build(OpKind::RmsNorm, operands, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::layerNorm(ValueRef x, std::optional<ValueRef> gamma,
                                    std::optional<ValueRef> beta, std::optional<double> eps,
                                    Loc loc) {
    if (beta && !gamma) ModuleBuilder::fail(loc, "layer_norm: beta needs gamma");
    Attrs attrs;
    if (eps) attrs.set("eps", *eps);
    std::vector<ValueRef> operands{x};
    if (gamma) operands.push_back(*gamma);
    if (beta) operands.push_back(*beta);
    return build(OpKind::LayerNorm, operands, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::reduce(OpKind kind, ValueRef x, int64_t axis, bool keepdim, Loc loc) {
    Attrs attrs;
    attrs.set("axis", axis);
    if (keepdim) attrs.set("keepdim", true);
    return build(kind, {x}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::cmp(ValueRef a, ValueRef b, CmpPred pred, Loc loc) {
    Attrs attrs;
    attrs.set("pred", std::string(cmpPredName(pred)));
    return build(OpKind::Cmp, {a, b}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::cmp(ValueRef a, double s, CmpPred pred, Loc loc) {
    Attrs attrs;
    attrs.set("scalar", s);
    attrs.set("pred", std::string(cmpPredName(pred)));
    return build(OpKind::CmpS, {a}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::where(ValueRef cond, ValueRef a, ValueRef b, Loc loc) {
    return build(OpKind::Where, {cond, a, b}, {}, nullptr, loc);
}

ValueRef FunctionBuilder::dequantize(ValueRef q, ValueRef scale, DType to, Loc loc) {
    Type t = tensorType(q.shape(), to);
    return build(OpKind::Dequantize, {q, scale}, {}, &t, loc);
}

ValueRef FunctionBuilder::reshape(ValueRef x, const Shape& shape, Loc loc) {
    Type t = tensorType(shape, x.dtype());
    return build(OpKind::Reshape, {x}, {}, &t, loc);
}

ValueRef FunctionBuilder::transpose(ValueRef x, std::vector<int64_t> perm, Loc loc) {
    Attrs attrs;
    attrs.set("perm", std::move(perm));
    return build(OpKind::Transpose, {x}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::view(ValueRef x, std::vector<int64_t> offsets, std::vector<int64_t> sizes,
                               Loc loc) {
    Attrs attrs;
    attrs.set("offsets", std::move(offsets));
    attrs.set("sizes", std::move(sizes));
    return build(OpKind::View, {x}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::viewAt(ValueRef x, ValueRef iv, std::vector<int64_t> ivStrides,
                                 std::vector<int64_t> offsets, std::vector<int64_t> sizes,
                                 bool clip, Loc loc) {
    Attrs attrs;
    attrs.set("offsets", std::move(offsets));
    attrs.set("sizes", std::move(sizes));
    attrs.set("iv_strides", std::move(ivStrides));
    if (clip) attrs.set("clip", true);
    return build(OpKind::View, {x, iv}, std::move(attrs), nullptr, loc);
}

std::vector<ValueRef> FunctionBuilder::forLoop(const std::string& name, int64_t lower,
                                               int64_t upper, const std::vector<ValueRef>& init,
                                               const LoopBody& body, int64_t step, Loc loc) {
    ModuleBuilder::State& s = m_builder->state(m_index, loc);
    if (s.returned) ModuleBuilder::fail(loc, fmt::format("@{}: 'for' after ret()", s.f.name));
    Op op;
    op.kind = OpKind::For;
    op.loc = toSourceLoc(loc);
    op.attrs.set("lower", lower);
    op.attrs.set("upper", upper);
    op.attrs.set("step", step);
    if (!name.empty()) op.attrs.set("name", name);
    for (size_t i = 0; i < init.size(); ++i) {
        const ValueId id = m_builder->resolve(m_index, init[i], loc);
        if (id == kNoId)
            ModuleBuilder::fail(
                loc, fmt::format("for: initial value {} is not a value of @{}", i, s.f.name));
        op.operands.push_back(id);
    }
    auto b = std::make_unique<ModuleBuilder::State>();
    b->outer = m_index;
    b->f.name = name.empty() ? std::string("for") : name;
    b->f.level = Level::Tensor;
    b->f.loc = toSourceLoc(loc);
    const ValueId iv = b->f.addArg(Type{DType::I32, Shape{}, MemSpace::None}, "i");
    b->names.insert("i");
    std::vector<ValueRef> iterArgs;
    const uint32_t index = uint32_t(m_builder->m_functions.size());
    for (ValueId v : op.operands)
        iterArgs.push_back(ValueRef(m_builder, index, b->f.addArg(s.f.type(v), {})));
    m_builder->m_functions.push_back(std::move(b));
    FunctionBuilder inner(m_builder, index);
    std::vector<ValueRef> yielded = body(inner, ValueRef(m_builder, index, iv), iterArgs);
    ModuleBuilder::State& bs = m_builder->state(index, loc);
    if (yielded.size() != iterArgs.size())
        ModuleBuilder::fail(loc, fmt::format("for: the body yields {} values for {} iter_args",
                                             yielded.size(), iterArgs.size()));
    for (size_t i = 0; i < yielded.size(); ++i) {
        const ValueId id = m_builder->resolve(index, yielded[i], loc);
        if (id == kNoId || bs.f.type(id) != bs.f.type(iterArgs[i].m_id))
            ModuleBuilder::fail(loc, fmt::format("for: yielded value {} is not a value of the body "
                                                 "of the iter_arg's type",
                                                 i));
        bs.f.results.push_back(id);
    }
    // Re-read the enclosing state: the body's captures may have grown the function list.
    ModuleBuilder::State& outer = m_builder->state(m_index, loc);
    op.operands.insert(op.operands.end(), bs.captureSources.begin(), bs.captureSources.end());
    op.body.push_back(std::move(bs.f));
    bs.closed = true;
    const std::vector<ValueId> results = op.body.front().results;
    const OpId id = outer.f.addOp(std::move(op));
    std::vector<ValueRef> out;
    for (ValueId r : results) {
        Value v;
        v.type = outer.f.op(id).body.front().type(r);
        v.def = id;
        const ValueId nv = outer.f.addValue(std::move(v));
        outer.f.op(id).results.push_back(nv);
        out.push_back(ValueRef(m_builder, m_index, nv));
    }
    return out;
}

ValueRef FunctionBuilder::concat(const std::vector<ValueRef>& values, int64_t axis, Loc loc) {
    Attrs attrs;
    attrs.set("axis", axis);
    return build(OpKind::Concat, values, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::broadcast(ValueRef x, const Shape& shape, Loc loc) {
    Type t = tensorType(shape, x.dtype());
    return build(OpKind::Broadcast, {x}, {}, &t, loc);
}

ValueRef FunctionBuilder::fill(const Type& type, double value, Loc loc) {
    Attrs attrs;
    attrs.set("value", value);
    return build(OpKind::Fill, {}, std::move(attrs), &type, loc);
}

ValueRef FunctionBuilder::gather(ValueRef src, ValueRef index, int64_t axis, Loc loc) {
    Attrs attrs;
    attrs.set("axis", axis);
    return build(OpKind::Gather, {src, index}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::topk(ValueRef x, int64_t k, TopKOptions options, Loc loc) {
    Attrs attrs;
    attrs.set("k", k);
    if (options.axis != -1) attrs.set("axis", options.axis);
    if (!options.largest) attrs.set("largest", false);
    if (options.indices) attrs.set("indices", true);
    return build(OpKind::TopK, {x}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::scatterAdd(ValueRef base, ValueRef index, ValueRef src, int64_t axis,
                                     Loc loc) {
    Attrs attrs;
    attrs.set("axis", axis);
    return build(OpKind::ScatterAdd, {base, index, src}, std::move(attrs), nullptr, loc);
}

ValueRef FunctionBuilder::cumsum(ValueRef x, int64_t axis, Loc loc) {
    Attrs attrs;
    attrs.set("axis", axis);
    return build(OpKind::CumSum, {x}, std::move(attrs), nullptr, loc);
}

// The methods of Ops.def's generated builder forms.
#define PTO_BUILDER_Unary(kind, name)                                                              \
    ValueRef FunctionBuilder::name(ValueRef x, Loc loc) {                                          \
        return unary(OpKind::kind, x, loc);                                                        \
    }
#define PTO_BUILDER_Binary(kind, name)                                                             \
    ValueRef FunctionBuilder::name(ValueRef a, ValueRef b, Loc loc) {                              \
        return binary(OpKind::kind, a, b, loc);                                                    \
    }
#define PTO_BUILDER_Scalar(kind, name)                                                             \
    ValueRef FunctionBuilder::name(ValueRef a, double s, Loc loc) {                                \
        return scalar(OpKind::kind, a, s, loc);                                                    \
    }
#define PTO_BUILDER_Reduce(kind, name)                                                             \
    ValueRef FunctionBuilder::name(ValueRef x, int64_t axis, bool keepdim, Loc loc) {              \
        return reduce(OpKind::kind, x, axis, keepdim, loc);                                        \
    }
#define PTO_BUILDER_Custom(kind, name)
#define PTO_BUILDER_None(kind, name)
#define PTO_OP(kind, mnemonic, levels, minArity, maxArity, cls, rule, flags, attrs, unaryFn,       \
               builder, form)                                                                      \
    PTO_BUILDER_##form(kind, builder)
#include "compiler/ir/Ops.def"
#undef PTO_OP

std::vector<ValueRef> FunctionBuilder::call(const std::string& callee,
                                            const std::vector<ValueRef>& args, Loc loc) {
    ModuleBuilder::State& s = m_builder->state(m_index, loc);
    if (s.returned) ModuleBuilder::fail(loc, fmt::format("@{}: 'call' after ret()", s.f.name));
    const ModuleBuilder::State* g = nullptr;
    for (const auto& other : m_builder->m_functions)
        if (other->outer < 0 && other->f.name == callee) g = other.get();
    if (!g) ModuleBuilder::fail(loc, fmt::format("call of unknown function @{}", callee));
    if (g == &s)
        ModuleBuilder::fail(loc, fmt::format("call @{}: a function may not call itself", callee));
    if (!g->returned)
        ModuleBuilder::fail(loc, fmt::format("call @{}: @{} has not called ret() yet (build the "
                                             "callee first)",
                                             callee, callee));
    if (args.size() != g->f.args.size())
        ModuleBuilder::fail(loc, fmt::format("call @{}: passes {} arguments, but @{} takes {}",
                                             callee, args.size(), callee, g->f.args.size()));
    Op op;
    op.kind = OpKind::Call;
    op.loc = toSourceLoc(loc);
    op.attrs.set("callee", callee);
    for (size_t i = 0; i < args.size(); ++i) {
        const ValueRef& v = args[i];
        if (v.m_builder != m_builder || v.m_function != m_index || v.m_id == kNoId)
            ModuleBuilder::fail(loc, fmt::format("call @{}: argument {} is not a value of @{}",
                                                 callee, i, s.f.name));
        if (s.f.type(v.m_id) != g->f.type(g->f.args[i]))
            ModuleBuilder::fail(loc, fmt::format("call @{}: argument {} has type {}, but @{} takes "
                                                 "{}",
                                                 callee, i, formatType(s.f.type(v.m_id), s.f.level),
                                                 callee,
                                                 formatType(g->f.type(g->f.args[i]), s.f.level)));
        op.operands.push_back(v.m_id);
    }
    const OpId id = s.f.addOp(std::move(op));
    std::vector<ValueRef> results;
    for (ValueId r : g->f.results) {
        Value v;
        v.type = g->f.type(r);
        v.def = id;
        const ValueId nv = s.f.addValue(std::move(v));
        s.f.op(id).results.push_back(nv);
        results.push_back(ValueRef(m_builder, m_index, nv));
    }
    return results;
}

void FunctionBuilder::ret(ValueRef value, Loc loc) {
    ret(std::vector<ValueRef>{value}, loc);
}

void FunctionBuilder::ret(const std::vector<ValueRef>& values, Loc loc) {
    ModuleBuilder::State& s = m_builder->state(m_index, loc);
    if (s.returned) ModuleBuilder::fail(loc, fmt::format("@{}: ret() called twice", s.f.name));
    std::vector<ValueId> ids;
    for (size_t i = 0; i < values.size(); ++i) {
        const ValueRef& v = values[i];
        if (v.m_builder != m_builder || v.m_function != m_index || v.m_id == kNoId)
            ModuleBuilder::fail(loc,
                                fmt::format("ret: value {} is not a value of @{}", i, s.f.name));
        ids.push_back(v.m_id);
    }
    s.f.results = std::move(ids);
    s.returned = true;
}

} // namespace pto
