// Facts about transpose permutations that several passes share (decompose-composites splits,
// fold-constants must not fuse back what expand-tiles cannot lower in one step).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pto {

/// True when `perm` leaves every dim in place.
inline bool isIdentityPerm(const std::vector<int64_t>& perm) {
    for (size_t i = 0; i < perm.size(); ++i)
        if (perm[i] != int64_t(i)) return false;
    return true;
}

/// A permutation expand-tiles lowers in one step: it keeps the last dim (a GM copy), or it
/// swaps the last two and nothing else (a tile transpose). decompose-composites splits every
/// other one into such steps, and fold-constants must not fuse a split back.
inline bool lowersInOneStep(const std::vector<int64_t>& perm) {
    const size_t n = perm.size();
    if (n == 0 || perm[n - 1] == int64_t(n - 1)) return true;
    if (n < 2 || perm[n - 1] != int64_t(n - 2) || perm[n - 2] != int64_t(n - 1)) return false;
    for (size_t i = 0; i + 2 < n; ++i)
        if (perm[i] != int64_t(i)) return false;
    return true;
}

} // namespace pto
