// Default vec tiles per fused chain (DefaultVecTiles.h; the rule is in docs/PASSES.md).
//
// A chain is a connected set of vector ops with default tiles whose iteration spaces share
// their rows (same rank >= 2, same leading dims): what one of them produces, the next reads
// at the same region, on chip. The chain picks one mode for all of its ops:
// - whole: every op's tile is its whole space (the largest space fits UB/4 at 4 B/element);
// - columns: a chain with a reduction over the second-last axis (and none over the last)
//   takes whole columns in strips of W columns (W a multiple of 32 B), so the reduction and
//   every reader of its operand stay inside one strip;
// - rows: R consecutive rows (R from the widest row: 16 KiB at 4 B/element), rows longer
//   than 4096 elements split into 4096-element pieces.
// The first mode whose estimated working set (the tiles live at once, in program order)
// fits 3/4 of the UB wins; rows then halve (then pieces halve) until the chain fits.
// Ops of rank >= 3 that need leading tile sizes of 1 (a transpose of the last two dims, a
// reduction over another axis than the last or without keepdim, an operand that broadcasts
// in a leading dim) get them, and so does the rest of their chain.
#include "compiler/passes/DefaultVecTiles.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace pto {
namespace {

constexpr int64_t kTileElems = 4096; // a default tile: 16 KiB of 4-byte elements
constexpr int64_t kElemBytes = 4;    // defaults assume f32, so a chain with casts keeps a grid

enum class Grid : uint8_t { None, Elementwise, RowReduce, ColReduce, OuterReduce, Transpose };

struct Member {
    OpId op = kNoId;
    Grid grid = Grid::None;
    Shape space;
    bool leadingOnes = false;
    std::optional<Shape> fixed; // the explicit tile of an op with a directive or override
};

// An explicit vec_tile over `space`: sizes align with the trailing dims (missing leading
// sizes are 1) and are clipped to the space, as expand-tiles reads them.
Shape explicitTile(const std::vector<int64_t>& sizes, const Shape& space) {
    const int n = space.rank();
    Shape tile = space;
    for (int d = 0; d < n; ++d) {
        const int i = int(sizes.size()) - n + d;
        tile[d] = std::max<int64_t>(1, std::min(i >= 0 ? sizes[size_t(i)] : 1, space[d]));
    }
    return tile;
}

bool isSwapOfLastTwo(const std::vector<int64_t>& perm) {
    const size_t n = perm.size();
    if (n < 2) return false;
    for (size_t i = 0; i + 2 < n; ++i)
        if (perm[i] != int64_t(i)) return false;
    return perm[n - 2] == int64_t(n - 1) && perm[n - 1] == int64_t(n - 2);
}

Grid gridOf(const Function& f, const Op& op) {
    switch (opInfo(op.kind).cls) {
    case OpClass::Binary:
    case OpClass::Scalar:
    case OpClass::Unary:
    case OpClass::Select:
        return Grid::Elementwise;
    case OpClass::Layout: {
        if (op.kind == OpKind::Broadcast || op.kind == OpKind::Fill) return Grid::Elementwise;
        if (op.kind != OpKind::Transpose) return Grid::None;
        auto perm = op.attrs.getInts("perm");
        if (!perm && f.type(op.result).shape.rank() == 2) return Grid::Transpose;
        return perm && isSwapOfLastTwo(*perm) ? Grid::Transpose : Grid::None;
    }
    case OpClass::Reduce: {
        const int n = f.type(op.operands[0]).shape.rank();
        int64_t axis = op.attrs.getInt("axis", -1);
        if (n == 0 || axis < -n || axis >= n) return Grid::None;
        if (axis < 0) axis += n;
        if (axis == n - 1) return Grid::RowReduce;
        return axis == n - 2 ? Grid::ColReduce : Grid::OuterReduce;
    }
    default:
        return Grid::None;
    }
}

// Whether the op needs leading tile sizes of 1 (only rank >= 3 has leading dims).
bool needsLeadingOnes(const Function& f, const Op& op, Grid grid, const Shape& space) {
    const int n = space.rank();
    if (n < 3) return false;
    switch (grid) {
    case Grid::Transpose:
    case Grid::ColReduce:
    case Grid::OuterReduce:
        return true;
    case Grid::RowReduce:
        return !op.attrs.getBool("keepdim", false);
    default:
        break;
    }
    // An operand that a whole-space tile would read as a block of rows other than all or one.
    const int64_t rows = space.numel() / space[n - 1];
    for (ValueId x : op.operands) {
        const Shape& xs = f.type(x).shape;
        const int lead = n - xs.rank();
        int64_t xr = 1;
        for (int d = 0; d + 1 < xs.rank(); ++d)
            xr *= (xs[d] == 1 && space[d + lead] != 1) ? 1 : xs[d];
        if (xr != rows && xr != 1) return true;
    }
    return false;
}

bool sameRows(const Shape& a, const Shape& b) {
    if (a.rank() != b.rank() || a.rank() < 2) return false;
    for (int d = 0; d + 1 < a.rank(); ++d)
        if (a[d] != b[d]) return false;
    return true;
}

int64_t alignDown(int64_t v, int64_t a) {
    return v / a * a;
}

// The default of a tile transpose (result space): whole if it fits UB/4, else a tile whose
// rows and columns are both multiples of 32 B (or whole), as the source rows are the result
// columns; leading sizes 1.
Shape transposeTile(const Shape& space, DType dtype, const TargetInfo& target) {
    const int n = space.rank();
    Shape tile = space;
    for (int d = 0; d + 2 < n; ++d) tile[d] = 1;
    const int64_t a = std::max<int64_t>(1, kRowAlignBytes / dtypeSize(dtype));
    const int64_t rows = space[n - 2], cols = space[n - 1];
    if (rows * cols * kElemBytes <= target.ubBytes / 4) return tile;
    int64_t tc = std::min<int64_t>(cols, 64);
    const int64_t tr = std::min(rows, std::max(a, alignDown(kTileElems / tc, a)));
    tc = std::min(cols, std::max(a, alignDown(kTileElems / tr, a)));
    tile[n - 2] = tr;
    tile[n - 1] = tc;
    return tile;
}

enum class Mode : uint8_t { Whole, Columns, Rows };

struct Choice {
    Mode mode = Mode::Whole;
    int64_t rows = 0;   // Rows: rows per tile
    int64_t pieces = 0; // Rows: the longest piece of a row; Columns: the strip width
};

class ChainPlanner {
public:
    ChainPlanner(const Function& f, const TargetInfo& target, std::vector<Member> members)
        : m_f(f), m_target(target), m_members(std::move(members)) {
        for (const Member& m : m_members) m_leadingOnes = m_leadingOnes || m.leadingOnes;
    }

    // Writes the tile of every member into `out` (by op id).
    void plan(std::vector<std::optional<Shape>>& out) {
        // A chain holding ops with explicit tiles follows the first one's grid.
        for (const Member& f : m_members) {
            if (!f.fixed) continue;
            for (const Member& m : m_members)
                if (!m.fixed) out[m.op] = following(m, f);
            return;
        }
        const Choice c = choose();
        for (const Member& m : m_members) out[m.op] = tileOf(m, c);
    }

private:
    // The tile of m on the grid of the explicitly tiled f (same rows): f's leading and row
    // sizes; f's column size where the last dims agree, else the whole last dim (a [r×1]
    // column) or 4096-element pieces.
    static Shape following(const Member& m, const Member& f) {
        const Shape& s = m.space;
        const int n = s.rank();
        Shape t = s;
        for (int d = 0; d + 1 < n; ++d) t[d] = std::min(s[d], (*f.fixed)[d]);
        if (n >= 1)
            t[n - 1] =
                s[n - 1] == f.space[n - 1] ? (*f.fixed)[n - 1] : std::min(s[n - 1], kTileElems);
        return t;
    }

    Choice choose() const {
        std::vector<Choice> candidates;
        int64_t maxNumel = 0, minRowsFor = INT64_MAX;
        bool rowReduce = false, colReduce = false;
        int64_t elem = 4;
        for (const Member& m : m_members) {
            maxNumel = std::max(maxNumel, m.space.numel());
            rowReduce = rowReduce || m.grid == Grid::RowReduce;
            colReduce = colReduce || m.grid == Grid::ColReduce;
            const int n = m.space.rank();
            if (n >= 1) {
                const int64_t c = m.space[n - 1];
                minRowsFor =
                    std::min(minRowsFor, c > kTileElems ? 1 : std::max<int64_t>(1, kTileElems / c));
            }
            elem = std::min(elem, minElemBytes(m));
        }
        const int64_t quarter = (m_target.ubBytes / 4) >> m_target.tileShrink;
        if (maxNumel * kElemBytes <= quarter) candidates.push_back({Mode::Whole, 0, 0});
        const Shape& s = m_members.front().space;
        const int n = s.rank();
        if (colReduce && !rowReduce && n >= 2) {
            const int64_t a = kRowAlignBytes / elem;
            const int64_t w = std::max(a, alignDown(kTileElems / s[n - 2], a));
            if (s[n - 2] * std::min(w, s[n - 1]) * kElemBytes <= quarter)
                candidates.push_back({Mode::Columns, 0, w});
        }
        if (minRowsFor == INT64_MAX) minRowsFor = 1;
        for (int64_t r = minRowsFor; r >= 1; r /= 2) {
            candidates.push_back({Mode::Rows, r, kTileElems});
            if (r == 1) break;
        }
        const int64_t a = kRowAlignBytes / elem;
        for (int64_t p = kTileElems / 2; p >= a; p /= 2) candidates.push_back({Mode::Rows, 1, p});
        const int64_t budget = (m_target.ubBytes * 3 / 4) >> m_target.tileShrink;
        for (const Choice& c : candidates)
            if (workingSet(c) <= budget) return c;
        return candidates.back();
    }

    int64_t minElemBytes(const Member& m) const {
        const Op& op = m_f.op(m.op);
        int64_t e = op.result != kNoId ? int64_t(dtypeSize(m_f.type(op.result).dtype)) : 4;
        for (ValueId x : op.operands) e = std::min<int64_t>(e, dtypeSize(m_f.type(x).dtype));
        return std::max<int64_t>(e, 1);
    }

    Shape tileOf(const Member& m, const Choice& c) const {
        const Shape& s = m.space;
        const int n = s.rank();
        Shape t = s;
        if (n == 0) return t;
        if (c.mode != Mode::Whole || m_leadingOnes)
            for (int d = 0; d + 2 < n; ++d) t[d] = 1;
        if (c.mode == Mode::Whole) return t;
        if (c.mode == Mode::Columns) {
            t[n - 1] = std::min(s[n - 1], c.pieces);
            return t;
        }
        t[n - 1] = std::min(s[n - 1], c.pieces);
        if (n >= 2) t[n - 2] = std::min(s[n - 2], c.rows);
        return t;
    }

    // The tile of a member's result (a reduction's tile without its reduced axis).
    int64_t resultTileNumel(const Member& m, const Shape& tile) const {
        const int n = tile.rank();
        int64_t numel = tile.numel();
        if (m.grid == Grid::RowReduce && n >= 1) numel /= tile[n - 1];
        if (m.grid == Grid::ColReduce && n >= 2) numel /= tile[n - 2];
        return numel;
    }

    // The bytes of tiles live at once, the members taken in program order: a member's result
    // from its op to its last reader in the chain, an operand from outside the chain from its
    // first to its last reader.
    int64_t workingSet(const Choice& c) const {
        std::unordered_map<ValueId, size_t> index; // member result → member index
        for (size_t i = 0; i < m_members.size(); ++i) index[m_f.op(m_members[i].op).result] = i;
        struct Live {
            size_t from, to;
            int64_t bytes;
        };
        std::unordered_map<ValueId, Live> live;
        for (size_t i = 0; i < m_members.size(); ++i) {
            const Member& m = m_members[i];
            const Op& op = m_f.op(m.op);
            const Shape tile = tileOf(m, c);
            live[op.result] = {i, i,
                               resultTileNumel(m, tile) * dtypeSize(m_f.type(op.result).dtype)};
            for (ValueId x : op.operands) {
                if (auto it = live.find(x); it != live.end()) {
                    it->second.to = i;
                    continue;
                }
                live[x] = {i, i, operandBytes(x, m.space, tile)};
            }
        }
        int64_t peak = 0;
        for (size_t i = 0; i < m_members.size(); ++i) {
            int64_t sum = 0;
            for (const auto& [v, l] : live)
                if (l.from <= i && i <= l.to) sum += l.bytes;
            peak = std::max(peak, sum);
        }
        return peak;
    }

    // The bytes of the region of operand x read by one tile of `space` (numpy broadcasting).
    int64_t operandBytes(ValueId x, const Shape& space, const Shape& tile) const {
        const Shape& xs = m_f.type(x).shape;
        const int lead = space.rank() - xs.rank();
        int64_t numel = 1;
        for (int d = 0; d < xs.rank(); ++d)
            numel *= (xs[d] == 1 || d + lead < 0) ? 1 : tile[d + lead];
        return numel * dtypeSize(m_f.type(x).dtype);
    }

    const Function& m_f;
    const TargetInfo& m_target;
    std::vector<Member> m_members;
    bool m_leadingOnes = false;
};

// Union-find over member indices.
class Chains {
public:
    explicit Chains(size_t n) : m_parent(n) { std::iota(m_parent.begin(), m_parent.end(), 0); }
    size_t find(size_t i) {
        while (m_parent[i] != i) i = m_parent[i] = m_parent[m_parent[i]];
        return i;
    }
    void join(size_t a, size_t b) { m_parent[find(a)] = find(b); }

private:
    std::vector<size_t> m_parent;
};

} // namespace

std::vector<std::optional<Shape>> planDefaultVecTiles(const Function& f, const TargetInfo& target) {
    std::vector<std::optional<Shape>> out(f.ops().size());
    std::vector<Member> members;
    std::vector<size_t> memberOf(f.ops().size(), SIZE_MAX);
    std::optional<std::vector<int64_t>> scope; // the vec_tile directive in scope
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::VecTile) scope = op.attrs.getInts("sizes");
        if (op.result == kNoId) continue;
        const Grid grid = gridOf(f, op);
        if (grid == Grid::None) continue;
        const bool reduce =
            grid == Grid::RowReduce || grid == Grid::ColReduce || grid == Grid::OuterReduce;
        Member m{op.id, grid, f.type(reduce ? op.operands[0] : op.result).shape, false, {}};
        std::optional<std::vector<int64_t>> sizes = op.attrs.getInts("vec_tile");
        if (!sizes) sizes = scope;
        if (sizes) {
            // Explicitly tiled: not planned, but its grid leads the defaults of its chain.
            if (grid == Grid::Transpose) continue;
            m.fixed = explicitTile(*sizes, m.space);
        }
        m.leadingOnes = needsLeadingOnes(f, op, grid, m.space);
        if (grid == Grid::Transpose) {
            out[op.id] = transposeTile(m.space, f.type(op.result).dtype, target);
            continue;
        }
        memberOf[op.id] = members.size();
        members.push_back(std::move(m));
    }
    Chains chains(members.size());
    for (size_t i = 0; i < members.size(); ++i) {
        const Op& op = f.op(members[i].op);
        for (ValueId x : op.operands) {
            const Op* p = f.producer(x);
            if (!p || memberOf[p->id] == SIZE_MAX) continue;
            const size_t j = memberOf[p->id];
            if (sameRows(members[i].space, members[j].space)) chains.join(i, j);
        }
    }
    std::unordered_map<size_t, std::vector<Member>> byChain;
    std::vector<size_t> order; // chains by first member, for a deterministic walk
    for (size_t i = 0; i < members.size(); ++i) {
        const size_t root = chains.find(i);
        auto [it, fresh] = byChain.try_emplace(root);
        if (fresh) order.push_back(root);
        it->second.push_back(members[i]);
    }
    for (size_t root : order) ChainPlanner(f, target, std::move(byChain[root])).plan(out);
    for (const Member& m : members)
        if (m.fixed) out[m.op].reset();
    return out;
}

Shape defaultOpVecTile(const Shape& space, const TargetInfo& target) {
    const int n = space.rank();
    if (n == 0 || space.numel() * kDefaultElemBytes <= (target.ubBytes / 4) >> target.tileShrink)
        return space;
    Shape tile = space;
    for (int d = 0; d + 2 < n; ++d) tile[d] = 1;
    const int64_t maxElems =
        std::max<int64_t>(1, (kDefaultTileBytes / kDefaultElemBytes) >> target.tileShrink);
    if (space[n - 1] > maxElems) {
        tile[n - 1] = maxElems;
        if (n >= 2) tile[n - 2] = 1;
    } else if (n >= 2) {
        tile[n - 2] = std::clamp<int64_t>(maxElems / space[n - 1], 1, space[n - 2]);
    }
    return tile;
}

const std::vector<int64_t>& defaultCubeTile(int64_t m, int64_t n, DType a, DType b,
                                            const TargetInfo& target) {
    static const std::vector<int64_t> kWide = {128, 128, 64, 256, 256, 256};
    static const std::vector<int64_t> kWideF32 = {128, 128, 32, 128, 256, 256};
    static const std::vector<int64_t> kNarrow = {128, 128, 64, 256, 128, 128};
    // In double: a hostile shape's block count must not overflow (exact below 2^53 blocks).
    const double wideBlocks = std::ceil(double(m) / 128) * std::ceil(double(n) / 256);
    if (wideBlocks < 2.0 * double(std::max(target.aicCores, 1))) return kNarrow;
    return std::max(dtypeSize(a), dtypeSize(b)) >= 4 ? kWideF32 : kWide;
}

Shape defaultCopyTile(const Shape& shape, DType dtype) {
    const int n = shape.rank();
    Shape tile = shape;
    if (n == 0) return tile;
    for (int d = 0; d + 2 < n; ++d) tile[d] = 1;
    const int64_t elem = dtypeSize(dtype);
    tile[n - 1] = std::min<int64_t>(shape[n - 1], std::max<int64_t>(1, kDefaultTileBytes / elem));
    if (n >= 2)
        tile[n - 2] =
            std::clamp<int64_t>(kDefaultTileBytes / (tile[n - 1] * elem), 1, shape[n - 2]);
    return tile;
}

} // namespace pto
