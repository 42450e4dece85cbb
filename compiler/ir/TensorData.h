// The contents of a tensor or tile: dtype, shape and raw element bytes, with element access
// as f32 and seeded random filling. What interpreters, the simulator and .npy I/O exchange.
#pragma once

// Layout: row-major (C order), little-endian, densely packed, dtypeSize(dtype) bytes per
// element; f16 and bf16 are their 16-bit patterns, i1 (Bool) one byte 0 or 1. Element reads
// widen exactly to f32 and writes round once (Scalar.h: loadElement / storeElement), so a
// TensorData is bit-identical to the buffer the device would hold.

#include "compiler/ir/DType.h"
#include "compiler/ir/Scalar.h"
#include "compiler/ir/Shape.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pto {

struct TensorData {
    DType dtype = DType::F32;
    Shape shape;
    std::vector<std::byte> bytes;

    TensorData() = default;
    // Zero-filled (every dtype's zero is all-zero bits).
    TensorData(DType type, Shape dims);

    int64_t numel() const { return shape.numel(); }
    int64_t elementSize() const { return dtypeSize(dtype); }
    int64_t byteSize() const { return numel() * elementSize(); }
    std::byte* data() { return bytes.data(); }
    const std::byte* data() const { return bytes.data(); }

    // Element `index` (flat, row-major) widened to f32.
    float get(int64_t index) const {
        return loadElement(bytes.data() + index * elementSize(), dtype);
    }
    // Stores `value` into element `index`, rounded to the dtype by `mode` (integers saturate).
    void set(int64_t index, float value, RoundMode mode = RoundMode::NearestEven) {
        storeElement(bytes.data() + index * elementSize(), dtype, value, mode);
    }

    // All elements widened to f32, in row-major order.
    std::vector<float> toFloats() const;
    // Writes out[0, numel()) = every element widened to f32 (the fast bulk form of get).
    void loadFloats(float* out) const;
    // Sets every element from values[0, numel()), rounding each once by `mode`.
    void storeFloats(const float* values, RoundMode mode = RoundMode::NearestEven);

    // A tensor holding `values` (exactly numel() of them, else std::invalid_argument).
    static TensorData fromFloats(DType type, Shape dims, std::span<const float> values,
                                 RoundMode mode = RoundMode::NearestEven);

    // Same dtype, shape and bytes (NaN payloads included).
    friend bool operator==(const TensorData&, const TensorData&) = default;
};

// "64x128xf16" (a rank-0 tensor prints as "f16").
std::string typeString(DType dtype, const Shape& shape);
inline std::string typeString(const TensorData& t) {
    return typeString(t.dtype, t.shape);
}

// The default range of random data per dtype: floats [-1, 1), i8 [-128, 127], i32
// [-1000, 1000], i1 {0, 1}.
struct RandomRange {
    double lo = -1.0;
    double hi = 1.0;
};
RandomRange defaultRandomRange(DType dtype);

// Fills `t` with values uniform in [lo, hi) for float dtypes (drawn in double, then rounded to
// the dtype by RNE) and uniform integers in [ceil(lo), floor(hi)] for i8/i32 (saturated to the
// dtype); i1 gets 0 or 1 with equal probability. The generator is SplitMix64 seeded with
// `seed`: the same seed gives the same bytes on every host and compiler.
void fillRandom(TensorData& t, uint64_t seed, RandomRange range);
inline void fillRandom(TensorData& t, uint64_t seed) {
    fillRandom(t, seed, defaultRandomRange(t.dtype));
}

// A new tensor filled as fillRandom does.
TensorData randomTensor(DType dtype, Shape shape, uint64_t seed);
TensorData randomTensor(DType dtype, Shape shape, uint64_t seed, RandomRange range);

} // namespace pto
