// Vector-pipe kernels: one row at a time, sources widened to f32 scratch, the op's functor
// (Semantics.h) inlined into the loop, the result row rounded once to the destination dtype.
#include "simulator/numerics/TileKernels.h"

#include <vector>

namespace pto::numerics {
namespace {

constexpr RoundMode kRne = RoundMode::NearestEven;

// out[j] = fn(x[j]) per row.
template <class Fn> void mapRows(const TileView& src, const TileView& dst, RoundMode mode, Fn fn) {
    BroadcastReader in(src, dst, dst.cols);
    std::vector<float> out(size_t(dst.cols));
    for (int64_t r = 0; r < dst.rows; ++r) {
        const float* x = in.row(r);
        for (int64_t j = 0; j < dst.cols; ++j) out[size_t(j)] = fn(x[j]);
        convertRowFromFloat(out.data(), dst.dtype, dst.row(r), dst.cols, mode);
    }
}

// out[j] = fn(a[j], b[j]) per row.
template <class Fn> void zipRows(const TileView& a, const TileView& b, const TileView& dst, Fn fn) {
    BroadcastReader inA(a, dst, dst.cols);
    BroadcastReader inB(b, dst, dst.cols);
    std::vector<float> out(size_t(dst.cols));
    for (int64_t r = 0; r < dst.rows; ++r) {
        const float* x = inA.row(r);
        const float* y = inB.row(r);
        for (int64_t j = 0; j < dst.cols; ++j) out[size_t(j)] = fn(x[j], y[j]);
        convertRowFromFloat(out.data(), dst.dtype, dst.row(r), dst.cols, kRne);
    }
}

} // namespace

void unaryTile(OpKind kind, const TileView& src, const TileView& dst, RoundMode mode) {
    dispatchUnary(kind, [&](auto fn) { mapRows(src, dst, mode, fn); });
}

void binaryTile(OpKind kind, const TileView& a, const TileView& b, const TileView& dst) {
    dispatchBinary(kind, [&](auto fn) { zipRows(a, b, dst, fn); });
}

void scalarTile(OpKind kind, const TileView& src, float s, const TileView& dst) {
    dispatchBinary(kind,
                   [&](auto fn) { mapRows(src, dst, kRne, [&](float x) { return fn(x, s); }); });
}

void compareTile(CmpPred pred, const TileView& a, const TileView& b, const TileView& dst) {
    zipRows(a, b, dst, [&](float x, float y) { return applyCompare(pred, x, y) ? 1.0f : 0.0f; });
}

void compareScalarTile(CmpPred pred, const TileView& src, float s, const TileView& dst) {
    mapRows(src, dst, kRne, [&](float x) { return applyCompare(pred, x, s) ? 1.0f : 0.0f; });
}

void selectTile(const TileView& cond, const TileView& a, const TileView& b, const TileView& dst) {
    BroadcastReader inC(cond, dst, dst.cols);
    BroadcastReader inA(a, dst, dst.cols);
    BroadcastReader inB(b, dst, dst.cols);
    std::vector<float> out(size_t(dst.cols));
    for (int64_t r = 0; r < dst.rows; ++r) {
        const float* c = inC.row(r);
        const float* x = inA.row(r);
        const float* y = inB.row(r);
        for (int64_t j = 0; j < dst.cols; ++j) out[size_t(j)] = c[j] != 0.0f ? x[j] : y[j];
        convertRowFromFloat(out.data(), dst.dtype, dst.row(r), dst.cols, kRne);
    }
}

void rowReduceTile(OpKind reduceKind, const TileView& src, const TileView& dst) {
    const SafeSource safe(src, dst);
    const TileView& s = safe.view();
    std::vector<float> x(size_t(s.cols));
    const float init = reduceInit(reduceKind);
    dispatchReduce(reduceKind, [&](auto combine) {
        for (int64_t r = 0; r < s.rows; ++r) {
            convertRowToFloat(s.row(r), s.dtype, x.data(), s.cols);
            float acc = init;
            for (int64_t j = 0; j < s.cols; ++j) acc = combine(acc, x[size_t(j)]);
            convertRowFromFloat(&acc, dst.dtype, dst.row(r), 1, kRne);
        }
    });
}

void colReduceTile(OpKind reduceKind, const TileView& src, const TileView& dst) {
    std::vector<float> x(size_t(src.cols));
    std::vector<float> acc(size_t(src.cols), reduceInit(reduceKind));
    dispatchReduce(reduceKind, [&](auto combine) {
        for (int64_t r = 0; r < src.rows; ++r) {
            convertRowToFloat(src.row(r), src.dtype, x.data(), src.cols);
            for (int64_t j = 0; j < src.cols; ++j)
                acc[size_t(j)] = combine(acc[size_t(j)], x[size_t(j)]);
        }
    });
    convertRowFromFloat(acc.data(), dst.dtype, dst.row(0), dst.cols, kRne);
}

} // namespace pto::numerics
