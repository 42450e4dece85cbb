// The discrete-event queue: events ordered by (time, sequence number), so that events at the
// same cycle run in the order they were scheduled and every run is deterministic.
#pragma once

#include <cstdint>
#include <vector>

namespace pto::sim {

enum class EventKind : uint8_t {
    PipeDone,      ///< the instruction on (core, pipe) finishes
    DmaStream,     ///< a GM transfer on (core, pipe) has paid its latency and starts streaming
    BandwidthDone, ///< the bandwidth server's earliest transfer finishes (target = generation)
    TaskStart,     ///< a dispatched task starts on its core
};

/// 16 bytes: the time and one key holding the sequence number (high 40 bits, so it orders
/// events of equal time), the kind (2 bits) and the target (22 bits: a (core, pipe) slot, a
/// core slot, or the low bits of the bandwidth server's generation).
struct Event {
    static constexpr int kTargetBits = 22;
    static constexpr uint32_t kTargetMask = (1u << kTargetBits) - 1;

    int64_t time = 0;
    uint64_t key = 0;

    EventKind kind() const { return static_cast<EventKind>((key >> kTargetBits) & 3u); }
    uint32_t target() const { return static_cast<uint32_t>(key) & kTargetMask; }
};

/// A 4-ary min-heap on (time, key) of plain structs: no allocation once it has grown. Four
/// children per node halve the depth of a binary heap; (time, key) compares as one unsigned
/// 128-bit number, so the comparisons do not branch (times are never negative).
class EventQueue {
public:
    bool empty() const { return m_heap.empty(); }
    size_t size() const { return m_heap.size(); }
    uint64_t scheduled() const { return m_seq; }
    const Event& top() const { return m_heap.front(); }

    /// `target` is truncated to kTargetBits bits.
    void push(int64_t time, EventKind kind, uint32_t target) {
        const uint64_t key = (m_seq++ << (Event::kTargetBits + 2)) |
                             (static_cast<uint64_t>(kind) << Event::kTargetBits) |
                             (target & Event::kTargetMask);
        m_heap.push_back(Event{time, key});
        siftUp(m_heap.size() - 1);
    }

    Event pop() {
        const Event top = m_heap.front();
        const Event last = m_heap.back();
        m_heap.pop_back();
        if (!m_heap.empty()) siftDown(last);
        return top;
    }

    void clear() { m_heap.clear(); }

private:
    static constexpr size_t kArity = 4;
    __extension__ typedef unsigned __int128 OrderKey; // GCC/Clang extension

    static OrderKey order(const Event& e) {
        return (static_cast<OrderKey>(static_cast<uint64_t>(e.time)) << 64) | e.key;
    }

    void siftUp(size_t i) {
        const Event e = m_heap[i];
        const OrderKey k = order(e);
        while (i > 0) {
            const size_t parent = (i - 1) / kArity;
            if (k >= order(m_heap[parent])) break;
            m_heap[i] = m_heap[parent];
            i = parent;
        }
        m_heap[i] = e;
    }

    // Places `e` (the former last element) starting from the root.
    void siftDown(const Event& e) {
        const size_t n = m_heap.size();
        const OrderKey k = order(e);
        size_t i = 0;
        for (;;) {
            const size_t first = kArity * i + 1;
            if (first >= n) break;
            size_t best = first;
            OrderKey bestKey = order(m_heap[first]);
            const size_t last = first + kArity < n ? first + kArity : n;
            for (size_t c = first + 1; c < last; ++c) {
                const OrderKey ck = order(m_heap[c]);
                const bool less = ck < bestKey;
                best = less ? c : best;
                bestKey = less ? ck : bestKey;
            }
            if (bestKey >= k) break;
            m_heap[i] = m_heap[best];
            i = best;
        }
        m_heap[i] = e;
    }

    std::vector<Event> m_heap;
    uint64_t m_seq = 0;
};

} // namespace pto::sim
