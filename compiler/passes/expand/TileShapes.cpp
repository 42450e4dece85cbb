// Tile shapes of expand-tiles: directives, overrides, defaults, capacity checks.
#include "compiler/passes/expand/TileShapes.h"

#include "compiler/passes/expand/Region.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::expand {
void TileShapes::enterDirective(const Op& op) {
    auto sizes = op.attrs.getInts("sizes");
    if (!sizes) fail(op, "directive has no `sizes` attribute");
    for (int64_t s : *sizes)
        if (s <= 0) fail(op, fmt::format("tile sizes must be positive, got {}", listRef(*sizes)));
    if (op.kind == OpKind::VecTile) m_vec = *sizes;
    if (op.kind == OpKind::CubeTile) {
        if (sizes->size() != 6)
            fail(op, fmt::format("cube_tile needs [mL0, mL1], [kL0, kL1], [nL0, nL1] (6 sizes), "
                                 "got {}",
                                 listRef(*sizes)));
        m_cube = *sizes;
    }
}

Shape TileShapes::defaultVecTile(const Shape& space) const {
    return defaultOpVecTile(space, m_target);
}

Shape TileShapes::explicitVecTile(const Op& op, const Ints& sizes, const Shape& space) const {
    const int n = space.rank();
    Shape tile = space;
    // Sizes align with the trailing dims; missing leading sizes are 1, extra ones ignored.
    for (int d = 0; d < n; ++d) {
        const int i = int(sizes.size()) - n + d;
        const int64_t s = i >= 0 ? sizes[size_t(i)] : 1;
        if (s <= 0)
            fail(op, fmt::format("vec_tile sizes must be positive, got {}", listRef(sizes)));
        tile[d] = std::min(s, space[d]);
    }
    return tile;
}

Shape TileShapes::vecTile(const Op& op, const Shape& space, const std::vector<DType>& dtypes,
                          const std::function<bool(const Shape&)>& needsLeadingOnes) const {
    std::optional<Ints> sizes = op.attrs.getInts("vec_tile");
    if (!sizes) sizes = m_vec;
    Shape tile = space;
    if (sizes)
        tile = explicitVecTile(op, *sizes, space);
    else if (op.id < m_defaults.size() && m_defaults[op.id] &&
             m_defaults[op.id]->rank() == space.rank())
        tile = *m_defaults[op.id];
    else
        tile = defaultVecTile(space);
    if (needsLeadingOnes && needsLeadingOnes(tile))
        for (int d = 0; d + 2 < tile.rank(); ++d) tile[d] = 1;
    checkVecTile(op, tile, space, dtypes);
    return tile;
}

void TileShapes::checkVecTile(const Op& op, const Shape& tile, const Shape& space,
                              const std::vector<DType>& dtypes) const {
    const int n = space.rank();
    if (!spansContiguousRows(space, tile))
        fail(op, fmt::format("vec tile {} of a {} tensor is not consecutive rows: a size above 1 "
                             "in a leading dim needs every later leading dim whole; use sizes "
                             "of 1 for the leading dims",
                             tile.str(), space.str()));
    const int64_t rows = rowsOf(tile), cols = colsOf(tile);
    int64_t total = 0;
    for (DType dt : dtypes) {
        const int64_t elem = dtypeSize(dt);
        if (n > 0 && tile[n - 1] < space[n - 1] && (cols * elem) % kRowAlignBytes != 0)
            fail(op, fmt::format("vec tile last dim {} makes tile rows of {} B ({}); rows must "
                                 "be a multiple of {} B ({} elements of {}) unless the tile "
                                 "spans the whole last dim ({})",
                                 cols, cols * elem, dtypeName(dt), kRowAlignBytes,
                                 kRowAlignBytes / elem, dtypeName(dt), space[n - 1]));
        const int64_t bytes = rows * cols * elem;
        if (bytes > m_target.ubBytes / 2)
            fail(op, fmt::format("vec tile {}x{} of {} needs {} but a UB tile may use at most {} "
                                 "(half of the {} UB, the other half double-buffers); reduce "
                                 "vec_tile",
                                 rows, cols, dtypeName(dt), kib(bytes), kib(m_target.ubBytes / 2),
                                 kib(m_target.ubBytes)));
        total += bytes;
    }
    if (total > m_target.ubBytes)
        fail(op, fmt::format("vec tile {}x{} needs {} tiles live at once ({}) but UB holds {}; "
                             "reduce vec_tile",
                             rows, cols, dtypes.size(), kib(total), kib(m_target.ubBytes)));
}

CubeTile TileShapes::cubeTile(const Op& op, int64_t m, int64_t k, int64_t n, DType a,
                              DType b) const {
    std::optional<Ints> sizes = op.attrs.getInts("cube_tile");
    if (sizes && sizes->size() != 6)
        fail(op, fmt::format("cube_tile needs 6 sizes [mL0, mL1, kL0, kL1, nL0, nL1], got {}",
                             listRef(*sizes)));
    if (!sizes) sizes = m_cube;
    const Ints& s = sizes ? *sizes : defaultCubeTile(m, n, a, b, m_target);
    const char* axes[] = {"m", "k", "n"};
    for (int i = 0; i < 3; ++i) {
        const int64_t l0 = s[size_t(2 * i)], l1 = s[size_t(2 * i + 1)];
        if (l0 <= 0 || l1 <= 0 || l0 > l1 || l1 % l0 != 0)
            fail(op, fmt::format("cube_tile {} = [{}, {}] is invalid: need 0 < L0 <= L1 with L1 "
                                 "a multiple of L0",
                                 axes[i], l0, l1));
    }
    auto clip = [](int64_t l0, int64_t l1, int64_t dim, int64_t& o0, int64_t& o1) {
        o1 = std::min(l1, dim);
        o0 = std::min(l0, o1);
    };
    CubeTile c{};
    clip(s[0], s[1], m, c.m0, c.m1);
    clip(s[2], s[3], k, c.k0, c.k1);
    clip(s[4], s[5], n, c.n0, c.n1);
    checkCubeCapacity(op, c, a, b);
    return c;
}

void TileShapes::checkCubeCapacity(const Op& op, const CubeTile& c, DType a, DType b) const {
    const int64_t sa = dtypeSize(a), sb = dtypeSize(b);
    const int64_t l0a = alignUp(c.m0, kCubeFractal) * alignUp(c.k0, kCubeFractal) * sa;
    if (l0a > m_target.l0aBytes)
        fail(op, fmt::format("cube tile m={} k={} needs {} of L0A ({}) but L0A holds {}; reduce "
                             "cube_tile m or k",
                             c.m0, c.k0, kib(l0a), dtypeName(a), kib(m_target.l0aBytes)));
    const int64_t l0b = alignUp(c.k0, kCubeFractal) * alignUp(c.n0, kCubeFractal) * sb;
    if (l0b > m_target.l0bBytes)
        fail(op, fmt::format("cube tile k={} n={} needs {} of L0B ({}) but L0B holds {}; reduce "
                             "cube_tile k or n",
                             c.k0, c.n0, kib(l0b), dtypeName(b), kib(m_target.l0bBytes)));
    const int64_t acc = alignUp(c.m0, kCubeFractal) * alignUp(c.n0, kCubeFractal) * 4;
    const int64_t accs = ((c.m1 + c.m0 - 1) / c.m0) * ((c.n1 + c.n0 - 1) / c.n0);
    if (acc > m_target.l0cBytes)
        fail(op, fmt::format("cube tile m={} n={} needs {} of L0C (f32 accumulator) but L0C "
                             "holds {}; reduce cube_tile m or n",
                             c.m0, c.n0, kib(acc), kib(m_target.l0cBytes)));
    if (acc * accs > m_target.l0cBytes)
        fail(op,
             fmt::format("cube tile L1 block m={} n={} keeps {} accumulators of {}x{} live "
                         "({} of L0C) but L0C holds {}; make mL1 = mL0 and nL1 = nL0 or "
                         "reduce them",
                         c.m1, c.n1, accs, c.m0, c.n0, kib(acc * accs), kib(m_target.l0cBytes)));
    const int64_t l1 = c.m1 * c.k1 * sa + c.k1 * c.n1 * sb;
    if (l1 > m_target.l1Bytes)
        fail(op, fmt::format("cube tile L1 blocks A {}x{} and B {}x{} need {} of L1 but L1 holds "
                             "{}; reduce cube_tile mL1, kL1 or nL1",
                             c.m1, c.k1, c.k1, c.n1, kib(l1), kib(m_target.l1Bytes)));
}

} // namespace pto::expand
