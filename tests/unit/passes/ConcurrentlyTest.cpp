// forEachConcurrently, which runs the probes of loop windows and fused clusters at once: every
// index once, the lowest failing index's exception whatever the threads' order.
#include "compiler/Concurrently.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace pto {
namespace {

TEST(Concurrently, CallsEveryIndexOnceOnAsManyThreadsAsAsked) {
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
        std::vector<std::atomic<int>> calls(7);
        forEachConcurrently(7, threads, [&](int64_t i) { ++calls[size_t(i)]; });
        for (const auto& c : calls) EXPECT_EQ(c.load(), 1) << threads << " threads";
    }
    forEachConcurrently(0, 3, [](int64_t) { FAIL() << "no index to call"; });
}

TEST(Concurrently, RethrowsTheLowestFailingIndexAfterAllReturned) {
    std::atomic<int> finished{0};
    try {
        forEachConcurrently(3, 3, [&](int64_t i) {
            // The later index fails first; the earlier one's error is the one reported.
            if (i == 1) {
                std::this_thread::sleep_for(std::chrono::milliseconds(30));
                ++finished;
                throw std::runtime_error("probe 1");
            }
            if (i == 2) {
                ++finished;
                throw std::runtime_error("probe 2");
            }
            ++finished;
        });
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "probe 1");
    }
    EXPECT_EQ(finished.load(), 3);
}

TEST(Concurrently, ProbeThreadsAreAtLeastOneAndAtMostWanted) {
    EXPECT_GE(probeThreads(3), 1u);
    EXPECT_LE(probeThreads(3), 3u);
    EXPECT_EQ(probeThreads(1), 1u);
    EXPECT_EQ(probeThreads(0), 1u);
}

} // namespace
} // namespace pto
