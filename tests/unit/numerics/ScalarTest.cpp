// Unit tests of compiler/ir/Scalar.h against NumPy and PyTorch (run as independent references).
#include "compiler/ir/Scalar.h"

#include "tests/support/Process.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace pto {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPython = "/usr/bin/python3";
constexpr std::array<RoundMode, 5> kModes = {RoundMode::NearestEven, RoundMode::TowardZero,
                                             RoundMode::Floor, RoundMode::Ceil,
                                             RoundMode::NearestAway};

using test::haveNumpy;
using test::haveTorch;
using test::TempDir;

#define REQUIRE_NUMPY()                                                                            \
    PTO_SKIP_UNLESS(haveNumpy(), "needs /usr/bin/python3 with numpy (apt install python3-numpy) "  \
                                 "as the independent reference")

#define REQUIRE_TORCH()                                                                            \
    PTO_SKIP_UNLESS(haveTorch(), "needs /usr/bin/python3 with numpy and torch (apt install "       \
                                 "python3-torch) as the independent bf16 reference")

template <typename T> void writeRaw(const fs::path& path, const std::vector<T>& values) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(T)));
    ASSERT_TRUE(out.good()) << path;
}

template <typename T> std::vector<T> readRaw(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<T> values(bytes.size() / sizeof(T));
    if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
}

/// Runs numerics_reference.py OP on `input` (raw values) and returns its raw output.
template <typename Out, typename In>
std::vector<Out> runReference(const std::string& op, const std::vector<In>& input) {
    static_assert(std::endian::native == std::endian::little, "raw files are little-endian");
    TempDir dir;
    const fs::path in = dir / "in.bin";
    const fs::path out = dir / "out.bin";
    writeRaw(in, input);
    const std::string script =
        std::string(PTO_SOURCE_DIR) + "/tests/unit/numerics/numerics_reference.py";
    const std::string cmd = std::string(kPython) + " '" + script + "' " + op + " '" + in.string() +
                            "' '" + out.string() + "'";
    const int rc = std::system(cmd.c_str());
    EXPECT_EQ(rc, 0) << "reference script failed: " << cmd;
    return readRaw<Out>(out);
}

std::string hex(uint32_t v, int digits) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%0*X", digits, v);
    return buf;
}

uint32_t bitsOf(float f) {
    return std::bit_cast<uint32_t>(f);
}
float floatOf(uint32_t b) {
    return std::bit_cast<float>(b);
}
bool isNanBits(uint32_t b) {
    return (b & 0x7FFF'FFFFu) > 0x7F80'0000u;
}

/// Counts mismatches and keeps a description of the first few for the failure message.
class Mismatches {
public:
    explicit Mismatches(std::string what) : m_what(std::move(what)) {}
    void add(const std::string& detail) {
        if (m_count++ < 12) m_details << "\n  " << detail;
    }
    ~Mismatches() {
        EXPECT_EQ(m_count, 0u) << m_what << ": " << m_count
                               << " mismatches, first:" << m_details.str();
    }
    Mismatches(const Mismatches&) = delete;
    Mismatches& operator=(const Mismatches&) = delete;

private:
    std::string m_what;
    size_t m_count = 0;
    std::ostringstream m_details;
};

/// Inputs covering every rounding boundary of a 16-bit float format (given by its bits ->
/// value function and the value just beyond its largest finite), plus random and special values.
template <typename Widen>
std::vector<uint32_t> floatInputs(Widen widen, double beyondMax, int minExp, int maxExp) {
    std::vector<uint32_t> in;
    auto addAround = [&](float f) {
        const uint32_t b = bitsOf(f);
        in.push_back(b);
        if ((b & 0x7FFF'FFFFu) != 0) in.push_back(b - 1);
        if ((b & 0x7FFF'FFFFu) < 0x7F80'0000u) in.push_back(b + 1);
    };
    for (uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
        const auto p16 = static_cast<uint16_t>(pattern);
        const float v = widen(p16);
        if (std::isnan(v)) continue;
        addAround(v);
        if (std::isinf(v)) continue;
        // Midpoint to the next value away from zero (exact in f32 for both formats).
        const float next = widen(static_cast<uint16_t>(p16 + 1));
        const double nextMag = std::isinf(next) ? beyondMax : std::fabs(double(next));
        const double mid = (std::fabs(double(v)) + nextMag) / 2;
        addAround(static_cast<float>(std::signbit(v) ? -mid : mid));
    }
    // Random bit patterns, and random values within the format's exponent range.
    std::mt19937 rng(20240611);
    for (int i = 0; i < 300000; ++i) in.push_back(static_cast<uint32_t>(rng()));
    for (int i = 0; i < 300000; ++i) {
        const uint32_t r = static_cast<uint32_t>(rng());
        const int exp = minExp + static_cast<int>(r % static_cast<uint32_t>(maxExp - minExp + 1));
        const uint32_t sign = (r >> 31) << 31;
        const uint32_t man = static_cast<uint32_t>(rng()) & 0x7F'FFFFu;
        in.push_back(sign | (static_cast<uint32_t>(exp + 127) << 23) | man);
    }
    for (uint32_t b :
         {0x0000'0000u, 0x8000'0000u, 0x0000'0001u, 0x8000'0001u, 0x007F'FFFFu, 0x0080'0000u,
          0x7F7F'FFFFu, 0xFF7F'FFFFu, 0x7F80'0000u, 0xFF80'0000u, 0x7FC0'0000u, 0xFFC0'0000u,
          0x7F80'0001u, 0xFF80'0001u, 0x7FA0'0000u, 0x7F80'1000u, 0x7FFF'FFFFu, 0xFFFF'FFFFu}) {
        in.push_back(b);
    }
    for (float f : {65504.0f, std::nextafter(65520.0f, 0.0f), 65520.0f, 65536.0f, -65520.0f, 1e10f,
                    std::ldexp(1.0f, -24), std::ldexp(1.0f, -25),
                    std::nextafter(std::ldexp(1.0f, -25), 1.0f), std::ldexp(3.0f, -26),
                    std::ldexp(1.0f, -14), std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25), 1e-30f,
                    -1e-30f, 0.1f, 1.0f / 3.0f, 3.14159265f, 1.5f, -2.5f}) {
        in.push_back(bitsOf(f));
    }
    return in;
}

// --- Rounding mode names ---------------------------------------------------------------------

TEST(RoundModeTest, NamesRoundTrip) {
    const std::array<std::string_view, 5> names = {"rne", "trunc", "floor", "ceil", "rna"};
    for (size_t i = 0; i < kModes.size(); ++i) {
        EXPECT_EQ(roundModeName(kModes[i]), names[i]);
        EXPECT_EQ(parseRoundMode(names[i]), kModes[i]);
    }
    EXPECT_FALSE(parseRoundMode("RNE").has_value());
    EXPECT_FALSE(parseRoundMode("").has_value());
    EXPECT_FALSE(parseRoundMode("nearest").has_value());
}

// --- f16 --------------------------------------------------------------------------------------

TEST(HalfTest, KnownValues) {
    EXPECT_EQ(floatToHalfBits(1.0f), 0x3C00);
    EXPECT_EQ(floatToHalfBits(-2.0f), 0xC000);
    EXPECT_EQ(floatToHalfBits(0.0f), 0x0000);
    EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000);
    EXPECT_EQ(floatToHalfBits(65504.0f), 0x7BFF);
    EXPECT_EQ(floatToHalfBits(65519.99f), 0x7BFF);
    EXPECT_EQ(floatToHalfBits(65520.0f), 0x7C00);
    EXPECT_EQ(floatToHalfBits(-65520.0f), 0xFC00);
    EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);    // smallest subnormal
    EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);    // tie -> even (zero)
    EXPECT_EQ(floatToHalfBits(std::ldexp(3.0f, -25)), 0x0002);    // tie 1.5 ulp -> even (2)
    EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);    // smallest normal
    EXPECT_EQ(floatToHalfBits(std::ldexp(1023.5f, -24)), 0x0400); // max subnormal rounds up
    EXPECT_EQ(floatToHalfBits(std::numeric_limits<float>::infinity()), 0x7C00);
    EXPECT_EQ(floatToHalfBits(-std::numeric_limits<float>::infinity()), 0xFC00);
    EXPECT_EQ(floatToHalfBits(std::numeric_limits<float>::quiet_NaN()), 0x7E00);
    EXPECT_EQ(floatToHalfBits(floatOf(0xFF80'0001u)), 0xFE00); // -sNaN -> quiet, sign kept

    EXPECT_EQ(halfBitsToFloat(0x3C00), 1.0f);
    EXPECT_EQ(halfBitsToFloat(0x7BFF), 65504.0f);
    EXPECT_EQ(halfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(halfBitsToFloat(0x03FF), std::ldexp(1023.0f, -24));
    EXPECT_EQ(bitsOf(halfBitsToFloat(0x8000)), 0x8000'0000u);
    EXPECT_TRUE(std::isinf(halfBitsToFloat(0xFC00)) && halfBitsToFloat(0xFC00) < 0);
    EXPECT_EQ(bitsOf(halfBitsToFloat(0x7E00)), 0x7FC0'0000u);
}

TEST(HalfTest, DirectedModesAndOverflow) {
    const float big = 1e6f;
    EXPECT_EQ(floatToHalfBits(big, RoundMode::TowardZero), 0x7BFF);
    EXPECT_EQ(floatToHalfBits(-big, RoundMode::TowardZero), 0xFBFF);
    EXPECT_EQ(floatToHalfBits(big, RoundMode::Floor), 0x7BFF);
    EXPECT_EQ(floatToHalfBits(-big, RoundMode::Floor), 0xFC00);
    EXPECT_EQ(floatToHalfBits(big, RoundMode::Ceil), 0x7C00);
    EXPECT_EQ(floatToHalfBits(-big, RoundMode::Ceil), 0xFBFF);
    EXPECT_EQ(floatToHalfBits(big, RoundMode::NearestAway), 0x7C00);
    EXPECT_EQ(floatToHalfBits(65519.0f, RoundMode::TowardZero), 0x7BFF);
    EXPECT_EQ(floatToHalfBits(65505.0f, RoundMode::Ceil), 0x7C00);
    EXPECT_EQ(floatToHalfBits(std::numeric_limits<float>::infinity(), RoundMode::TowardZero),
              0x7C00);
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10.
    const float tie = 1.0f + std::ldexp(1.0f, -11);
    EXPECT_EQ(floatToHalfBits(tie, RoundMode::NearestEven), 0x3C00);
    EXPECT_EQ(floatToHalfBits(tie, RoundMode::NearestAway), 0x3C01);
    EXPECT_EQ(floatToHalfBits(-tie, RoundMode::NearestAway), 0xBC01);
    EXPECT_EQ(floatToHalfBits(-tie, RoundMode::Floor), 0xBC01);
    EXPECT_EQ(floatToHalfBits(-tie, RoundMode::Ceil), 0xBC00);
    // Tiny values: zero keeps the sign; the directed modes reach the smallest subnormal.
    EXPECT_EQ(floatToHalfBits(-1e-10f, RoundMode::NearestEven), 0x8000);
    EXPECT_EQ(floatToHalfBits(-1e-10f, RoundMode::Floor), 0x8001);
    EXPECT_EQ(floatToHalfBits(1e-10f, RoundMode::Ceil), 0x0001);
    EXPECT_EQ(floatToHalfBits(1e-10f, RoundMode::Floor), 0x0000);
}

TEST(HalfTest, ExhaustiveHalfToFloatMatchesNumpy) {
    REQUIRE_NUMPY();
    std::vector<uint16_t> all(65536);
    for (uint32_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
    const auto expected = runReference<uint32_t>("f16_to_f32", all);
    ASSERT_EQ(expected.size(), all.size());
    Mismatches bad("f16 -> f32 vs numpy");
    for (size_t i = 0; i < all.size(); ++i) {
        const uint32_t got = bitsOf(halfBitsToFloat(all[i]));
        if (got != expected[i]) {
            bad.add(hex(all[i], 4) + ": got " + hex(got, 8) + ", numpy " + hex(expected[i], 8));
        }
    }
}

TEST(HalfTest, FloatToHalfMatchesNumpyAndExactRounding) {
    REQUIRE_NUMPY();
    const auto inputs = floatInputs(halfBitsToFloat, 65536.0, -27, 17);
    const auto ref = runReference<uint16_t>("f32_to_f16", inputs);
    ASSERT_EQ(ref.size(), inputs.size() * 6);
    const size_t n = inputs.size();
    {
        Mismatches bad("f32 -> f16 (rne) vs numpy astype(float16)");
        for (size_t i = 0; i < n; ++i) {
            const uint16_t got = floatToHalfBits(floatOf(inputs[i]));
            const uint16_t want = ref[i];
            const bool ok =
                isNanBits(inputs[i])
                    ? (want & 0x7FFF) > 0x7C00 && got == (((inputs[i] >> 16) & 0x8000) | 0x7E00)
                    : got == want;
            if (!ok)
                bad.add(hex(inputs[i], 8) + ": got " + hex(got, 4) + ", numpy " + hex(want, 4));
        }
    }
    for (size_t m = 0; m < kModes.size(); ++m) {
        Mismatches bad(std::string("f32 -> f16 (") + std::string(roundModeName(kModes[m])) +
                       ") vs exact rounding");
        for (size_t i = 0; i < n; ++i) {
            const uint16_t got = floatToHalfBits(floatOf(inputs[i]), kModes[m]);
            const uint16_t want = ref[(m + 1) * n + i];
            if (got != want) {
                bad.add(hex(inputs[i], 8) + ": got " + hex(got, 4) + ", expected " + hex(want, 4));
            }
        }
    }
}

// --- bf16 -------------------------------------------------------------------------------------

TEST(BFloat16Test, KnownValues) {
    EXPECT_EQ(floatToBf16Bits(1.0f), 0x3F80);
    EXPECT_EQ(floatToBf16Bits(-2.5f), 0xC020);
    EXPECT_EQ(floatToBf16Bits(3.14159265f), 0x4049);
    EXPECT_EQ(floatToBf16Bits(floatOf(0x3F80'8000u)), 0x3F80); // tie -> even
    EXPECT_EQ(floatToBf16Bits(floatOf(0x3F81'8000u)), 0x3F82); // tie -> even
    EXPECT_EQ(floatToBf16Bits(floatOf(0x3F80'8000u), RoundMode::NearestAway), 0x3F81);
    EXPECT_EQ(floatToBf16Bits(floatOf(0x7F7F'FFFFu)), 0x7F80); // FLT_MAX -> inf
    EXPECT_EQ(floatToBf16Bits(floatOf(0x7F7F'FFFFu), RoundMode::TowardZero), 0x7F7F);
    EXPECT_EQ(floatToBf16Bits(floatOf(0xFF7F'FFFFu), RoundMode::Ceil), 0xFF7F);
    EXPECT_EQ(floatToBf16Bits(floatOf(0xFF7F'FFFFu), RoundMode::Floor), 0xFF80);
    EXPECT_EQ(floatToBf16Bits(std::numeric_limits<float>::quiet_NaN()), 0x7FC0);
    EXPECT_EQ(floatToBf16Bits(-std::numeric_limits<float>::quiet_NaN()), 0xFFC0);
    EXPECT_EQ(floatToBf16Bits(floatOf(0x7F80'0001u)), 0x7FC0); // sNaN with low payload
    EXPECT_EQ(floatToBf16Bits(floatOf(0x0000'8000u)), 0x0000); // subnormal tie -> even
    EXPECT_EQ(floatToBf16Bits(floatOf(0x0000'8001u)), 0x0001);
    EXPECT_EQ(bf16BitsToFloat(0x3F80), 1.0f);
    EXPECT_EQ(bitsOf(bf16BitsToFloat(0xFFC1)), 0xFFC1'0000u);
}

TEST(BFloat16Test, MatchesTheReferenceFormulaOnRandomBits) {
    // REFERENCE.md §6: RNE = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16; truncation = bits >> 16.
    std::mt19937 rng(7);
    Mismatches bad("f32 -> bf16 vs the add-and-shift formula");
    for (int i = 0; i < 2'000'000; ++i) {
        const uint32_t b = static_cast<uint32_t>(rng());
        if (isNanBits(b)) continue;
        const auto rne = static_cast<uint16_t>((uint64_t{b} + 0x7FFF + ((b >> 16) & 1)) >> 16);
        const auto trunc = static_cast<uint16_t>(b >> 16);
        const uint16_t gotRne = floatToBf16Bits(floatOf(b));
        const uint16_t gotTrunc = floatToBf16Bits(floatOf(b), RoundMode::TowardZero);
        if (gotRne != rne || gotTrunc != trunc) {
            bad.add(hex(b, 8) + ": rne " + hex(gotRne, 4) + " vs " + hex(rne, 4) + ", trunc " +
                    hex(gotTrunc, 4) + " vs " + hex(trunc, 4));
        }
    }
}

TEST(BFloat16Test, ExhaustiveBf16ToFloatMatchesTorch) {
    REQUIRE_TORCH();
    std::vector<uint16_t> all(65536);
    for (uint32_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
    const auto expected = runReference<uint32_t>("bf16_to_f32", all);
    ASSERT_EQ(expected.size(), all.size());
    Mismatches bad("bf16 -> f32 vs torch");
    for (size_t i = 0; i < all.size(); ++i) {
        const uint32_t got = bitsOf(bf16BitsToFloat(all[i]));
        if (got != expected[i]) {
            bad.add(hex(all[i], 4) + ": got " + hex(got, 8) + ", torch " + hex(expected[i], 8));
        }
    }
}

TEST(BFloat16Test, FloatToBf16MatchesTorchAndExactRounding) {
    REQUIRE_TORCH();
    const auto inputs = floatInputs(bf16BitsToFloat, std::ldexp(1.0, 128), -126, 127);
    const auto ref = runReference<uint16_t>("f32_to_bf16", inputs);
    ASSERT_EQ(ref.size(), inputs.size() * 6);
    const size_t n = inputs.size();
    {
        Mismatches bad("f32 -> bf16 (rne) vs torch .to(torch.bfloat16)");
        for (size_t i = 0; i < n; ++i) {
            const uint16_t got = floatToBf16Bits(floatOf(inputs[i]));
            const uint16_t want = ref[i];
            // torch's NaN bits differ between its scalar and vector paths; ours are canonical.
            const bool ok =
                isNanBits(inputs[i])
                    ? (want & 0x7FFF) > 0x7F80 && got == (((inputs[i] >> 16) & 0x8000) | 0x7FC0)
                    : got == want;
            if (!ok)
                bad.add(hex(inputs[i], 8) + ": got " + hex(got, 4) + ", torch " + hex(want, 4));
        }
    }
    for (size_t m = 0; m < kModes.size(); ++m) {
        Mismatches bad(std::string("f32 -> bf16 (") + std::string(roundModeName(kModes[m])) +
                       ") vs exact rounding");
        for (size_t i = 0; i < n; ++i) {
            const uint16_t got = floatToBf16Bits(floatOf(inputs[i]), kModes[m]);
            const uint16_t want = ref[(m + 1) * n + i];
            if (got != want) {
                bad.add(hex(inputs[i], 8) + ": got " + hex(got, 4) + ", expected " + hex(want, 4));
            }
        }
    }
}

TEST(BFloat16Test, WrappersAreTrivialTwoByteValues) {
    static_assert(std::is_trivially_copyable_v<Half> && std::is_trivially_copyable_v<BFloat16>);
    static_assert(sizeof(Half[8]) == 16 && sizeof(BFloat16[8]) == 16);
    const Half h = Half::fromFloat(0.1f);
    EXPECT_EQ(h.bits, 0x2E66);
    EXPECT_EQ(h.toFloat(), halfBitsToFloat(0x2E66));
    EXPECT_EQ(Half::fromFloat(0.1f, RoundMode::TowardZero).bits, 0x2E66);
    EXPECT_EQ(Half::fromFloat(0.1f, RoundMode::Ceil).bits, 0x2E67);
    const BFloat16 b = BFloat16::fromFloat(0.1f);
    EXPECT_EQ(b.bits, 0x3DCD);
    EXPECT_EQ(b.toFloat(), floatOf(0x3DCD'0000u));
    EXPECT_EQ(BFloat16::fromFloat(0.1f, RoundMode::TowardZero).bits, 0x3DCC);
}

// --- Integers ---------------------------------------------------------------------------------

TEST(IntegerTest, KnownValues) {
    EXPECT_EQ(floatToI8(2.5f), 2);
    EXPECT_EQ(floatToI8(3.5f), 4);
    EXPECT_EQ(floatToI8(-2.5f), -2);
    EXPECT_EQ(floatToI8(2.5f, RoundMode::NearestAway), 3);
    EXPECT_EQ(floatToI8(-2.5f, RoundMode::NearestAway), -3);
    EXPECT_EQ(floatToI8(-0.5f, RoundMode::Floor), -1);
    EXPECT_EQ(floatToI8(-0.5f, RoundMode::Ceil), 0);
    EXPECT_EQ(floatToI8(-1.9f, RoundMode::TowardZero), -1);
    EXPECT_EQ(floatToI8(127.5f), 127); // 128 saturates
    EXPECT_EQ(floatToI8(-128.5f), -128);
    EXPECT_EQ(floatToI8(1e30f), 127);
    EXPECT_EQ(floatToI8(-1e30f), -128);
    EXPECT_EQ(floatToI8(std::numeric_limits<float>::infinity()), 127);
    EXPECT_EQ(floatToI8(-std::numeric_limits<float>::infinity()), -128);
    EXPECT_EQ(floatToI8(std::numeric_limits<float>::quiet_NaN()), 0);
    EXPECT_EQ(floatToI8(std::ldexp(1.0f, -140), RoundMode::Ceil), 1); // f32 subnormal
    EXPECT_EQ(floatToI8(-std::ldexp(1.0f, -140), RoundMode::Floor), -1);

    EXPECT_EQ(floatToI32(2147483520.0f), 2147483520);
    EXPECT_EQ(floatToI32(2147483648.0f), std::numeric_limits<int32_t>::max());
    EXPECT_EQ(floatToI32(-2147483648.0f), std::numeric_limits<int32_t>::min());
    EXPECT_EQ(floatToI32(-3e9f), std::numeric_limits<int32_t>::min());
    EXPECT_EQ(floatToI32(8388607.5f), 8388608);
    EXPECT_EQ(floatToI32(8388606.5f), 8388606);
    EXPECT_EQ(floatToI32(-8388607.5f, RoundMode::TowardZero), -8388607);
    EXPECT_EQ(floatToI32(std::numeric_limits<float>::quiet_NaN(), RoundMode::Floor), 0);
}

TEST(IntegerTest, MatchesNumpyRounding) {
    REQUIRE_NUMPY();
    std::vector<uint32_t> inputs;
    for (int k = -300; k <= 300; ++k) {
        for (float frac : {0.0f, 0.25f, 0.5f, 0.75f}) {
            const float v = static_cast<float>(k) + frac;
            inputs.push_back(bitsOf(v));
            inputs.push_back(bitsOf(std::nextafter(v, -1e9f)));
            inputs.push_back(bitsOf(std::nextafter(v, 1e9f)));
        }
    }
    std::mt19937 rng(99);
    for (int i = 0; i < 200000; ++i) inputs.push_back(static_cast<uint32_t>(rng()));
    for (int i = 0; i < 200000; ++i) {
        // Random values with exponents from 2^-3 to 2^33: fractions, ties and int32 saturation.
        const uint32_t r = static_cast<uint32_t>(rng());
        const uint32_t exp = 124 + r % 37;
        inputs.push_back(((r >> 31) << 31) | (exp << 23) | (static_cast<uint32_t>(rng()) >> 9));
    }
    for (float f : {2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 4194304.5f,
                    8388607.5f, 0.49999997f, 0.50000006f, -0.49999997f, 1e-45f, -1e-45f}) {
        inputs.push_back(bitsOf(f));
    }
    for (uint32_t b : {0x7F80'0000u, 0xFF80'0000u, 0x7FC0'0000u, 0xFFC0'0001u, 0x8000'0000u}) {
        inputs.push_back(b);
    }
    const auto ref = runReference<int32_t>("f32_to_int", inputs);
    const size_t n = inputs.size();
    ASSERT_EQ(ref.size(), n * 10);
    for (size_t m = 0; m < kModes.size(); ++m) {
        Mismatches bad8(std::string("f32 -> i8 (") + std::string(roundModeName(kModes[m])) + ")");
        Mismatches bad32(std::string("f32 -> i32 (") + std::string(roundModeName(kModes[m])) + ")");
        for (size_t i = 0; i < n; ++i) {
            const float v = floatOf(inputs[i]);
            const int32_t got8 = floatToI8(v, kModes[m]);
            const int32_t got32 = floatToI32(v, kModes[m]);
            if (got8 != ref[m * n + i]) {
                bad8.add(hex(inputs[i], 8) + ": got " + std::to_string(got8) + ", numpy " +
                         std::to_string(ref[m * n + i]));
            }
            if (got32 != ref[(5 + m) * n + i]) {
                bad32.add(hex(inputs[i], 8) + ": got " + std::to_string(got32) + ", numpy " +
                          std::to_string(ref[(5 + m) * n + i]));
            }
        }
    }
}

// --- roundToDType, loadElement, storeElement ---------------------------------------------------

TEST(ElementTest, RoundToDType) {
    EXPECT_EQ(bitsOf(roundToDType(floatOf(0x7FC0'1234u), DType::F32)), 0x7FC0'1234u);
    EXPECT_EQ(roundToDType(0.1f, DType::F32), 0.1f);
    EXPECT_EQ(roundToDType(0.1f, DType::F16), halfBitsToFloat(0x2E66));
    EXPECT_EQ(roundToDType(0.1f, DType::F16, RoundMode::Ceil), halfBitsToFloat(0x2E67));
    EXPECT_EQ(roundToDType(0.1f, DType::BF16), bf16BitsToFloat(0x3DCD));
    EXPECT_EQ(roundToDType(1e5f, DType::F16), std::numeric_limits<float>::infinity());
    EXPECT_EQ(roundToDType(1e5f, DType::F16, RoundMode::TowardZero), 65504.0f);
    EXPECT_EQ(roundToDType(300.0f, DType::I8), 127.0f);
    EXPECT_EQ(roundToDType(-2.5f, DType::I8), -2.0f);
    EXPECT_EQ(roundToDType(-2.5f, DType::I8, RoundMode::NearestAway), -3.0f);
    EXPECT_EQ(roundToDType(-2.5f, DType::I32, RoundMode::Floor), -3.0f);
    EXPECT_EQ(roundToDType(3e9f, DType::I32), 2147483648.0f); // INT32_MAX as the nearest f32
    EXPECT_EQ(roundToDType(0.0f, DType::Bool), 0.0f);
    EXPECT_EQ(roundToDType(-0.0f, DType::Bool), 0.0f);
    EXPECT_EQ(roundToDType(0.25f, DType::Bool), 1.0f);
    EXPECT_EQ(roundToDType(-7.0f, DType::Bool), 1.0f);
    EXPECT_EQ(roundToDType(std::numeric_limits<float>::quiet_NaN(), DType::Bool), 1.0f);
    EXPECT_TRUE(std::isnan(roundToDType(std::numeric_limits<float>::quiet_NaN(), DType::F16)));
}

std::vector<uint8_t> storedBytes(DType d, float v, RoundMode m = RoundMode::NearestEven) {
    std::array<std::byte, 8> buf{};
    storeElement(buf.data() + 1, d, v, m); // deliberately misaligned
    std::vector<uint8_t> out;
    for (int i = 0; i < dtypeSize(d); ++i) out.push_back(std::to_integer<uint8_t>(buf[1 + i]));
    EXPECT_EQ(buf[0], std::byte{0}) << "wrote before the element";
    EXPECT_EQ(buf[1 + dtypeSize(d)], std::byte{0}) << "wrote past the element";
    return out;
}

TEST(ElementTest, StoreWritesLittleEndianBytes) {
    using B = std::vector<uint8_t>;
    EXPECT_EQ(storedBytes(DType::F32, 1.0f), (B{0x00, 0x00, 0x80, 0x3F}));
    EXPECT_EQ(storedBytes(DType::F16, 1.0f), (B{0x00, 0x3C}));
    EXPECT_EQ(storedBytes(DType::F16, -65520.0f), (B{0x00, 0xFC}));
    EXPECT_EQ(storedBytes(DType::F16, -65520.0f, RoundMode::TowardZero), (B{0xFF, 0xFB}));
    EXPECT_EQ(storedBytes(DType::BF16, 1.0f), (B{0x80, 0x3F}));
    EXPECT_EQ(storedBytes(DType::I8, -1.0f), (B{0xFF}));
    EXPECT_EQ(storedBytes(DType::I8, 1000.0f), (B{0x7F}));
    EXPECT_EQ(storedBytes(DType::I8, 1.5f, RoundMode::TowardZero), (B{0x01}));
    EXPECT_EQ(storedBytes(DType::I32, -2.0f), (B{0xFE, 0xFF, 0xFF, 0xFF}));
    EXPECT_EQ(storedBytes(DType::I32, 16909060.0f), (B{0x04, 0x03, 0x02, 0x01}));
    EXPECT_EQ(storedBytes(DType::Bool, 2.0f), (B{0x01}));
    EXPECT_EQ(storedBytes(DType::Bool, -0.0f), (B{0x00}));
}

TEST(ElementTest, LoadReadsLittleEndianBytes) {
    auto load = [](DType d, std::vector<uint8_t> bytes) {
        std::vector<std::byte> buf(bytes.size() + 1);
        for (size_t i = 0; i < bytes.size(); ++i) buf[i + 1] = std::byte{bytes[i]};
        return loadElement(buf.data() + 1, d);
    };
    EXPECT_EQ(load(DType::F32, {0x00, 0x00, 0x80, 0xBF}), -1.0f);
    EXPECT_EQ(load(DType::F16, {0xFF, 0x7B}), 65504.0f);
    EXPECT_EQ(load(DType::BF16, {0x49, 0x40}), bf16BitsToFloat(0x4049));
    EXPECT_EQ(load(DType::I8, {0x80}), -128.0f);
    EXPECT_EQ(load(DType::I32, {0x00, 0x00, 0x00, 0x80}), -2147483648.0f);
    EXPECT_EQ(load(DType::I32, {0x01, 0x00, 0x00, 0x01}), 16777216.0f); // 2^24 + 1 rounds
    EXPECT_EQ(load(DType::Bool, {0x00}), 0.0f);
    EXPECT_EQ(load(DType::Bool, {0x02}), 1.0f);
}

TEST(ElementTest, LoadOfStoreEqualsRoundToDType) {
    std::mt19937 rng(3);
    std::vector<float> values = {0.0f,
                                 -0.0f,
                                 1.0f,
                                 -1.5f,
                                 0.1f,
                                 65519.0f,
                                 1e10f,
                                 -1e-10f,
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity()};
    for (int i = 0; i < 20000; ++i) values.push_back(floatOf(static_cast<uint32_t>(rng())));
    for (DType d : {DType::F32, DType::F16, DType::BF16, DType::I8, DType::I32, DType::Bool}) {
        for (RoundMode m : kModes) {
            Mismatches bad(std::string("load(store(v)) vs roundToDType, ") +
                           std::string(dtypeName(d)) + " " + std::string(roundModeName(m)));
            for (float v : values) {
                std::array<std::byte, 4> buf{};
                storeElement(buf.data(), d, v, m);
                const float back = loadElement(buf.data(), d);
                const float want = roundToDType(v, d, m);
                const bool same =
                    std::isnan(want) ? std::isnan(back) : bitsOf(back) == bitsOf(want);
                if (!same) bad.add(hex(bitsOf(v), 8));
            }
        }
    }
}

} // namespace
} // namespace pto
