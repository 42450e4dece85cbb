// The SSA dataflow IR shared by the Tensor and Tile levels.
//
// A Function is an ordered list of Ops over Values. Every Value is defined once, by an Op or
// as a function argument, and has a Type: element dtype, shape and (at Tile level) the memory
// space it lives in. At Tensor level values are whole tensors in GM; at Tile level a value is
// either a GM tensor (space GM: arguments, outputs, workspaces declared by `gm_tensor`) or an
// on-chip tile (space L1/L0A/L0B/L0C/UB, or None until assign-memory runs) that covers a
// rectangular region of a Tensor-level value: `origin` names that value, `offset` the corner.
//
// Ids and provenance. Within a stage, op ids and value ids are dense indices (op.id == its
// position; Function::renumber() restores this after a pass). `Op::parent` is the id of the
// op in the previous stage that this op was derived from, so a chain of stages leads every op
// back to the op the user wrote, whose `loc` is its line and column in the .pto source. Passes
// copy `loc` and `parent` from the op they rewrite into every op they create.
#pragma once

#include "compiler/ir/Attrs.h"
#include "compiler/ir/DType.h"
#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/Hardware.h"
#include "compiler/ir/OpKind.h"
#include "compiler/ir/Shape.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pto {

using ValueId = uint32_t;
using OpId = uint32_t;
inline constexpr uint32_t kNoId = UINT32_MAX;

enum class Level : uint8_t { Tensor, Tile };
std::string_view levelName(Level level);

struct Type {
    DType dtype = DType::F32;
    Shape shape;
    MemSpace space = MemSpace::None; // None at Tensor level
    // A function argument of type `index`: a scalar integer bound when the program runs
    // (`--bind`), usable only as a loop's upper bound (dtype i32, rank 0). BindScalars.h.
    bool index = false;

    bool isTile() const { return space != MemSpace::None && space != MemSpace::GM; }
    int64_t bytes() const { return shape.numel() * dtypeSize(dtype); }
    friend bool operator==(const Type&, const Type&) = default;
};

struct Value {
    Type type;
    std::string name;       // as written, without '%'; empty = the printer numbers it
    OpId def = kNoId;       // defining op; kNoId for function arguments
    ValueId origin = kNoId; // Tile level: the Tensor-level value this tile covers
    Shape offset;           // Tile level: the tile's corner inside `origin`
};

class Function;

struct Op {
    OpId id = kNoId;
    OpKind kind = OpKind::Add;
    std::vector<ValueId> operands;
    ValueId result = kNoId; // kNoId for tstore and directives
    Attrs attrs;
    SourceLoc loc;       // where in the .pto source the op (or its ancestor) was written
    OpId parent = kNoId; // provenance: the op of the previous stage this came from
    // `for` and `call` (OpClass::Control) define any number of values: they are listed here and
    // `result` stays kNoId. Every other op leaves this empty.
    std::vector<ValueId> results;
    // `for`: its body, exactly one function (see "Loops" below); empty for every other op.
    std::vector<Function> body;
};

class Function {
public:
    std::string name;
    Level level = Level::Tensor;
    std::vector<ValueId> args;
    std::vector<ValueId> results;
    SourceLoc loc;

    const Value& value(ValueId id) const { return m_values[id]; }
    Value& value(ValueId id) { return m_values[id]; }
    const Type& type(ValueId id) const { return m_values[id].type; }
    const Op& op(OpId id) const { return m_ops[id]; }
    Op& op(OpId id) { return m_ops[id]; }
    const std::vector<Op>& ops() const { return m_ops; }
    std::vector<Op>& ops() { return m_ops; }
    const std::vector<Value>& values() const { return m_values; }
    size_t valueCount() const { return m_values.size(); }

    ValueId addValue(Value v);
    ValueId addArg(Type type, std::string name);
    // Appends an op; if it has a result type, creates the result value. Returns the op id.
    OpId addOp(Op op, const Type* resultType = nullptr, std::string resultName = {});
    // Room for `ops` more ops and `values` more values (passes that unroll large grids).
    void reserve(size_t ops, size_t values) {
        m_ops.reserve(m_ops.size() + ops);
        m_values.reserve(m_values.size() + values);
    }

    // Restores the dense-id invariant after a pass erased or reordered ops: op ids become
    // positions, unused values are dropped and operand references remapped.
    void renumber();
    // Before a pass: records each op's current id as its parent (identity provenance).
    void linkToPreviousStage();

    // The producer op of a value, or nullptr for arguments.
    const Op* producer(ValueId v) const {
        return m_values[v].def == kNoId ? nullptr : &m_ops[m_values[v].def];
    }

private:
    std::vector<Value> m_values;
    std::vector<Op> m_ops;
};

// The defining op of every value (kNoId for arguments) as one dense array. Passes that follow
// operands to their producers over and over read this instead of the values: 4 bytes apart
// instead of a cache line per Value (and one more per producer Op, for its id).
std::vector<OpId> definingOps(const Function& f);

// Loops. A `for` op owns its body as a nested Function, isolated from above:
//   body.args    = [induction variable (tensor<i32>, rank 0), iter_args..., captures...]
//   body.results = the values of `yield` (one per iter_arg, same types)
//   op.operands  = [initial values of the iter_args..., captured outer values...]
//   op.results   = the final iter_args (one per iter_arg, same types)
//   op.attrs     = {lower, upper, step [, name]}; before binding, a trip count given by an
//                  index argument of the function is upper_arg = "t" (no upper)
// A capture is an outer value the body uses; it appears in the body as an argument of the same
// name and type. The induction variable may only appear as an operand of `view`, whose offsets
// are then affine in it (ShapeInference.h, "affine view offsets").
// `call` has operands = the callee's arguments, results = its results, attrs = {callee}.
inline size_t loopIterArgCount(const Op& op) {
    return op.results.size();
}
// A loop's iterations: lower, lower + step, … below upper (0 when upper <= lower).
int64_t loopTripCount(const Op& op);

// The offsets of a `view` whose offsets are affine in induction variables (operands 1..,
// coefficients in the attribute iv_strides, one row of rank entries per variable) when the
// variables hold `ivValues`: offsets[d] + sum_k iv_strides[k][d] * ivValues[k]. The same for
// a Tile-level `tload` (variables from operand 1) or `tstore` (from operand 2), whose
// attribute is `offset`.
std::vector<int64_t> affineViewOffsets(const Op& op, std::span<const int64_t> ivValues);

// Ops whose offsets may be affine in induction variables: view, tload, tstore. The index of
// their first induction-variable operand (what they take without one), or nullopt for others.
std::optional<size_t> affineOperandBase(OpKind kind);
// The attribute holding those offsets: "offsets" (view) or "offset" (tload, tstore).
std::string_view affineOffsetAttr(OpKind kind);
// Whether `op` has induction-variable operands.
bool hasAffineOffsets(const Op& op);

// A parsed .pto file: its path, its text, and its functions (the entry is the last one
// unless a function is named @main).
struct Module {
    std::string file;
    std::string source;
    std::vector<Function> functions;

    Function* entry();
    const Function* entry() const;
};

} // namespace pto
