// decompose-composites: composite Tensor ops rewritten as primitive ops evaluated in f32.
//
// Every expansion widens its inputs to f32 (a no-op for f32 inputs), runs the formula on f32
// primitives and narrows once at the end to the composite's result dtype, so the only extra
// roundings compared with the direct f32 reference are those of the f32 primitives themselves.
#include "compiler/passes/DecomposeComposites.h"
#include "compiler/passes/LineBudget.h"
#include "compiler/passes/Permutation.h"

#include <cmath>
#include <fmt/format.h>
#include <numbers>
#include <optional>
#include <utility>

namespace pto {
namespace {

constexpr double kRmsNormEps = 1e-6;
constexpr double kLayerNormEps = 1e-5;
constexpr double kGeluCubic = 0.044715;

// Builds the primitive ops of one composite into the rebuilt op list. Each op copies the
// composite's loc and parent; results are fresh unnamed values.
class Expansion {
public:
    // `scope`: the sizes of the vec_tile directive in scope, if any.
    Expansion(Function& f, const Op& composite, std::vector<Op>& out,
              const std::optional<std::vector<int64_t>>& scope)
        : m_f(f), m_composite(composite), m_out(out) {
        m_override = composite.attrs.getInts("vec_tile");
        m_sizes = m_override ? m_override : scope;
    }

    ValueId emit(OpKind kind, std::vector<ValueId> operands, const Type& type, Attrs attrs = {}) {
        Value v;
        v.type = type;
        v.def = OpId(m_out.size());
        Op op;
        op.kind = kind;
        op.operands = std::move(operands);
        op.attrs = std::move(attrs);
        op.loc = m_composite.loc;
        op.parent = m_composite.parent;
        op.result = m_f.addValue(std::move(v));
        op.id = OpId(m_out.size());
        tileLike(op);
        m_out.push_back(std::move(op));
        return m_out.back().result;
    }

    const Type& type(ValueId v) const { return m_f.type(v); }
    const Function& fn() const { return m_f; }

    ValueId unary(OpKind kind, ValueId x) { return emit(kind, {x}, type(x)); }

    ValueId scalar(OpKind kind, ValueId x, double s) {
        Attrs a;
        a.set("scalar", s);
        return emit(kind, {x}, type(x), std::move(a));
    }

    // Elementwise binary op with numpy broadcasting; the result takes the broadcast shape.
    ValueId binary(OpKind kind, ValueId a, ValueId b) {
        Type t = type(a);
        t.shape = broadcastShape(type(a).shape, type(b).shape);
        return emit(kind, {a, b}, t);
    }

    ValueId castTo(ValueId x, DType dtype, const char* round = nullptr) {
        if (type(x).dtype == dtype) return x;
        Type t = type(x);
        t.dtype = dtype;
        Attrs a;
        if (round) a.set("round", std::string(round));
        return emit(OpKind::Cast, {x}, t, std::move(a));
    }

    ValueId toF32(ValueId x) { return castTo(x, DType::F32); }

    // Reduction over `axis` keeping the axis as an extent of 1.
    ValueId reduce(OpKind kind, ValueId x, int axis) {
        Type t = type(x);
        t.shape[axis] = 1;
        Attrs a;
        a.set("axis", int64_t(axis));
        a.set("keepdim", true);
        return emit(kind, {x}, t, std::move(a));
    }

    // Mean over `axis` (keepdim): the f32 sum divided by the extent, one rounding each.
    ValueId mean(ValueId x, int axis) {
        double n = double(type(x).shape[axis]);
        return scalar(OpKind::DivS, reduce(OpKind::ReduceSum, x, axis), n);
    }

    // Makes the last emitted op define the composite's own result value (narrowing to its
    // dtype first), so every use of the composite now reads the expansion.
    void finish(ValueId last) {
        const ValueId result = m_composite.result;
        last = castTo(last, m_f.type(result).dtype);
        if (m_out.empty() || m_out.back().result != last) {
            // The expansion produced no op of its own (cannot happen for the composites
            // handled here); keep the value flowing through an exact identity.
            last = emit(OpKind::MulS, {last}, type(last), scalarAttr(1.0));
        }
        Op& op = m_out.back();
        op.result = result;
        m_f.value(result).def = op.id;
    }

    [[noreturn]] void fail(const std::string& why) const {
        throw CompileError({}, m_composite.loc,
                           fmt::format("{} {}: {}", opName(m_composite.kind), valueRef(), why));
    }

    std::string valueRef() const {
        const std::string& n = m_f.value(m_composite.result).name;
        return n.empty() ? std::string("(unnamed result)") : "%" + n;
    }

private:
    static Attrs scalarAttr(double s) {
        Attrs a;
        a.set("scalar", s);
        return a;
    }

    static Shape broadcastShape(const Shape& a, const Shape& b) {
        const int rank = std::max(a.rank(), b.rank());
        Shape out;
        for (int i = 0; i < rank; ++i) {
            int ia = i - (rank - a.rank()), ib = i - (rank - b.rank());
            int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
            out.push(da == 1 ? db : da);
        }
        return out;
    }

    // The composite's tile sizes apply to every op of its expansion: its own vec_tile
    // override is copied to each, and a scoped vec_tile is restated per op when the op works
    // on another rank (the rank-1 weight of rms_norm): trailing sizes, leading 1s.
    void tileLike(Op& op) const {
        if (!m_sizes) return;
        const bool reduce = opInfo(op.kind).cls == OpClass::Reduce;
        const int rank = m_f.type(reduce ? op.operands[0] : op.result).shape.rank();
        if (!m_override && int(m_sizes->size()) == rank) return;
        std::vector<int64_t> sizes(size_t(rank), 1);
        for (int d = 0; d < rank; ++d) {
            const int i = int(m_sizes->size()) - rank + d;
            if (i >= 0) sizes[size_t(d)] = (*m_sizes)[size_t(i)];
        }
        op.attrs.set("vec_tile", std::move(sizes));
    }

    Function& m_f;
    const Op& m_composite;
    std::vector<Op>& m_out;
    std::optional<std::vector<int64_t>> m_override;
    std::optional<std::vector<int64_t>> m_sizes;
};

// sigmoid(x) = 1 / (1 + exp(-x)): exp overflows to +inf for very negative x and the
// reciprocal then gives the exact limit 0.
ValueId sigmoidOf(Expansion& e, ValueId xf) {
    ValueId d = e.scalar(OpKind::AddS, e.unary(OpKind::Exp, e.unary(OpKind::Neg, xf)), 1.0);
    return e.unary(OpKind::Reciprocal, d);
}

void expandSigmoid(Expansion& e, const Op& op) {
    e.finish(sigmoidOf(e, e.toF32(op.operands[0])));
}

// tanh(x) = 2·sigmoid(2x) − 1. It never overflows (exp(−2x) → +inf gives −1 exactly) and its
// absolute error is a few f32 ulps of 1; near 0 the relative error grows (≈1e-7/|x|), which
// is far below the f16/bf16 rounding of typical results and under torch's f32 atol (1e-5).
void expandTanh(Expansion& e, const Op& op) {
    ValueId x2 = e.scalar(OpKind::MulS, e.toF32(op.operands[0]), 2.0);
    ValueId s = sigmoidOf(e, x2);
    e.finish(e.scalar(OpKind::AddS, e.scalar(OpKind::MulS, s, 2.0), -1.0));
}

// gelu (tanh form) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) = x / (1 + exp(−2z)) with
// z = √(2/π)·x·(1 + 0.044715·x²): the sigmoid identity 1 + tanh(z) = 2·sigmoid(2z) avoids the
// cancellation of 1 + tanh(z) for negative z.
void expandGelu(Expansion& e, const Op& op) {
    std::string approx = op.attrs.getString("approximate", "tanh");
    if (approx != "tanh")
        e.fail(fmt::format("approximate = \"{}\" is not supported; only the tanh form "
                           "(approximate = \"tanh\") decomposes into primitive ops",
                           approx));
    ValueId x = e.toF32(op.operands[0]);
    ValueId p = e.scalar(OpKind::AddS,
                         e.scalar(OpKind::MulS, e.binary(OpKind::Mul, x, x), kGeluCubic), 1.0);
    const double k = -2.0 * std::sqrt(2.0 / std::numbers::pi);
    ValueId t = e.scalar(OpKind::MulS, e.binary(OpKind::Mul, x, p), k);
    ValueId d = e.scalar(OpKind::AddS, e.unary(OpKind::Exp, t), 1.0);
    e.finish(e.binary(OpKind::Div, x, d));
}

// silu(x) = x·sigmoid(x), computed as x / (1 + exp(−x)) (one rounding fewer than x · 1/(…)).
void expandSilu(Expansion& e, const Op& op) {
    ValueId x = e.toF32(op.operands[0]);
    ValueId d = e.scalar(OpKind::AddS, e.unary(OpKind::Exp, e.unary(OpKind::Neg, x)), 1.0);
    e.finish(e.binary(OpKind::Div, x, d));
}

int normalisedAxis(Expansion& e, int64_t axis, int rank) {
    if (rank == 0) e.fail("cannot normalise a rank-0 tensor");
    if (axis < -rank || axis >= rank)
        e.fail(fmt::format("axis {} is out of range for a rank-{} tensor", axis, rank));
    return int(axis < 0 ? axis + rank : axis);
}

// softmax = exp(x − max) / sum(exp(x − max)) along `axis`, in f32.
void expandSoftmax(Expansion& e, const Op& op) {
    ValueId x = e.toF32(op.operands[0]);
    int axis = normalisedAxis(e, op.attrs.getInt("axis", -1), e.type(x).shape.rank());
    ValueId m = e.reduce(OpKind::ReduceMax, x, axis);
    ValueId ex = e.unary(OpKind::Exp, e.binary(OpKind::Sub, x, m));
    ValueId s = e.reduce(OpKind::ReduceSum, ex, axis);
    e.finish(e.binary(OpKind::Div, ex, s));
}

// rms_norm(x[, w]) = x · rsqrt(mean(x²) + eps) [· w], over the last axis.
void expandRmsNorm(Expansion& e, const Op& op) {
    if (op.operands.empty() || op.operands.size() > 2)
        e.fail(fmt::format("takes (x[, weight]), got {} operands", op.operands.size()));
    ValueId x = e.toF32(op.operands[0]);
    int axis = normalisedAxis(e, -1, e.type(x).shape.rank());
    ValueId ms = e.mean(e.binary(OpKind::Mul, x, x), axis);
    ValueId r =
        e.unary(OpKind::Rsqrt, e.scalar(OpKind::AddS, ms, op.attrs.getFloat("eps", kRmsNormEps)));
    ValueId y = e.binary(OpKind::Mul, x, r);
    if (op.operands.size() == 2) y = e.binary(OpKind::Mul, y, e.toF32(op.operands[1]));
    e.finish(y);
}

// layer_norm(x[, γ[, β]]) = (x − mean) · rsqrt(var + eps) [· γ] [+ β], over the last axis,
// with the two-pass variance mean((x − mean)²).
void expandLayerNorm(Expansion& e, const Op& op) {
    if (op.operands.empty() || op.operands.size() > 3)
        e.fail(fmt::format("takes (x[, gamma[, beta]]), got {} operands", op.operands.size()));
    ValueId x = e.toF32(op.operands[0]);
    int axis = normalisedAxis(e, -1, e.type(x).shape.rank());
    ValueId d = e.binary(OpKind::Sub, x, e.mean(x, axis));
    ValueId var = e.mean(e.binary(OpKind::Mul, d, d), axis);
    ValueId r = e.unary(OpKind::Rsqrt,
                        e.scalar(OpKind::AddS, var, op.attrs.getFloat("eps", kLayerNormEps)));
    ValueId y = e.binary(OpKind::Mul, d, r);
    if (op.operands.size() >= 2) y = e.binary(OpKind::Mul, y, e.toF32(op.operands[1]));
    if (op.operands.size() == 3) y = e.binary(OpKind::Add, y, e.toF32(op.operands[2]));
    e.finish(y);
}

// quantize(x, scale) = cast<i8, rne>(x / scale) with the division in f32; the cast saturates.
void expandQuantize(Expansion& e, const Op& op) {
    const ValueId x = e.toF32(op.operands[0]);
    const ValueId scale = e.toF32(op.operands[1]);
    e.finish(e.castTo(e.binary(OpKind::Div, x, scale), DType::I8, "rne"));
}

// dequantize(q, scale) = cast<result dtype>(f32(q) · f32(scale)).
void expandDequantize(Expansion& e, const Op& op) {
    const ValueId q = e.toF32(op.operands[0]);
    const ValueId scale = e.toF32(op.operands[1]);
    e.finish(e.binary(OpKind::Mul, q, scale));
}

// Any other transpose (result dim i = operand dim perm[i]) moves some dim j to the end. It
// becomes: a permutation keeping the last dim that brings j next to it, the swap of the last
// two dims, and a permutation keeping the last dim into the final order (each step is left
// out when it is the identity).
void expandTranspose(Expansion& e, const Op& op) {
    const std::vector<int64_t> perm = op.attrs.getInts("perm").value_or(std::vector<int64_t>{});
    const int64_t n = int64_t(perm.size());
    const int64_t j = perm.back();
    std::vector<int64_t> first; // the other dims in their final order, then j, then n-1
    for (int64_t i = 0; i + 1 < n; ++i)
        if (perm[size_t(i)] != n - 1) first.push_back(perm[size_t(i)]);
    first.push_back(j);
    first.push_back(n - 1);
    auto transpose = [&](ValueId x, const std::vector<int64_t>& p) {
        if (isIdentityPerm(p)) return x;
        Type t = e.type(x);
        for (int64_t i = 0; i < n; ++i) t.shape[int(i)] = e.type(x).shape[int(p[size_t(i)])];
        Attrs a;
        a.set("perm", p);
        return e.emit(OpKind::Transpose, {x}, t, std::move(a));
    };
    std::vector<int64_t> swap(size_t(n), 0);
    for (int64_t i = 0; i < n; ++i) swap[size_t(i)] = i;
    std::swap(swap[size_t(n - 1)], swap[size_t(n - 2)]);
    // After the swap, dim k holds operand dim `held[k]`.
    std::vector<int64_t> held = first;
    std::swap(held[size_t(n - 1)], held[size_t(n - 2)]);
    std::vector<int64_t> last(size_t(n), 0);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < n; ++k)
            if (held[size_t(k)] == perm[size_t(i)]) last[size_t(i)] = k;
    ValueId y = transpose(transpose(transpose(op.operands[0], first), swap), last);
    e.finish(y);
}

// --- gather, topk, cumsum and scatter_add along axes expand-tiles does not lower in one step --
//
// expand-tiles lowers a gather along the second-last axis of a source of rank >= 2 by an index
// of rank >= 1 (row gathers), topk / cumsum along one of the last two axes, and scatter_add
// into a rank-2 base along axis 0 (row scatters). Every other axis is rewritten here into
// those forms with reshapes and transposes, which are exact (they move elements, never round),
// so the result is bit for bit the one the op defines; what they cost is visible in the
// lowered program (docs/PASSES.md, "decompose-composites").

int indexAxisOf(const Function& f, const Op& op) {
    const int rank = f.type(op.operands[0]).shape.rank();
    const bool first = op.kind == OpKind::Gather || op.kind == OpKind::ScatterAdd;
    const int64_t axis = op.attrs.getInt("axis", first ? 0 : -1);
    return int(axis < 0 ? axis + rank : axis);
}

// True when a topk or cumsum of x into y along the second-last axis goes along the last one
// instead: strips of whole columns do not fit UB but a line does (a line that does not fit
// either is left for expand-tiles to report as written).
bool runsAlongLastAxis(OpKind kind, const Type& x, const Type& y) {
    const int n = x.shape.rank();
    return n >= 2 && lineBytes(x, y, n - 2) <= kMaxLineBytes && !columnStripsFit(kind, x, y);
}

// runsAlongLastAxis for the topk or cumsum `op` once dims a and b of its operand and result are
// swapped.
bool runsAlongLastAxisAfterSwap(const Function& f, const Op& op, int a, int b) {
    Type x = f.type(op.operands[0]), y = f.type(op.result);
    std::swap(x.shape[a], x.shape[b]);
    std::swap(y.shape[a], y.shape[b]);
    return runsAlongLastAxis(op.kind, x, y);
}

// True when `op` is a gather, topk, cumsum or scatter_add that expand-tiles cannot lower as
// written. An axis out of range is left alone: the verifier has reported it already.
bool needsIndexRewrite(const Function& f, const Op& op) {
    if (op.kind != OpKind::Gather && op.kind != OpKind::TopK && op.kind != OpKind::CumSum &&
        op.kind != OpKind::ScatterAdd)
        return false;
    const int rank = f.type(op.operands[0]).shape.rank();
    const int axis = indexAxisOf(f, op);
    if (rank == 0 || axis < 0 || axis >= rank) return false;
    if (op.kind == OpKind::ScatterAdd) return rank != 2 || axis != 0;
    if (op.kind != OpKind::Gather)
        return axis + 2 < rank ||
               (axis == rank - 2 &&
                runsAlongLastAxis(op.kind, f.type(op.operands[0]), f.type(op.result)));
    return axis != rank - 2 || f.type(op.operands[1]).shape.rank() == 0;
}

ValueId reshapeTo(Expansion& e, ValueId x, const Shape& shape) {
    if (e.type(x).shape == shape) return x;
    Type t = e.type(x);
    t.shape = shape;
    return e.emit(OpKind::Reshape, {x}, t);
}

// A transpose exchanging dims a and b (a permutation keeping the last dim, or the swap of the
// last two: both lower in one step).
ValueId swapAxes(Expansion& e, ValueId x, int a, int b) {
    const int n = e.type(x).shape.rank();
    std::vector<int64_t> perm(size_t(n), 0);
    for (int i = 0; i < n; ++i) perm[size_t(i)] = i;
    std::swap(perm[size_t(a)], perm[size_t(b)]);
    Type t = e.type(x);
    std::swap(t.shape[a], t.shape[b]);
    Attrs attrs;
    attrs.set("perm", perm);
    return e.emit(OpKind::Transpose, {x}, t, std::move(attrs));
}

// `op` once more on other operands, along `axis`, with a result of `shape`.
ValueId reissue(Expansion& e, const Op& op, std::vector<ValueId> operands, int axis,
                const Shape& shape) {
    Attrs attrs = op.attrs;
    attrs.erase("vec_tile");
    attrs.set("axis", int64_t(axis));
    Type t = e.type(op.result);
    t.shape = shape;
    return e.emit(op.kind, std::move(operands), t, std::move(attrs));
}

Shape concatShapes(const Shape& a, const Shape& b) {
    Shape s = a;
    for (int64_t d : b.dims()) s.push(d);
    return s;
}

Shape dimsOf(const Shape& s, int from, int to) {
    Shape out;
    for (int d = from; d < to; ++d) out.push(s[d]);
    return out;
}

// topk or cumsum along an axis a other than the last: swap a with the second-last when it is
// before it (a GM copy keeping the last dim); when strips of whole columns do not fit UB, swap
// the last two as well (a tile transpose); run the op along the axis a is then at; swap back.
void expandLineOp(Expansion& e, const Op& op, int axis) {
    const int n = e.type(op.operands[0]).shape.rank();
    const int mid = n - 2;
    const bool last = runsAlongLastAxisAfterSwap(e.fn(), op, axis, mid);
    ValueId x = axis == mid ? op.operands[0] : swapAxes(e, op.operands[0], axis, mid);
    Shape shape = e.type(op.result).shape;
    std::swap(shape[axis], shape[mid]);
    if (last) {
        x = swapAxes(e, x, mid, n - 1);
        std::swap(shape[mid], shape[n - 1]);
    }
    ValueId y = reissue(e, op, {x}, last ? n - 1 : mid, shape);
    if (last) y = swapAxes(e, y, mid, n - 1);
    e.finish(axis == mid ? y : swapAxes(e, y, axis, mid));
}

// gather along the last axis of src [B..., M, N] by an index I: the tile transpose
// [B..., N, M], a row gather by the index flattened to [R] (R = |I|) into [B..., R, M], the
// tile transpose [B..., M, R] and the reshape to [B..., M, I...]. A rank-1 source is the
// [1, N] view of itself.
void expandLastAxisGather(Expansion& e, const Op& op) {
    const Shape src = e.type(op.operands[0]).shape;
    const Shape idx = e.type(op.operands[1]).shape;
    const ValueId s = reshapeTo(e, op.operands[0], src.rank() == 1 ? Shape{1, src[0]} : src);
    const Shape s2 = e.type(s).shape;
    const int n = s2.rank();
    const int64_t count = idx.numel();
    const ValueId flat = reshapeTo(e, op.operands[1], Shape{count});
    const ValueId t = swapAxes(e, s, n - 2, n - 1);
    Shape rows = dimsOf(s2, 0, n - 2);
    rows.push(count);
    rows.push(s2[n - 2]);
    const ValueId g = reissue(e, op, {t, flat}, n - 2, rows);
    e.finish(reshapeTo(e, swapAxes(e, g, n - 2, n - 1), e.type(op.result).shape));
}

// gather along an axis a with trailing dims T (a before the second-last, or a rank-0 index):
// the reshape of src to [P..., N, |T|] whose rows are the gathered slices, a row gather by the
// index (a rank-0 one as [1]) into [P..., I..., |T|], and the reshape to the result's shape.
void expandSliceGather(Expansion& e, const Op& op, int axis) {
    const Shape src = e.type(op.operands[0]).shape;
    const Shape idx = e.type(op.operands[1]).shape;
    const int64_t slice = dimsOf(src, axis + 1, src.rank()).numel();
    Shape rows = dimsOf(src, 0, axis + 1);
    rows.push(slice);
    const ValueId s = reshapeTo(e, op.operands[0], rows);
    const ValueId i = reshapeTo(e, op.operands[1], idx.rank() == 0 ? Shape{1} : idx);
    Shape gathered = concatShapes(dimsOf(src, 0, axis), e.type(i).shape);
    gathered.push(slice);
    const ValueId g = reissue(e, op, {s, i}, axis, gathered);
    e.finish(reshapeTo(e, g, e.type(op.result).shape));
}

// scatter_add into a base [P..., N, T...] along the axis of N as a row scatter: the base and
// the source [P..., I..., T...] each viewed as [P, L, T] (L = N or |I|) and brought to rows
// [L, P·T] — a reshape when P is 1, the tile transpose of [P, L] when T is 1, else a transpose
// keeping the last dim (a GM copy) and a reshape — then the row scatter by the index flattened
// to [|I|] (a rank-0 one as [1]) and the same steps back. Each destination still gets its
// contributions in index order.
void expandAxisScatterAdd(Expansion& e, const Op& op, int axis) {
    const Shape base = e.type(op.operands[0]).shape;
    const int64_t n = base[axis];
    const int64_t p = dimsOf(base, 0, axis).numel();
    const int64_t t = dimsOf(base, axis + 1, base.rank()).numel();
    const int64_t count = e.type(op.operands[1]).shape.numel();
    auto toRows = [&](ValueId x, int64_t l) {
        if (p == 1) return reshapeTo(e, x, Shape{l, t});
        if (t == 1) return swapAxes(e, reshapeTo(e, x, Shape{p, l}), 0, 1);
        return reshapeTo(e, swapAxes(e, reshapeTo(e, x, Shape{p, l, t}), 0, 1), Shape{l, p * t});
    };
    auto fromRows = [&](ValueId y) {
        if (p == 1) return reshapeTo(e, y, base);
        if (t == 1) return reshapeTo(e, swapAxes(e, y, 0, 1), base);
        return reshapeTo(e, swapAxes(e, reshapeTo(e, y, Shape{n, p, t}), 0, 1), base);
    };
    const ValueId rows = toRows(op.operands[0], n);
    const ValueId index = reshapeTo(e, op.operands[1], Shape{count});
    const ValueId src = toRows(op.operands[2], count);
    e.finish(fromRows(reissue(e, op, {rows, index, src}, 0, Shape{n, p * t})));
}

void expandIndexAxis(Expansion& e, const Op& op) {
    const int axis = indexAxisOf(e.fn(), op);
    const int rank = e.type(op.operands[0]).shape.rank();
    if (op.kind == OpKind::ScatterAdd) return expandAxisScatterAdd(e, op, axis);
    if (op.kind != OpKind::Gather) return expandLineOp(e, op, axis);
    if (axis == rank - 1) return expandLastAxisGather(e, op);
    expandSliceGather(e, op, axis);
}

void expand(Expansion& e, const Op& op) {
    switch (op.kind) {
    case OpKind::Transpose:
        return expandTranspose(e, op);
    case OpKind::Sigmoid:
        return expandSigmoid(e, op);
    case OpKind::Tanh:
        return expandTanh(e, op);
    case OpKind::Gelu:
        return expandGelu(e, op);
    case OpKind::Silu:
        return expandSilu(e, op);
    case OpKind::Softmax:
        return expandSoftmax(e, op);
    case OpKind::RmsNorm:
        return expandRmsNorm(e, op);
    case OpKind::LayerNorm:
        return expandLayerNorm(e, op);
    case OpKind::Quantize:
        return expandQuantize(e, op);
    case OpKind::Dequantize:
        return expandDequantize(e, op);
    default:
        e.fail("no decomposition is defined for this composite");
    }
}

} // namespace

void decomposeComposites(Function& f) {
    std::vector<Op> old = std::move(f.ops());
    std::vector<Op> out;
    out.reserve(old.size() * 2);
    std::optional<std::vector<int64_t>> scope;
    for (Op& op : old) {
        if (op.kind == OpKind::VecTile) scope = op.attrs.getInts("sizes");
        const bool splitTranspose =
            op.kind == OpKind::Transpose &&
            !lowersInOneStep(op.attrs.getInts("perm").value_or(std::vector<int64_t>{}));
        const bool indexAxis = needsIndexRewrite(f, op);
        if ((opInfo(op.kind).cls != OpClass::Composite && !splitTranspose && !indexAxis) ||
            op.result == kNoId) {
            op.id = OpId(out.size());
            if (op.result != kNoId) f.value(op.result).def = op.id;
            out.push_back(std::move(op));
            continue;
        }
        Expansion e(f, op, out, scope);
        if (indexAxis)
            expandIndexAxis(e, op);
        else
            expand(e, op);
    }
    f.ops() = std::move(out);
    f.renumber();
}

} // namespace pto
