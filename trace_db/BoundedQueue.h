// A blocking FIFO of bounded weight (N items, or N rows) between producers and one consumer.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace pto::tracedb {

/// Items are moved in and out whole (a batch of rows is one item), so the lock is taken once
/// per batch, never per row. Each item weighs 1 unless pushed with a weight (its row count,
/// say); push() blocks while the queued weight plus the item's would exceed the capacity (an
/// item heavier than the capacity waits for an empty queue). After close() it refuses new
/// items while pop() still hands out the ones queued.
template <typename T> class BoundedQueue {
public:
    explicit BoundedQueue(std::size_t capacity) : m_capacity(capacity == 0 ? 1 : capacity) {}

    /// False when the queue was closed (the item is dropped).
    bool push(T item, std::size_t weight = 1) {
        std::unique_lock lock(m_mutex);
        m_notFull.wait(
            lock, [&] { return m_closed || m_items.empty() || m_weight + weight <= m_capacity; });
        if (m_closed) return false;
        m_items.push_back({std::move(item), weight});
        m_weight += weight;
        lock.unlock();
        m_notEmpty.notify_one();
        return true;
    }

    /// The oldest item, waiting for one; nullopt once the queue is closed and empty.
    std::optional<T> pop() {
        std::unique_lock lock(m_mutex);
        m_notEmpty.wait(lock, [&] { return m_closed || !m_items.empty(); });
        if (m_items.empty()) return std::nullopt;
        T item = std::move(m_items.front().first);
        m_weight -= m_items.front().second;
        m_items.pop_front();
        lock.unlock();
        m_notFull.notify_all(); // producers wait for different weights
        return item;
    }

    void close() {
        {
            std::lock_guard lock(m_mutex);
            m_closed = true;
        }
        m_notFull.notify_all();
        m_notEmpty.notify_all();
    }

    /// Drops everything still queued (used when the consumer has failed).
    void clear() {
        {
            std::lock_guard lock(m_mutex);
            m_items.clear();
            m_weight = 0;
        }
        m_notFull.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_notFull;
    std::condition_variable m_notEmpty;
    std::deque<std::pair<T, std::size_t>> m_items; // (item, weight)
    std::size_t m_weight = 0;
    std::size_t m_capacity;
    bool m_closed = false;
};

} // namespace pto::tracedb
