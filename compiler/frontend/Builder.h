// The C++ builder API: Tensor-level programs written in C++ instead of .pto text, with the same
// shape inference, the same IR, and source positions taken from the calling line.
#pragma once

// Example:
//
//   pto::ModuleBuilder mb("my_mlp.cpp");
//   auto f = mb.function("mlp");
//   auto x = f.arg("x", pto::tensorType({128, 512}, pto::DType::F16));
//   auto w = f.arg("w", pto::tensorType({512, 256}, pto::DType::F16));
//   f.vecTile({32, 256});
//   auto h = f.gelu(f.matmul(x, w)).named("h");
//   f.ret(f.cast(h, pto::DType::F16));
//   pto::Module m = mb.finish(); // verified
//
// Every op records the caller's line and column (std::source_location) as its `loc`; every
// error is a CompileError at the caller's file:line ("add: operand shapes 64x1024 and 32x1024 do
// not broadcast (dim 0: 64 vs 32)"). The printed text of a built function equals the printed
// text of the equivalent .pto program. FunctionBuilder and ValueRef are small handles into the
// ModuleBuilder, which must outlive them.

#include "compiler/ir/Graph.h"
#include "compiler/ir/Scalar.h"
#include "compiler/ir/Semantics.h"

#include <array>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

namespace pto {

Type tensorType(std::initializer_list<int64_t> shape, DType dtype);
Type tensorType(const Shape& shape, DType dtype);

class ModuleBuilder;

// A value of a function under construction: an argument or the result of an op.
class ValueRef {
public:
    using Loc = std::source_location;

    ValueRef() = default;
    ValueId id() const { return m_id; }
    const Type& type() const;
    const Shape& shape() const { return type().shape; }
    DType dtype() const { return type().dtype; }

    // Names the value (printed as %name). Names are unique within a function.
    ValueRef named(const std::string& name, Loc loc = Loc::current()) const;
    // Per-op tile shape overrides on the op that defines this value (attrs vec_tile / cube_tile).
    ValueRef vecTile(std::vector<int64_t> sizes, Loc loc = Loc::current()) const;
    ValueRef cubeTile(std::array<int64_t, 2> m, std::array<int64_t, 2> k, std::array<int64_t, 2> n,
                      Loc loc = Loc::current()) const;

private:
    friend class FunctionBuilder;
    friend class ModuleBuilder;
    ValueRef(ModuleBuilder* builder, uint32_t function, ValueId id)
        : m_builder(builder), m_function(function), m_id(id) {}

    ModuleBuilder* m_builder = nullptr;
    uint32_t m_function = 0;
    ValueId m_id = kNoId;
};

struct MatmulOptions {
    bool transposeA = false;
    bool transposeB = false;
    std::optional<DType> resultDType; // default: f32 for float inputs, i32 for i8
};

// Appends ops to one function of a ModuleBuilder.
class FunctionBuilder {
public:
    using Loc = std::source_location;

    ValueRef arg(const std::string& name, const Type& type, Loc loc = Loc::current());

    // Directives: scoped tile shapes for the ops that follow.
    void vecTile(std::vector<int64_t> sizes, Loc loc = Loc::current());
    void cubeTile(std::array<int64_t, 2> m, std::array<int64_t, 2> k, std::array<int64_t, 2> n,
                  Loc loc = Loc::current());

    ValueRef matmul(ValueRef a, ValueRef b, MatmulOptions options = {}, Loc loc = Loc::current());

    // The ops of Ops.def's form column Unary (x), Binary (a, b), Scalar (a, double s) and
    // Reduce (x, axis, keepdim; a negative axis counts from the end), generated: exp, gelu,
    // add, quantize, adds, reduceSum, … (one method per row, named by its builder column).
#define PTO_BUILDER_Unary(name) ValueRef name(ValueRef x, Loc loc = Loc::current());
#define PTO_BUILDER_Binary(name) ValueRef name(ValueRef a, ValueRef b, Loc loc = Loc::current());
#define PTO_BUILDER_Scalar(name) ValueRef name(ValueRef a, double s, Loc loc = Loc::current());
#define PTO_BUILDER_Reduce(name)                                                                   \
    ValueRef name(ValueRef x, int64_t axis, bool keepdim = false, Loc loc = Loc::current());
#define PTO_BUILDER_Custom(name)
#define PTO_BUILDER_None(name)
#define PTO_OP(kind, mnemonic, levels, minArity, maxArity, cls, rule, flags, attrs, unaryFn,       \
               builder, form)                                                                      \
    PTO_BUILDER_##form(builder)
#include "compiler/ir/Ops.def"
#undef PTO_OP
#undef PTO_BUILDER_Unary
#undef PTO_BUILDER_Binary
#undef PTO_BUILDER_Scalar
#undef PTO_BUILDER_Reduce
#undef PTO_BUILDER_Custom
#undef PTO_BUILDER_None

    // The binary names with a double are the tensor-scalar ops.
    ValueRef add(ValueRef a, double s, Loc loc = Loc::current()) {
        return adds(a, s, loc);
    }
    ValueRef sub(ValueRef a, double s, Loc loc = Loc::current()) {
        return subs(a, s, loc);
    }
    ValueRef mul(ValueRef a, double s, Loc loc = Loc::current()) {
        return muls(a, s, loc);
    }
    ValueRef div(ValueRef a, double s, Loc loc = Loc::current()) {
        return divs(a, s, loc);
    }
    ValueRef max(ValueRef a, double s, Loc loc = Loc::current()) {
        return maxs(a, s, loc);
    }
    ValueRef min(ValueRef a, double s, Loc loc = Loc::current()) {
        return mins(a, s, loc);
    }

    // The ops of form Custom, written by hand.
    ValueRef cast(ValueRef x, DType to, RoundMode round = RoundMode::NearestEven,
                  Loc loc = Loc::current());
    ValueRef softmax(ValueRef x, std::optional<int64_t> axis = std::nullopt,
                     Loc loc = Loc::current());
    ValueRef rmsNorm(ValueRef x, std::optional<ValueRef> weight = std::nullopt,
                     std::optional<double> eps = std::nullopt, Loc loc = Loc::current());
    ValueRef layerNorm(ValueRef x, std::optional<ValueRef> gamma = std::nullopt,
                       std::optional<ValueRef> beta = std::nullopt,
                       std::optional<double> eps = std::nullopt, Loc loc = Loc::current());

    // Compare (i1 result) and select.
    ValueRef cmp(ValueRef a, ValueRef b, CmpPred pred, Loc loc = Loc::current());
    ValueRef cmp(ValueRef a, double s, CmpPred pred, Loc loc = Loc::current());
    ValueRef where(ValueRef cond, ValueRef a, ValueRef b, Loc loc = Loc::current());

    // Dequantisation x = q * scale (quantize, q = sat_i8(rne(x / scale)), is generated).
    ValueRef dequantize(ValueRef q, ValueRef scale, DType to = DType::F16,
                        Loc loc = Loc::current());

    // Layout.
    ValueRef reshape(ValueRef x, const Shape& shape, Loc loc = Loc::current());
    ValueRef transpose(ValueRef x, std::vector<int64_t> perm, Loc loc = Loc::current());
    ValueRef view(ValueRef x, std::vector<int64_t> offsets, std::vector<int64_t> sizes,
                  Loc loc = Loc::current());
    ValueRef concat(const std::vector<ValueRef>& values, int64_t axis, Loc loc = Loc::current());
    ValueRef broadcast(ValueRef x, const Shape& shape, Loc loc = Loc::current());
    ValueRef fill(const Type& type, double value, Loc loc = Loc::current());

    // A view whose offsets are affine in an induction variable: offsets + iv · ivStrides per
    // dim (`view %x {offsets = [0, %i * 256], sizes = [16, 256]}`); with `clip` the sizes are
    // a maximum, cut at the tensor's end (a loop's partial tail tile).
    ValueRef viewAt(ValueRef x, ValueRef iv, std::vector<int64_t> ivStrides,
                    std::vector<int64_t> offsets, std::vector<int64_t> sizes, bool clip = false,
                    Loc loc = Loc::current());

    // `for "name" %i = lower to upper step s iter_args(...) { ... yield ... }`: `body` builds
    // the loop body with its own FunctionBuilder (valid only inside the callback), given the
    // induction variable %i and the iter_args, and returns the yielded values (their types must
    // be the iter_args' types). Outer values the body uses become captures, as the parser makes
    // them. `name` (may be empty) is shown in the trace and the timeline ("kv, iter 7"). Returns
    // the loop's results (the last iteration's yielded values).
    using LoopBody = std::function<std::vector<ValueRef>(FunctionBuilder& body, ValueRef iv,
                                                         const std::vector<ValueRef>& iterArgs)>;
    std::vector<ValueRef> forLoop(const std::string& name, int64_t lower, int64_t upper,
                                  const std::vector<ValueRef>& init, const LoopBody& body,
                                  int64_t step = 1, Loc loc = Loc::current());

    // `call @callee(args)`: the callee is a function of this module that has already called
    // ret() (its signature is then known); argument count and types must match, and the results
    // take its result types. inline-calls replaces the call by the callee's ops.
    std::vector<ValueRef> call(const std::string& callee, const std::vector<ValueRef>& args,
                               Loc loc = Loc::current());
    // Indexing: the slices of `src` along `axis` selected by the i32 tensor `index`.
    ValueRef gather(ValueRef src, ValueRef index, int64_t axis = 0, Loc loc = Loc::current());
    // The k largest (smallest) values along `axis`, or with `indices` their i32 positions.
    struct TopKOptions {
        int64_t axis = -1;
        bool largest = true;
        bool indices = false;
    };
    ValueRef topk(ValueRef x, int64_t k, TopKOptions options, Loc loc = Loc::current());
    ValueRef topk(ValueRef x, int64_t k, Loc loc = Loc::current()) {
        return topk(x, k, TopKOptions{}, loc);
    }
    // A copy of `base` with each slice of `src` added at `index`'s position along `axis`
    // (torch.index_add; duplicate indices accumulate in index order).
    ValueRef scatterAdd(ValueRef base, ValueRef index, ValueRef src, int64_t axis = 0,
                        Loc loc = Loc::current());
    // The inclusive prefix sum along `axis`.
    ValueRef cumsum(ValueRef x, int64_t axis = -1, Loc loc = Loc::current());

    // The function's results; ends the function.
    void ret(ValueRef value, Loc loc = Loc::current());
    void ret(const std::vector<ValueRef>& values, Loc loc = Loc::current());

    // The function as built so far.
    const Function& function() const;

private:
    friend class ModuleBuilder;
    FunctionBuilder(ModuleBuilder* builder, uint32_t index) : m_builder(builder), m_index(index) {}

    ValueRef build(OpKind kind, const std::vector<ValueRef>& operands, Attrs attrs,
                   const Type* declared, Loc loc);
    // The generated methods' bodies, by form.
    ValueRef unary(OpKind kind, ValueRef x, Loc loc) {
        return build(kind, {x}, {}, nullptr, loc);
    }
    ValueRef binary(OpKind kind, ValueRef a, ValueRef b, Loc loc) {
        return build(kind, {a, b}, {}, nullptr, loc);
    }
    ValueRef scalar(OpKind kind, ValueRef a, double s, Loc loc);
    ValueRef reduce(OpKind kind, ValueRef x, int64_t axis, bool keepdim, Loc loc);

    ModuleBuilder* m_builder;
    uint32_t m_index;
};

class ModuleBuilder {
public:
    using Loc = std::source_location;

    // `file` names the module (Module::file), usually the C++ source that builds it.
    explicit ModuleBuilder(std::string file);
    ModuleBuilder(const ModuleBuilder&) = delete;
    ModuleBuilder& operator=(const ModuleBuilder&) = delete;
    ~ModuleBuilder();

    FunctionBuilder function(const std::string& name, Loc loc = Loc::current());
    // The finished, verified module. Every function must have called ret().
    Module finish(Loc loc = Loc::current());

private:
    friend class FunctionBuilder;
    friend class ValueRef;
    struct State;

    State& state(uint32_t function, Loc loc);
    // The id in function `function` of value `v`: its own, or — in a loop body — a capture of
    // an enclosing function's value (made on first use, through every loop in between).
    ValueId resolve(uint32_t function, const ValueRef& v, Loc loc);
    [[noreturn]] static void fail(Loc loc, const std::string& message);

    std::string m_file;
    std::vector<std::unique_ptr<State>> m_functions;
    bool m_finished = false;
};

} // namespace pto
