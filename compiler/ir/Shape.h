// A tensor or tile shape: a small fixed-capacity list of extents (rank ≤ 6), cheap to copy.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

namespace pto {

class Shape {
public:
    static constexpr int kMaxRank = 6;

    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) {
        for (int64_t d : dims) push(d);
    }
    explicit Shape(std::span<const int64_t> dims) {
        for (int64_t d : dims) push(d);
    }

    int rank() const { return m_rank; }
    bool empty() const { return m_rank == 0; }
    int64_t operator[](int i) const { return m_dims[i]; }
    int64_t& operator[](int i) { return m_dims[i]; }
    int64_t back() const { return m_dims[m_rank - 1]; }
    const int64_t* begin() const { return m_dims.data(); }
    const int64_t* end() const { return m_dims.data() + m_rank; }
    std::span<const int64_t> dims() const { return {m_dims.data(), size_t(m_rank)}; }

    // Appends an extent; returns false (and leaves the shape alone) past kMaxRank.
    bool push(int64_t d) {
        if (m_rank >= kMaxRank) return false;
        m_dims[m_rank++] = d;
        return true;
    }

    int64_t numel() const {
        int64_t n = 1;
        for (int i = 0; i < m_rank; ++i) n *= m_dims[i];
        return n;
    }

    // Rows × columns view used by tiles: all leading dims folded into rows.
    int64_t rows() const { return m_rank == 0 ? 1 : numel() / m_dims[m_rank - 1]; }
    int64_t cols() const { return m_rank == 0 ? 1 : m_dims[m_rank - 1]; }

    friend bool operator==(const Shape& a, const Shape& b) {
        if (a.m_rank != b.m_rank) return false;
        for (int i = 0; i < a.m_rank; ++i)
            if (a.m_dims[i] != b.m_dims[i]) return false;
        return true;
    }

    // "64x1024" (the empty shape prints as "").
    std::string str(char sep = 'x') const {
        std::string s;
        for (int i = 0; i < m_rank; ++i) {
            if (i) s += sep;
            s += std::to_string(m_dims[i]);
        }
        return s;
    }

private:
    std::array<int64_t, kMaxRank> m_dims{};
    int m_rank = 0;
};

} // namespace pto
