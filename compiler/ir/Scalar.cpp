// Bit-exact f16/bf16/int8/int32 conversions by integer arithmetic only (see Scalar.h).
#include "compiler/ir/Scalar.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>

namespace pto {

namespace {

constexpr uint32_t kF32SignBit = 0x8000'0000u;
constexpr uint32_t kF32ExpMask = 0x7F80'0000u;
constexpr uint32_t kF32ManMask = 0x007F'FFFFu;
constexpr int kF32ManBits = 23;
constexpr int kF32Bias = 127;

/// A finite non-zero f32 as sign, significand and exponent: |value| = sig * 2^(exp - 23), where
/// sig has its implicit leading bit for normals (sig < 2^24 always).
struct Unpacked {
    bool negative;
    int exp;
    uint32_t sig;
};

Unpacked unpack(uint32_t bits) {
    const uint32_t expField = (bits & kF32ExpMask) >> kF32ManBits;
    const uint32_t man = bits & kF32ManMask;
    const bool negative = (bits & kF32SignBit) != 0;
    if (expField == 0) return {negative, 1 - kF32Bias, man}; // subnormal
    return {negative, static_cast<int>(expField) - kF32Bias, man | (1u << kF32ManBits)};
}

/// sig / 2^shift rounded to an integer by `mode`; `negative` is the sign of the value whose
/// magnitude is sig, which the directed modes need. Requires sig < 2^62.
uint64_t roundShiftRight(uint64_t sig, int shift, bool negative, RoundMode mode) {
    if (shift <= 0) return sig << -shift;
    shift = std::min(shift, 63); // beyond this everything is below half of the quantum anyway
    const uint64_t quotient = sig >> shift;
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    bool up = false;
    switch (mode) {
    case RoundMode::NearestEven:
        up = rem > half || (rem == half && (quotient & 1) != 0);
        break;
    case RoundMode::NearestAway:
        up = rem >= half;
        break;
    case RoundMode::TowardZero:
        up = false;
        break;
    case RoundMode::Floor:
        up = negative && rem != 0;
        break;
    case RoundMode::Ceil:
        up = !negative && rem != 0;
        break;
    }
    return quotient + (up ? 1 : 0);
}

/// Whether an overflowing value becomes infinity (else the largest finite value), IEEE 754 §7.4.
bool overflowsToInfinity(bool negative, RoundMode mode) {
    switch (mode) {
    case RoundMode::NearestEven:
    case RoundMode::NearestAway:
        return true;
    case RoundMode::TowardZero:
        return false;
    case RoundMode::Floor:
        return negative;
    case RoundMode::Ceil:
        return !negative;
    }
    return true;
}

/// f32 -> a 16-bit IEEE-style format with 1 sign bit, kExpBits exponent bits and kManBits
/// mantissa bits (f16: 5/10, bf16: 8/7), with subnormals.
template <int kExpBits, int kManBits> uint16_t narrowFloat(float value, RoundMode mode) {
    static_assert(1 + kExpBits + kManBits == 16);
    constexpr int kBias = (1 << (kExpBits - 1)) - 1;
    constexpr int kMinExp = 1 - kBias; // exponent of the smallest normal
    constexpr uint32_t kInfBits = ((1u << kExpBits) - 1) << kManBits;
    constexpr uint32_t kQuietNan = kInfBits | (1u << (kManBits - 1));
    constexpr uint32_t kMaxFinite = kInfBits - 1;

    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const auto sign = static_cast<uint16_t>((bits & kF32SignBit) >> 16);
    if ((bits & kF32ExpMask) == kF32ExpMask) {
        return static_cast<uint16_t>(sign | ((bits & kF32ManMask) != 0 ? kQuietNan : kInfBits));
    }
    if ((bits & ~kF32SignBit) == 0) return sign; // ±0

    const Unpacked u = unpack(bits);
    uint32_t result = kInfBits; // |value| >= 2^(kBias + 1) overflows in every mode
    if (u.exp <= kBias) {
        // Keep kManBits bits below the leading one; below the smallest normal the quantum is
        // fixed at 2^(kMinExp - kManBits), so more bits go.
        const int shift = (kF32ManBits - kManBits) + std::max(0, kMinExp - u.exp);
        const auto rounded = static_cast<uint32_t>(roundShiftRight(u.sig, shift, u.negative, mode));
        // A normal's implicit bit lands in the exponent field and adds the 1 that makes
        // (exp - kMinExp) the biased exponent; a carry out of the mantissa propagates the same
        // way, and a subnormal that rounds up to 2^kManBits becomes the smallest normal.
        result = u.exp < kMinExp ? rounded
                                 : (static_cast<uint32_t>(u.exp - kMinExp) << kManBits) + rounded;
    }
    if (result >= kInfBits) {
        result = overflowsToInfinity(u.negative, mode) ? kInfBits : kMaxFinite;
    }
    return static_cast<uint16_t>(sign | result);
}

/// f32 -> integer in [lo, hi], rounded by `mode` and saturated; NaN -> 0. Requires
/// -2^31 <= lo <= hi < 2^31.
int64_t floatToInteger(float value, RoundMode mode, int64_t lo, int64_t hi) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const bool negative = (bits & kF32SignBit) != 0;
    if ((bits & kF32ExpMask) == kF32ExpMask) {
        if ((bits & kF32ManMask) != 0) return 0; // NaN
        return negative ? lo : hi;
    }
    if ((bits & ~kF32SignBit) == 0) return 0;
    const Unpacked u = unpack(bits);
    if (u.exp >= 31) return negative ? lo : hi; // |value| >= 2^31 saturates any int32
    const auto magnitude =
        static_cast<int64_t>(roundShiftRight(u.sig, kF32ManBits - u.exp, negative, mode));
    return std::clamp(negative ? -magnitude : magnitude, lo, hi);
}

uint32_t loadLittleEndian(const std::byte* p, int size) {
    uint32_t v = 0;
    for (int i = size - 1; i >= 0; --i) v = (v << 8) | std::to_integer<uint32_t>(p[i]);
    return v;
}

void storeLittleEndian(std::byte* p, int size, uint32_t v) {
    for (int i = 0; i < size; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}

// --- Row kernels ---------------------------------------------------------------------------
// Branch-free loops (selects, no early exits) so that GCC vectorises them: each handles every
// input but the rare ones that need the general conversion, flags those, and a second pass
// recomputes just the flagged elements. Bit-identical to the per-element functions (checked
// exhaustively / over 2^24 patterns by tests/unit/numerics/RowConversionTest.cpp).

template <class T> T loadRaw(const std::byte* p) {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

template <class T> void storeRaw(std::byte* p, T value) {
    std::memcpy(p, &value, sizeof(T));
}

constexpr uint32_t kHalfMinNormal = 0x3880'0000u; // 2^-14 as f32 bits
constexpr uint32_t kHalfOverflow = 0x477F'F000u;  // 65520: rounds to inf

bool isHalfSubnormal(uint32_t h) {
    return (h & 0x7C00u) == 0 && (h & 0x3FFu) != 0;
}

/// f16 bits -> f32 bits for every pattern but the subnormals: normals re-bias the exponent,
/// ±0 keep the sign, inf and NaN get exponent 255 (a NaN keeps its payload).
uint32_t halfToFloatBitsExceptSubnormal(uint32_t h) {
    const uint32_t expField = h & 0x7C00u;
    const uint32_t rebias = expField == 0x7C00u ? (224u << 23) : expField != 0 ? (112u << 23) : 0u;
    return ((h & 0x8000u) << 16) | (((h & 0x7FFFu) << 13) + rebias);
}

void halfRowToFloat(const std::byte* src, float* out, int64_t n) {
    uint32_t subnormals = 0;
    for (int64_t i = 0; i < n; ++i) {
        const uint32_t h = loadRaw<uint16_t>(src + 2 * i);
        out[i] = std::bit_cast<float>(halfToFloatBitsExceptSubnormal(h));
        subnormals |= uint32_t{isHalfSubnormal(h)};
    }
    if (subnormals == 0) [[likely]]
        return;
    for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = loadRaw<uint16_t>(src + 2 * i);
        if (isHalfSubnormal(h)) out[i] = detail::halfBitsToFloatGeneral(h);
    }
}

/// f32 bits -> f16 bits by round to nearest even, for every value whose result is not an f16
/// subnormal: normals re-bias and round the mantissa, ±0 stay, overflow and ±inf give ±inf,
/// NaN the quiet NaN with its sign.
uint32_t floatBitsToHalfRneExceptSubnormal(uint32_t bits) {
    const uint32_t mag = bits & 0x7FFF'FFFFu;
    const uint32_t normal = (mag - (112u << 23) + 0xFFFu + ((mag >> 13) & 1u)) >> 13;
    const uint32_t special = mag > 0x7F80'0000u ? 0x7E00u : mag >= kHalfOverflow ? 0x7C00u : 0u;
    const bool isNormal = mag - kHalfMinNormal < kHalfOverflow - kHalfMinNormal;
    return ((bits >> 16) & 0x8000u) | (isNormal ? normal : special);
}

bool needsGeneralHalfRne(uint32_t bits) {
    const uint32_t mag = bits & 0x7FFF'FFFFu;
    return mag != 0 && mag < kHalfMinNormal;
}

void floatRowToHalfRne(const float* values, std::byte* dst, int64_t n) {
    uint32_t general = 0;
    for (int64_t i = 0; i < n; ++i) {
        const auto bits = std::bit_cast<uint32_t>(values[i]);
        storeRaw(dst + 2 * i, static_cast<uint16_t>(floatBitsToHalfRneExceptSubnormal(bits)));
        general |= uint32_t{needsGeneralHalfRne(bits)};
    }
    if (general == 0) [[likely]]
        return;
    for (int64_t i = 0; i < n; ++i)
        if (needsGeneralHalfRne(std::bit_cast<uint32_t>(values[i])))
            storeRaw(dst + 2 * i,
                     detail::floatToHalfBitsGeneral(values[i], RoundMode::NearestEven));
}

/// f32 -> bf16 bits by round to nearest even for every input (NaN: the quiet NaN with its sign).
void floatRowToBf16Rne(const float* values, std::byte* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        const auto bits = std::bit_cast<uint32_t>(values[i]);
        const uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
        const uint32_t nan = ((bits >> 16) & 0x8000u) | 0x7FC0u;
        storeRaw(dst + 2 * i,
                 static_cast<uint16_t>((bits & 0x7FFF'FFFFu) > 0x7F80'0000u ? nan : rounded));
    }
}

constexpr std::array<std::string_view, 5> kRoundModeNames = {"rne", "trunc", "floor", "ceil",
                                                             "rna"};

} // namespace

std::string_view roundModeName(RoundMode mode) {
    const auto index = static_cast<size_t>(mode);
    return index < kRoundModeNames.size() ? kRoundModeNames[index] : std::string_view("?");
}

std::optional<RoundMode> parseRoundMode(std::string_view name) {
    for (size_t i = 0; i < kRoundModeNames.size(); ++i) {
        if (kRoundModeNames[i] == name) return static_cast<RoundMode>(i);
    }
    return std::nullopt;
}

namespace detail {

uint16_t floatToHalfBitsGeneral(float value, RoundMode mode) {
    return narrowFloat<5, 10>(value, mode);
}

float halfBitsToFloatGeneral(uint16_t bits) {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    const uint32_t expField = (bits >> 10) & 0x1Fu;
    const uint32_t man = bits & 0x3FFu;
    uint32_t out = 0;
    if (expField == 0x1F) {
        out = sign | kF32ExpMask | (man << 13); // inf, or NaN with its payload (as NumPy)
    } else if (expField != 0) {
        out = sign | ((expField - 15 + kF32Bias) << kF32ManBits) | (man << 13);
    } else if (man == 0) {
        out = sign;
    } else {
        // Subnormal man * 2^-24: normalize so the leading one becomes the implicit bit.
        const int lead = std::bit_width(man) - 1; // 0..9
        const auto expBiased = static_cast<uint32_t>(lead - 24 + kF32Bias);
        out = sign | (expBiased << kF32ManBits) | ((man << (kF32ManBits - lead)) & kF32ManMask);
    }
    return std::bit_cast<float>(out);
}

uint16_t floatToBf16BitsGeneral(float value, RoundMode mode) {
    return narrowFloat<8, 7>(value, mode);
}

} // namespace detail

int8_t floatToI8(float value, RoundMode mode) {
    return static_cast<int8_t>(floatToInteger(value, mode, std::numeric_limits<int8_t>::min(),
                                              std::numeric_limits<int8_t>::max()));
}

int32_t floatToI32(float value, RoundMode mode) {
    return static_cast<int32_t>(floatToInteger(value, mode, std::numeric_limits<int32_t>::min(),
                                               std::numeric_limits<int32_t>::max()));
}

float roundToDType(float value, DType dtype, RoundMode mode) {
    switch (dtype) {
    case DType::F32:
        return value;
    case DType::F16:
        return halfBitsToFloat(floatToHalfBits(value, mode));
    case DType::BF16:
        return bf16BitsToFloat(floatToBf16Bits(value, mode));
    case DType::I8:
        return static_cast<float>(floatToI8(value, mode));
    case DType::I32:
        return static_cast<float>(floatToI32(value, mode));
    case DType::Bool:
        // Anything but ±0 is true, NaN included (tested on the bits: immune to fast-math).
        return (std::bit_cast<uint32_t>(value) & ~kF32SignBit) != 0 ? 1.0f : 0.0f;
    }
    return value;
}

float loadElement(const std::byte* p, DType dtype) {
    switch (dtype) {
    case DType::F32:
        return std::bit_cast<float>(loadLittleEndian(p, 4));
    case DType::F16:
        return halfBitsToFloat(static_cast<uint16_t>(loadLittleEndian(p, 2)));
    case DType::BF16:
        return bf16BitsToFloat(static_cast<uint16_t>(loadLittleEndian(p, 2)));
    case DType::I8:
        return static_cast<float>(static_cast<int8_t>(loadLittleEndian(p, 1)));
    case DType::I32:
        return static_cast<float>(static_cast<int32_t>(loadLittleEndian(p, 4)));
    case DType::Bool:
        return loadLittleEndian(p, 1) != 0 ? 1.0f : 0.0f;
    }
    return 0.0f;
}

void storeElement(std::byte* p, DType dtype, float value, RoundMode mode) {
    switch (dtype) {
    case DType::F32:
        storeLittleEndian(p, 4, std::bit_cast<uint32_t>(value));
        return;
    case DType::F16:
        storeLittleEndian(p, 2, floatToHalfBits(value, mode));
        return;
    case DType::BF16:
        storeLittleEndian(p, 2, floatToBf16Bits(value, mode));
        return;
    case DType::I8:
        storeLittleEndian(p, 1, static_cast<uint8_t>(floatToI8(value, mode)));
        return;
    case DType::I32:
        storeLittleEndian(p, 4, static_cast<uint32_t>(floatToI32(value, mode)));
        return;
    case DType::Bool:
        storeLittleEndian(p, 1, roundToDType(value, DType::Bool) != 0.0f ? 1u : 0u);
        return;
    }
}

void convertRowToFloat(const std::byte* src, DType dtype, float* out, int64_t n) {
    if (n <= 0) return;
    if constexpr (std::endian::native != std::endian::little) {
        const int64_t size = dtypeSize(dtype);
        for (int64_t i = 0; i < n; ++i) out[i] = loadElement(src + i * size, dtype);
        return;
    }
    switch (dtype) {
    case DType::F32:
        std::memcpy(out, src, size_t(n) * sizeof(float));
        return;
    case DType::F16:
        halfRowToFloat(src, out, n);
        return;
    case DType::BF16:
        for (int64_t i = 0; i < n; ++i) out[i] = bf16BitsToFloat(loadRaw<uint16_t>(src + 2 * i));
        return;
    case DType::I8:
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(loadRaw<int8_t>(src + i));
        return;
    case DType::I32:
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(loadRaw<int32_t>(src + 4 * i));
        return;
    case DType::Bool:
        for (int64_t i = 0; i < n; ++i) out[i] = src[i] != std::byte{0} ? 1.0f : 0.0f;
        return;
    }
}

void convertRowFromFloat(const float* values, DType dtype, std::byte* dst, int64_t n,
                         RoundMode mode) {
    if (n <= 0) return;
    if constexpr (std::endian::native != std::endian::little) {
        const int64_t size = dtypeSize(dtype);
        for (int64_t i = 0; i < n; ++i) storeElement(dst + i * size, dtype, values[i], mode);
        return;
    }
    switch (dtype) {
    case DType::F32:
        std::memcpy(dst, values, size_t(n) * sizeof(float));
        return;
    case DType::F16:
        if (mode == RoundMode::NearestEven) {
            floatRowToHalfRne(values, dst, n);
            return;
        }
        for (int64_t i = 0; i < n; ++i)
            storeRaw(dst + 2 * i, detail::floatToHalfBitsGeneral(values[i], mode));
        return;
    case DType::BF16:
        if (mode == RoundMode::NearestEven) {
            floatRowToBf16Rne(values, dst, n);
            return;
        }
        for (int64_t i = 0; i < n; ++i)
            storeRaw(dst + 2 * i, detail::floatToBf16BitsGeneral(values[i], mode));
        return;
    case DType::I8:
        for (int64_t i = 0; i < n; ++i) storeRaw(dst + i, floatToI8(values[i], mode));
        return;
    case DType::I32:
        for (int64_t i = 0; i < n; ++i) storeRaw(dst + 4 * i, floatToI32(values[i], mode));
        return;
    case DType::Bool:
        for (int64_t i = 0; i < n; ++i)
            dst[i] = std::byte{
                (std::bit_cast<uint32_t>(values[i]) & ~kF32SignBit) != 0 ? uint8_t{1} : uint8_t{0}};
        return;
    }
}

} // namespace pto
