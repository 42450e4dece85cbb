// Disjoint sets over 0..n−1 (partition-blocks' chains, fuse-cube-vector's groups).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace pto {

class UnionFind {
public:
    explicit UnionFind(std::size_t n) : m_parent(n) {
        std::iota(m_parent.begin(), m_parent.end(), 0u);
    }
    std::uint32_t find(std::uint32_t x) {
        while (m_parent[x] != x) x = m_parent[x] = m_parent[m_parent[x]];
        return x;
    }
    /// Keeps the smaller index as the root, so a root is its component's first element.
    void unite(std::uint32_t a, std::uint32_t b) {
        a = find(a);
        b = find(b);
        if (a != b) m_parent[std::max(a, b)] = std::min(a, b);
    }

private:
    std::vector<std::uint32_t> m_parent;
};

} // namespace pto
