// A shared kernel's launches read from its node attrs, and operand text rebased by the rule of
// compiler/ir/PtoShare.h (checked against it: rebasedAddress over the same ranges).
#include "profiler/KernelLaunches.h"
#include "compiler/ir/PtoShare.h"

#include <gtest/gtest.h>

namespace pto::prof {
namespace {

TEST(ProfilerKernelLaunches, ReadsTheTasksOfASharedKernelAndNothingElse) {
    const auto launches = sharedLaunches(
        R"({"instrs":13,"tasks":[{"id":0,"rebases":[]},{"id":3,"rebases":[[65536,131072,-4096],)"
        R"([0,32768,32768]]}]})");
    ASSERT_EQ(launches.size(), 2u);
    EXPECT_EQ(launches[0].task, 0);
    EXPECT_TRUE(launches[0].rebases.empty());
    EXPECT_EQ(launches[1].task, 3);
    // Sorted by begin, as Task::rebases are.
    EXPECT_EQ(launches[1].rebases,
              (std::vector<LaunchRebase>{{0, 32768, 32768}, {65536, 131072, -4096}}));
    EXPECT_TRUE(sharedLaunches(R"({"instrs":13})").empty());
    EXPECT_TRUE(sharedLaunches(R"({"tasks": [}")").empty()); // not JSON: as if not shared
    EXPECT_TRUE(sharedLaunches("").empty());
}

TEST(ProfilerKernelLaunches, RebasesOperandTextAsTheSimulatorRebasesOperands) {
    const std::vector<LaunchRebase> rebases{{0x0, 0x8000, 0x8000}, {0x20000, 0x40000, -0x1000}};
    const std::vector<GmRebase> same{{0x0, 0x8000, 0x8000}, {0x20000, 0x40000, -0x1000}};
    for (std::int64_t addr : {0x0, 0x7ffe, 0x8000, 0x1ffff, 0x20000, 0x3ff00, 0x40000})
        EXPECT_EQ(rebasedAddress(rebases, addr), pto::rebasedAddress(same, addr)) << addr;
    EXPECT_EQ(rebasedOperands("UB[0x0]:f16[16x1024/1024], GM[0x4000]:f16[16x1024/1024]", rebases),
              "UB[0x0]:f16[16x1024/1024], GM[0xc000]:f16[16x1024/1024]");
    // A counted loop's step stays (round 0 moves); two GM operands each by their own rebase.
    EXPECT_EQ(rebasedOperands("GM[0x20000 + 0x100*i]:f32[8x8/8], GM[0x100]:f32[8x8/8], "
                              "GM[0x9000]:f32[8x8/8]",
                              rebases),
              "GM[0x1f000 + 0x100*i]:f32[8x8/8], GM[0x8100]:f32[8x8/8], GM[0x9000]:f32[8x8/8]");
    EXPECT_EQ(rebasedOperands("GM[0x100]:f32[8x8/8]", {}), "GM[0x100]:f32[8x8/8]");
    EXPECT_EQ(rebasedOperands("GM[0xzz] GM[0x", rebases), "GM[0xzz] GM[0x"); // not an address
    EXPECT_EQ(rebasedOperands("GM[0x123456789abcdef0123]", rebases),         // too big: kept whole
              "GM[0x123456789abcdef0123]");
    EXPECT_EQ(formatRebases(rebases), "[0x0, 0x8000) +0x8000, [0x20000, 0x40000) -0x1000");
}

} // namespace
} // namespace pto::prof
