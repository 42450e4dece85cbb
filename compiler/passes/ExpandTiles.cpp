// expand-tiles: Tensor → Tile, every op unrolled over its tile grid, data movement included.
//
// The model (docs/PASSES.md has the long form):
// - Each Tensor value V has on-chip tiles — the regions its producer computed and the regions
//   loaded from GM — and possibly a GM home: an argument, an output, a workspace, or a view
//   of one of those through offset arithmetic (view, reshape keeping the last dim).
// - A consumer that needs region R of V takes V's tile for exactly R when there is one: the
//   value stays on chip (same tile grid, and only vector ops share tiles, so same core type).
//   Otherwise V is materialised in its home (every produced tile stored once into a
//   workspace) and R is loaded from there by a tload that later consumers of R share.
// - matmul is the cube core's: it loads its operands from GM into L1 (per output block), moves
//   sub-tiles to L0A/L0B, accumulates in L0C and stores the result to GM (an output or a
//   workspace). So a value crossing between cube and vector always goes through GM.
// - A region maps to a tile as rows × cols: cols = the last extent, rows = the product of the
//   others; a tile region must be consecutive rows of its tensor (row stride = last dim).
#include "compiler/passes/ExpandTiles.h"

#include "compiler/ir/Printer.h"
#include "compiler/passes/DefaultVecTiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace pto {
namespace {

using Ints = std::vector<int64_t>;

constexpr int64_t kRowAlignBytes = 32;     // contiguous axis of a tile (pto-isa)
constexpr int64_t kCubeAlign = 16;         // cube fractal edge (16×16 fp16)
constexpr int64_t kMaxCopyTiles = 1 << 20; // guard against element-wise GM copies
constexpr int kMaxRecompute = 8;           // depth of per-chain recomputation
// Default cube tiles [mL0, mL1, kL0, kL1, nL0, nL1]. The wide one (128×256 output blocks, one
// 128 KiB f32 accumulator, kL1 = 256) loads 96 B per cube cycle instead of the 128 B of a
// 128×128 block; the narrow one keeps small matmuls spread over more cores (see
// defaultCubeTile). 4-byte operands halve k so L1 and L0B still double-buffer.
const Ints kWideCubeTile = {128, 128, 64, 256, 256, 256};
const Ints kWideCubeTileF32 = {128, 128, 32, 128, 256, 256};
const Ints kNarrowCubeTile = {128, 128, 64, 256, 128, 128};

// ----------------------------------------------------------------------------------------
// Regions and their 2-D tile form

struct Region {
    Shape offset;
    Shape extent;
    friend bool operator==(const Region& a, const Region& b) {
        return a.offset == b.offset && a.extent == b.extent;
    }
};

struct RegionHash {
    size_t operator()(const Region& r) const noexcept {
        uint64_t h = 1469598103934665603ull;
        for (int64_t v : r.offset) h = (h ^ uint64_t(v)) * 1099511628211ull;
        for (int64_t v : r.extent) h = (h ^ uint64_t(v)) * 1099511628211ull;
        return size_t(h);
    }
};

int64_t rowsOf(const Shape& extent) {
    int64_t rows = 1;
    for (int d = 0; d + 1 < extent.rank(); ++d) rows *= extent[d];
    return rows;
}
int64_t colsOf(const Shape& extent) {
    return extent.rank() ? extent.back() : 1;
}

// The region is consecutive rows of its tensor: after the first leading dim whose extent
// exceeds 1, every leading dim is whole.
bool spansContiguousRows(const Shape& shape, const Shape& extent) {
    bool spanning = false;
    for (int d = 0; d + 1 < shape.rank(); ++d) {
        if (spanning && extent[d] != shape[d]) return false;
        if (extent[d] != 1) spanning = true;
    }
    return true;
}

bool contains(const Shape& shape, const Region& r) {
    for (int d = 0; d < shape.rank(); ++d)
        if (r.offset[d] < 0 || r.offset[d] + r.extent[d] > shape[d]) return false;
    return true;
}

// Row of `offset` in the rows × cols view of a tensor of `shape`.
int64_t rowIndex(const Shape& shape, const Shape& offset) {
    int64_t row = 0;
    for (int d = 0; d + 1 < shape.rank(); ++d) row = row * shape[d] + offset[d];
    return row;
}

// The corner whose rows × cols position is (row, col).
Shape cornerAt(const Shape& shape, int64_t row, int64_t col) {
    Shape corner = shape;
    const int n = shape.rank();
    if (n == 0) return corner;
    corner[n - 1] = col;
    for (int d = n - 2; d >= 0; --d) {
        corner[d] = row % shape[d];
        row /= shape[d];
    }
    return corner;
}

Shape zeros(int rank) {
    Shape s;
    for (int i = 0; i < rank; ++i) s.push(0);
    return s;
}

Ints toInts(const Shape& s) {
    return Ints(s.begin(), s.end());
}

// Calls f(region) for every tile of `tile` over `shape`, row-major, edge tiles clipped.
template <class F> void forEachTile(const Shape& shape, const Shape& tile, F&& f) {
    const int n = shape.rank();
    for (int d = 0; d < n; ++d)
        if (shape[d] <= 0) return;
    Region r{zeros(n), shape};
    for (int d = 0; d < n; ++d) r.extent[d] = std::min(tile[d], shape[d]);
    for (;;) {
        f(const_cast<const Region&>(r));
        int d = n - 1;
        for (; d >= 0; --d) {
            r.offset[d] += tile[d];
            if (r.offset[d] < shape[d]) {
                r.extent[d] = std::min(tile[d], shape[d] - r.offset[d]);
                break;
            }
            r.offset[d] = 0;
            r.extent[d] = std::min(tile[d], shape[d]);
        }
        if (d < 0) return;
    }
}

// ----------------------------------------------------------------------------------------
// Diagnostics

std::string kib(int64_t bytes) {
    if (bytes < 1024) return fmt::format("{} B", bytes);
    if (bytes < 1024 * 1024) {
        if (bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
        return fmt::format("{:.1f} KiB", double(bytes) / 1024.0);
    }
    if (bytes % (1024 * 1024) == 0) return fmt::format("{} MiB", bytes / (1024 * 1024));
    return fmt::format("{:.1f} MiB", double(bytes) / (1024.0 * 1024.0));
}

// "%name" as the printer spells it (error paths only: builds the name table).
std::string valueRef(const Function& f, ValueId v) {
    return fmt::format("%{}", NameTable(f)[v]);
}

std::string opRef(const Function& f, const Op& op) {
    if (op.result == kNoId) return std::string(opName(op.kind));
    return fmt::format("{} {}", opName(op.kind), valueRef(f, op.result));
}

std::string typeRef(const Type& t) {
    if (t.shape.empty()) return fmt::format("tensor<{}>", dtypeName(t.dtype));
    return fmt::format("tensor<{}x{}>", t.shape.str(), dtypeName(t.dtype));
}

std::string listRef(const Ints& v) {
    return fmt::format("[{}]", fmt::join(v, ", "));
}

// The per-op override with `tile`'s last two sizes and leading sizes 1: "[1, 16, 16]".
std::string leadingOnes(const Shape& tile) {
    Ints sizes(tile.begin(), tile.end());
    for (size_t d = 0; d + 2 < sizes.size(); ++d) sizes[d] = 1;
    return listRef(sizes);
}

int64_t align(int64_t v, int64_t a) {
    return (v + a - 1) / a * a;
}

// ----------------------------------------------------------------------------------------
// Emitting Tile ops

struct Provenance {
    OpId parent = kNoId;
    SourceLoc loc;
};

Provenance provenanceOf(const Op& op) {
    return {op.id, op.loc};
}

Attrs offsetAttr(const Shape& offset) {
    Attrs a;
    a.set("offset", toInts(offset));
    return a;
}

// Appends ops to the Tile function; each carries the provenance it is given.
class TileEmitter {
public:
    explicit TileEmitter(Function& dst) : m_dst(dst) {}

    Function& fn() { return m_dst; }

    ValueId gmTensor(DType dtype, const Shape& shape, std::string name, const char* role,
                     Provenance from) {
        Op op = make(OpKind::GmTensor, {}, {}, from);
        op.attrs.set("role", std::string(role));
        Type t{dtype, shape, MemSpace::GM};
        return m_dst.op(m_dst.addOp(std::move(op), &t, std::move(name))).result;
    }

    // A tile op: its result is a rows × cols tile of `dtype` covering `offset` of `origin`.
    ValueId tile(OpKind kind, std::vector<ValueId> operands, Attrs attrs, DType dtype, int64_t rows,
                 int64_t cols, ValueId origin, const Shape& offset, Provenance from) {
        Type t{dtype, Shape{rows, cols}, MemSpace::None};
        OpId id = m_dst.addOp(make(kind, std::move(operands), std::move(attrs), from), &t);
        ValueId v = m_dst.op(id).result;
        Value& val = m_dst.value(v);
        val.origin = origin;
        val.offset = offset;
        return v;
    }

    void store(ValueId tile, ValueId gm, const Shape& gmOffset, Provenance from) {
        m_dst.addOp(make(OpKind::TStore, {tile, gm}, offsetAttr(gmOffset), from));
    }

    const Type& type(ValueId v) const { return m_dst.type(v); }

private:
    static Op make(OpKind kind, std::vector<ValueId> operands, Attrs attrs, Provenance from) {
        Op op;
        op.kind = kind;
        op.operands = std::move(operands);
        op.attrs = std::move(attrs);
        op.parent = from.parent;
        op.loc = from.loc;
        return op;
    }

    Function& m_dst;
};

// ----------------------------------------------------------------------------------------
// Tensor values: their tiles and their GM homes

enum class HomeKind : uint8_t {
    Same,   // the GM tensor has the value's shape
    Offset, // the value is the box at `offset` of the GM tensor (same rank)
    Rows,   // the value shares the GM tensor's rows × cols view (a reshape keeping the last dim)
};

struct Home {
    ValueId gm = kNoId;
    HomeKind kind = HomeKind::Same;
    Shape offset;
};

struct TensorTiles {
    std::vector<std::pair<Region, ValueId>> produced;           // computed on chip, in order
    std::unordered_map<Region, ValueId, RegionHash> producedAt; // the same, by region
    std::unordered_map<Region, ValueId, RegionHash> loaded;     // shared loads from the home
    std::optional<Home> home;
};

// Owns the per-value state of the expansion: which tiles exist, where each value lives in GM,
// and the loads, stores and copies that move values between the two.
class TensorHomes {
public:
    TensorHomes(const Function& src, TileEmitter& emit, const std::string& file)
        : m_src(src), m_emit(emit), m_file(file), m_tiles(src.valueCount()),
          m_resultIndices(src.valueCount()) {}

    void declareArguments();
    void declareOutputs();

    // The tile holding exactly `region` of Tensor value v: the one its producer computed, or
    // a load from v's home shared by every later reader of that region.
    ValueId tileOf(ValueId v, const Region& region, Provenance from);
    // The tile v's producer computed for exactly `region`, or kNoId.
    ValueId producedTile(ValueId v, const Region& region) const {
        const auto& at = m_tiles[v].producedAt;
        auto it = at.find(region);
        return it == at.end() ? kNoId : it->second;
    }
    // Records a tile computed on chip for `region` of v.
    void produce(ValueId v, const Region& region, ValueId tile) {
        TensorTiles& t = m_tiles[v];
        t.producedAt.emplace(region, tile);
        t.produced.emplace_back(region, tile);
    }
    // Sets v's home directly (views, and values written straight into GM).
    void setHome(ValueId v, Home home) { m_tiles[v].home = std::move(home); }
    // v's home, storing its produced tiles into a new workspace if it has none yet.
    const Home& materialise(ValueId v);
    // Where an op that writes v straight to GM should write it: v's output, or a workspace.
    ValueId destinationOf(ValueId v, Provenance from);
    // After v's producer is expanded: write v into every output it is returned as.
    void finish(ValueId v);

    // v's home as a GM tensor of v's own shape: a view or reshape is copied into a
    // workspace first (GM → UB → GM) and the workspace becomes its home.
    Home plainHome(ValueId v, Provenance from);
    // Loads `region` of v through `home` into a fresh tile (not shared).
    ValueId loadFresh(ValueId v, Home home, const Region& region, Provenance from);
    // Copies v into `gm` at `shift` + v's coordinates: its on-chip tiles are stored directly,
    // otherwise it is read from its home tile by tile (GM → UB → GM).
    void copyInto(ValueId v, ValueId gm, const Shape& shift, Provenance from);

    const Type& type(ValueId v) const { return m_src.type(v); }
    Provenance producerOf(ValueId v) const {
        const Op* p = m_src.producer(v);
        return p ? provenanceOf(*p) : Provenance{kNoId, m_src.loc};
    }
    const std::vector<std::pair<Region, ValueId>>& produced(ValueId v) const {
        return m_tiles[v].produced;
    }

private:
    std::string uniqueName(std::string base) {
        if (base.empty()) base = "ws";
        std::string name = base;
        for (int i = 1; !m_names.insert(name).second; ++i) name = fmt::format("{}{}", base, i);
        return name;
    }
    ValueId workspace(ValueId v, Provenance from) {
        const std::string& n = m_src.value(v).name;
        return m_emit.gmTensor(type(v).dtype, type(v).shape,
                               uniqueName(n.empty() ? "ws" : n + "_ws"), "workspace", from);
    }
    // A region of the value, placed in its home GM tensor, if the home can serve it directly.
    std::optional<Shape> gmCorner(ValueId v, const Home& home, const Region& region) const;

    const Function& m_src;
    TileEmitter& m_emit;
    const std::string& m_file;
    std::vector<TensorTiles> m_tiles;
    std::vector<std::vector<size_t>> m_resultIndices; // Tensor value → indices in results
    std::vector<ValueId> m_outputs;                   // gm_tensor per function result
    std::unordered_set<std::string> m_names;
};

void TensorHomes::declareArguments() {
    Function& dst = m_emit.fn();
    for (size_t i = 0; i < m_src.args.size(); ++i) {
        const ValueId a = m_src.args[i];
        std::string name = m_src.value(a).name;
        if (name.empty()) name = fmt::format("arg{}", i);
        name = uniqueName(name);
        Type t = type(a);
        t.space = MemSpace::GM;
        ValueId gm = dst.addArg(t, name);
        dst.value(gm).origin = a;
        dst.value(gm).offset = zeros(t.shape.rank());
        m_tiles[a].home = Home{gm, HomeKind::Same, {}};
    }
}

void TensorHomes::declareOutputs() {
    for (size_t i = 0; i < m_src.results.size(); ++i) {
        const ValueId r = m_src.results[i];
        m_resultIndices[r].push_back(i);
        const bool isArg = m_src.value(r).def == kNoId;
        std::string base =
            isArg || m_src.value(r).name.empty() ? fmt::format("out{}", i) : m_src.value(r).name;
        ValueId gm = m_emit.gmTensor(type(r).dtype, type(r).shape, uniqueName(base), "output",
                                     producerOf(r));
        m_outputs.push_back(gm);
        m_emit.fn().results.push_back(gm);
    }
}

ValueId TensorHomes::destinationOf(ValueId v, Provenance from) {
    if (!m_resultIndices[v].empty()) return m_outputs[m_resultIndices[v].front()];
    return workspace(v, from);
}

const Home& TensorHomes::materialise(ValueId v) {
    TensorTiles& t = m_tiles[v];
    if (t.home) return *t.home;
    if (t.produced.empty())
        throw CompileError(m_file, m_src.loc,
                           fmt::format("internal error in expand-tiles: value {} has neither "
                                       "tiles nor a GM home",
                                       valueRef(m_src, v)));
    const Provenance from = producerOf(v);
    const ValueId gm = workspace(v, from);
    for (const auto& [region, tile] : t.produced) m_emit.store(tile, gm, region.offset, from);
    t.home = Home{gm, HomeKind::Same, {}};
    return *t.home;
}

std::optional<Shape> TensorHomes::gmCorner(ValueId v, const Home& home,
                                           const Region& region) const {
    const Shape& gmShape = m_emit.fn().type(home.gm).shape;
    switch (home.kind) {
    case HomeKind::Same:
        return region.offset;
    case HomeKind::Offset: {
        Region inGm = region;
        for (int d = 0; d < inGm.offset.rank(); ++d) inGm.offset[d] += home.offset[d];
        if (!spansContiguousRows(gmShape, region.extent) || !contains(gmShape, inGm))
            return std::nullopt;
        return inGm.offset;
    }
    case HomeKind::Rows: {
        const int64_t row = rowIndex(type(v).shape, region.offset);
        return cornerAt(gmShape, row, region.offset.empty() ? 0 : region.offset.back());
    }
    }
    return std::nullopt;
}

Home TensorHomes::plainHome(ValueId v, Provenance from) {
    const Home home = materialise(v);
    if (home.kind == HomeKind::Same) return home;
    const ValueId ws = workspace(v, from);
    copyInto(v, ws, zeros(type(v).shape.rank()), from);
    m_tiles[v].home = Home{ws, HomeKind::Same, {}};
    return *m_tiles[v].home;
}

ValueId TensorHomes::loadFresh(ValueId v, Home home, const Region& region, Provenance from) {
    std::optional<Shape> corner = gmCorner(v, home, region);
    if (!corner) {
        // A view whose tile rows are not consecutive rows of the viewed tensor: read it
        // from a copy of its own. (Copy tiles are single rows of blocks, always readable.)
        home = plainHome(v, from);
        corner = region.offset;
    }
    return m_emit.tile(OpKind::TLoad, {home.gm}, offsetAttr(*corner), type(v).dtype,
                       rowsOf(region.extent), colsOf(region.extent), v, region.offset, from);
}

ValueId TensorHomes::tileOf(ValueId v, const Region& region, Provenance from) {
    if (ValueId t = producedTile(v, region); t != kNoId) return t;
    if (auto it = m_tiles[v].loaded.find(region); it != m_tiles[v].loaded.end()) return it->second;
    const Home home = materialise(v);
    const ValueId tile = loadFresh(v, home, region, from);
    m_tiles[v].loaded.emplace(region, tile);
    return tile;
}

void TensorHomes::copyInto(ValueId v, ValueId gm, const Shape& shift, Provenance from) {
    const Type& t = type(v);
    // Stored tiles of v can go straight out; otherwise read v from its home tile by tile.
    const TensorTiles& tiles = m_tiles[v];
    auto shifted = [&](const Shape& o) {
        Shape s = o;
        for (int d = 0; d < s.rank(); ++d) s[d] += shift[d];
        return s;
    };
    if (!tiles.produced.empty()) {
        for (const auto& [region, tile] : tiles.produced)
            m_emit.store(tile, gm, shifted(region.offset), from);
        return;
    }
    const Home home = materialise(v);
    forEachTile(t.shape, defaultCopyTile(t.shape, t.dtype), [&](const Region& r) {
        ValueId tile = loadFresh(v, home, r, from);
        m_emit.store(tile, gm, shifted(r.offset), from);
    });
}

void TensorHomes::finish(ValueId v) {
    for (size_t index : m_resultIndices[v]) {
        const ValueId out = m_outputs[index];
        TensorTiles& t = m_tiles[v];
        if (t.home && t.home->kind == HomeKind::Same && t.home->gm == out) continue;
        copyInto(v, out, zeros(type(v).shape.rank()), producerOf(v));
        // Later readers load from the output: a plain home, whatever v's home was.
        m_tiles[v].home = Home{out, HomeKind::Same, {}};
    }
}

// ----------------------------------------------------------------------------------------
// Tile shapes: directive scopes, per-op overrides, defaults and capacity checks

struct CubeTile {
    int64_t m0, m1, k0, k1, n0, n1;
};

class TileShapes {
public:
    TileShapes(const Function& src, const TargetInfo& target, const std::string& file)
        : m_src(src), m_target(target), m_file(file), m_defaults(planDefaultVecTiles(src, target)) {
    }

    void enterDirective(const Op& op);
    // The vec tile of `op` over its iteration space `space`, checked for every tile dtype.
    // `needsLeadingOnes(tile)`: whether the op can only use the tile with leading sizes of 1
    // (a directive is a tiling choice, so its leading sizes are then lowered to 1).
    Shape vecTile(const Op& op, const Shape& space, const std::vector<DType>& dtypes,
                  const std::function<bool(const Shape&)>& needsLeadingOnes = {}) const;
    CubeTile cubeTile(const Op& op, int64_t m, int64_t k, int64_t n, DType a, DType b) const;

    [[noreturn]] void fail(const Op& op, const std::string& message) const {
        throw CompileError(m_file, op.loc, fmt::format("{}: {}", opRef(m_src, op), message));
    }

private:
    Shape defaultVecTile(const Shape& space) const;
    Shape explicitVecTile(const Op& op, const Ints& sizes, const Shape& space) const;
    void checkVecTile(const Op& op, const Shape& tile, const Shape& space,
                      const std::vector<DType>& dtypes) const;
    void checkCubeCapacity(const Op& op, const CubeTile& c, DType a, DType b) const;
    const Ints& defaultCubeTile(int64_t m, int64_t n, DType a, DType b) const;

    const Function& m_src;
    const TargetInfo& m_target;
    const std::string& m_file;
    std::optional<Ints> m_vec;
    std::optional<Ints> m_cube;
    std::vector<std::optional<Shape>> m_defaults; // per Tensor op: its chain's default tile
};

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

// The wide default when its 128×256 output blocks still give every AIC at least two blocks
// (so the last wave's imbalance stays small), else the 128×128 one.
const Ints& TileShapes::defaultCubeTile(int64_t m, int64_t n, DType a, DType b) const {
    const int64_t wideBlocks = ((m + 127) / 128) * ((n + 255) / 256);
    if (wideBlocks < 2 * int64_t(std::max(m_target.aicCores, 1))) return kNarrowCubeTile;
    return std::max(dtypeSize(a), dtypeSize(b)) >= 4 ? kWideCubeTileF32 : kWideCubeTile;
}

CubeTile TileShapes::cubeTile(const Op& op, int64_t m, int64_t k, int64_t n, DType a,
                              DType b) const {
    std::optional<Ints> sizes = op.attrs.getInts("cube_tile");
    if (sizes && sizes->size() != 6)
        fail(op, fmt::format("cube_tile needs 6 sizes [mL0, mL1, kL0, kL1, nL0, nL1], got {}",
                             listRef(*sizes)));
    if (!sizes) sizes = m_cube;
    const Ints& s = sizes ? *sizes : defaultCubeTile(m, n, a, b);
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
    const int64_t l0a = align(c.m0, kCubeAlign) * align(c.k0, kCubeAlign) * sa;
    if (l0a > m_target.l0aBytes)
        fail(op, fmt::format("cube tile m={} k={} needs {} of L0A ({}) but L0A holds {}; reduce "
                             "cube_tile m or k",
                             c.m0, c.k0, kib(l0a), dtypeName(a), kib(m_target.l0aBytes)));
    const int64_t l0b = align(c.k0, kCubeAlign) * align(c.n0, kCubeAlign) * sb;
    if (l0b > m_target.l0bBytes)
        fail(op, fmt::format("cube tile k={} n={} needs {} of L0B ({}) but L0B holds {}; reduce "
                             "cube_tile k or n",
                             c.k0, c.n0, kib(l0b), dtypeName(b), kib(m_target.l0bBytes)));
    const int64_t acc = align(c.m0, kCubeAlign) * align(c.n0, kCubeAlign) * 4;
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

// ----------------------------------------------------------------------------------------
// Expansion of each op class

// A tile of a value made for one result tile (the `position`) of a broadcasting reader.
struct PrivateKey {
    ValueId value;
    Region region;
    Region position;
    friend bool operator==(const PrivateKey&, const PrivateKey&) = default;
};

struct PrivateKeyHash {
    size_t operator()(const PrivateKey& k) const noexcept {
        return RegionHash{}(k.region) * 31 + RegionHash{}(k.position) * 7 + k.value;
    }
};

struct Ctx {
    const Function& src;
    TileEmitter& emit;
    TensorHomes& values;
    TileShapes& shapes;
    std::unordered_map<PrivateKey, ValueId, PrivateKeyHash> privateTiles = {};
};

DType tileDType(const Ctx& c, ValueId tile) {
    return c.emit.type(tile).dtype;
}

Attrs computeAttrs(const Op& op) {
    Attrs a;
    for (const Attr& attr : op.attrs.items())
        if (attr.name != "vec_tile" && attr.name != "cube_tile") a.set(attr.name, attr.value);
    return a;
}

// The region of operand shape `xs` read by the result region `r` of `shape` under numpy
// broadcasting (dims aligned at the right; an extent-1 dim is read at 0).
Region broadcastRegion(const Region& r, const Shape& shape, const Shape& xs) {
    const int lead = shape.rank() - xs.rank();
    Region out{xs, xs};
    for (int d = 0; d < xs.rank(); ++d) {
        const bool bcast = xs[d] == 1 && shape[d + lead] != 1;
        out.offset[d] = bcast ? 0 : r.offset[d + lead];
        out.extent[d] = bcast ? 1 : r.extent[d + lead];
    }
    return out;
}

// Expands a broadcast-shaped tile ([r×1], [1×c], [1×1]) to rows × cols.
ValueId broadcastTile(Ctx& c, ValueId tile, int64_t rows, int64_t cols, Provenance from) {
    const Value& v = c.emit.fn().value(tile);
    const ValueId origin = v.origin;
    const Shape offset = v.offset;
    return c.emit.tile(OpKind::Broadcast, {tile}, {}, tileDType(c, tile), rows, cols, origin,
                       offset, from);
}

bool isCommutative(OpKind k) {
    return k == OpKind::Add || k == OpKind::Mul || k == OpKind::Max || k == OpKind::Min;
}

bool recomputable(const Op& op) {
    switch (opInfo(op.kind).cls) {
    case OpClass::Binary:
    case OpClass::Scalar:
    case OpClass::Unary:
    case OpClass::Select:
        return true;
    case OpClass::Layout:
        return op.kind == OpKind::Broadcast || op.kind == OpKind::Fill;
    default:
        return false;
    }
}

// How many result tiles of the grid `tile` over `shape` read the same region of an operand of
// shape `xs` (the product of the grid's extents along the dims the operand broadcasts).
int64_t readersPerRegion(const Shape& shape, const Shape& tile, const Shape& xs) {
    const int lead = shape.rank() - xs.rank();
    int64_t n = 1;
    for (int d = 0; d < shape.rank(); ++d)
        if (d < lead || (xs[d - lead] == 1 && shape[d] != 1))
            n *= (shape[d] + tile[d] - 1) / tile[d];
    return n;
}

ValueId computeTile(Ctx& c, const Op& op, const Region& r, const Region* position,
                    const std::vector<bool>& privateOperand, int depth);

// The tile of `region` of x for the result tile `position` of a reader, private to it, so
// that result tiles (chains) do not share on-chip tiles and can run on different cores: an
// elementwise producer is recomputed for this region (up to kMaxRecompute ops deep), a value
// in GM is loaded again; what a reduction or transpose produced is shared (its readers
// depend on all of it anyway).
ValueId privateTile(Ctx& c, ValueId x, const Region& region, const Region& position,
                    Provenance from, int depth) {
    const PrivateKey key{x, region, position};
    if (auto it = c.privateTiles.find(key); it != c.privateTiles.end()) return it->second;
    const Op* producer = c.src.producer(x);
    ValueId tile = kNoId;
    if (producer && recomputable(*producer) && depth < kMaxRecompute) {
        const std::vector<bool> all(producer->operands.size(), true);
        tile = computeTile(c, *producer, region, &position, all, depth + 1);
    } else if ((tile = c.values.producedTile(x, region)) == kNoId) {
        tile = c.values.loadFresh(x, c.values.materialise(x), region, from);
    }
    c.privateTiles.emplace(key, tile);
    return tile;
}

// Operand i of `op` read at region rx for the result tile `position`.
ValueId operandTile(Ctx& c, const Op& op, size_t i, const Region& rx, const Region* position,
                    const std::vector<bool>& privateOperand, int depth) {
    const Provenance from = provenanceOf(op);
    const ValueId x = op.operands[i];
    if (position && privateOperand[i]) return privateTile(c, x, rx, *position, from, depth);
    return c.values.tileOf(x, rx, from);
}

// Operand tiles of one result tile, each read at its broadcast region and lined up with the
// rows × cols result: at most one [r×1]/[1×c]/[1×1] operand, and it is the second one.
std::vector<ValueId> operandTiles(Ctx& c, const Op& op, const Region& r, const Region* position,
                                  const std::vector<bool>& privateOperand, int depth) {
    const int64_t rows = rowsOf(r.extent), cols = colsOf(r.extent);
    const Provenance from = provenanceOf(op);
    const Shape& shape = c.src.type(op.result).shape;
    std::vector<ValueId> tiles;
    std::vector<bool> full;
    bool column = false; // an [r×1] or [1×1] operand read by an r×c tile (c > 1)
    for (size_t i = 0; i < op.operands.size(); ++i) {
        const ValueId x = op.operands[i];
        const Region rx = broadcastRegion(r, shape, c.src.type(x).shape);
        const int64_t xr = rowsOf(rx.extent), xc = colsOf(rx.extent);
        if ((xr != rows && xr != 1) || (xc != cols && xc != 1))
            c.shapes.fail(op, fmt::format("operand {} ({}) is read as a {}x{} block of a {}x{} "
                                          "tile; a tile operand may only broadcast as [r×1], "
                                          "[1×c] or [1×1]; use a vec_tile with leading sizes 1 "
                                          "(e.g. vec_tile = {})",
                                          valueRef(c.src, x), typeRef(c.src.type(x)), xr, xc, rows,
                                          cols, leadingOnes(r.extent)));
        tiles.push_back(operandTile(c, op, i, rx, position, privateOperand, depth));
        full.push_back(xr == rows && xc == cols);
        column = column || (xc == 1 && cols > 1);
    }
    // TCMP has no row-broadcast form: cmp expands an [r×1] or [1×1] operand explicitly.
    const bool binary = opInfo(op.kind).cls == OpClass::Binary && tiles.size() == 2 &&
                        !(op.kind == OpKind::Cmp && column);
    const size_t partial = size_t(std::count(full.begin(), full.end(), false));
    if (binary && partial == 1 && !full[0] && isCommutative(op.kind)) {
        std::swap(tiles[0], tiles[1]);
        return tiles;
    }
    for (size_t i = 0; i < tiles.size(); ++i) {
        const bool lastBroadcastOfBinary = binary && i == 1;
        if (!full[i] && !lastBroadcastOfBinary)
            tiles[i] = broadcastTile(c, tiles[i], rows, cols, from);
    }
    return tiles;
}

// Emits the tile op computing region r of op's result.
ValueId computeTile(Ctx& c, const Op& op, const Region& r, const Region* position,
                    const std::vector<bool>& privateOperand, int depth) {
    const Type& rt = c.src.type(op.result);
    const int64_t rows = rowsOf(r.extent), cols = colsOf(r.extent);
    if (op.kind == OpKind::Broadcast) {
        const Region rx = broadcastRegion(r, rt.shape, c.src.type(op.operands[0]).shape);
        // Nothing to expand inside this tile: the operand's tile is the result's tile.
        if (rowsOf(rx.extent) == rows && colsOf(rx.extent) == cols)
            return operandTile(c, op, 0, rx, position, privateOperand, depth);
    }
    std::vector<ValueId> operands = operandTiles(c, op, r, position, privateOperand, depth);
    return c.emit.tile(op.kind, std::move(operands), computeAttrs(op), rt.dtype, rows, cols,
                       op.result, r.offset, provenanceOf(op));
}

std::vector<DType> dtypesOf(const Ctx& c, const Op& op) {
    std::vector<DType> d;
    if (op.result != kNoId) d.push_back(c.src.type(op.result).dtype);
    const Shape& shape = c.src.type(op.result).shape;
    for (ValueId x : op.operands) {
        const Shape& xs = c.src.type(x).shape;
        // Operands broadcast along the last dim occupy a column only.
        if (xs.rank() == 0 || (xs.back() == 1 && shape.rank() && shape.back() != 1)) continue;
        d.push_back(c.src.type(x).dtype);
    }
    return d;
}

// Elementwise, scalar, unary, cast, cmp, where, broadcast and fill: one tile op per result
// tile, over the vec tile grid of the result.
void expandElementwise(Ctx& c, const Op& op) {
    const Type& rt = c.src.type(op.result);
    // An operand read as a block of rows other than all or one needs leading tile sizes of 1.
    auto blockBroadcast = [&](const Shape& t) {
        const Region r{zeros(t.rank()), t};
        for (ValueId x : op.operands) {
            const int64_t xr = rowsOf(broadcastRegion(r, rt.shape, c.src.type(x).shape).extent);
            if (xr != rowsOf(t) && xr != 1) return true;
        }
        return false;
    };
    const Shape tile = c.shapes.vecTile(op, rt.shape, dtypesOf(c, op), blockBroadcast);
    // Operands read by several result tiles at the same region get a copy per result tile.
    std::vector<bool> privateOperand;
    for (ValueId x : op.operands)
        privateOperand.push_back(readersPerRegion(rt.shape, tile, c.src.type(x).shape) > 1);
    forEachTile(rt.shape, tile, [&](const Region& r) {
        c.values.produce(op.result, r, computeTile(c, op, r, &r, privateOperand, 0));
    });
}

int normalisedAxis(Ctx& c, const Op& op, int rank) {
    const int64_t axis = op.attrs.getInt("axis", -1);
    if (rank == 0) c.shapes.fail(op, "cannot reduce a rank-0 tensor");
    if (axis < -rank || axis >= rank)
        c.shapes.fail(op, fmt::format("axis {} is out of range for a rank-{} tensor", axis, rank));
    return int(axis < 0 ? axis + rank : axis);
}

OpKind combinerOf(OpKind reduce) {
    switch (reduce) {
    case OpKind::ReduceMax:
        return OpKind::Max;
    case OpKind::ReduceMin:
        return OpKind::Min;
    default:
        return OpKind::Add;
    }
}

ValueId castTile(Ctx& c, ValueId tile, DType to, Provenance from) {
    if (tileDType(c, tile) == to) return tile;
    const Value& v = c.emit.fn().value(tile);
    const Shape shape = c.emit.type(tile).shape;
    const ValueId origin = v.origin;
    const Shape offset = v.offset;
    return c.emit.tile(OpKind::Cast, {tile}, {}, to, shape[0], shape[1], origin, offset, from);
}

// A reduction over an axis before the last two: every index along the axis is a whole tile
// of the other dims (leading tile sizes 1), combined elementwise in index order with
// add/max/min (a sum of any dtype but f32 in f32, rounded once at the end).
void expandOuterReduce(Ctx& c, const Op& op, int axis) {
    const ValueId x = op.operands[0];
    const Type& xt = c.src.type(x);
    const Type& yt = c.src.type(op.result);
    const int n = xt.shape.rank();
    const Shape tile =
        c.shapes.vecTile(op, xt.shape, {xt.dtype}, [](const Shape&) { return true; });
    for (int d = 0; d + 2 < n; ++d)
        if (tile[d] != 1)
            c.shapes.fail(op, fmt::format("vec tile {} spans several leading dims; a reduction "
                                          "over axis {} needs leading tile sizes of 1 (e.g. "
                                          "vec_tile = {})",
                                          tile.str(), axis, leadingOnes(tile)));
    const bool keepdim = op.attrs.getBool("keepdim", false);
    const bool sum = op.kind == OpKind::ReduceSum;
    const bool wide = sum && xt.shape[axis] > 1 && yt.dtype != DType::F32;
    const DType acc = wide ? DType::F32 : yt.dtype;
    const Provenance from = provenanceOf(op);
    Shape outer = xt.shape;
    outer[axis] = 1;
    forEachTile(outer, tile, [&](const Region& o) {
        Region yr{Shape{}, Shape{}};
        for (int d = 0; d < n; ++d) {
            if (d == axis && !keepdim) continue;
            yr.offset.push(o.offset[d]);
            yr.extent.push(o.extent[d]);
        }
        const int64_t rows = rowsOf(o.extent), cols = colsOf(o.extent);
        ValueId total = kNoId;
        for (int64_t k = 0; k < xt.shape[axis]; ++k) {
            Region in = o;
            in.offset[axis] = k;
            ValueId t = castTile(c, c.values.tileOf(x, in, from), acc, from);
            total = total == kNoId ? t
                                   : c.emit.tile(combinerOf(op.kind), {total, t}, {}, acc, rows,
                                                 cols, op.result, yr.offset, from);
        }
        if (c.emit.fn().value(total).origin != op.result) {
            // One index along the axis: the result is a copy of the operand's tile.
            Attrs one;
            one.set("scalar", 1.0);
            total = c.emit.tile(OpKind::MulS, {total}, one, acc, rows, cols, op.result, yr.offset,
                                from);
        }
        total = castTile(c, total, yt.dtype, from);
        c.values.produce(op.result, yr, total);
    });
}

// Reductions over the last axis (row reduce → [r×1]) or the second-last (column reduce →
// [1×c], tiles must have leading sizes 1). When the axis spans several tiles the partial
// results are combined in index order with add/max/min; a sum of any dtype but f32 then runs
// in f32 (inputs widened, partials and combine in f32, one rounding at the end).
void expandReduce(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& xt = c.src.type(x);
    const Type& yt = c.src.type(op.result);
    const int n = xt.shape.rank();
    const int axis = normalisedAxis(c, op, n);
    const bool row = axis == n - 1;
    if (!row && axis != n - 2) return expandOuterReduce(c, op, axis);
    const bool keepdim = op.attrs.getBool("keepdim", false);
    const bool sum = op.kind == OpKind::ReduceSum;
    const Shape tile =
        c.shapes.vecTile(op, xt.shape, {xt.dtype}, [&](const Shape&) { return !row || !keepdim; });
    for (int d = 0; d + 2 < n; ++d)
        if (tile[d] != 1 && (!row || !keepdim))
            c.shapes.fail(op, fmt::format("vec tile {} spans several leading dims; a {} "
                                          "needs leading tile sizes of 1 (e.g. vec_tile = {})",
                                          tile.str(),
                                          row ? "reduction without keepdim"
                                              : "reduction over the second-last axis",
                                          leadingOnes(tile)));
    const int64_t spans = (xt.shape[axis] + tile[axis] - 1) / tile[axis];
    // Partial sums stay in f32 (the precision rule: accumulate in f32, round once), also for
    // integers, whose partials would otherwise saturate.
    const bool wide = sum && spans > 1 && yt.dtype != DType::F32;
    const DType acc = wide ? DType::F32 : yt.dtype;
    const Provenance from = provenanceOf(op);
    Attrs attrs;
    attrs.set("axis", int64_t(row ? 1 : 0));
    attrs.set("keepdim", true);

    Shape outer = xt.shape, outerTile = tile;
    outer[axis] = 1;
    outerTile[axis] = 1;
    forEachTile(outer, outerTile, [&](const Region& o) {
        // The result region: keepdim keeps the axis at extent 1, otherwise it is dropped.
        Region yr{Shape{}, Shape{}};
        for (int d = 0; d < n; ++d) {
            if (d == axis && !keepdim) continue;
            yr.offset.push(o.offset[d]);
            yr.extent.push(o.extent[d]);
        }
        ValueId total = kNoId;
        for (int64_t k = 0; k < xt.shape[axis]; k += tile[axis]) {
            Region in = o;
            in.offset[axis] = k;
            in.extent[axis] = std::min(tile[axis], xt.shape[axis] - k);
            const int64_t rows = rowsOf(in.extent), cols = colsOf(in.extent);
            ValueId t = castTile(c, c.values.tileOf(x, in, from), acc, from);
            ValueId part = c.emit.tile(op.kind, {t}, attrs, acc, row ? rows : 1, row ? 1 : cols,
                                       op.result, yr.offset, from);
            total = total == kNoId
                        ? part
                        : c.emit.tile(combinerOf(op.kind), {total, part}, {}, acc, row ? rows : 1,
                                      row ? 1 : cols, op.result, yr.offset, from);
        }
        total = castTile(c, total, yt.dtype, from);
        const int64_t yRows = rowsOf(yr.extent), yCols = colsOf(yr.extent);
        if (c.emit.type(total).shape != Shape{yRows, yCols}) {
            // A row reduction without keepdim: the [r×1] column becomes the row [1×r].
            Attrs perm;
            perm.set("perm", Ints{1, 0});
            total = c.emit.tile(OpKind::Transpose, {total}, perm, yt.dtype, yRows, yCols, op.result,
                                yr.offset, from);
        }
        c.values.produce(op.result, yr, total);
    });
}

// Tile transpose of the last two dims (perm [.., n-1, n-2]); tiles need leading sizes 1.
void expandTileTranspose(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& yt = c.src.type(op.result);
    const int n = yt.shape.rank();
    const Shape tile =
        c.shapes.vecTile(op, yt.shape, {yt.dtype}, [](const Shape&) { return true; });
    for (int d = 0; d + 2 < n; ++d)
        if (tile[d] != 1)
            c.shapes.fail(op, fmt::format("vec tile {} spans several leading dims; a transpose "
                                          "of the last two dims needs leading tile sizes of 1 "
                                          "(e.g. vec_tile = {})",
                                          tile.str(), leadingOnes(tile)));
    const Shape& xs = c.src.type(x).shape;
    if (tile[n - 2] < yt.shape[n - 2] && (tile[n - 2] * dtypeSize(yt.dtype)) % kRowAlignBytes != 0)
        c.shapes.fail(op, fmt::format("vec tile {} reads source rows of {} elements ({} B of "
                                      "{}); they must be a multiple of {} B unless whole ({}): "
                                      "make the second-last vec_tile size a multiple of {}",
                                      tile.str(), tile[n - 2], tile[n - 2] * dtypeSize(yt.dtype),
                                      dtypeName(yt.dtype), kRowAlignBytes, xs[n - 1],
                                      kRowAlignBytes / dtypeSize(yt.dtype)));
    const Provenance from = provenanceOf(op);
    Attrs perm;
    perm.set("perm", Ints{1, 0});
    forEachTile(yt.shape, tile, [&](const Region& r) {
        Region rx = r;
        std::swap(rx.offset[n - 1], rx.offset[n - 2]);
        std::swap(rx.extent[n - 1], rx.extent[n - 2]);
        const ValueId src = c.values.tileOf(x, rx, from);
        ValueId t = c.emit.tile(OpKind::Transpose, {src}, perm, yt.dtype, rowsOf(r.extent),
                                colsOf(r.extent), op.result, r.offset, from);
        c.values.produce(op.result, r, t);
    });
}

// Copy of x into y's GM tensor with dims permuted (the last dim stays last): GM → UB → GM.
void expandPermutingCopy(Ctx& c, const Op& op, const Ints& perm) {
    const ValueId x = op.operands[0];
    const Type& yt = c.src.type(op.result);
    const int n = yt.shape.rank();
    const Provenance from = provenanceOf(op);
    const ValueId gm = c.values.destinationOf(op.result, from);
    const Home home = c.values.materialise(x);
    Shape tile = defaultCopyTile(yt.shape, yt.dtype);
    if (n >= 2 && perm[size_t(n - 2)] != n - 2) tile[n - 2] = 1;
    forEachTile(yt.shape, tile, [&](const Region& r) {
        Region rx = r;
        for (int d = 0; d < n; ++d) {
            rx.offset[int(perm[size_t(d)])] = r.offset[d];
            rx.extent[int(perm[size_t(d)])] = r.extent[d];
        }
        ValueId t = c.values.loadFresh(x, home, rx, from);
        c.emit.store(t, gm, r.offset, from);
    });
    c.values.setHome(op.result, Home{gm, HomeKind::Same, {}});
}

void expandTranspose(Ctx& c, const Op& op) {
    const int n = c.src.type(op.result).shape.rank();
    Ints perm = op.attrs.getInts("perm").value_or(Ints{});
    if (perm.empty() && n == 2) perm = {1, 0};
    Ints sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    Ints identity(static_cast<size_t>(n), 0);
    std::iota(identity.begin(), identity.end(), int64_t(0));
    if (sorted != identity)
        c.shapes.fail(op,
                      fmt::format("perm {} is not a permutation of the {} dims", listRef(perm), n));
    if (perm == identity) {
        c.values.setHome(op.result, c.values.materialise(op.operands[0]));
        return;
    }
    Ints swapLast = identity;
    if (n >= 2) std::swap(swapLast[size_t(n - 1)], swapLast[size_t(n - 2)]);
    if (perm == swapLast) return expandTileTranspose(c, op);
    if (perm[size_t(n - 1)] == n - 1) return expandPermutingCopy(c, op, perm);
    c.shapes.fail(op, fmt::format("transpose perm {} moves the last dim and is not a swap of "
                                  "the last two dims; not supported at Tile level",
                                  listRef(perm)));
}

// view (a slice): offset arithmetic on the loads of its consumers.
void expandView(Ctx& c, const Op& op) {
    const Type& xt = c.src.type(op.operands[0]);
    const Type& yt = c.src.type(op.result);
    const int n = xt.shape.rank();
    Ints offsets = op.attrs.getInts("offsets").value_or(Ints(size_t(n), 0));
    if (int(offsets.size()) != n || yt.shape.rank() != n)
        c.shapes.fail(op, fmt::format("view offsets {} do not match the rank {} of {}",
                                      listRef(offsets), n, typeRef(xt)));
    Home home = c.values.materialise(op.operands[0]);
    // A view of a reshaped tensor: give the reshape a workspace of its own first.
    if (home.kind == HomeKind::Rows) home = c.values.plainHome(op.operands[0], provenanceOf(op));
    Shape offset = home.kind == HomeKind::Offset ? home.offset : zeros(n);
    for (int d = 0; d < n; ++d) {
        offset[d] += offsets[size_t(d)];
        if (offsets[size_t(d)] < 0 || offsets[size_t(d)] + yt.shape[d] > xt.shape[d])
            c.shapes.fail(op, fmt::format("view at {} of size {} falls outside {}",
                                          listRef(offsets), yt.shape.str(), typeRef(xt)));
    }
    c.values.setHome(op.result, Home{home.gm, HomeKind::Offset, offset});
}

// reshape: same last dim → the two share their rows × cols view (offset arithmetic);
// otherwise a GM → UB → GM copy in runs that stay inside one row of both shapes.
void expandReshape(Ctx& c, const Op& op) {
    const ValueId x = op.operands[0];
    const Type& xt = c.src.type(x);
    const Type& yt = c.src.type(op.result);
    if (xt.shape.numel() != yt.shape.numel())
        c.shapes.fail(op, fmt::format("reshape of {} to {} changes the element count", typeRef(xt),
                                      typeRef(yt)));
    const Provenance from = provenanceOf(op);
    Home home = c.values.materialise(x);
    if (home.kind == HomeKind::Offset) home = c.values.plainHome(x, from);
    if (colsOf(xt.shape) == colsOf(yt.shape)) {
        c.values.setHome(op.result, Home{home.gm, HomeKind::Rows, {}});
        return;
    }
    const int64_t run = std::gcd(colsOf(xt.shape), colsOf(yt.shape));
    if (yt.shape.numel() / run > kMaxCopyTiles)
        c.shapes.fail(op, fmt::format("reshape of {} to {} changes the last dim and would need "
                                      "{} row-piece copies of {} elements; reshape so the last "
                                      "dims share a larger factor",
                                      typeRef(xt), typeRef(yt), yt.shape.numel() / run, run));
    const ValueId gm = c.values.destinationOf(op.result, from);
    const int64_t piece =
        std::min(run, std::max<int64_t>(1, kDefaultTileBytes / dtypeSize(yt.dtype)));
    auto regionAt = [](const Shape& shape, int64_t flat, int64_t len) {
        const int64_t cols = colsOf(shape);
        Region r{cornerAt(shape, flat / cols, flat % cols), shape};
        for (int d = 0; d < shape.rank(); ++d) r.extent[d] = 1;
        if (shape.rank()) r.extent[shape.rank() - 1] = len;
        return r;
    };
    for (int64_t flat = 0; flat < yt.shape.numel(); flat += run) {
        for (int64_t p = 0; p < run; p += piece) {
            const int64_t len = std::min(piece, run - p);
            ValueId t = c.values.loadFresh(x, home, regionAt(xt.shape, flat + p, len), from);
            c.emit.store(t, gm, regionAt(yt.shape, flat + p, len).offset, from);
        }
    }
    c.values.setHome(op.result, Home{gm, HomeKind::Same, {}});
}

// concat: every input written into the result's GM tensor at its place along the axis —
// straight from its on-chip tiles when they are consecutive rows there, else GM → UB → GM.
void expandConcat(Ctx& c, const Op& op) {
    const Type& yt = c.src.type(op.result);
    const int n = yt.shape.rank();
    const int64_t rawAxis = op.attrs.getInt("axis", 0);
    if (n == 0 || rawAxis < -n || rawAxis >= n)
        c.shapes.fail(op, fmt::format("axis {} is out of range for {}", rawAxis, typeRef(yt)));
    const int axis = int(rawAxis < 0 ? rawAxis + n : rawAxis);
    const Provenance from = provenanceOf(op);
    const ValueId gm = c.values.destinationOf(op.result, from);
    int64_t at = 0;
    for (ValueId x : op.operands) {
        Shape shift = zeros(n);
        shift[axis] = at;
        bool direct = !c.values.produced(x).empty();
        for (const auto& [region, tile] : c.values.produced(x))
            direct = direct && spansContiguousRows(yt.shape, region.extent);
        if (direct) {
            c.values.copyInto(x, gm, shift, from);
        } else {
            const Home home = c.values.materialise(x);
            const Type& xt = c.src.type(x);
            forEachTile(xt.shape, defaultCopyTile(xt.shape, xt.dtype), [&](const Region& r) {
                ValueId t = c.values.loadFresh(x, home, r, from);
                Shape o = r.offset;
                o[axis] += at;
                c.emit.store(t, gm, o, from);
            });
        }
        at += c.src.type(x).shape[axis];
    }
    c.values.setHome(op.result, Home{gm, HomeKind::Same, {}});
}

int64_t ceilDiv(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// Reserves room for the ops and values a matmul unrolls into (65k matmuls for 4096³).
void reserveMatmul(Function& f, const CubeTile& ct, int64_t m, int64_t k, int64_t n) {
    const int64_t blocks = ceilDiv(m, ct.m1) * ceilDiv(n, ct.n1);
    const int64_t accs = ceilDiv(ct.m1, ct.m0) * ceilDiv(ct.n1, ct.n0);
    const int64_t perK1 = 2 + accs * ceilDiv(ct.k1, ct.k0) * 3; // 2 tloads; tmove ×2 + matmul
    const int64_t values = blocks * ceilDiv(k, ct.k1) * perK1;
    f.reserve(size_t(values + blocks * accs), size_t(values));
}

// matmul on the cube core. Per output L1 block (m1, n1), per k L1 block: tload A [mL1×kL1]
// and B [kL1×nL1] into L1; per (m0, n0) accumulator and k L0 step: tmove the [mL0×kL0] and
// [kL0×nL0] sub-tiles and matmul / matmul_acc into the [mL0×nL0] f32 (i32 for i8) L0C
// accumulator; finally every accumulator is stored to the result's GM tensor (FIX converts
// to its dtype). Transposed operands load the transposed region and set the flag. A batched
// matmul (equal leading dims) repeats this per batch index; its regions and tile offsets carry
// the batch index in the leading dims (extent 1).
void expandMatmul(Ctx& c, const Op& op) {
    const ValueId a = op.operands[0], b = op.operands[1], y = op.result;
    const Type &at = c.src.type(a), &bt = c.src.type(b), &yt = c.src.type(y);
    const int rank = yt.shape.rank(), lead = rank - 2;
    if (rank < 2 || at.shape.rank() != rank || bt.shape.rank() != rank)
        c.shapes.fail(op, fmt::format("matmul needs operands and result of one rank >= 2, got "
                                      "{} x {} -> {}",
                                      typeRef(at), typeRef(bt), typeRef(yt)));
    Shape batch, mn{at.shape[lead], at.shape[lead + 1]}, kn{bt.shape[lead], bt.shape[lead + 1]};
    for (int d = 0; d < lead; ++d) batch.push(yt.shape[d]);
    const bool ta = op.attrs.getBool("transpose_a"), tb = op.attrs.getBool("transpose_b");
    const int64_t m = ta ? mn[1] : mn[0], k = ta ? mn[0] : mn[1];
    const int64_t kb = tb ? kn[1] : kn[0], n = tb ? kn[0] : kn[1];
    Shape want = batch;
    want.push(m);
    want.push(n);
    for (int d = 0; d < lead; ++d)
        if (at.shape[d] != batch[d] || bt.shape[d] != batch[d]) want = Shape{};
    if (k != kb || yt.shape != want)
        c.shapes.fail(op, fmt::format("shapes do not match: {} x {} -> {}", typeRef(at),
                                      typeRef(bt), typeRef(yt)));
    const CubeTile ct = c.shapes.cubeTile(op, m, k, n, at.dtype, bt.dtype);
    const DType acc = at.dtype == DType::I8 ? DType::I32 : DType::F32;
    const Provenance from = provenanceOf(op);
    const Home homeA = c.values.materialise(a), homeB = c.values.materialise(b);
    const ValueId gm = c.values.destinationOf(y, from);
    Attrs flags;
    if (ta) flags.set("transpose_a", true);
    if (tb) flags.set("transpose_b", true);
    // The batch index being expanded: the leading coordinates of every region and offset.
    Shape corner = zeros(lead);
    auto at2 = [&](int64_t i, int64_t j) {
        Shape s = corner;
        s.push(i);
        s.push(j);
        return s;
    };
    auto ones2 = [&](int64_t i, int64_t j) {
        Shape s;
        for (int d = 0; d < lead; ++d) s.push(1);
        s.push(i);
        s.push(j);
        return s;
    };
    // A region of an operand in its stored orientation: (i, j) with sizes (ri, rj) of the
    // logical [rows × cols] operand, swapped when the operand is stored transposed.
    auto region = [&](bool transposed, int64_t i, int64_t j, int64_t ri, int64_t rj) {
        return transposed ? Region{at2(j, i), ones2(rj, ri)} : Region{at2(i, j), ones2(ri, rj)};
    };
    auto move = [&](ValueId l1, ValueId origin, const Region& whole, const Region& sub) {
        return c.emit.tile(OpKind::TMove, {l1},
                           offsetAttr(Shape{sub.offset[lead] - whole.offset[lead],
                                            sub.offset[lead + 1] - whole.offset[lead + 1]}),
                           c.src.type(origin).dtype, sub.extent[lead], sub.extent[lead + 1], origin,
                           sub.offset, from);
    };
    reserveMatmul(c.emit.fn(), ct, m * batch.numel(), k, n);
    std::vector<ValueId> accs;
    for (int64_t bi = 0; bi < batch.numel(); ++bi) {
        int64_t rest = bi;
        for (int d = lead - 1; d >= 0; --d) {
            corner[d] = rest % batch[d];
            rest /= batch[d];
        }
        for (int64_t m1 = 0; m1 < m; m1 += ct.m1) {
            const int64_t mb = std::min(ct.m1, m - m1);
            for (int64_t n1 = 0; n1 < n; n1 += ct.n1) {
                const int64_t nb = std::min(ct.n1, n - n1);
                accs.assign(size_t(((mb + ct.m0 - 1) / ct.m0) * ((nb + ct.n0 - 1) / ct.n0)), kNoId);
                for (int64_t k1 = 0; k1 < k; k1 += ct.k1) {
                    const int64_t kbk = std::min(ct.k1, k - k1);
                    const Region ra = region(ta, m1, k1, mb, kbk), rb = region(tb, k1, n1, kbk, nb);
                    const ValueId la = c.values.loadFresh(a, homeA, ra, from);
                    const ValueId lb = c.values.loadFresh(b, homeB, rb, from);
                    size_t slot = 0;
                    for (int64_t m0 = m1; m0 < m1 + mb; m0 += ct.m0) {
                        const int64_t ms = std::min(ct.m0, m1 + mb - m0);
                        for (int64_t n0 = n1; n0 < n1 + nb; n0 += ct.n0, ++slot) {
                            const int64_t ns = std::min(ct.n0, n1 + nb - n0);
                            for (int64_t k0 = k1; k0 < k1 + kbk; k0 += ct.k0) {
                                const int64_t ks = std::min(ct.k0, k1 + kbk - k0);
                                const ValueId sa = move(la, a, ra, region(ta, m0, k0, ms, ks));
                                const ValueId sb = move(lb, b, rb, region(tb, k0, n0, ks, ns));
                                ValueId& cur = accs[slot];
                                cur = cur == kNoId
                                          ? c.emit.tile(OpKind::Matmul, {sa, sb}, flags, acc, ms,
                                                        ns, y, at2(m0, n0), from)
                                          : c.emit.tile(OpKind::MatmulAcc, {cur, sa, sb}, flags,
                                                        acc, ms, ns, y, at2(m0, n0), from);
                            }
                        }
                    }
                }
                size_t slot = 0;
                for (int64_t m0 = m1; m0 < m1 + mb; m0 += ct.m0)
                    for (int64_t n0 = n1; n0 < n1 + nb; n0 += ct.n0)
                        c.emit.store(accs[slot++], gm, at2(m0, n0), from);
            }
        }
    }
    c.values.setHome(y, Home{gm, HomeKind::Same, {}});
}

void expandOp(Ctx& c, const Op& op) {
    switch (opInfo(op.kind).cls) {
    case OpClass::Binary:
    case OpClass::Scalar:
    case OpClass::Unary:
    case OpClass::Select:
        return expandElementwise(c, op);
    case OpClass::Reduce:
        return expandReduce(c, op);
    case OpClass::Matmul:
        if (op.kind == OpKind::Matmul) return expandMatmul(c, op);
        break;
    case OpClass::Layout:
        switch (op.kind) {
        case OpKind::Broadcast:
        case OpKind::Fill:
            return expandElementwise(c, op);
        case OpKind::Transpose:
            return expandTranspose(c, op);
        case OpKind::View:
            return expandView(c, op);
        case OpKind::Reshape:
            return expandReshape(c, op);
        case OpKind::Concat:
            return expandConcat(c, op);
        default:
            break;
        }
        break;
    case OpClass::Composite:
        c.shapes.fail(op, "composite ops must be decomposed before expand-tiles (run "
                          "decompose-composites)");
    default:
        break;
    }
    c.shapes.fail(op, "is not a Tensor-level op; expand-tiles cannot lower it");
}

} // namespace

Function expandTiles(const Function& tensor, const TargetInfo& target, const std::string& file) {
    Function tile;
    tile.name = tensor.name;
    tile.level = Level::Tile;
    tile.loc = tensor.loc;
    TileEmitter emit(tile);
    TensorHomes values(tensor, emit, file);
    TileShapes shapes(tensor, target, file);
    Ctx ctx{tensor, emit, values, shapes};

    values.declareArguments();
    values.declareOutputs();
    for (ValueId a : tensor.args) values.finish(a);
    for (const Op& source : tensor.ops()) {
        if (isDirective(source.kind)) {
            shapes.enterDirective(source);
            continue;
        }
        expandOp(ctx, source);
        if (source.result != kNoId) values.finish(source.result);
    }
    return tile;
}

} // namespace pto
