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

/// A binary min-heap on (time, key) of plain structs: no allocation once it has grown.
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
        m_heap.front() = m_heap.back();
        m_heap.pop_back();
        if (!m_heap.empty()) siftDown(0);
        return top;
    }

    void clear() { m_heap.clear(); }

private:
    static bool before(const Event& a, const Event& b) {
        return a.time < b.time || (a.time == b.time && a.key < b.key);
    }

    void siftUp(size_t i) {
        const Event e = m_heap[i];
        while (i > 0) {
            const size_t parent = (i - 1) / 2;
            if (!before(e, m_heap[parent])) break;
            m_heap[i] = m_heap[parent];
            i = parent;
        }
        m_heap[i] = e;
    }

    void siftDown(size_t i) {
        const size_t n = m_heap.size();
        const Event e = m_heap[i];
        for (;;) {
            size_t child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && before(m_heap[child + 1], m_heap[child])) ++child;
            if (!before(m_heap[child], e)) break;
            m_heap[i] = m_heap[child];
            i = child;
        }
        m_heap[i] = e;
    }

    std::vector<Event> m_heap;
    uint64_t m_seq = 0;
};

} // namespace pto::sim
