// N-d f32 compute kernels and byte-exact layout kernels of the reference interpreters.
#include "compiler/interp/Kernels.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace pto {
namespace {

using Strides = std::array<int64_t, Shape::kMaxRank>;

Strides rowMajorStrides(const Shape& s) {
    Strides st{};
    int64_t step = 1;
    for (int d = s.rank() - 1; d >= 0; --d) {
        st[d] = step;
        step *= s[d];
    }
    return st;
}

// Strides that read `in` as if it had shape `out`: dims aligned from the right, stride 0 where
// `in` is broadcast (its dim is 1 or missing).
Strides broadcastStrides(const Shape& in, const Shape& out) {
    const Strides inStrides = rowMajorStrides(in);
    Strides st{};
    const int shift = out.rank() - in.rank();
    for (int d = 0; d < out.rank(); ++d) {
        const int di = d - shift;
        st[d] = (di >= 0 && in[di] != 1) ? inStrides[di] : 0;
    }
    return st;
}

int64_t rowLength(const Shape& s) {
    return s.rank() == 0 ? 1 : s.back();
}

// Calls fn(offsets, outOffset) once per row of `out` (a row = the last dim) in row-major order;
// offsets[i] is the element offset of operand i at the row's start, by its strides.
template <size_t N, class Fn>
void forEachRow(const Shape& out, const std::array<Strides, N>& strides, Fn&& fn) {
    if (out.numel() == 0) return;
    const int rank = out.rank();
    const int64_t rows = out.numel() / rowLength(out);
    std::array<int64_t, Shape::kMaxRank> index{};
    std::array<int64_t, N> offsets{};
    for (int64_t r = 0; r < rows; ++r) {
        fn(offsets, r * rowLength(out));
        for (int d = rank - 2; d >= 0; --d) {
            if (++index[d] < out[d]) {
                for (size_t i = 0; i < N; ++i) offsets[i] += strides[i][d];
                break;
            }
            for (size_t i = 0; i < N; ++i) offsets[i] -= strides[i][d] * (out[d] - 1);
            index[d] = 0;
        }
    }
}

// The stride of the last dim (0 or 1 for broadcast reads); 0 for rank 0.
template <size_t N>
std::array<int64_t, N> innerStrides(const Shape& out, const std::array<Strides, N>& st) {
    std::array<int64_t, N> inner{};
    if (out.rank() > 0)
        for (size_t i = 0; i < N; ++i) inner[i] = st[i][out.rank() - 1];
    return inner;
}

// One row of a binary op, specialised on which operand varies along the row.
template <class Fn>
void binaryRow(const float* a, bool aVaries, const float* b, bool bVaries, float* out, int64_t cols,
               Fn fn) {
    if (aVaries && bVaries) {
        for (int64_t j = 0; j < cols; ++j) out[j] = fn(a[j], b[j]);
    } else if (aVaries) {
        const float y = *b;
        for (int64_t j = 0; j < cols; ++j) out[j] = fn(a[j], y);
    } else if (bVaries) {
        const float x = *a;
        for (int64_t j = 0; j < cols; ++j) out[j] = fn(x, b[j]);
    } else {
        std::fill(out, out + cols, fn(*a, *b));
    }
}

template <class Fn> FloatArray broadcastBinary(const FloatArray& a, const FloatArray& b, Fn fn) {
    const Shape shape = broadcastShapes(a.shape, b.shape).value_or(a.shape);
    FloatArray out(shape);
    const std::array<Strides, 2> st = {broadcastStrides(a.shape, shape),
                                       broadcastStrides(b.shape, shape)};
    const auto inner = innerStrides(shape, st);
    const int64_t cols = rowLength(shape);
    forEachRow(shape, st, [&](const std::array<int64_t, 2>& off, int64_t o) {
        binaryRow(a.data.data() + off[0], inner[0] != 0, b.data.data() + off[1], inner[1] != 0,
                  out.data.data() + o, cols, fn);
    });
    return out;
}

// Runs of `count` consecutive elements between two tensors, converting when dtypes differ.
void copyRun(const TensorData& src, int64_t srcIndex, TensorData& dst, int64_t dstIndex,
             int64_t count) {
    if (src.dtype == dst.dtype) {
        const int64_t size = src.elementSize();
        std::memcpy(dst.data() + dstIndex * size, src.data() + srcIndex * size,
                    size_t(count * size));
        return;
    }
    // Through f32 in chunks: widened exactly, rounded once to dst's dtype (RNE).
    constexpr int64_t kChunk = 256;
    std::array<float, kChunk> buffer{};
    for (int64_t j = 0; j < count; j += kChunk) {
        const int64_t len = std::min(kChunk, count - j);
        convertRowToFloat(src.data() + (srcIndex + j) * src.elementSize(), src.dtype, buffer.data(),
                          len);
        convertRowFromFloat(buffer.data(), dst.dtype,
                            dst.data() + (dstIndex + j) * dst.elementSize(), len);
    }
}

// out[idx] = x[base + Σ idx[d]·strides[d]] for every index of `shape` (element units).
TensorData gather(const TensorData& x, int64_t base, const Strides& strides, const Shape& shape) {
    TensorData out(x.dtype, shape);
    const int64_t size = x.elementSize();
    const int64_t cols = rowLength(shape);
    const int64_t inner = shape.rank() == 0 ? 0 : strides[shape.rank() - 1];
    forEachRow(shape, std::array<Strides, 1>{strides},
               [&](const std::array<int64_t, 1>& off, int64_t o) {
                   const std::byte* from = x.data() + (base + off[0]) * size;
                   std::byte* to = out.data() + o * size;
                   if (inner == 1) {
                       std::memcpy(to, from, size_t(cols * size));
                       return;
                   }
                   for (int64_t j = 0; j < cols; ++j)
                       std::memcpy(to + j * size, from + j * inner * size, size_t(size));
               });
    return out;
}

// Calls fn(aBatch, bBatch, outBatch) once per batch element of a matmul whose result has
// shape `shape`: the flat batch indices of a, b (broadcast) and the result.
template <class Fn>
void forEachMatmulBatch(const Shape& aShape, const Shape& bShape, const Shape& shape, Fn&& fn) {
    const Shape batch(shape.dims().first(size_t(shape.rank() - 2)));
    const Shape aBatch(aShape.dims().first(size_t(aShape.rank() - 2)));
    const Shape bBatch(bShape.dims().first(size_t(bShape.rank() - 2)));
    const std::array<Strides, 2> st = {broadcastStrides(aBatch, batch),
                                       broadcastStrides(bBatch, batch)};
    // Each batch element is one row (of length 1) of the batch shape extended by a unit dim.
    Shape iter = batch;
    iter.push(1);
    forEachRow(iter, st, [&](const std::array<int64_t, 2>& off, int64_t index) {
        fn(off[0], off[1], index);
    });
}

// m, k, n of a matmul of `a` with result shape `shape`.
struct MatmulDims {
    int64_t m, k, n;
};

MatmulDims matmulDims(const Shape& a, const Shape& shape, bool transposeA) {
    const int ra = a.rank();
    return {shape[shape.rank() - 2], transposeA ? a[ra - 2] : a[ra - 1], shape[shape.rank() - 1]};
}

// Little-endian int32 element access on raw bytes (exact, unlike the f32 path of get/set).
int32_t loadInt32(const std::byte* p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | std::to_integer<uint32_t>(p[i]);
    return static_cast<int32_t>(v);
}

void storeInt32(std::byte* p, int32_t value) {
    const auto v = static_cast<uint32_t>(value);
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}

// The i8 elements of a tensor as int8_t.
std::vector<int8_t> int8Elements(const TensorData& t) {
    std::vector<int8_t> out(size_t(t.numel()));
    std::memcpy(out.data(), t.data(), out.size());
    return out;
}

// op(a) · op(b) of two i8 tensors with broadcast batches, in int32 (matmulKernelInt8).
std::vector<int32_t> matmulInt8(const TensorData& a, const TensorData& b, bool transposeA,
                                bool transposeB, const Shape& shape) {
    std::vector<int32_t> out(size_t(shape.numel()));
    const MatmulDims d = matmulDims(a.shape, shape, transposeA);
    const std::vector<int8_t> av = int8Elements(a);
    const std::vector<int8_t> bv = int8Elements(b);
    forEachMatmulBatch(a.shape, b.shape, shape, [&](int64_t ia, int64_t ib, int64_t io) {
        matmulKernelInt8(av.data() + ia * d.m * d.k, bv.data() + ib * d.k * d.n,
                         out.data() + io * d.m * d.n, d.m, d.k, d.n, transposeA, transposeB);
    });
    return out;
}

// An int32 result as a tensor of `dtype`: exact for I32, else widened to f32 (RNE) and rounded
// once to `dtype`.
TensorData fromInt32(const std::vector<int32_t>& values, const Shape& shape, DType dtype) {
    TensorData t(dtype, shape);
    if (dtype == DType::I32) {
        for (size_t i = 0; i < values.size(); ++i) storeInt32(t.data() + 4 * i, values[i]);
        return t;
    }
    std::vector<float> widened(values.size());
    for (size_t i = 0; i < values.size(); ++i) widened[i] = static_cast<float>(values[i]);
    t.storeFloats(widened.data());
    return t;
}

} // namespace

// --- Conversion -------------------------------------------------------------------------------

FloatArray toFloatArray(const TensorData& t) {
    FloatArray a(t.shape);
    t.loadFloats(a.data.data());
    return a;
}

TensorData toTensorData(const FloatArray& a, DType dtype, RoundMode mode) {
    TensorData t(dtype, a.shape);
    t.storeFloats(a.data.data(), mode);
    return t;
}

// --- Shape rules ------------------------------------------------------------------------------

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) {
    const int rank = std::max(a.rank(), b.rank());
    Shape out;
    for (int d = 0; d < rank; ++d) {
        const int da = d - (rank - a.rank());
        const int db = d - (rank - b.rank());
        const int64_t x = da >= 0 ? a[da] : 1;
        const int64_t y = db >= 0 ? b[db] : 1;
        if (x != y && x != 1 && y != 1) return std::nullopt;
        out.push(x == 1 ? y : x);
    }
    return out;
}

bool broadcastsTo(const Shape& from, const Shape& to) {
    const std::optional<Shape> s = broadcastShapes(from, to);
    return s && *s == to;
}

std::optional<int> normalizeAxis(int64_t axis, int rank) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    return int(axis < 0 ? axis + rank : axis);
}

Shape reducedShape(const Shape& shape, int axis, bool keepdim) {
    Shape out;
    for (int d = 0; d < shape.rank(); ++d) {
        if (d != axis)
            out.push(shape[d]);
        else if (keepdim)
            out.push(1);
    }
    return out;
}

std::optional<Shape> matmulShape(const Shape& a, const Shape& b, bool transposeA, bool transposeB) {
    const int ra = a.rank();
    const int rb = b.rank();
    if (ra < 2 || rb < 2) return std::nullopt;
    const int64_t m = transposeA ? a[ra - 1] : a[ra - 2];
    const int64_t ka = transposeA ? a[ra - 2] : a[ra - 1];
    const int64_t kb = transposeB ? b[rb - 1] : b[rb - 2];
    const int64_t n = transposeB ? b[rb - 2] : b[rb - 1];
    if (ka != kb) return std::nullopt;
    const std::optional<Shape> batch = broadcastShapes(Shape(a.dims().first(size_t(ra - 2))),
                                                       Shape(b.dims().first(size_t(rb - 2))));
    if (!batch) return std::nullopt;
    Shape out = *batch;
    out.push(m);
    out.push(n);
    return out;
}

// --- Elementwise ------------------------------------------------------------------------------

FloatArray unaryOp(OpKind kind, const FloatArray& x) {
    FloatArray out(x.shape);
    const float* in = x.data.data();
    float* o = out.data.data();
    const int64_t n = x.numel();
    dispatchUnary(kind, [&](auto fn) {
        for (int64_t i = 0; i < n; ++i) o[i] = fn(in[i]);
    });
    return out;
}

FloatArray scalarOp(OpKind kind, const FloatArray& x, float s) {
    FloatArray out(x.shape);
    const float* in = x.data.data();
    float* o = out.data.data();
    const int64_t n = x.numel();
    dispatchBinary(kind, [&](auto fn) {
        for (int64_t i = 0; i < n; ++i) o[i] = fn(in[i], s);
    });
    return out;
}

FloatArray binaryOp(OpKind kind, const FloatArray& a, const FloatArray& b) {
    FloatArray out;
    dispatchBinary(kind, [&](auto fn) { out = broadcastBinary(a, b, fn); });
    return out;
}

FloatArray compareOp(CmpPred pred, const FloatArray& a, const FloatArray& b) {
    return broadcastBinary(
        a, b, [pred](float x, float y) { return applyCompare(pred, x, y) ? 1.0f : 0.0f; });
}

FloatArray compareScalarOp(CmpPred pred, const FloatArray& a, float s) {
    FloatArray out(a.shape);
    for (int64_t i = 0; i < a.numel(); ++i)
        out.data[size_t(i)] = applyCompare(pred, a.data[size_t(i)], s) ? 1.0f : 0.0f;
    return out;
}

FloatArray selectOp(const FloatArray& cond, const FloatArray& a, const FloatArray& b) {
    const std::optional<Shape> ab = broadcastShapes(a.shape, b.shape);
    const Shape shape = broadcastShapes(cond.shape, ab.value_or(a.shape)).value_or(a.shape);
    FloatArray out(shape);
    const std::array<Strides, 3> st = {broadcastStrides(cond.shape, shape),
                                       broadcastStrides(a.shape, shape),
                                       broadcastStrides(b.shape, shape)};
    const auto inner = innerStrides(shape, st);
    const int64_t cols = rowLength(shape);
    forEachRow(shape, st, [&](const std::array<int64_t, 3>& off, int64_t o) {
        const float* c = cond.data.data() + off[0];
        const float* x = a.data.data() + off[1];
        const float* y = b.data.data() + off[2];
        float* r = out.data.data() + o;
        for (int64_t j = 0; j < cols; ++j)
            r[j] = c[j * inner[0]] != 0.0f ? x[j * inner[1]] : y[j * inner[2]];
    });
    return out;
}

// --- Reductions and matmul ---------------------------------------------------------------------

FloatArray reduceOp(OpKind kind, const FloatArray& x, int axis, bool keepdim) {
    FloatArray out(reducedShape(x.shape, axis, keepdim));
    int64_t outer = 1;
    int64_t inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.shape[d];
    for (int d = axis + 1; d < x.shape.rank(); ++d) inner *= x.shape[d];
    const int64_t len = x.shape[axis];
    const float init = reduceInit(kind);
    dispatchReduce(kind, [&](auto combine) {
        for (int64_t o = 0; o < outer; ++o) {
            float* acc = out.data.data() + o * inner;
            std::fill(acc, acc + inner, init);
            for (int64_t a = 0; a < len; ++a) {
                const float* row = x.data.data() + (o * len + a) * inner;
                for (int64_t i = 0; i < inner; ++i) acc[i] = combine(acc[i], row[i]);
            }
        }
    });
    return out;
}

void matmulKernel(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n,
                  bool transposeA, bool transposeB) {
    std::vector<float> aT;
    std::vector<float> bT;
    if (transposeA) { // a is k×m: make it m×k
        aT.resize(size_t(m * k));
        for (int64_t p = 0; p < k; ++p)
            for (int64_t i = 0; i < m; ++i) aT[size_t(i * k + p)] = a[p * m + i];
        a = aT.data();
    }
    if (transposeB) { // b is n×k: make it k×n
        bT.resize(size_t(k * n));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t p = 0; p < k; ++p) bT[size_t(p * n + j)] = b[j * k + p];
        b = bT.data();
    }
    // i-p-j order: the j loop vectorises, and every c[i][j] still sums over p in order.
    for (int64_t i = 0; i < m; ++i) {
        float* cRow = c + i * n;
        std::fill(cRow, cRow + n, 0.0f);
        const float* aRow = a + i * k;
        for (int64_t p = 0; p < k; ++p) {
            const float av = aRow[p];
            const float* bRow = b + p * n;
            for (int64_t j = 0; j < n; ++j) cRow[j] += av * bRow[j];
        }
    }
}

FloatArray matmulOp(const FloatArray& a, const FloatArray& b, bool transposeA, bool transposeB) {
    const Shape shape = matmulShape(a.shape, b.shape, transposeA, transposeB).value_or(Shape{});
    FloatArray out(shape);
    if (shape.rank() < 2) return out;
    const MatmulDims d = matmulDims(a.shape, shape, transposeA);
    forEachMatmulBatch(a.shape, b.shape, shape, [&](int64_t ia, int64_t ib, int64_t io) {
        matmulKernel(a.data.data() + ia * d.m * d.k, b.data.data() + ib * d.k * d.n,
                     out.data.data() + io * d.m * d.n, d.m, d.k, d.n, transposeA, transposeB);
    });
    return out;
}

void matmulKernelInt8(const int8_t* a, const int8_t* b, int32_t* c, int64_t m, int64_t k, int64_t n,
                      bool transposeA, bool transposeB) {
    // Dense m×k and k×n copies widened to 32 bits; unsigned, so that the sums wrap modulo 2^32
    // without undefined behaviour (the two's complement bits of the int32 sums).
    std::vector<uint32_t> aw(size_t(m * k));
    std::vector<uint32_t> bw(size_t(k * n));
    for (int64_t i = 0; i < m; ++i)
        for (int64_t p = 0; p < k; ++p)
            aw[size_t(i * k + p)] =
                static_cast<uint32_t>(int32_t{transposeA ? a[p * m + i] : a[i * k + p]});
    for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
            bw[size_t(p * n + j)] =
                static_cast<uint32_t>(int32_t{transposeB ? b[j * k + p] : b[p * n + j]});
    std::vector<uint32_t> row(static_cast<size_t>(n));
    for (int64_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), 0u);
        for (int64_t p = 0; p < k; ++p) {
            const uint32_t x = aw[size_t(i * k + p)];
            const uint32_t* bRow = &bw[size_t(p * n)];
            for (int64_t j = 0; j < n; ++j) row[size_t(j)] += x * bRow[j];
        }
        for (int64_t j = 0; j < n; ++j) c[i * n + j] = static_cast<int32_t>(row[size_t(j)]);
    }
}

TensorData matmulData(const TensorData& a, const TensorData& b, bool transposeA, bool transposeB,
                      DType dtype) {
    if (a.dtype != DType::I8 || b.dtype != DType::I8)
        return toTensorData(matmulOp(toFloatArray(a), toFloatArray(b), transposeA, transposeB),
                            dtype);
    const Shape shape = matmulShape(a.shape, b.shape, transposeA, transposeB).value_or(Shape{});
    if (shape.rank() < 2) return TensorData(dtype, shape);
    return fromInt32(matmulInt8(a, b, transposeA, transposeB, shape), shape, dtype);
}

TensorData matmulAccData(const TensorData& acc, const TensorData& a, const TensorData& b,
                         bool transposeA, bool transposeB, DType dtype) {
    const bool int8 = a.dtype == DType::I8 && b.dtype == DType::I8;
    if (int8 && acc.dtype == DType::I32) {
        std::vector<int32_t> sum = matmulInt8(a, b, transposeA, transposeB, acc.shape);
        for (size_t i = 0; i < sum.size(); ++i)
            sum[i] = static_cast<int32_t>(static_cast<uint32_t>(loadInt32(acc.data() + 4 * i)) +
                                          static_cast<uint32_t>(sum[i]));
        return fromInt32(sum, acc.shape, dtype);
    }
    const FloatArray partial =
        int8 ? toFloatArray(matmulData(a, b, transposeA, transposeB, DType::F32))
             : matmulOp(toFloatArray(a), toFloatArray(b), transposeA, transposeB);
    return toTensorData(binaryOp(OpKind::Add, toFloatArray(acc), partial), dtype);
}

// --- Composites ---------------------------------------------------------------------------------

FloatArray softmaxOp(const FloatArray& x, int axis) {
    const FloatArray max = reduceOp(OpKind::ReduceMax, x, axis, true);
    const FloatArray e = unaryOp(OpKind::Exp, binaryOp(OpKind::Sub, x, max));
    const FloatArray sum = reduceOp(OpKind::ReduceSum, e, axis, true);
    return binaryOp(OpKind::Div, e, sum);
}

FloatArray rmsNormOp(const FloatArray& x, const FloatArray* weight, double eps) {
    const int last = x.shape.rank() - 1;
    const auto n = static_cast<float>(x.shape[last]);
    const FloatArray sumSq = reduceOp(OpKind::ReduceSum, binaryOp(OpKind::Mul, x, x), last, true);
    const FloatArray meanSq = scalarOp(OpKind::DivS, sumSq, n);
    const FloatArray rms =
        unaryOp(OpKind::Sqrt, scalarOp(OpKind::AddS, meanSq, static_cast<float>(eps)));
    FloatArray y = binaryOp(OpKind::Div, x, rms);
    if (weight) y = binaryOp(OpKind::Mul, y, *weight);
    return y;
}

FloatArray layerNormOp(const FloatArray& x, const FloatArray* gamma, const FloatArray* beta,
                       double eps) {
    const int last = x.shape.rank() - 1;
    const auto n = static_cast<float>(x.shape[last]);
    const FloatArray mean = scalarOp(OpKind::DivS, reduceOp(OpKind::ReduceSum, x, last, true), n);
    const FloatArray centered = binaryOp(OpKind::Sub, x, mean);
    const FloatArray var = scalarOp(
        OpKind::DivS,
        reduceOp(OpKind::ReduceSum, binaryOp(OpKind::Mul, centered, centered), last, true), n);
    const FloatArray stddev =
        unaryOp(OpKind::Sqrt, scalarOp(OpKind::AddS, var, static_cast<float>(eps)));
    FloatArray y = binaryOp(OpKind::Div, centered, stddev);
    if (gamma) y = binaryOp(OpKind::Mul, y, *gamma);
    if (beta) y = binaryOp(OpKind::Add, y, *beta);
    return y;
}

// --- Layout -------------------------------------------------------------------------------------

TensorData transposeData(const TensorData& x, std::span<const int64_t> perm) {
    const Strides xs = rowMajorStrides(x.shape);
    Strides st{};
    Shape shape;
    for (size_t d = 0; d < perm.size(); ++d) {
        st[d] = xs[size_t(perm[d])];
        shape.push(x.shape[int(perm[d])]);
    }
    return gather(x, 0, st, shape);
}

TensorData sliceData(const TensorData& x, std::span<const int64_t> offsets, const Shape& sizes) {
    const Strides xs = rowMajorStrides(x.shape);
    int64_t base = 0;
    for (size_t d = 0; d < offsets.size(); ++d) base += offsets[d] * xs[d];
    return gather(x, base, xs, sizes);
}

TensorData broadcastData(const TensorData& x, const Shape& shape) {
    return gather(x, 0, broadcastStrides(x.shape, shape), shape);
}

TensorData concatData(std::span<const TensorData* const> parts, int axis) {
    if (parts.empty()) return {};
    Shape shape = parts.front()->shape;
    shape[axis] = 0;
    for (const TensorData* p : parts) shape[axis] += p->shape[axis];
    TensorData out(parts.front()->dtype, shape);
    std::array<int64_t, Shape::kMaxRank> zero{};
    std::array<int64_t, Shape::kMaxRank> corner{};
    const auto rank = size_t(shape.rank());
    for (const TensorData* p : parts) {
        copyBox(*p, p->shape, std::span(zero).first(rank), out, shape,
                std::span(corner).first(rank), p->shape);
        corner[size_t(axis)] += p->shape[axis];
    }
    return out;
}

void copyBox(const TensorData& src, const Shape& srcView, std::span<const int64_t> srcCorner,
             TensorData& dst, const Shape& dstView, std::span<const int64_t> dstCorner,
             const Shape& box) {
    const std::array<Strides, 2> st = {rowMajorStrides(srcView), rowMajorStrides(dstView)};
    int64_t srcBase = 0;
    int64_t dstBase = 0;
    for (int d = 0; d < box.rank(); ++d) {
        srcBase += srcCorner[size_t(d)] * st[0][d];
        dstBase += dstCorner[size_t(d)] * st[1][d];
    }
    const int64_t cols = rowLength(box);
    forEachRow(box, st, [&](const std::array<int64_t, 2>& off, int64_t) {
        copyRun(src, srcBase + off[0], dst, dstBase + off[1], cols);
    });
}

} // namespace pto
