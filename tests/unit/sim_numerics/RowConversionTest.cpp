// The row converters of the functional kernels (simulator/numerics/TileView.h) are bit-identical
// to the scalar conversions of compiler/ir/Scalar.h: exhaustively for f16 -> f32, and over 2^24
// f32 bit patterns spread across the whole range (plus the edge cases) for f32 -> f16 / bf16.
#include <gtest/gtest.h>

#include "compiler/ir/Scalar.h"
#include "simulator/numerics/TileView.h"

#include <bit>
#include <cstring>
#include <vector>

namespace pto::numerics {
namespace {

std::vector<float> f32Patterns() {
    std::vector<float> out;
    for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 251) // 251 is prime: every low-bit mix
        out.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
    for (uint32_t edge : {0x38800000u, 0x387FFFFFu, 0x477FEFFFu, 0x477FF000u, 0x477FE000u,
                          0x7F800000u, 0xFF800000u, 0x7FC00001u, 0xFF800001u, 0x7F7FFFFFu,
                          0x33000000u, 0x33000001u, 0x80000000u, 0x3F808000u, 0x3F818000u})
        out.push_back(std::bit_cast<float>(edge));
    return out;
}

TEST(SimRowConversion, HalfToFloatMatchesScalarForEveryPattern) {
    std::vector<uint16_t> bits(65536);
    for (uint32_t i = 0; i < 65536; ++i) bits[i] = static_cast<uint16_t>(i);
    std::vector<float> out(bits.size());
    loadRow(reinterpret_cast<const std::byte*>(bits.data()), DType::F16, int64_t(bits.size()),
            out.data());
    for (uint32_t i = 0; i < 65536; ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(out[i]),
                  std::bit_cast<uint32_t>(halfBitsToFloat(static_cast<uint16_t>(i))))
            << "f16 bits " << i;
}

TEST(SimRowConversion, FloatToHalfAndBf16MatchScalarInEveryMode) {
    const std::vector<float> values = f32Patterns();
    std::vector<uint16_t> out(values.size());
    for (RoundMode mode : {RoundMode::NearestEven, RoundMode::TowardZero, RoundMode::Floor,
                           RoundMode::Ceil, RoundMode::NearestAway}) {
        storeRow(values.data(), int64_t(values.size()), DType::F16, mode,
                 reinterpret_cast<std::byte*>(out.data()));
        for (size_t i = 0; i < values.size(); ++i)
            ASSERT_EQ(out[i], floatToHalfBits(values[i], mode))
                << "f32 bits " << std::bit_cast<uint32_t>(values[i]) << " mode "
                << roundModeName(mode);
        storeRow(values.data(), int64_t(values.size()), DType::BF16, mode,
                 reinterpret_cast<std::byte*>(out.data()));
        for (size_t i = 0; i < values.size(); ++i)
            ASSERT_EQ(out[i], floatToBf16Bits(values[i], mode))
                << "f32 bits " << std::bit_cast<uint32_t>(values[i]) << " mode "
                << roundModeName(mode);
    }
}

TEST(SimRowConversion, OtherDTypesMatchLoadAndStoreElement) {
    const std::vector<float> values = f32Patterns();
    for (DType dt : {DType::F32, DType::BF16, DType::I8, DType::I32, DType::Bool}) {
        const int es = dtypeSize(dt);
        std::vector<std::byte> row(values.size() * size_t(es));
        std::vector<std::byte> one(static_cast<size_t>(es));
        storeRow(values.data(), int64_t(values.size()), dt, RoundMode::NearestEven, row.data());
        std::vector<float> back(values.size());
        loadRow(row.data(), dt, int64_t(values.size()), back.data());
        for (size_t i = 0; i < values.size(); i += 97) {
            storeElement(one.data(), dt, values[i], RoundMode::NearestEven);
            ASSERT_EQ(std::memcmp(one.data(), row.data() + i * size_t(es), size_t(es)), 0)
                << dtypeName(dt) << " f32 bits " << std::bit_cast<uint32_t>(values[i]);
            ASSERT_EQ(std::bit_cast<uint32_t>(back[i]),
                      std::bit_cast<uint32_t>(loadElement(row.data() + i * size_t(es), dt)))
                << dtypeName(dt);
        }
    }
}

} // namespace
} // namespace pto::numerics
