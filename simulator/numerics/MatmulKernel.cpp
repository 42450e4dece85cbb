// The cube kernel: C = acc + op(A)·op(B), the product accumulated in f32 (or exactly in i32) in
// k order.
#include "simulator/numerics/TileKernels.h"

#include <cstring>
#include <vector>

namespace pto::numerics {
namespace {

// The operand as a dense row-major rows × cols array of T, transposed when `transpose` (the
// view then holds cols × rows). Float types are widened exactly; i8 is widened to int32.
template <class T>
std::vector<T> denseOperand(const TileView& v, int64_t rows, int64_t cols, bool transpose) {
    std::vector<T> out(size_t(rows * cols));
    std::vector<float> line(size_t(v.cols));
    for (int64_t r = 0; r < v.rows; ++r) {
        if constexpr (std::is_same_v<T, float>) {
            convertRowToFloat(v.row(r), v.dtype, line.data(), v.cols);
        } else {
            const std::byte* p = v.row(r);
            for (int64_t c = 0; c < v.cols; ++c)
                line[size_t(c)] = static_cast<float>(static_cast<int8_t>(p[c]));
        }
        for (int64_t c = 0; c < v.cols; ++c) {
            const size_t at = transpose ? size_t(c * cols + r) : size_t(r * cols + c);
            out[at] = static_cast<T>(line[size_t(c)]);
        }
    }
    return out;
}

void matmulFloat(const TileView& a, const TileView& b, const TileView* acc, const TileView& dst,
                 int64_t k, bool transposeA, bool transposeB) {
    const int64_t m = dst.rows;
    const int64_t n = dst.cols;
    const std::vector<float> av = denseOperand<float>(a, m, k, transposeA);
    const std::vector<float> bv = denseOperand<float>(b, k, n, transposeB);
    // The partial product of this instruction's k range, from 0 ...
    std::vector<float> c(size_t(m * n), 0.0f);
    for (int64_t i = 0; i < m; ++i) {
        float* cRow = &c[size_t(i * n)];
        for (int64_t p = 0; p < k; ++p) {
            const float x = av[size_t(i * k + p)];
            const float* bRow = &bv[size_t(p * n)];
            for (int64_t j = 0; j < n; ++j) cRow[j] += x * bRow[j]; // j vectorises; p in order
        }
    }
    // ... then added to the accumulator with one f32 addition per element.
    if (acc) {
        std::vector<float> prior(static_cast<size_t>(n));
        for (int64_t i = 0; i < m; ++i) {
            convertRowToFloat(acc->row(i), acc->dtype, prior.data(), n);
            float* cRow = &c[size_t(i * n)];
            for (int64_t j = 0; j < n; ++j) cRow[j] = prior[size_t(j)] + cRow[j];
        }
    }
    for (int64_t i = 0; i < m; ++i)
        convertRowFromFloat(&c[size_t(i * n)], dst.dtype, dst.row(i), n, RoundMode::NearestEven);
}

void matmulInt8(const TileView& a, const TileView& b, const TileView* acc, const TileView& dst,
                int64_t k, bool transposeA, bool transposeB) {
    const int64_t m = dst.rows;
    const int64_t n = dst.cols;
    const std::vector<int32_t> av = denseOperand<int32_t>(a, m, k, transposeA);
    const std::vector<int32_t> bv = denseOperand<int32_t>(b, k, n, transposeB);
    // Unsigned arithmetic: a 32-bit accumulator wraps on overflow (no undefined behaviour).
    std::vector<uint32_t> c(size_t(m * n), 0u);
    if (acc)
        for (int64_t i = 0; i < m; ++i)
            std::memcpy(&c[size_t(i * n)], acc->row(i), size_t(n) * sizeof(uint32_t));
    for (int64_t i = 0; i < m; ++i) {
        uint32_t* cRow = &c[size_t(i * n)];
        for (int64_t p = 0; p < k; ++p) {
            const auto x = static_cast<uint32_t>(av[size_t(i * k + p)]);
            const int32_t* bRow = &bv[size_t(p * n)];
            for (int64_t j = 0; j < n; ++j) cRow[j] += x * static_cast<uint32_t>(bRow[j]);
        }
    }
    for (int64_t i = 0; i < m; ++i)
        std::memcpy(dst.row(i), &c[size_t(i * n)], size_t(n) * sizeof(uint32_t));
}

} // namespace

void matmulTile(const TileView& a, const TileView& b, const TileView* acc, const TileView& dst,
                bool transposeA, bool transposeB) {
    const int64_t k = transposeA ? a.rows : a.cols;
    if (a.dtype == DType::I8)
        matmulInt8(a, b, acc, dst, k, transposeA, transposeB);
    else
        matmulFloat(a, b, acc, dst, k, transposeA, transposeB);
}

} // namespace pto::numerics
