// The scalar semantics of every elementwise op kind, reduction and comparison: the one
// definition shared by the reference interpreters and the simulator's functional mode.
#pragma once

// The model
// ---------
// Every element computation happens in f32 (Scalar.h widens inputs exactly and narrows results
// once, by storeElement). This header says what happens in between: f32 in, f32 out, one
// function per op kind. It depends on nothing but OpKind and <cmath>, and everything hot is
// inline so that kernels can instantiate one loop per op kind:
//
//     dispatchUnary(kind, [&](auto fn) { for (i...) out[i] = fn(x[i]); });
//
// calls the lambda once with a stateless functor of the kind (ExpFn, ReluFn...), so the loop
// body is inlined and vectorisable; applyUnary(kind, x) is the per-element form.
//
// Conventions (chosen to match PyTorch and NumPy, the references of the tests):
// - max/min (binary, scalar and reductions) propagate NaN: if either input is NaN the result
//   is NaN (torch.maximum, torch.amax, np.maximum).
// - relu(NaN) = NaN; relu(-0) = -0 (compared as 0 everywhere).
// - cast is the identity here: the conversion is the final storeElement with the op's round
//   mode.
// - Comparisons follow IEEE: every predicate but `ne` is false when an input is NaN.
// - Scalar operands (attr `scalar`, a double) are converted to f32 once, then used as b.
// - gelu is the tanh form 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))); sigmoid is
//   1 / (1 + exp(−x)); silu is x · sigmoid(x).
//
// For results that are bit-identical across translation units, compile users with
// -ffp-contract=off (no fused multiply-add contraction); pto_interp does.

#include "compiler/ir/DType.h"
#include "compiler/ir/OpKind.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

namespace pto {

// --- Unary (primitives and composite unaries) ---------------------------------------------

struct ExpFn {
    float operator()(float x) const { return std::exp(x); }
};
struct LogFn {
    float operator()(float x) const { return std::log(x); }
};
struct SqrtFn {
    float operator()(float x) const { return std::sqrt(x); }
};
struct RsqrtFn {
    float operator()(float x) const { return 1.0f / std::sqrt(x); }
};
struct ReciprocalFn {
    float operator()(float x) const { return 1.0f / x; }
};
struct AbsFn {
    float operator()(float x) const { return std::fabs(x); }
};
struct NegFn {
    float operator()(float x) const { return -x; }
};
struct ReluFn {
    float operator()(float x) const { return x < 0.0f ? 0.0f : x; }
};
struct IdentityFn {
    float operator()(float x) const { return x; }
};
struct SigmoidFn {
    float operator()(float x) const { return 1.0f / (1.0f + std::exp(-x)); }
};
struct TanhFn {
    float operator()(float x) const { return std::tanh(x); }
};
struct GeluFn {
    static constexpr float kSqrt2OverPi = 0.7978845608028654f; // √(2/π)
    static constexpr float kCubic = 0.044715f;
    float operator()(float x) const {
        const float inner = kSqrt2OverPi * (x + kCubic * (x * x * x));
        return 0.5f * x * (1.0f + std::tanh(inner));
    }
};
struct SiluFn {
    float operator()(float x) const { return x * SigmoidFn{}(x); }
};

// The unaryFn column of Ops.def: the functor of an elementwise unary, NoFn for other kinds.
struct NoFn {};
namespace detail {
template <class Fn> inline constexpr bool kIsUnaryFn = !std::is_same_v<Fn, NoFn>;
inline constexpr bool kIsUnary[] = {
#define PTO_OP(kind, mnemonic, levels, minArity, maxArity, cls, rule, flags, attrs, unaryFn,       \
               builder, form)                                                                      \
    kIsUnaryFn<unaryFn>,
#include "compiler/ir/Ops.def"
#undef PTO_OP
};
template <class Fn, class Visitor> bool visitUnary(Visitor& visitor) {
    if constexpr (kIsUnaryFn<Fn>) {
        visitor(Fn{});
        return true;
    } else {
        return false;
    }
}
} // namespace detail

// Whether `kind` is an elementwise unary of the IR (primitive or composite, cast included).
inline bool isUnaryKind(OpKind kind) {
    return detail::kIsUnary[static_cast<int>(kind)];
}

// Calls visitor(fn) with the functor of a unary kind; returns false (no call) for other kinds.
template <class Visitor> bool dispatchUnary(OpKind kind, Visitor&& visitor) {
    switch (kind) {
#define PTO_OP(kind, mnemonic, levels, minArity, maxArity, cls, rule, flags, attrs, unaryFn,       \
               builder, form)                                                                      \
    case OpKind::kind:                                                                             \
        return detail::visitUnary<unaryFn>(visitor);
#include "compiler/ir/Ops.def"
#undef PTO_OP
    }
    return false;
}

// f(x) for a unary kind; NaN for a kind that is not unary.
inline float applyUnary(OpKind kind, float x) {
    float y = std::numeric_limits<float>::quiet_NaN();
    dispatchUnary(kind, [&](auto fn) { y = fn(x); });
    return y;
}

// --- Binary (tensor-tensor) and scalar (tensor-scalar) -------------------------------------

struct AddFn {
    float operator()(float a, float b) const { return a + b; }
};
struct SubFn {
    float operator()(float a, float b) const { return a - b; }
};
struct MulFn {
    float operator()(float a, float b) const { return a * b; }
};
struct DivFn {
    float operator()(float a, float b) const { return a / b; }
};
// NaN-propagating maximum / minimum (a NaN operand wins, as torch.maximum).
struct MaxFn {
    float operator()(float a, float b) const { return (a > b || a != a) ? a : b; }
};
struct MinFn {
    float operator()(float a, float b) const { return (a < b || a != a) ? a : b; }
};

// The binary arithmetic kind behind a binary or scalar kind (AddS → Add); nullopt otherwise.
inline std::optional<OpKind> arithmeticKind(OpKind kind) {
    switch (kind) {
    case OpKind::Add:
    case OpKind::AddS:
        return OpKind::Add;
    case OpKind::Sub:
    case OpKind::SubS:
        return OpKind::Sub;
    case OpKind::Mul:
    case OpKind::MulS:
        return OpKind::Mul;
    case OpKind::Div:
    case OpKind::DivS:
        return OpKind::Div;
    case OpKind::Max:
    case OpKind::MaxS:
        return OpKind::Max;
    case OpKind::Min:
    case OpKind::MinS:
        return OpKind::Min;
    default:
        return std::nullopt;
    }
}

// Calls visitor(fn) with the functor of a binary or scalar arithmetic kind (add/adds → AddFn);
// returns false (no call) for other kinds.
template <class Visitor> bool dispatchBinary(OpKind kind, Visitor&& visitor) {
    const std::optional<OpKind> base = arithmeticKind(kind);
    if (!base) return false;
    switch (*base) {
    case OpKind::Add:
        visitor(AddFn{});
        return true;
    case OpKind::Sub:
        visitor(SubFn{});
        return true;
    case OpKind::Mul:
        visitor(MulFn{});
        return true;
    case OpKind::Div:
        visitor(DivFn{});
        return true;
    case OpKind::Max:
        visitor(MaxFn{});
        return true;
    case OpKind::Min:
        visitor(MinFn{});
        return true;
    default:
        return false;
    }
}

// a (op) b for add/sub/mul/div/max/min (or their scalar forms); NaN for other kinds.
inline float applyBinary(OpKind kind, float a, float b) {
    float y = std::numeric_limits<float>::quiet_NaN();
    dispatchBinary(kind, [&](auto fn) { y = fn(a, b); });
    return y;
}

// x (op) scalar for adds/subs/muls/divs/maxs/mins: the scalar is rounded to f32 first.
inline float applyScalarOp(OpKind kind, float x, double scalar) {
    return applyBinary(kind, x, static_cast<float>(scalar));
}

// --- Comparisons -----------------------------------------------------------------------------

enum class CmpPred : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

// "eq", "ne", "lt", "le", "gt", "ge" (attr `pred` of cmp / cmps).
std::string_view cmpPredName(CmpPred pred);
std::optional<CmpPred> parseCmpPred(std::string_view name);

inline bool applyCompare(CmpPred pred, float a, float b) {
    switch (pred) {
    case CmpPred::Eq:
        return a == b;
    case CmpPred::Ne:
        return a != b;
    case CmpPred::Lt:
        return a < b;
    case CmpPred::Le:
        return a <= b;
    case CmpPred::Gt:
        return a > b;
    case CmpPred::Ge:
        return a >= b;
    }
    return false;
}

// As above with the predicate spelled as in the IR; an unknown predicate compares false.
bool applyCompare(std::string_view pred, float a, float b);

// --- Reductions --------------------------------------------------------------------------------

// Whether `kind` is reduce_sum / reduce_max / reduce_min.
inline bool isReduceKind(OpKind kind) {
    return kind == OpKind::ReduceSum || kind == OpKind::ReduceMax || kind == OpKind::ReduceMin;
}

// The identity of a reduction: 0 for sum, -inf for max, +inf for min.
inline float reduceInit(OpKind kind) {
    switch (kind) {
    case OpKind::ReduceMax:
        return -std::numeric_limits<float>::infinity();
    case OpKind::ReduceMin:
        return std::numeric_limits<float>::infinity();
    default:
        return 0.0f;
    }
}

// One accumulation step, acc ∘ x, in f32; reductions fold their inputs in index order.
inline float reduceCombine(OpKind kind, float acc, float x) {
    switch (kind) {
    case OpKind::ReduceMax:
        return MaxFn{}(acc, x);
    case OpKind::ReduceMin:
        return MinFn{}(acc, x);
    default:
        return acc + x;
    }
}

// Calls visitor(fn) with the combine functor of a reduction (AddFn, MaxFn, MinFn).
// --- Top-k (topk, TTOPK) ----------------------------------------------------------------------
// out[0, k) = the positions of the k largest (largest) or smallest values of row[0, n), in
// order — the best first — with ties broken by the lower position (torch.topk(sorted=True)'s
// order for distinct values). NaN ranks above +inf, so it comes first when largest and last
// otherwise. The interpreters and the simulator's kernel share it.
void topkRow(const double* row, int64_t n, int64_t k, bool largest, int32_t* out);
// The key topk compares for the element at `p`: its value, exact for every dtype (an i32
// beyond 2^24 included).
double elementKey(const std::byte* p, DType dtype);

// --- Prefix sums and scatter-adds (cumsum, TCUMSUM; scatter_add, MSCATTER) ---------------------
// cumsum of n elements `stride` elements apart, from `src` into `dst` (may be the same): a float
// dtype keeps an f32 running sum in index order and rounds each output once (RNE) from it; i32
// sums exactly (64-bit) and saturates each output. The interpreters and the simulator share it.
void cumsumLine(const std::byte* src, std::byte* dst, DType dtype, int64_t n, int64_t stride);
// dst[i] = dst[i] + src[i] for n elements of `dtype`: a float computed in f32 and rounded once
// (RNE) to the dtype, an i32 exactly and saturated — one contribution of a scatter-add, which
// applies its contributions one at a time in index order.
void accumulateRow(std::byte* dst, const std::byte* src, DType dtype, int64_t n);

template <class Visitor> bool dispatchReduce(OpKind kind, Visitor&& visitor) {
    switch (kind) {
    case OpKind::ReduceSum:
        visitor(AddFn{});
        return true;
    case OpKind::ReduceMax:
        visitor(MaxFn{});
        return true;
    case OpKind::ReduceMin:
        visitor(MinFn{});
        return true;
    default:
        return false;
    }
}

} // namespace pto
