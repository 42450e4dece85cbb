// Tests of the engine's event queue: events come out in (time, scheduling order) — checked
// against a plain sort — across the calendar window, far-future events, and jumps in time.
#include "simulator/engine/EventQueue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

namespace pto::sim {
namespace {

struct Expected {
    int64_t time;
    uint64_t order; ///< scheduling order
    uint32_t target;
};

// Pops `q` until empty, interleaving pushes the way an engine does (never before the current
// time), and compares the pops with a stable sort of everything pushed.
void checkAgainstSort(uint32_t seed, int64_t maxDelay, int events) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> delay(0, maxDelay);
    std::uniform_int_distribution<int> burst(0, 3);
    EventQueue q;
    std::vector<Expected> pushed;
    std::vector<Expected> popped;
    uint32_t next = 0;
    int64_t now = 0;
    auto push = [&](int64_t time) {
        q.push(time, EventKind::PipeDone, next);
        pushed.push_back({time, next, next});
        ++next;
    };
    for (int i = 0; i < 8; ++i) push(delay(rng));
    while (!q.empty()) {
        const Event top = q.top();
        const Event e = q.pop();
        ASSERT_EQ(top.time, e.time);
        ASSERT_EQ(top.key, e.key);
        ASSERT_GE(e.time, now);
        now = e.time;
        popped.push_back({e.time, 0, e.target()});
        if (static_cast<int>(pushed.size()) < events)
            for (int b = burst(rng); b > 0; --b) push(now + delay(rng));
    }
    std::stable_sort(pushed.begin(), pushed.end(),
                     [](const Expected& a, const Expected& b) { return a.time < b.time; });
    ASSERT_EQ(popped.size(), pushed.size());
    for (size_t i = 0; i < pushed.size(); ++i) {
        ASSERT_EQ(popped[i].time, pushed[i].time) << "event " << i;
        ASSERT_EQ(popped[i].target, pushed[i].target) << "event " << i;
    }
}

TEST(EventQueue, NearEventsPopInTimeThenSchedulingOrder) {
    checkAgainstSort(1, 50, 20000);
}

TEST(EventQueue, EventsBeyondTheWindowKeepTheirOrder) {
    // Delays up to 5 windows: many events wait in the far heap and enter the lists later,
    // sharing cycles with events scheduled directly.
    checkAgainstSort(2, 5 * EventQueue::kWindow, 20000);
    checkAgainstSort(3, EventQueue::kWindow + 3, 20000);
}

TEST(EventQueue, SameCycleEventsAcrossWindowEntryStayFifo) {
    EventQueue q;
    const int64_t far = 3 * EventQueue::kWindow + 5;
    q.push(far, EventKind::PipeDone, 1);  // far: waits in the heap
    q.push(10, EventKind::PipeDone, 2);   // near
    EXPECT_EQ(q.pop().target(), 2u);      // now 10: `far` still beyond the window
    q.push(far, EventKind::TaskStart, 3); // far too, scheduled after 1
    q.push(far - 1, EventKind::DmaStream, 4);
    q.push(2 * EventQueue::kWindow + 100, EventKind::PipeDone, 5);
    EXPECT_EQ(q.pop().target(), 5u);     // a jump: 1, 3 and 4 enter the window
    q.push(far, EventKind::PipeDone, 6); // scheduled directly, after 1 and 3
    std::vector<uint32_t> order;
    while (!q.empty()) order.push_back(q.pop().target());
    EXPECT_EQ(order, (std::vector<uint32_t>{4, 1, 3, 6}));
}

TEST(EventQueue, KeepsKindAndTargetAndRejectsThePast) {
    EventQueue q;
    q.push(5, EventKind::BandwidthDone, Event::kTargetMask);
    q.push(5, EventKind::TaskStart, 17);
    Event e = q.pop();
    EXPECT_EQ(e.kind(), EventKind::BandwidthDone);
    EXPECT_EQ(e.target(), Event::kTargetMask);
    e = q.pop();
    EXPECT_EQ(e.kind(), EventKind::TaskStart);
    EXPECT_EQ(e.target(), 17u);
    EXPECT_EQ(q.scheduled(), 2u);
    EXPECT_THROW(q.push(4, EventKind::PipeDone, 0), std::logic_error);
    EXPECT_NO_THROW(q.push(5, EventKind::PipeDone, 0));
    EXPECT_EQ(q.size(), 1u);
}

} // namespace
} // namespace pto::sim
