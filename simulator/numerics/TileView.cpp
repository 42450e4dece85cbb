// Row conversions between element bytes and f32, hazard-free sources and broadcast readers.
#include "simulator/numerics/TileView.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace pto::numerics {
namespace {

template <class T> T readRaw(const std::byte* p) {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

template <class T> void writeRaw(std::byte* p, T value) {
    std::memcpy(p, &value, sizeof(T));
}

// Fast paths of the Scalar.h conversions for the common case, falling back to them otherwise;
// bit-identical to them (checked exhaustively / over 2^24 patterns by the sim_numerics tests).
// They exist for throughput: the general conversions handle every rounding mode and special
// value out of line, which made f16 kernels several times slower than f32 ones.

// f16 bits -> f32: normal numbers by re-biasing the exponent; zero, subnormals, inf and NaN via
// halfBitsToFloat.
inline float halfToFloat(uint16_t h) {
    const uint32_t e = h & 0x7C00u;
    if (e != 0 && e != 0x7C00u) [[likely]]
        return std::bit_cast<float>((uint32_t{h & 0x8000u} << 16) |
                                    ((uint32_t{h & 0x7FFFu} << 13) + (112u << 23)));
    return halfBitsToFloat(h);
}

// f32 -> f16 bits, round to nearest even: |v| in [2^-14, 65520) (the results that are normal
// f16 numbers) by re-biasing and rounding the mantissa; the rest via floatToHalfBits.
inline uint16_t floatToHalfRne(float v) {
    constexpr uint32_t kMinNormal = 0x38800000u; // 2^-14
    constexpr uint32_t kOverflow = 0x477FF000u;  // 65520: rounds to inf
    const uint32_t b = std::bit_cast<uint32_t>(v);
    const uint32_t a = b & 0x7FFFFFFFu;
    if (a - kMinNormal < kOverflow - kMinNormal) [[likely]]
        return static_cast<uint16_t>(((b >> 16) & 0x8000u) |
                                     ((a - (112u << 23) + 0xFFFu + ((a >> 13) & 1u)) >> 13));
    return floatToHalfBits(v, RoundMode::NearestEven);
}

// f32 -> bf16 bits, round to nearest even (REFERENCE.md §6); NaN via floatToBf16Bits.
inline uint16_t floatToBf16Rne(float v) {
    const uint32_t b = std::bit_cast<uint32_t>(v);
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) [[unlikely]]
        return floatToBf16Bits(v, RoundMode::NearestEven);
    return static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

} // namespace

void loadRow(const std::byte* src, DType dtype, int64_t n, float* out) {
    switch (dtype) {
    case DType::F32:
        std::memcpy(out, src, size_t(n) * sizeof(float));
        return;
    case DType::F16:
        for (int64_t i = 0; i < n; ++i) out[i] = halfToFloat(readRaw<uint16_t>(src + 2 * i));
        return;
    case DType::BF16:
        for (int64_t i = 0; i < n; ++i)
            out[i] = std::bit_cast<float>(uint32_t{readRaw<uint16_t>(src + 2 * i)} << 16);
        return;
    case DType::I8:
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(readRaw<int8_t>(src + i));
        return;
    case DType::I32:
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(readRaw<int32_t>(src + 4 * i));
        return;
    case DType::Bool:
        for (int64_t i = 0; i < n; ++i) out[i] = src[i] != std::byte{0} ? 1.0f : 0.0f;
        return;
    }
}

void storeRow(const float* values, int64_t n, DType dtype, RoundMode mode, std::byte* dst) {
    switch (dtype) {
    case DType::F32:
        std::memcpy(dst, values, size_t(n) * sizeof(float));
        return;
    case DType::F16:
        if (mode == RoundMode::NearestEven)
            for (int64_t i = 0; i < n; ++i) writeRaw(dst + 2 * i, floatToHalfRne(values[i]));
        else
            for (int64_t i = 0; i < n; ++i) writeRaw(dst + 2 * i, floatToHalfBits(values[i], mode));
        return;
    case DType::BF16:
        if (mode == RoundMode::NearestEven)
            for (int64_t i = 0; i < n; ++i) writeRaw(dst + 2 * i, floatToBf16Rne(values[i]));
        else
            for (int64_t i = 0; i < n; ++i) writeRaw(dst + 2 * i, floatToBf16Bits(values[i], mode));
        return;
    case DType::I8:
        for (int64_t i = 0; i < n; ++i) writeRaw(dst + i, floatToI8(values[i], mode));
        return;
    case DType::I32:
        for (int64_t i = 0; i < n; ++i) writeRaw(dst + 4 * i, floatToI32(values[i], mode));
        return;
    case DType::Bool:
        for (int64_t i = 0; i < n; ++i)
            dst[i] = std::byte{values[i] != 0.0f ? uint8_t{1} : uint8_t{0}};
        return;
    }
}

bool overlaps(const TileView& a, const TileView& b) {
    return a.base < b.base + b.span() && b.base < a.base + a.span();
}

SafeSource::SafeSource(const TileView& src, const TileView& dst) : m_view(src) {
    const bool sameRegion = src.base == dst.base && src.rowBytes == dst.rowBytes &&
                            src.rows == dst.rows && src.cols == dst.cols && src.dtype == dst.dtype;
    if (sameRegion || !overlaps(src, dst)) return;
    m_copy.assign(src.base, src.base + src.span());
    m_view.base = m_copy.data();
}

BroadcastReader::BroadcastReader(const TileView& src, const TileView& dst, int64_t cols)
    : m_src(src, dst), m_cols(cols), m_buffer(size_t(cols)) {}

const float* BroadcastReader::row(int64_t r) {
    const TileView& v = m_src.view();
    const int64_t sr = v.rows == 1 ? 0 : r;
    if (sr == m_loaded) return m_buffer.data();
    if (v.cols == 1 && m_cols != 1) {
        float value = 0.0f;
        loadRow(v.row(sr), v.dtype, 1, &value);
        std::fill(m_buffer.begin(), m_buffer.end(), value);
    } else {
        loadRow(v.row(sr), v.dtype, m_cols, m_buffer.data());
    }
    m_loaded = sr;
    return m_buffer.data();
}

} // namespace pto::numerics
