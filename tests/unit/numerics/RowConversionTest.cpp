// The fast f16/bf16 conversions of compiler/ir/Scalar.h (the inline per-element fast paths and
// the vectorised row functions convertRowToFloat / convertRowFromFloat) are bit-identical to the
// general conversions: exhaustively for f16 -> f32, over 2^24 f32 bit patterns spread across
// the whole range (plus the edge cases) in every rounding mode for f32 -> f16 / bf16, and to
// loadElement / storeElement for every other dtype.
#include "compiler/ir/Scalar.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstring>
#include <vector>

namespace pto {
namespace {

constexpr std::array<RoundMode, 5> kModes = {RoundMode::NearestEven, RoundMode::TowardZero,
                                             RoundMode::Floor, RoundMode::Ceil,
                                             RoundMode::NearestAway};

std::vector<float> f32Patterns() {
    std::vector<float> out;
    for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 251) // 251 is prime: every low-bit mix
        out.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
    // Fast-path boundaries (2^-14, 65520, 65504), subnormal f16 results, infinities, NaNs with
    // payloads, the largest f32, ±0 and bf16 ties.
    for (uint32_t edge :
         {0x38800000u, 0x387FFFFFu, 0x477FEFFFu, 0x477FF000u, 0x477FE000u, 0x7F800000u, 0xFF800000u,
          0x7FC00001u, 0xFF800001u, 0x7F7FFFFFu, 0x33000000u, 0x33000001u, 0x80000000u, 0x3F808000u,
          0x3F818000u, 0xB8800000u, 0xC77FF000u, 0x00000001u, 0x80000001u})
        out.push_back(std::bit_cast<float>(edge));
    return out;
}

uint32_t bitsOf(float v) {
    return std::bit_cast<uint32_t>(v);
}

TEST(RowConversion, HalfToFloatMatchesTheGeneralPathForEveryPattern) {
    std::vector<uint16_t> bits(65536);
    for (uint32_t i = 0; i < 65536; ++i) bits[i] = static_cast<uint16_t>(i);
    std::vector<float> out(bits.size());
    convertRowToFloat(reinterpret_cast<const std::byte*>(bits.data()), DType::F16, out.data(),
                      int64_t(bits.size()));
    for (uint32_t i = 0; i < 65536; ++i) {
        const uint32_t want = bitsOf(detail::halfBitsToFloatGeneral(static_cast<uint16_t>(i)));
        ASSERT_EQ(bitsOf(out[i]), want) << "row, f16 bits " << i;
        ASSERT_EQ(bitsOf(halfBitsToFloat(static_cast<uint16_t>(i))), want)
            << "inline, f16 bits " << i;
    }
}

TEST(RowConversion, FloatToHalfAndBf16MatchTheGeneralPathInEveryMode) {
    const std::vector<float> values = f32Patterns();
    std::vector<uint16_t> out(values.size());
    auto* outBytes = reinterpret_cast<std::byte*>(out.data());
    for (RoundMode mode : kModes) {
        convertRowFromFloat(values.data(), DType::F16, outBytes, int64_t(values.size()), mode);
        for (size_t i = 0; i < values.size(); ++i) {
            const uint16_t want = detail::floatToHalfBitsGeneral(values[i], mode);
            ASSERT_EQ(out[i], want)
                << "row, f32 bits " << bitsOf(values[i]) << " mode " << roundModeName(mode);
            ASSERT_EQ(floatToHalfBits(values[i], mode), want)
                << "inline, f32 bits " << bitsOf(values[i]) << " mode " << roundModeName(mode);
        }
        convertRowFromFloat(values.data(), DType::BF16, outBytes, int64_t(values.size()), mode);
        for (size_t i = 0; i < values.size(); ++i) {
            const uint16_t want = detail::floatToBf16BitsGeneral(values[i], mode);
            ASSERT_EQ(out[i], want)
                << "row, f32 bits " << bitsOf(values[i]) << " mode " << roundModeName(mode);
            ASSERT_EQ(floatToBf16Bits(values[i], mode), want)
                << "inline, f32 bits " << bitsOf(values[i]) << " mode " << roundModeName(mode);
        }
    }
}

TEST(RowConversion, OtherDTypesMatchLoadAndStoreElement) {
    const std::vector<float> values = f32Patterns();
    for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::I8, DType::I32, DType::Bool}) {
        const auto es = static_cast<size_t>(dtypeSize(dt));
        std::vector<std::byte> row(values.size() * es);
        std::vector<std::byte> one(es);
        for (RoundMode mode : kModes) {
            convertRowFromFloat(values.data(), dt, row.data(), int64_t(values.size()), mode);
            for (size_t i = 0; i < values.size(); i += 97) {
                storeElement(one.data(), dt, values[i], mode);
                ASSERT_EQ(std::memcmp(one.data(), row.data() + i * es, es), 0)
                    << dtypeName(dt) << " f32 bits " << bitsOf(values[i]) << " mode "
                    << roundModeName(mode);
            }
        }
        std::vector<float> back(values.size());
        convertRowToFloat(row.data(), dt, back.data(), int64_t(values.size()));
        for (size_t i = 0; i < values.size(); i += 97)
            ASSERT_EQ(bitsOf(back[i]), bitsOf(loadElement(row.data() + i * es, dt)))
                << dtypeName(dt);
    }
}

// Every length (vector bodies and scalar tails) at an odd byte offset, with a subnormal f16 in
// every position, so the second (general-path) pass meets every element index.
TEST(RowConversion, ShortUnalignedRowsWithSpecialValues) {
    const std::array<float, 6> specials = {
        0x1p-20f, -0.0f, 70000.0f, -1.5f, std::bit_cast<float>(0x7FC00001u), 3.0e-8f};
    for (int64_t n = 0; n <= 40; ++n) {
        for (int64_t at = 0; at < n; ++at) {
            std::vector<float> values(static_cast<size_t>(n), 0.75f);
            for (int64_t i = 0; i < n; ++i)
                if (i % 3 == 0) values[size_t(i)] = specials[size_t(i) % specials.size()];
            values[size_t(at)] = 0x1p-20f; // an f16 subnormal
            std::vector<std::byte> bytes(static_cast<size_t>(2 * n + 1));
            std::byte* dst = bytes.data() + 1;
            convertRowFromFloat(values.data(), DType::F16, dst, n);
            std::vector<float> back(static_cast<size_t>(n));
            convertRowToFloat(dst, DType::F16, back.data(), n);
            for (int64_t i = 0; i < n; ++i) {
                std::array<std::byte, 2> one{};
                storeElement(one.data(), DType::F16, values[size_t(i)]);
                ASSERT_EQ(std::memcmp(one.data(), dst + 2 * i, 2), 0) << "n " << n << " i " << i;
                ASSERT_EQ(bitsOf(back[size_t(i)]), bitsOf(loadElement(dst + 2 * i, DType::F16)))
                    << "n " << n << " i " << i;
            }
        }
    }
}

} // namespace
} // namespace pto
