// TensorData: layout, element access, bulk conversion and seeded random filling.
#include "compiler/ir/TensorData.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace pto {
namespace {

TEST(TensorData, ZeroFilledLayout) {
    const TensorData t(DType::F16, {3, 5});
    EXPECT_EQ(t.numel(), 15);
    EXPECT_EQ(t.elementSize(), 2);
    EXPECT_EQ(t.byteSize(), 30);
    EXPECT_EQ(t.bytes.size(), 30u);
    for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(t.get(i), 0.0f);
    EXPECT_EQ(typeString(t), "3x5xf16");
    EXPECT_EQ(typeString(DType::Bool, Shape{}), "i1");
}

TEST(TensorData, ElementsAreLittleEndianDTypeBits) {
    TensorData h(DType::F16, {2});
    h.set(1, 1.0f); // f16 1.0 = 0x3C00
    EXPECT_EQ(std::to_integer<int>(h.bytes[2]), 0x00);
    EXPECT_EQ(std::to_integer<int>(h.bytes[3]), 0x3C);
    TensorData b(DType::BF16, {1});
    b.set(0, 1.00390625f); // tie between 1 and 1 + 2^-7: RNE keeps 1.0 = 0x3F80
    EXPECT_EQ(std::to_integer<int>(b.bytes[0]), 0x80);
    EXPECT_EQ(std::to_integer<int>(b.bytes[1]), 0x3F);
    TensorData i8(DType::I8, {2});
    i8.set(0, 300.0f);
    i8.set(1, -2.5f);
    EXPECT_EQ(i8.get(0), 127.0f);
    EXPECT_EQ(i8.get(1), -2.0f);
    i8.set(1, -2.5f, RoundMode::NearestAway);
    EXPECT_EQ(i8.get(1), -3.0f);
}

TEST(TensorData, BulkConversionMatchesElementAccess) {
    for (DType d : {DType::F32, DType::F16, DType::BF16, DType::I8, DType::I32, DType::Bool}) {
        const TensorData t = randomTensor(d, {7, 9}, 42);
        const std::vector<float> all = t.toFloats();
        ASSERT_EQ(all.size(), 63u);
        for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(all[size_t(i)], t.get(i)) << dtypeName(d);
        const TensorData back = TensorData::fromFloats(d, t.shape, all);
        EXPECT_EQ(back, t) << dtypeName(d);
    }
    EXPECT_THROW(TensorData::fromFloats(DType::F32, {2, 2}, std::vector<float>(3)),
                 std::invalid_argument);
}

TEST(TensorData, StoreFloatsRoundsOnceByMode) {
    const std::vector<float> xs = {1.0f + 0x1.0p-11f, -(1.0f + 0x1.0p-11f), 70000.0f};
    TensorData rne = TensorData::fromFloats(DType::F16, {3}, xs);
    EXPECT_EQ(rne.get(0), 1.0f);
    EXPECT_EQ(rne.get(1), -1.0f);
    EXPECT_TRUE(std::isinf(rne.get(2)));
    TensorData up(DType::F16, {3});
    up.storeFloats(xs.data(), RoundMode::Ceil);
    EXPECT_EQ(up.get(0), 1.0f + 0x1.0p-10f);
    EXPECT_EQ(up.get(1), -1.0f);
    EXPECT_TRUE(std::isinf(up.get(2)));
    TensorData trunc(DType::F16, {3});
    trunc.storeFloats(xs.data(), RoundMode::TowardZero);
    EXPECT_EQ(trunc.get(2), 65504.0f);
}

TEST(TensorData, RandomIsSeededAndInRange) {
    const TensorData a = randomTensor(DType::F32, {1000}, 7);
    EXPECT_EQ(a, randomTensor(DType::F32, {1000}, 7));
    EXPECT_NE(a, randomTensor(DType::F32, {1000}, 8));
    float lo = 1, hi = -1;
    for (float x : a.toFloats()) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    EXPECT_GE(lo, -1.0f);
    EXPECT_LT(lo, -0.99f);
    EXPECT_LT(hi, 1.0f);
    EXPECT_GT(hi, 0.99f);
    // Fixed output: the generator is SplitMix64, not a std:: distribution.
    const TensorData again = randomTensor(DType::F32, {1}, 7);
    EXPECT_EQ(again.get(0), a.get(0));

    const TensorData i8 = randomTensor(DType::I8, {4000}, 9);
    bool sawMin = false, sawMax = false;
    for (float x : i8.toFloats()) {
        EXPECT_EQ(x, std::round(x));
        sawMin |= x == -128.0f;
        sawMax |= x == 127.0f;
    }
    EXPECT_TRUE(sawMin && sawMax);
    const TensorData ranged = randomTensor(DType::I32, {500}, 10, {-3, 3});
    for (float x : ranged.toFloats()) EXPECT_TRUE(x >= -3 && x <= 3 && x == std::round(x));
    const TensorData bits = randomTensor(DType::Bool, {100}, 11);
    int ones = 0;
    for (float x : bits.toFloats()) ones += x == 1.0f;
    EXPECT_GT(ones, 20);
    EXPECT_LT(ones, 80);
    const TensorData h = randomTensor(DType::F16, {100}, 12, {2, 4});
    for (float x : h.toFloats()) EXPECT_TRUE(x >= 2 && x <= 4);
}

} // namespace
} // namespace pto
