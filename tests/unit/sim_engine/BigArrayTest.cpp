// Tests of BigArray, the simulator's per-run record tables: appending past the capacity keeps
// every record, large arrays (huge-page mappings) behave like small ones, moves hand over.
#include "simulator/engine/BigArray.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace pto::sim {
namespace {

struct Record {
    int64_t a;
    uint32_t b;
};

TEST(BigArray, GrowsPastItsCapacityKeepingEveryRecord) {
    BigArray<Record> small(3);
    for (uint32_t i = 0; i < 1000; ++i) small.push_back({int64_t(i) * 7, i});
    ASSERT_EQ(small.size(), 1000u);
    EXPECT_GE(small.capacity(), 1000u);
    for (uint32_t i = 0; i < 1000; ++i) {
        ASSERT_EQ(small[i].a, int64_t(i) * 7);
        ASSERT_EQ(small[i].b, i);
    }
    BigArray<Record> empty;
    empty.push_back({1, 2});
    EXPECT_EQ(empty.span().size(), 1u);
}

TEST(BigArray, LargeArraysAreWritableAndGrowAcrossMappings) {
    // 3 MiB of records: above the huge-page threshold, then doubled by extend().
    const size_t n = (size_t(3) << 20) / sizeof(Record);
    BigArray<Record> big(n);
    Record* first = big.extend(n);
    for (size_t i = 0; i < n; ++i) first[i] = {int64_t(i), uint32_t(i ^ 0x5a5a)};
    Record* more = big.extend(n); // past the capacity: a new mapping, the old records copied
    for (size_t i = 0; i < n; ++i) more[i] = {-int64_t(i), 0};
    ASSERT_EQ(big.size(), 2 * n);
    for (size_t i = 0; i < n; i += 997) {
        ASSERT_EQ(big[i].a, int64_t(i));
        ASSERT_EQ(big[i].b, uint32_t(i ^ 0x5a5a));
        ASSERT_EQ(big[n + i].a, -int64_t(i));
    }
    EXPECT_EQ(big[n - 1].a, int64_t(n - 1));
}

TEST(BigArray, MovesHandTheRecordsOver) {
    BigArray<Record> a(10);
    a.push_back({5, 6});
    const Record* data = a.data();
    BigArray<Record> b(std::move(a));
    EXPECT_EQ(b.data(), data);
    EXPECT_EQ(b.size(), 1u);
    BigArray<Record> c;
    c = std::move(b);
    EXPECT_EQ(c[0].a, 5);
    EXPECT_EQ(c.size(), 1u);
}

} // namespace
} // namespace pto::sim
