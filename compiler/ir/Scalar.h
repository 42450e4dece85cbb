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

// --- IEEE binary16 ------------------------------------------------------------------------

/// f32 -> IEEE binary16 bits, rounded by `mode` (see the conventions above).
uint16_t floatToHalfBits(float value, RoundMode mode = RoundMode::NearestEven);
/// IEEE binary16 bits -> f32, exact.
float halfBitsToFloat(uint16_t bits);

// --- bfloat16 (the top 16 bits of an f32) -------------------------------------------------

/// f32 -> bf16 bits, rounded by `mode`. Under NearestEven this equals the usual
/// (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 for every non-NaN input; NaN -> 0x7FC0 | sign.
uint16_t floatToBf16Bits(float value, RoundMode mode = RoundMode::NearestEven);
/// bf16 bits -> f32, exact (bits << 16).
float bf16BitsToFloat(uint16_t bits);

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

} // namespace pto
