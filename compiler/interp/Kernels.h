// N-d compute kernels shared by the reference interpreters: elementwise ops with NumPy
// broadcasting, reductions along one axis, matmul with transpose flags, the composite
// normalisations, and byte-exact layout ops (transpose, slice, broadcast, concat, box copy).
#pragma once

// Two representations:
// - FloatArray: a dense row-major f32 array. Every arithmetic kernel reads and writes these,
//   so arithmetic happens in f32 and a value is rounded once, when the interpreter converts
//   the result back to its dtype (toTensorData).
// - TensorData: layout kernels move elements as bytes, so they are exact for every dtype
//   (an i32 beyond 2^24 or a NaN payload survives a transpose).
//
// Kernels trust their arguments (shapes broadcast, axes in range, operands the right size):
// the interpreters validate ops first and report bad IR as CompileError. The shape helpers
// below (broadcastShapes, normalizeAxis, matmulShape) are what they validate with.
//
// Accumulation order (the precision rule): reductions fold along the axis in index order,
// matmul sums over k in ascending order, each in one f32 accumulator starting from 0 — except
// i8 matmul, which sums exactly in a wrapping int32 accumulator, as the cube does.

#include "compiler/ir/OpKind.h"
#include "compiler/ir/Semantics.h"
#include "compiler/ir/Shape.h"
#include "compiler/ir/TensorData.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace pto {

struct FloatArray {
    Shape shape;
    std::vector<float> data;

    FloatArray() = default;
    explicit FloatArray(Shape dims) : shape(dims), data(size_t(dims.numel())) {}
    int64_t numel() const { return shape.numel(); }
};

FloatArray toFloatArray(const TensorData& t);
// The array rounded once to `dtype` by `mode` (integers saturate).
TensorData toTensorData(const FloatArray& a, DType dtype, RoundMode mode = RoundMode::NearestEven);

// --- Shape rules ------------------------------------------------------------------------------

// NumPy broadcasting: dims aligned from the right, equal or 1; nullopt if incompatible.
std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b);
// Whether `from` broadcasts to exactly `to`.
bool broadcastsTo(const Shape& from, const Shape& to);
// An axis in [-rank, rank) as a non-negative index; nullopt when out of range.
std::optional<int> normalizeAxis(int64_t axis, int rank);
// `shape` with dimension `axis` removed, or set to 1 when keepdim.
Shape reducedShape(const Shape& shape, int axis, bool keepdim);
// The result shape of a (optionally transposed) matmul: a [..., m, k] · b [..., k, n] with
// the batch dims broadcast; nullopt when a rank is < 2, k differs or batches don't broadcast.
std::optional<Shape> matmulShape(const Shape& a, const Shape& b, bool transposeA, bool transposeB);

// --- Elementwise ------------------------------------------------------------------------------

// f(x) for a unary kind (isUnaryKind; cast is the identity).
FloatArray unaryOp(OpKind kind, const FloatArray& x);
// x (op) s for a binary or scalar arithmetic kind (add/adds ... min/mins).
FloatArray scalarOp(OpKind kind, const FloatArray& x, float s);
// a (op) b with broadcasting, for add/sub/mul/div/max/min.
FloatArray binaryOp(OpKind kind, const FloatArray& a, const FloatArray& b);
// 1 where pred(a, b) holds, else 0, with broadcasting.
FloatArray compareOp(CmpPred pred, const FloatArray& a, const FloatArray& b);
FloatArray compareScalarOp(CmpPred pred, const FloatArray& a, float s);
// cond != 0 ? a : b, the three broadcast together.
FloatArray selectOp(const FloatArray& cond, const FloatArray& a, const FloatArray& b);

// --- Reductions and matmul ---------------------------------------------------------------------

// reduce_sum / reduce_max / reduce_min along `axis` (already normalised).
FloatArray reduceOp(OpKind kind, const FloatArray& x, int axis, bool keepdim);

// c[m×n] = op(a) · op(b), overwriting c: a is m×k (k×m if transposeA), b is k×n (n×k if
// transposeB), all row-major; each c[i][j] sums a[i][p]·b[p][j] for p = 0..k-1 in order in f32.
void matmulKernel(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n,
                  bool transposeA, bool transposeB);
// Batched matmul with broadcast batch dims (shapes must satisfy matmulShape).
FloatArray matmulOp(const FloatArray& a, const FloatArray& b, bool transposeA, bool transposeB);

// The integer form of matmulKernel, as the cube computes i8 × i8: c[i][j] sums the exact
// products a[i][p]·b[p][j] in a 32-bit integer accumulator that wraps on overflow (two's
// complement, as the i32 L0C register does; with |a|, |b| ≤ 128 that needs k > 131072).
void matmulKernelInt8(const int8_t* a, const int8_t* b, int32_t* c, int64_t m, int64_t k, int64_t n,
                      bool transposeA, bool transposeB);

// The matmul op on tensors, rounded once to `dtype`. Float inputs: matmulOp (f32 accumulation).
// Two i8 inputs: matmulKernelInt8 per batch, the int32 result stored exactly when `dtype` is
// I32, else widened to f32 (RNE) and rounded to `dtype` (as TSTORE of an i32 L0C does).
TensorData matmulData(const TensorData& a, const TensorData& b, bool transposeA, bool transposeB,
                      DType dtype);
// matmul_acc: acc + op(a)·op(b), rounded once to `dtype`. The partial product of this k range
// is formed first (matmulData's accumulation), then added to acc once per element: in f32, or
// for i8 inputs into an I32 accumulator as an exact wrapping int32 addition.
TensorData matmulAccData(const TensorData& acc, const TensorData& a, const TensorData& b,
                         bool transposeA, bool transposeB, DType dtype);

// --- Composites (f32 throughout; the reference semantics of the Tensor level) -----------------

// exp(x − max) / sum(exp(x − max)) along `axis`.
FloatArray softmaxOp(const FloatArray& x, int axis);
// x / sqrt(mean(x², last axis) + eps) · weight (weight broadcasts; may be null).
FloatArray rmsNormOp(const FloatArray& x, const FloatArray* weight, double eps);
// (x − mean) / sqrt(var + eps) · gamma + beta over the last axis, biased variance
// (gamma and beta broadcast; either may be null).
FloatArray layerNormOp(const FloatArray& x, const FloatArray* gamma, const FloatArray* beta,
                       double eps);

// --- Layout (byte-exact; the result has the input's dtype) -------------------------------------

// out[i0..in] = x[i_perm...]: dimension d of the result is dimension perm[d] of x.
TensorData transposeData(const TensorData& x, std::span<const int64_t> perm);
// The box of shape `sizes` at corner `offsets` of x.
TensorData sliceData(const TensorData& x, std::span<const int64_t> offsets, const Shape& sizes);
// x broadcast (NumPy rules) to `shape`.
TensorData broadcastData(const TensorData& x, const Shape& shape);
// The parts joined along `axis` (same dtype, equal other dims).
TensorData concatData(std::span<const TensorData* const> parts, int axis);

// Copies a box of shape `box` from `src` at `srcCorner` to `dst` at `dstCorner`. Each tensor is
// addressed through a view shape of its own element count (its shape, or e.g. rows × cols of
// a higher-rank tensor); box, views and corners have one rank. Equal dtypes copy bytes; else
// each element is converted (widened exactly, then rounded to dst's dtype by RNE).
void copyBox(const TensorData& src, const Shape& srcView, std::span<const int64_t> srcCorner,
             TensorData& dst, const Shape& dstView, std::span<const int64_t> dstCorner,
             const Shape& box);

} // namespace pto
