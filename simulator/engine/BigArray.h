// A fixed-capacity array of trivially copyable records for the simulator's per-run tables
// (TimedProgram's instruction records and GM transfers), backed by huge pages when large.
#pragma once

// Why: a run of a million instructions builds tens of MB of records that are written once and
// freed at the end. In 4 KiB pages every page costs a fault (and its unmap) — measured at about
// a fifth of a timing-only run. Large arrays are therefore mapped directly, 2 MiB aligned, with
// madvise(MADV_HUGEPAGE): where the kernel grants transparent huge pages ("madvise" or
// "always" mode) one fault covers 2 MiB. Elsewhere it behaves like ordinary memory. Pages
// beyond what push_back() reached are never touched; when it does reach the capacity, the
// array doubles (one copy, like std::vector).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

#include <sys/mman.h>

namespace pto::sim {

template <class T> class BigArray {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "BigArray holds plain records");

public:
    /// Arrays of at least this many bytes are mapped with huge pages.
    static constexpr size_t kHugeBytes = size_t(2) << 20;

    BigArray() = default;
    /// Room for `capacity` records (none constructed yet).
    explicit BigArray(size_t capacity) : m_capacity(capacity) {
        if (capacity == 0) return;
        m_bytes = capacity * sizeof(T);
        if (m_bytes >= kHugeBytes) {
            m_bytes = (m_bytes + kHugeBytes - 1) / kHugeBytes * kHugeBytes;
            m_data = static_cast<T*>(mapHuge(m_bytes));
        }
        if (!m_data) { // small, or mmap refused: the ordinary heap
            m_bytes = 0;
            m_data =
                static_cast<T*>(::operator new(capacity * sizeof(T), std::align_val_t(alignof(T))));
        }
    }
    BigArray(BigArray&& other) noexcept { swap(other); }
    BigArray& operator=(BigArray&& other) noexcept {
        BigArray(std::move(other)).swap(*this);
        return *this;
    }
    BigArray(const BigArray&) = delete;
    BigArray& operator=(const BigArray&) = delete;
    ~BigArray() { release(); }

    /// Appends `value`, doubling the capacity when full.
    T& push_back(const T& value) {
        if (m_size == m_capacity) grow(m_size + 1);
        return *new (m_data + m_size++) T(value);
    }
    /// Makes `n` more records part of the array (their bytes unset), to be written by index;
    /// returns the first.
    T* extend(size_t n) {
        if (m_size + n > m_capacity) grow(m_size + n);
        T* first = m_data + m_size;
        m_size += n;
        return first;
    }

    T& operator[](size_t i) { return m_data[i]; }
    const T& operator[](size_t i) const { return m_data[i]; }
    T* data() { return m_data; }
    const T* data() const { return m_data; }
    size_t size() const { return m_size; }
    size_t capacity() const { return m_capacity; }
    std::span<const T> span() const { return {m_data, m_size}; }

private:
    static void* mapHuge(size_t bytes) {
        // Map one huge page more than needed, then trim to a 2 MiB aligned start.
        void* raw = ::mmap(nullptr, bytes + kHugeBytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) return nullptr;
        const auto start = reinterpret_cast<uintptr_t>(raw);
        const uintptr_t aligned = (start + kHugeBytes - 1) & ~(uintptr_t(kHugeBytes) - 1);
        if (aligned > start) ::munmap(raw, aligned - start);
        const uintptr_t tail = start + bytes + kHugeBytes - (aligned + bytes);
        if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
        ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
        return reinterpret_cast<void*>(aligned);
    }

    void grow(size_t atLeast) {
        BigArray bigger(std::max(atLeast, 2 * m_capacity));
        if (m_size > 0) std::memcpy(static_cast<void*>(bigger.m_data), m_data, m_size * sizeof(T));
        bigger.m_size = m_size;
        swap(bigger);
    }

    void release() {
        if (!m_data) return;
        if (m_bytes > 0)
            ::munmap(m_data, m_bytes);
        else
            ::operator delete(m_data, std::align_val_t(alignof(T)));
        m_data = nullptr;
    }

    void swap(BigArray& other) noexcept {
        std::swap(m_data, other.m_data);
        std::swap(m_size, other.m_size);
        std::swap(m_capacity, other.m_capacity);
        std::swap(m_bytes, other.m_bytes);
    }

    T* m_data = nullptr;
    size_t m_size = 0;
    size_t m_capacity = 0;
    size_t m_bytes = 0; ///< mapped bytes; 0 when from the heap
};

} // namespace pto::sim
