// The Tensor-level reference interpreter: per-op validation and evaluation on whole values.
#include "compiler/interp/TensorInterpreter.h"

#include "compiler/interp/Kernels.h"
#include "compiler/ir/LoopTail.h"
#include "compiler/ir/Semantics.h"

#include <cstring>
#include <numeric>
#include <optional>

namespace pto {
namespace {

// One op under evaluation: its operands, and errors that name it.
class OpEval {
public:
    OpEval(const Function& fn, const Op& op, std::span<const TensorData* const> in)
        : m_fn(fn), m_op(op), m_in(in) {}

    [[noreturn]] void fail(const std::string& message) const {
        std::string who(opName(m_op.kind));
        if (m_op.result != kNoId && m_op.result < m_fn.valueCount())
            who += " " + valueRef(m_fn, m_op.result);
        throw CompileError("", m_op.loc, who + ": " + message);
    }

    const Op& op() const { return m_op; }
    size_t count() const { return m_in.size(); }
    const TensorData& in(size_t i) const { return *m_in[i]; }
    const Shape& shape(size_t i) const { return m_in[i]->shape; }
    FloatArray floats(size_t i) const { return toFloatArray(*m_in[i]); }
    const Type& resultType() const { return m_fn.type(m_op.result); }
    // "%a (4x8xf32)"
    std::string describe(size_t i) const {
        return valueRef(m_fn, m_op.operands[i]) + " (" + typeString(*m_in[i]) + ")";
    }

    void expectOperands(size_t lo, size_t hi) const {
        if (count() >= lo && count() <= hi) return;
        const std::string want =
            lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
        fail("takes " + want + " operands, got " + std::to_string(count()));
    }

    // The broadcast shape of operands `a` and `b`, or an error naming both.
    Shape broadcast(size_t a, size_t b) const {
        const std::optional<Shape> s = broadcastShapes(shape(a), shape(b));
        if (!s) fail("operands " + describe(a) + " and " + describe(b) + " do not broadcast");
        return *s;
    }

    int axis(int64_t fallback, int rank) const {
        const int64_t raw = m_op.attrs.getInt("axis", fallback);
        const std::optional<int> a = normalizeAxis(raw, rank);
        if (!a)
            fail("axis " + std::to_string(raw) + " is out of range for " + describe(0) + " (rank " +
                 std::to_string(rank) + ")");
        return *a;
    }

    double requiredFloat(std::string_view name) const {
        const AttrValue* v = m_op.attrs.find(name);
        if (!v || !(std::holds_alternative<double>(*v) || std::holds_alternative<int64_t>(*v)))
            fail("needs a numeric attribute '" + std::string(name) + "'");
        return m_op.attrs.getFloat(name);
    }

    CmpPred pred() const {
        const std::string name = m_op.attrs.getString("pred");
        const std::optional<CmpPred> p = parseCmpPred(name);
        if (!p) fail("predicate '" + name + "' is not one of eq, ne, lt, le, gt, ge (attr pred)");
        return *p;
    }

    void expectResultShape(const Shape& computed) const {
        if (computed == resultType().shape) return;
        fail("result type is " + typeString(resultType().dtype, resultType().shape) +
             " but the operands give shape " + (computed.empty() ? "[]" : computed.str()));
    }

    // The computed array checked against the result type and rounded once to its dtype.
    TensorData finish(const FloatArray& a, RoundMode mode = RoundMode::NearestEven) const {
        expectResultShape(a.shape);
        return toTensorData(a, resultType().dtype, mode);
    }

    // A layout result: checked against the result type (same dtype as the operand).
    TensorData finishLayout(TensorData t) const {
        expectResultShape(t.shape);
        if (t.dtype != resultType().dtype)
            fail("result dtype " + std::string(dtypeName(resultType().dtype)) +
                 " differs from the operand's " + std::string(dtypeName(t.dtype)) +
                 " (layout ops do not convert; use cast)");
        return t;
    }

private:
    const Function& m_fn;
    const Op& m_op;
    std::span<const TensorData* const> m_in;
};

TensorData evalMatmul(const OpEval& e) {
    e.expectOperands(2, 2);
    const bool ta = e.op().attrs.getBool("transpose_a");
    const bool tb = e.op().attrs.getBool("transpose_b");
    if (!matmulShape(e.shape(0), e.shape(1), ta, tb))
        e.fail(std::string("cannot multiply ") + (ta ? "transposed " : "") + e.describe(0) +
               " by " + (tb ? "transposed " : "") + e.describe(1) +
               ": operands need rank >= 2, equal contraction dims and broadcastable batches");
    // i8 inputs accumulate exactly in int32 (matmulData), float inputs in f32.
    TensorData result = matmulData(e.in(0), e.in(1), ta, tb, e.resultType().dtype);
    e.expectResultShape(result.shape);
    return result;
}

TensorData evalBinary(const OpEval& e) {
    e.expectOperands(2, 2);
    e.broadcast(0, 1);
    return e.finish(binaryOp(e.op().kind, e.floats(0), e.floats(1)));
}

TensorData evalScalar(const OpEval& e) {
    e.expectOperands(1, 1);
    const auto s = static_cast<float>(e.requiredFloat("scalar"));
    return e.finish(scalarOp(e.op().kind, e.floats(0), s));
}

TensorData evalUnary(const OpEval& e) {
    e.expectOperands(1, 1);
    RoundMode mode = RoundMode::NearestEven;
    if (e.op().kind == OpKind::Cast) {
        const std::string name = e.op().attrs.getString("round", "rne");
        const std::optional<RoundMode> m = parseRoundMode(name);
        if (!m) e.fail("round mode '" + name + "' is not one of rne, trunc, floor, ceil, rna");
        mode = *m;
    }
    return e.finish(unaryOp(e.op().kind, e.floats(0)), mode);
}

TensorData evalReduce(const OpEval& e) {
    e.expectOperands(1, 1);
    const int axis = e.axis(-1, e.shape(0).rank());
    return e.finish(reduceOp(e.op().kind, e.floats(0), axis, e.op().attrs.getBool("keepdim")));
}

TensorData evalSoftmax(const OpEval& e) {
    e.expectOperands(1, 1);
    return e.finish(softmaxOp(e.floats(0), e.axis(-1, e.shape(0).rank())));
}

// The optional per-channel operands of the norms must broadcast to x.
void expectBroadcastsToX(const OpEval& e, size_t i) {
    if (!broadcastsTo(e.shape(i), e.shape(0)))
        e.fail("operand " + e.describe(i) + " does not broadcast to " + e.describe(0));
}

TensorData evalRmsNorm(const OpEval& e) {
    e.expectOperands(1, 2);
    if (e.shape(0).rank() == 0) e.fail("operand " + e.describe(0) + " needs rank >= 1");
    std::optional<FloatArray> weight;
    if (e.count() > 1) {
        expectBroadcastsToX(e, 1);
        weight = e.floats(1);
    }
    const double eps = e.op().attrs.getFloat("eps", 1e-6);
    return e.finish(rmsNormOp(e.floats(0), weight ? &*weight : nullptr, eps));
}

TensorData evalLayerNorm(const OpEval& e) {
    e.expectOperands(1, 3);
    if (e.shape(0).rank() == 0) e.fail("operand " + e.describe(0) + " needs rank >= 1");
    std::optional<FloatArray> gamma;
    std::optional<FloatArray> beta;
    if (e.count() > 1) {
        expectBroadcastsToX(e, 1);
        gamma = e.floats(1);
    }
    if (e.count() > 2) {
        expectBroadcastsToX(e, 2);
        beta = e.floats(2);
    }
    const double eps = e.op().attrs.getFloat("eps", 1e-5);
    return e.finish(
        layerNormOp(e.floats(0), gamma ? &*gamma : nullptr, beta ? &*beta : nullptr, eps));
}

TensorData evalCmp(const OpEval& e) {
    e.expectOperands(2, 2);
    e.broadcast(0, 1);
    return e.finish(compareOp(e.pred(), e.floats(0), e.floats(1)));
}

TensorData evalCmpS(const OpEval& e) {
    e.expectOperands(1, 1);
    const auto s = static_cast<float>(e.requiredFloat("scalar"));
    return e.finish(compareScalarOp(e.pred(), e.floats(0), s));
}

TensorData evalWhere(const OpEval& e) {
    e.expectOperands(3, 3);
    const Shape ab = e.broadcast(1, 2);
    if (!broadcastShapes(e.shape(0), ab))
        e.fail("condition " + e.describe(0) + " does not broadcast with " + e.describe(1) +
               " and " + e.describe(2));
    return e.finish(selectOp(e.floats(0), e.floats(1), e.floats(2)));
}

// quantize: x / scale, rounded once (RNE) and saturated to the result dtype (i8).
// dequantize: q * scale, rounded once to the result dtype.
TensorData evalQuant(const OpEval& e) {
    e.expectOperands(2, 2);
    e.broadcast(0, 1);
    const OpKind arith = e.op().kind == OpKind::Quantize ? OpKind::Div : OpKind::Mul;
    return e.finish(binaryOp(arith, e.floats(0), e.floats(1)));
}

TensorData evalReshape(const OpEval& e) {
    e.expectOperands(1, 1);
    const Shape& to = e.resultType().shape;
    if (to.numel() != e.in(0).numel())
        e.fail("cannot reshape " + e.describe(0) + " (" + std::to_string(e.in(0).numel()) +
               " elements) to " + to.str() + " (" + std::to_string(to.numel()) + " elements)");
    TensorData t = e.in(0);
    t.shape = to;
    return e.finishLayout(std::move(t));
}

TensorData evalTranspose(const OpEval& e) {
    e.expectOperands(1, 1);
    const int rank = e.shape(0).rank();
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.rbegin(), perm.rend(), 0); // default: reverse the dims
    if (auto p = e.op().attrs.getInts("perm")) perm = *p;
    std::vector<bool> seen(size_t(rank), false);
    bool ok = int(perm.size()) == rank;
    for (int64_t d : perm) {
        ok = ok && d >= 0 && d < rank && !seen[size_t(d)];
        if (ok) seen[size_t(d)] = true;
    }
    if (!ok)
        e.fail("perm " + formatInts(perm) + " is not a permutation of the dims of " +
               e.describe(0));
    return e.finishLayout(transposeData(e.in(0), perm));
}

TensorData evalView(const OpEval& e) {
    e.expectOperands(1, 1);
    const Shape& x = e.shape(0);
    const std::vector<int64_t> offsets =
        e.op().attrs.getInts("offsets").value_or(std::vector<int64_t>(size_t(x.rank()), 0));
    const std::vector<int64_t> sizesList = e.op().attrs.getInts("sizes").value_or(
        std::vector<int64_t>(e.resultType().shape.begin(), e.resultType().shape.end()));
    const Shape sizes{std::span<const int64_t>(sizesList)};
    bool ok = int(offsets.size()) == x.rank() && int(sizesList.size()) == x.rank();
    for (int d = 0; ok && d < x.rank(); ++d)
        ok = offsets[size_t(d)] >= 0 && sizes[d] >= 0 && offsets[size_t(d)] + sizes[d] <= x[d];
    if (!ok)
        e.fail("slice at offsets " + formatInts(offsets) + " of sizes " + formatInts(sizesList) +
               " is not inside " + e.describe(0));
    return e.finishLayout(sliceData(e.in(0), offsets, sizes));
}

TensorData evalConcat(const OpEval& e) {
    if (e.count() == 0) e.fail("needs at least one operand");
    const int axis = e.axis(0, e.shape(0).rank());
    std::vector<const TensorData*> parts;
    for (size_t i = 0; i < e.count(); ++i) {
        bool ok = e.in(i).dtype == e.in(0).dtype && e.shape(i).rank() == e.shape(0).rank();
        for (int d = 0; ok && d < e.shape(0).rank(); ++d)
            ok = d == axis || e.shape(i)[d] == e.shape(0)[d];
        if (!ok)
            e.fail("operand " + e.describe(i) + " does not match " + e.describe(0) +
                   " in dtype and in every dim but axis " + std::to_string(axis));
        parts.push_back(&e.in(i));
    }
    return e.finishLayout(concatData(parts, axis));
}

TensorData evalBroadcast(const OpEval& e) {
    e.expectOperands(1, 1);
    const Shape& to = e.resultType().shape;
    if (!broadcastsTo(e.shape(0), to))
        e.fail("cannot broadcast " + e.describe(0) + " to " + to.str());
    return e.finishLayout(broadcastData(e.in(0), to));
}

TensorData evalFill(const OpEval& e) {
    e.expectOperands(0, 0);
    FloatArray a(e.resultType().shape);
    std::fill(a.data.begin(), a.data.end(), static_cast<float>(e.op().attrs.getFloat("value")));
    return e.finish(a);
}

// gather (numpy.take along `axis`): bytes copied slice by slice; an index outside
// [0, src.shape[axis]) is an error naming the index and where it sits.
/// Element j of the i32 index operand (operand 1), checked against [0, n) along `axis` of
/// operand 0 (gather's source, scatter_add's base).
int32_t indexAt(const OpEval& e, const TensorData& index, int64_t j, int64_t n, int64_t axis) {
    int32_t k = 0;
    std::memcpy(&k, index.data() + j * 4, 4);
    if (k < 0 || k >= n)
        e.fail("index " + std::to_string(k) + " at element " + std::to_string(j) + " of " +
               e.describe(1) + " is outside [0, " + std::to_string(n) + ") (axis " +
               std::to_string(axis) + " of " + e.describe(0) + ")");
    return k;
}

TensorData evalGather(const OpEval& e) {
    e.expectOperands(2, 2);
    const Shape& src = e.shape(0);
    const int axis = e.axis(0, src.rank());
    const TensorData& index = e.in(1);
    if (index.dtype != DType::I32) e.fail("the index " + e.describe(1) + " must be i32");
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= src[d];
    for (int d = axis + 1; d < src.rank(); ++d) inner *= src[d];
    const int64_t n = src[axis], m = index.numel();
    Shape out;
    for (int d = 0; d < axis; ++d) out.push(src[d]);
    for (int64_t d : index.shape.dims()) out.push(d);
    for (int d = axis + 1; d < src.rank(); ++d) out.push(src[d]);
    e.expectResultShape(out);
    TensorData result(e.in(0).dtype, out);
    const size_t run = size_t(inner * e.in(0).elementSize());
    for (int64_t j = 0; j < m; ++j) {
        const int32_t k = indexAt(e, index, j, n, axis);
        for (int64_t o = 0; o < outer; ++o)
            std::memcpy(result.data() + size_t(o * m + j) * run,
                        e.in(0).data() + size_t(o * n + k) * run, run);
    }
    return e.finishLayout(std::move(result));
}

// topk along `axis`: per line along the axis, topkRow's positions; the result is those
// positions (i32, `indices`) or the elements there, copied bit for bit.
TensorData evalTopK(const OpEval& e) {
    e.expectOperands(1, 1);
    const TensorData& x = e.in(0);
    const Shape& shape = x.shape;
    const int axis = e.axis(-1, shape.rank());
    const int64_t n = shape[axis], k = e.op().attrs.getInt("k", 0);
    if (k < 1 || k > n)
        e.fail("k = " + std::to_string(k) + " is out of range 1.." + std::to_string(n) + " for " +
               e.describe(0));
    const bool indices = e.op().attrs.getBool("indices");
    const bool largest = e.op().attrs.getBool("largest", true);
    Shape out = shape;
    out[axis] = k;
    e.expectResultShape(out);
    TensorData result(indices ? DType::I32 : x.dtype, out);
    if (result.dtype != e.resultType().dtype)
        e.fail("result dtype " + std::string(dtypeName(e.resultType().dtype)) + " should be " +
               std::string(dtypeName(result.dtype)));
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= shape[d];
    for (int d = axis + 1; d < shape.rank(); ++d) inner *= shape[d];
    const size_t elem = size_t(x.elementSize());
    std::vector<double> keys(static_cast<size_t>(n));
    std::vector<int32_t> best(static_cast<size_t>(k));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            for (int64_t j = 0; j < n; ++j)
                keys[size_t(j)] =
                    elementKey(x.data() + size_t((o * n + j) * inner + i) * elem, x.dtype);
            topkRow(keys.data(), n, k, largest, best.data());
            for (int64_t j = 0; j < k; ++j) {
                const size_t at = size_t((o * k + j) * inner + i);
                if (indices)
                    std::memcpy(result.data() + at * 4, &best[size_t(j)], 4);
                else
                    std::memcpy(result.data() + at * elem,
                                x.data() + size_t((o * n + best[size_t(j)]) * inner + i) * elem,
                                elem);
            }
        }
    return result;
}

// cumsum along `axis`: cumsumLine over every line along the axis (docs/PTO_LANGUAGE.md).
TensorData evalCumSum(const OpEval& e) {
    e.expectOperands(1, 1);
    const TensorData& x = e.in(0);
    const Shape& shape = x.shape;
    const int axis = e.axis(-1, shape.rank());
    e.expectResultShape(shape);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= shape[d];
    for (int d = axis + 1; d < shape.rank(); ++d) inner *= shape[d];
    const int64_t n = shape[axis];
    const size_t elem = size_t(x.elementSize());
    TensorData result(x.dtype, shape);
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            const size_t at = size_t(o * n * inner + i) * elem;
            cumsumLine(x.data() + at, result.data() + at, x.dtype, n, inner);
        }
    return e.finishLayout(std::move(result));
}

// scatter_add %base, %idx, %src {axis}: base, then for j = 0, 1, … (the index's elements in
// order) slice j of src added into slice idx[j] along `axis` (accumulateRow: one rounding per
// contribution); an index outside [0, base.shape[axis]) is an error naming it.
TensorData evalScatterAdd(const OpEval& e) {
    e.expectOperands(3, 3);
    const TensorData& base = e.in(0);
    const TensorData& index = e.in(1);
    const TensorData& src = e.in(2);
    if (index.dtype != DType::I32) e.fail("the index " + e.describe(1) + " must be i32");
    const int axis = e.axis(0, base.shape.rank());
    e.expectResultShape(base.shape);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= base.shape[d];
    for (int d = axis + 1; d < base.shape.rank(); ++d) inner *= base.shape[d];
    const int64_t n = base.shape[axis], m = index.numel();
    if (src.numel() != outer * m * inner || src.dtype != base.dtype)
        e.fail("the source " + e.describe(2) + " does not match the base and index");
    TensorData result = base;
    const size_t run = size_t(inner * base.elementSize());
    for (int64_t j = 0; j < m; ++j) {
        const int32_t k = indexAt(e, index, j, n, axis);
        for (int64_t o = 0; o < outer; ++o)
            accumulateRow(result.data() + size_t(o * n + k) * run,
                          src.data() + size_t(o * m + j) * run, base.dtype, inner);
    }
    return e.finishLayout(std::move(result));
}

TensorData dispatch(const OpEval& e) {
    const OpKind kind = e.op().kind;
    if (isUnaryKind(kind)) return evalUnary(e);
    if (isReduceKind(kind)) return evalReduce(e);
    switch (kind) {
    case OpKind::Matmul:
        return evalMatmul(e);
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Max:
    case OpKind::Min:
        return evalBinary(e);
    case OpKind::AddS:
    case OpKind::SubS:
    case OpKind::MulS:
    case OpKind::DivS:
    case OpKind::MaxS:
    case OpKind::MinS:
        return evalScalar(e);
    case OpKind::Softmax:
        return evalSoftmax(e);
    case OpKind::RmsNorm:
        return evalRmsNorm(e);
    case OpKind::LayerNorm:
        return evalLayerNorm(e);
    case OpKind::Cmp:
        return evalCmp(e);
    case OpKind::CmpS:
        return evalCmpS(e);
    case OpKind::Where:
        return evalWhere(e);
    case OpKind::Quantize:
    case OpKind::Dequantize:
        return evalQuant(e);
    case OpKind::Reshape:
        return evalReshape(e);
    case OpKind::Transpose:
        return evalTranspose(e);
    case OpKind::View:
        return evalView(e);
    case OpKind::Concat:
        return evalConcat(e);
    case OpKind::Broadcast:
        return evalBroadcast(e);
    case OpKind::Fill:
        return evalFill(e);
    case OpKind::Gather:
        return evalGather(e);
    case OpKind::TopK:
        return evalTopK(e);
    case OpKind::ScatterAdd:
        return evalScatterAdd(e);
    case OpKind::CumSum:
        return evalCumSum(e);
    default:
        e.fail("is a data-movement op or directive, not a compute op");
    }
}

// The last op index reading each value (kNoId if none); function results count as read last.
std::vector<uint32_t> lastUses(const Function& fn) {
    std::vector<uint32_t> last(fn.valueCount(), kNoId);
    for (const Op& op : fn.ops())
        for (ValueId v : op.operands)
            if (v < last.size()) last[v] = op.id;
    for (ValueId v : fn.results)
        if (v < last.size()) last[v] = UINT32_MAX - 1;
    return last;
}

} // namespace

std::string formatInts(std::span<const int64_t> xs) {
    std::string s = "[";
    for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
    return s + "]";
}

std::string valueRef(const Function& fn, ValueId v) {
    if (v >= fn.valueCount()) return "%<invalid " + std::to_string(v) + ">";
    const std::string& name = fn.value(v).name;
    return "%" + (name.empty() ? std::to_string(v) : name);
}

void checkInputs(const Function& fn, std::span<const TensorData> inputs) {
    if (inputs.size() != fn.args.size())
        throw CompileError("", fn.loc,
                           "@" + fn.name + " takes " + std::to_string(fn.args.size()) +
                               " inputs, got " + std::to_string(inputs.size()));
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Type& want = fn.type(fn.args[i]);
        const TensorData& got = inputs[i];
        if (got.dtype != want.dtype || got.shape != want.shape ||
            int64_t(got.bytes.size()) != got.byteSize())
            throw CompileError("", fn.loc,
                               "input " + std::to_string(i) + " (" + valueRef(fn, fn.args[i]) +
                                   ") of @" + fn.name + " must be " +
                                   typeString(want.dtype, want.shape) + ", got " + typeString(got) +
                                   " with " + std::to_string(got.bytes.size()) + " bytes");
    }
}

TensorData evaluateComputeOp(const Function& fn, const Op& op,
                             std::span<const TensorData* const> operands) {
    const OpEval e(fn, op, operands);
    if (op.result == kNoId || op.result >= fn.valueCount()) e.fail("has no result value");
    return dispatch(e);
}

namespace {

TensorData inductionValue(int64_t i) {
    TensorData t(DType::I32, Shape{});
    const int32_t v = int32_t(i);
    std::memcpy(t.data(), &v, sizeof v);
    return t;
}

int64_t readInduction(const TensorData& t) {
    int32_t v = 0;
    if (t.bytes.size() >= sizeof v) std::memcpy(&v, t.data(), sizeof v);
    return v;
}

// A view with affine offsets, evaluated as the plain view of this iteration.
TensorData evaluateAffineView(const Function& fn, const Op& op,
                              std::span<const TensorData* const> operands) {
    std::vector<int64_t> ivs;
    for (size_t k = 1; k < operands.size(); ++k) ivs.push_back(readInduction(*operands[k]));
    Op plain = op;
    plain.operands.resize(1);
    plain.attrs.set("offsets", affineViewOffsets(op, ivs));
    plain.attrs.erase("iv_strides");
    return evaluateComputeOp(fn, plain, operands.first(1));
}

// A `for` op: the body runs once per iteration on [i, carried values, captures] and yields the
// next carried values; the last ones are the loop's results.
std::vector<TensorData> evaluateLoop(const Op& op, std::span<const TensorData* const> operands,
                                     std::span<const Function> functions) {
    if (op.body.size() != 1) throw CompileError("", op.loc, "for: needs exactly one body");
    const Function& body = op.body.front();
    const size_t n = loopIterArgCount(op);
    std::vector<TensorData> inputs(1 + operands.size());
    for (size_t i = 0; i < operands.size(); ++i) inputs[1 + i] = *operands[i];
    const int64_t lower = op.attrs.getInt("lower"), step = op.attrs.getInt("step", 1);
    // A captured induction variable is a rank-0 i32 input; the tail iteration needs its number.
    std::vector<std::optional<int64_t>> argIvs(inputs.size());
    for (size_t i = 1; i < inputs.size(); ++i)
        if (inputs[i].dtype == DType::I32 && inputs[i].shape.rank() == 0)
            argIvs[i] = readInduction(inputs[i]);
    for (int64_t t = 0, trips = loopTripCount(op); t < trips; ++t) {
        inputs[0] = inductionValue(lower + t * step);
        argIvs[0] = lower + t * step;
        std::optional<Function> tail =
            tailIteration(body, argIvs, "", "iteration " + std::to_string(t));
        EvalResult r = evaluateTensor(tail ? *tail : body, inputs, false, functions);
        for (size_t k = 0; k < n; ++k) inputs[1 + k] = std::move(r.outputs[k]);
    }
    std::vector<TensorData> results;
    for (size_t k = 0; k < n; ++k) results.push_back(std::move(inputs[1 + k]));
    return results;
}

// How deep calls may nest (the parser's verifier already rejects recursion).
constexpr int kMaxCallDepth = 64;
thread_local int g_callDepth = 0;

// A `call` op: the callee (found by name among `functions`) evaluated on the operands.
std::vector<TensorData> evaluateCall(const Op& op, std::span<const TensorData* const> operands,
                                     std::span<const Function> functions) {
    const std::string callee = op.attrs.getString("callee");
    const Function* g = nullptr;
    for (const Function& f : functions)
        if (f.name == callee) g = &f;
    if (!g)
        throw CompileError("", op.loc,
                           functions.empty()
                               ? "call @" + callee +
                                     ": the interpreter was given no functions to call (pass the "
                                     "module's functions, or interpret after inline-calls)"
                               : "call of unknown function @" + callee);
    if (g_callDepth >= kMaxCallDepth)
        throw CompileError("", op.loc,
                           "call @" + callee + ": calls nest deeper than " +
                               std::to_string(kMaxCallDepth) + " (recursion?)");
    std::vector<TensorData> args;
    args.reserve(operands.size());
    for (const TensorData* t : operands) args.push_back(*t);
    ++g_callDepth;
    struct Leave {
        ~Leave() { --g_callDepth; }
    } leave;
    EvalResult r = evaluateTensor(*g, args, false, functions);
    if (r.outputs.size() != op.results.size())
        throw CompileError("", op.loc,
                           "call @" + callee + ": @" + callee + " returns " +
                               std::to_string(r.outputs.size()) + " values, the call names " +
                               std::to_string(op.results.size()));
    return std::move(r.outputs);
}

} // namespace

EvalResult evaluateTensor(const Function& fn, std::span<const TensorData> inputs, bool keepValues,
                          std::span<const Function> functions) {
    if (fn.level != Level::Tensor)
        throw CompileError("", fn.loc,
                           "@" + fn.name + " is a tile-level function; use evaluateTile");
    if (size_t n = indexArgCount(fn); n > 0)
        throw CompileError("", fn.loc,
                           "@" + fn.name + " has " + std::to_string(n) +
                               " index argument(s) bound when the program runs: bind them "
                               "first (bindScalars, --bind NAME=N)");
    checkInputs(fn, inputs);
    std::vector<TensorData> values(fn.valueCount());
    std::vector<bool> defined(fn.valueCount(), false);
    for (size_t i = 0; i < inputs.size(); ++i) {
        values[fn.args[i]] = inputs[i];
        defined[fn.args[i]] = true;
    }
    const std::vector<uint32_t> last = lastUses(fn);
    std::vector<const TensorData*> operands;
    for (const Op& op : fn.ops()) {
        if (isDirective(op.kind)) continue;
        if (!(opInfo(op.kind).levels & kLevelTensor))
            throw CompileError("", op.loc,
                               std::string(opName(op.kind)) +
                                   " is a tile-level op; it cannot appear in tensor-level @" +
                                   fn.name);
        operands.clear();
        for (ValueId v : op.operands) {
            if (v >= fn.valueCount() || !defined[v])
                throw CompileError("", op.loc,
                                   std::string(opName(op.kind)) + " uses " + valueRef(fn, v) +
                                       " before it is defined");
            operands.push_back(&values[v]);
        }
        if (op.kind == OpKind::For || op.kind == OpKind::Call) {
            std::vector<TensorData> results = op.kind == OpKind::For
                                                  ? evaluateLoop(op, operands, functions)
                                                  : evaluateCall(op, operands, functions);
            for (size_t k = 0; k < results.size(); ++k) {
                defined[op.results[k]] = true;
                values[op.results[k]] = std::move(results[k]);
            }
            continue;
        }
        TensorData result = op.kind == OpKind::View && op.operands.size() > 1
                                ? evaluateAffineView(fn, op, operands)
                                : evaluateComputeOp(fn, op, operands);
        defined[op.result] = true;
        if (keepValues || last[op.result] != kNoId) values[op.result] = std::move(result);
        if (keepValues) continue;
        for (ValueId v : op.operands)
            if (last[v] == op.id) values[v] = TensorData{};
    }
    EvalResult out;
    for (ValueId v : fn.results) {
        if (v >= fn.valueCount() || !defined[v])
            throw CompileError("", fn.loc,
                               "@" + fn.name + " returns " + valueRef(fn, v) +
                                   ", which is never defined");
        out.outputs.push_back(values[v]);
    }
    if (keepValues) out.values = std::move(values);
    return out;
}

} // namespace pto
