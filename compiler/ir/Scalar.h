// Bit-exact software emulation of the element formats of PTO tensors (fp16, bf16, int8, int32,
// bool) and of the rounding modes used when a value is stored in a narrower format.
#pragma once

// The model
// ---------
// Every element computation of the reference interpreter and the simulator is carried out in
// f32; a tensor or tile of a narrower dtype stores its elements in that dtype's bits, so each
// result is quantized when it is written (storeElement) and widened exactly when it is read
// (loadElement). Those two directions are defined here, once, for every consumer: the
// interpreter, the simulator's functional mode and the numerical diff tool must agree bit for
// bit, or the diff tool reports differences that are artefacts of the emulation.
//
// Everything below is integer bit manipulation: no _Float16, no F16C, no dependence on the
// floating-point environment (rounding direction, flush-to-zero, fast-math), so results are the
// same on every host and compiler.
//
// Conventions, chosen to match IEEE 754-2019 and the reference libraries (NumPy, PyTorch):
// - Widening (f16 -> f32, bf16 -> f32) is exact, including subnormals, signed zeros and
//   infinities; a NaN keeps its sign and payload bits, exactly as NumPy (f16) and PyTorch (bf16)
//   widen (so an f16 signalling NaN stays signalling; f32 arithmetic quiets it).
// - Narrowing a float (f32 -> f16, f32 -> bf16) rounds by RoundMode. A NaN becomes the canonical
//   quiet NaN with the input's sign (f16 0x7E00, bf16 0x7FC0, sign bit 0x8000 when negative).
//   Overflow follows IEEE 754 §7.4: the nearest modes give ±inf (f16: |v| >= 65520; bf16: |v|
//   >= 0x1.FFp127), TowardZero gives ±max finite (f16 ±65504), Floor gives +max finite for
//   positive and -inf for negative values, Ceil the mirror image. Infinities stay infinities.
//   A result of zero keeps the input's sign (f16: -1e-10 -> -0 in every mode but Floor, which
//   gives the negative smallest subnormal, -2^-24).
// - Float -> integer rounds by RoundMode to an integer, then saturates to the type's range
//   (±inf saturate too); NaN gives 0.
// - Bool: any non-zero value, NaN included, is true (1), as in C++, NumPy and PyTorch.

#include "compiler/ir/DType.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace pto {

/// How a value that lies between two representable values of the destination is rounded.
/// Attribute spelling (roundModeName / parseRoundMode) in parentheses.
enum class RoundMode : uint8_t {
    NearestEven, ///< to nearest, ties to even (IEEE default) ("rne")
    TowardZero,  ///< truncate ("trunc")
    Floor,       ///< toward -inf ("floor")
    Ceil,        ///< toward +inf ("ceil")
    NearestAway, ///< to nearest, ties away from zero, as C's round() ("rna")
};

/// "rne", "trunc", "floor", "ceil" or "rna".
std::string_view roundModeName(RoundMode mode);
/// Inverse of roundModeName; nullopt for anything else.
std::optional<RoundMode> parseRoundMode(std::string_view name);

// --- The general conversions -----------------------------------------------------------------

// Exact for every input and rounding mode, out of line; the inline functions below call them
// off their fast paths. Public so that tests can check the fast paths against them.
namespace detail {
float halfBitsToFloatGeneral(uint16_t bits);
uint16_t floatToHalfBitsGeneral(float value, RoundMode mode);
uint16_t floatToBf16BitsGeneral(float value, RoundMode mode);
} // namespace detail

// --- IEEE binary16 ------------------------------------------------------------------------

/// IEEE binary16 bits -> f32, exact. Inline for normal numbers (re-biasing the exponent);
/// zeros, subnormals, infinities and NaNs take the general path.
inline float halfBitsToFloat(uint16_t bits) {
    const uint32_t expField = bits & 0x7C00u;
    if (expField != 0 && expField != 0x7C00u) [[likely]]
        return std::bit_cast<float>((uint32_t{bits & 0x8000u} << 16) |
                                    ((uint32_t{bits & 0x7FFFu} << 13) + (112u << 23)));
    return detail::halfBitsToFloatGeneral(bits);
}

/// f32 -> IEEE binary16 bits, rounded by `mode` (see the conventions above). Inline for round
/// to nearest even of |value| in [2^-14, 65520), the values whose result is a normal f16
/// (re-biasing the exponent and rounding the mantissa); everything else takes the general path.
inline uint16_t floatToHalfBits(float value, RoundMode mode = RoundMode::NearestEven) {
    constexpr uint32_t kMinNormal = 0x3880'0000u; // 2^-14
    constexpr uint32_t kOverflow = 0x477F'F000u;  // 65520, the first value that rounds to inf
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const uint32_t mag = bits & 0x7FFF'FFFFu;
    if (mode == RoundMode::NearestEven && mag - kMinNormal < kOverflow - kMinNormal) [[likely]]
        return static_cast<uint16_t>(((bits >> 16) & 0x8000u) |
                                     ((mag - (112u << 23) + 0xFFFu + ((mag >> 13) & 1u)) >> 13));
    return detail::floatToHalfBitsGeneral(value, mode);
}

// --- bfloat16 (the top 16 bits of an f32) -------------------------------------------------

/// f32 -> bf16 bits, rounded by `mode`. Under NearestEven this equals the usual
/// (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 for every non-NaN input (computed inline);
/// NaN -> 0x7FC0 | sign.
inline uint16_t floatToBf16Bits(float value, RoundMode mode = RoundMode::NearestEven) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if (mode == RoundMode::NearestEven && (bits & 0x7FFF'FFFFu) <= 0x7F80'0000u) [[likely]]
        return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
    return detail::floatToBf16BitsGeneral(value, mode);
}

/// bf16 bits -> f32, exact (bits << 16).
inline float bf16BitsToFloat(uint16_t bits) {
    return std::bit_cast<float>(uint32_t{bits} << 16);
}

/// An f16 element: its bits, and conversions. Trivially copyable, 2 bytes, so arrays of Half
/// have the layout of f16 buffers.
struct Half {
    uint16_t bits;

    static Half fromFloat(float value, RoundMode mode = RoundMode::NearestEven) {
        return Half{floatToHalfBits(value, mode)};
    }
    float toFloat() const { return halfBitsToFloat(bits); }
};

/// A bf16 element: its bits, and conversions. Trivially copyable, 2 bytes.
struct BFloat16 {
    uint16_t bits;

    static BFloat16 fromFloat(float value, RoundMode mode = RoundMode::NearestEven) {
        return BFloat16{floatToBf16Bits(value, mode)};
    }
    float toFloat() const { return bf16BitsToFloat(bits); }
};

static_assert(sizeof(Half) == 2 && std::is_trivially_copyable_v<Half>);
static_assert(sizeof(BFloat16) == 2 && std::is_trivially_copyable_v<BFloat16>);

// --- Integers -------------------------------------------------------------------------------

/// f32 -> int8: rounded by `mode`, saturated to [-128, 127]; NaN -> 0.
int8_t floatToI8(float value, RoundMode mode = RoundMode::NearestEven);
/// f32 -> int32: rounded by `mode`, saturated to [INT32_MIN, INT32_MAX]; NaN -> 0.
int32_t floatToI32(float value, RoundMode mode = RoundMode::NearestEven);

// --- Any dtype --------------------------------------------------------------------------------

/// `value` quantized to the precision of `dtype` and returned as f32: identity for F32; the
/// nearest (by `mode`) f16/bf16 value; for I8/I32 the rounded, saturated integer (an I32 beyond
/// 2^24 is then rounded to the nearest f32, as every f32 holding an int32 is); Bool -> 0 or 1.
float roundToDType(float value, DType dtype, RoundMode mode = RoundMode::NearestEven);

/// Reads one element of `dtype` from a little-endian buffer (no alignment needed) and widens it
/// to f32 (I32 beyond 2^24 rounds to nearest even; Bool: any non-zero byte is 1).
float loadElement(const std::byte* p, DType dtype);
/// Writes `value` as one element of `dtype` (dtypeSize(dtype) bytes, little-endian, no alignment
/// needed), quantized as roundToDType does. Bool is stored as the byte 0 or 1.
void storeElement(std::byte* p, DType dtype, float value, RoundMode mode = RoundMode::NearestEven);

// --- Rows (the bulk forms, for the interpreters' and the simulator's inner loops) -----------

/// out[0, n) = the n packed elements of `dtype` at src, each widened exactly as loadElement
/// does (bit for bit). Vectorised for f32, f16, bf16, i8 and i32.
void convertRowToFloat(const std::byte* src, DType dtype, float* out, int64_t n);
/// Writes values[0, n) as n packed elements of `dtype` at dst, each rounded once by `mode` as
/// storeElement does (bit for bit). Vectorised for f32, and for f16/bf16 under NearestEven.
void convertRowFromFloat(const float* values, DType dtype, std::byte* dst, int64_t n,
                         RoundMode mode = RoundMode::NearestEven);

} // namespace pto
