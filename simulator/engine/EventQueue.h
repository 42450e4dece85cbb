// The discrete-event queue: events ordered by (time, sequence number), so that events at the
// same cycle run in the order they were scheduled and every run is deterministic.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
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

/// A 4-ary min-heap on (time, key) of plain structs (EventQueue's far future): no allocation once
/// it has grown. Four children per node halve the depth of a binary heap; (time, key) compares as
/// one unsigned 128-bit number, so the comparisons do not branch (times are never negative).
class EventHeap {
public:
    bool empty() const { return m_heap.empty(); }
    size_t size() const { return m_heap.size(); }
    const Event& top() const { return m_heap.front(); }

    void push(const Event& e) {
        m_heap.push_back(e);
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
};

/// A calendar queue that pops exactly in (time, sequence) order. Times are whole cycles and an
/// event is never scheduled before the last one popped, so the near future — the window
/// [base, base + kWindow) from the current time — is one FIFO list per cycle (scheduling order
/// is sequence order) with a bit per non-empty cycle; events beyond the window wait in an
/// EventHeap. When the current time advances, the heap's events that entered the window move
/// to their lists, in (time, sequence) order and before anything else can be scheduled at
/// their times (it takes the window reaching a time to schedule there directly) — so each list
/// stays in sequence order. Push and pop cost O(1) in the window (a bit scan finds the next
/// cycle) against O(log n) sift steps of a heap.
class EventQueue {
public:
    static constexpr int64_t kWindow = 1024; ///< cycles held in lists (a power of two)

    EventQueue() { clear(); }

    bool empty() const { return m_count == 0; }
    size_t size() const { return m_count; }
    uint64_t scheduled() const { return m_seq; }
    /// The next event (the queue must not be empty).
    const Event& top() const {
        return m_inWindow ? m_nodes[m_lists[nextSlot()].head].event : m_far.top();
    }

    /// `target` is truncated to kTargetBits bits; `time` must not be before the last event
    /// popped.
    void push(int64_t time, EventKind kind, uint32_t target) {
        if (time < m_base)
            throw std::logic_error("EventQueue: an event scheduled before the current time");
        const uint64_t key = (m_seq++ << (Event::kTargetBits + 2)) |
                             (static_cast<uint64_t>(kind) << Event::kTargetBits) |
                             (target & Event::kTargetMask);
        ++m_count;
        if (time - m_base < kWindow)
            append(Event{time, key});
        else
            m_far.push(Event{time, key});
    }

    Event pop() {
        if (m_inWindow == 0) advance(m_far.top().time);
        const size_t slot = nextSlot();
        const int64_t time = m_base + static_cast<int64_t>((slot - cursor()) & kMask);
        if (time != m_base) advance(time);
        List& list = m_lists[slot];
        const uint32_t n = list.head;
        const Event e = m_nodes[n].event;
        list.head = m_nodes[n].next;
        if (list.head == kNil) {
            list.tail = kNil;
            m_bits[slot / 64] &= ~(uint64_t(1) << (slot % 64));
        }
        m_nodes[n].next = m_free;
        m_free = n;
        --m_inWindow;
        --m_count;
        return e;
    }

    void clear() {
        m_lists.fill(List{});
        m_bits.fill(0);
        m_nodes.clear();
        m_free = kNil;
        m_far.clear();
        m_base = 0;
        m_count = m_inWindow = 0;
    }

private:
    static constexpr size_t kMask = kWindow - 1;
    static constexpr size_t kWords = kWindow / 64;
    static constexpr uint32_t kNil = UINT32_MAX;
    static_assert((kWindow & kMask) == 0 && kWindow >= 64);

    struct Node {
        Event event;
        uint32_t next = kNil;
    };
    struct List {
        uint32_t head = kNil;
        uint32_t tail = kNil;
    };

    size_t cursor() const { return static_cast<size_t>(m_base) & kMask; }

    void append(const Event& e) {
        uint32_t n = m_free;
        if (n != kNil) {
            m_free = m_nodes[n].next;
            m_nodes[n] = Node{e, kNil};
        } else {
            n = static_cast<uint32_t>(m_nodes.size());
            m_nodes.push_back(Node{e, kNil});
        }
        const size_t slot = static_cast<size_t>(e.time) & kMask;
        List& list = m_lists[slot];
        if (list.tail == kNil) {
            list.head = n;
            m_bits[slot / 64] |= uint64_t(1) << (slot % 64);
        } else {
            m_nodes[list.tail].next = n;
        }
        list.tail = n;
        ++m_inWindow;
    }

    // The first non-empty list from the cursor on, wrapping around (some list is non-empty).
    size_t nextSlot() const {
        const size_t start = cursor();
        const size_t word = start / 64;
        uint64_t bits = m_bits[word] & (~uint64_t(0) << (start % 64));
        for (size_t i = 0; i <= kWords; ++i) {
            const size_t w = (word + i) % kWords;
            if (i > 0) bits = m_bits[w];
            if (bits) return w * 64 + static_cast<size_t>(std::countr_zero(bits));
        }
        return start; // not reached while m_inWindow > 0
    }

    // Moves the current time to `time` and the far events that entered the window into lists.
    void advance(int64_t time) {
        m_base = time;
        while (!m_far.empty() && m_far.top().time - m_base < kWindow) append(m_far.pop());
    }

    std::array<List, kWindow> m_lists;
    std::array<uint64_t, kWords> m_bits{};
    std::vector<Node> m_nodes;
    uint32_t m_free = kNil;
    EventHeap m_far;
    int64_t m_base = 0; ///< the current time: the last event popped
    size_t m_count = 0;
    size_t m_inWindow = 0;
    uint64_t m_seq = 0;
};

} // namespace pto::sim
