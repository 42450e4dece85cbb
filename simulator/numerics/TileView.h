// A resolved 2-D strided region of a byte array (a checked Operand), and the readers that make
// its rows safe to read while a destination is written. Rows convert between a dtype's bytes
// and f32 with Scalar.h's convertRowToFloat / convertRowFromFloat.
#pragma once

#include "compiler/ir/DType.h"
#include "compiler/ir/Scalar.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pto::numerics {

/// rows × cols elements of `dtype`, row r starting at base + r * rowBytes.
struct TileView {
    std::byte* base = nullptr;
    DType dtype = DType::F32;
    int64_t rows = 1;
    int64_t cols = 1;
    int64_t rowBytes = 0;

    int64_t elemSize() const { return dtypeSize(dtype); }
    std::byte* row(int64_t r) const { return base + r * rowBytes; }
    /// Bytes from the first to one past the last element.
    int64_t span() const { return (rows - 1) * rowBytes + cols * elemSize(); }
    int64_t numel() const { return rows * cols; }
};

/// Whether the byte extents of two views intersect.
bool overlaps(const TileView& a, const TileView& b);

/// A source view that is safe to read row by row while `dst` is written row by row: `src`
/// itself when the two do not overlap or are the very same region (row r read before row r
/// is written); otherwise a view of a private copy of src's bytes.
class SafeSource {
public:
    SafeSource(const TileView& src, const TileView& dst);
    const TileView& view() const { return m_view; }

private:
    TileView m_view;
    std::vector<std::byte> m_copy;
};

/// Reads rows of a source that broadcasts to a rows × cols destination: a source of one row
/// serves every row, a source of one column is splat along the row. row(r) returns `cols`
/// f32 values valid until the next call.
class BroadcastReader {
public:
    BroadcastReader(const TileView& src, const TileView& dst, int64_t cols);
    const float* row(int64_t r);

private:
    SafeSource m_src;
    int64_t m_cols;
    int64_t m_loaded = -1;
    std::vector<float> m_buffer;
};

} // namespace pto::numerics
