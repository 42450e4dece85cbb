// Block level: linear-scan buffer allocation with in-place accumulation and double buffering.
#include "compiler/passes/AllocateBuffers.h"

#include "compiler/ir/Placement.h"
#include "compiler/ir/Printer.h"
#include "compiler/passes/OrderInstructions.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <exception>
#include <map>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace pto {
namespace {

constexpr MemSpace kSpaces[] = {MemSpace::L1, MemSpace::L0A, MemSpace::L0B, MemSpace::L0C,
                                MemSpace::UB};

// The value as the printer shows it (error paths only: builds the function's name table).
std::string valueName(const Function& f, ValueId v) {
    std::string s(1, '%');
    s += NameTable(f)[v];
    return s;
}

std::string formatBytes(int64_t bytes) {
    if (bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
    if (bytes > 1024) return fmt::format("{:.1f} KiB", double(bytes) / 1024.0);
    return fmt::format("{} B", bytes);
}

constexpr int32_t kNever = -1;
constexpr int32_t kAnyTime = INT32_MAX;

// Per pipe, an item index (kNever = no such access).
using PipeTimes = std::array<int32_t, kPipeCount>;

PipeTimes never() {
    PipeTimes t;
    t.fill(kNever);
    return t;
}

// One buffer to place: a tile value, or a chain of matmul_acc results sharing its memory.
struct Interval {
    ValueId head = kNoId;
    MemSpace space = MemSpace::UB;
    int64_t size = 0;
    uint32_t def = 0;     // item index of the defining op
    uint32_t lastUse = 0; // item index of the last reader (def if none)
    Pipe pipe = Pipe::S;  // pipe of the defining op
    PipeTimes lastRead = never();
    // busy[q]: the last access from a pipe other than q — what a writer on q reusing this
    // memory would wait for (the last readers; the writer itself if nobody reads).
    PipeTimes busy = never();
    // Reuse only memory with busy[pipe] < threshold (kAnyTime: any dead memory).
    int32_t threshold = kAnyTime;
    int slot = 0;
    uint32_t prefer = kNoId; // earlier interval of the same role and slot: try its address
    int64_t addr = -1;
};

// busy[q] from the last reads per pipe (or the write, for a value nobody reads).
void setBusy(Interval& iv) {
    const bool read =
        std::any_of(iv.lastRead.begin(), iv.lastRead.end(), [](int32_t t) { return t != kNever; });
    for (int q = 0; q < kPipeCount; ++q) {
        if (!read) {
            iv.busy[q] = q == int(iv.pipe) ? kNever : int32_t(iv.def);
            continue;
        }
        for (int p = 0; p < kPipeCount; ++p)
            if (p != q) iv.busy[q] = std::max(iv.busy[q], iv.lastRead[p]);
    }
}

// Liveness of the tile values of one block and their grouping into intervals.
struct Liveness {
    std::vector<Interval> intervals; // in def order
    std::vector<ValueId> values;     // tile values defined in the block
};

Liveness analyse(const Function& tile, const BlockFunction& block, const TargetInfo& target,
                 std::vector<uint32_t>& intervalOf, std::vector<uint32_t>& lastAt) {
    Liveness live;
    for (uint32_t t = 0; t < block.items.size(); ++t) {
        if (block.items[t].isSync()) continue;
        for (ValueId v : tile.op(block.items[t].op).operands)
            if (tile.type(v).isTile()) lastAt[v] = t;
    }
    for (uint32_t t = 0; t < block.items.size(); ++t) {
        if (block.items[t].isSync()) continue;
        const Op& op = tile.op(block.items[t].op);
        const Pipe pipe = placeTileOp(tile, op).pipe;
        for (ValueId v : op.operands)
            if (tile.type(v).isTile() && intervalOf[v] != kNoId)
                live.intervals[intervalOf[v]].lastRead[int(pipe)] = int32_t(t);
        if (op.result == kNoId || !tile.type(op.result).isTile()) continue;
        const ValueId r = op.result;
        const uint32_t last = lastAt[r] == kNoId ? t : lastAt[r];
        live.values.push_back(r);
        if (op.kind == OpKind::MatmulAcc && !op.operands.empty()) {
            ValueId acc = op.operands[0];
            uint32_t i = intervalOf[acc];
            if (i != kNoId && lastAt[acc] == t && tile.type(acc).bytes() == tile.type(r).bytes() &&
                tile.type(acc).space == tile.type(r).space) {
                intervalOf[r] = i;
                live.intervals[i].lastUse = std::max(live.intervals[i].lastUse, last);
                continue;
            }
        }
        Interval iv;
        iv.head = r;
        iv.space = tile.type(r).space;
        const Type& type = tile.type(r);
        iv.size = target.tileFootprint(type.space, type.shape.rows(), type.shape.cols(),
                                       dtypeSize(type.dtype));
        iv.def = t;
        iv.lastUse = last;
        iv.pipe = pipe;
        intervalOf[r] = uint32_t(live.intervals.size());
        live.intervals.push_back(iv);
    }
    for (Interval& iv : live.intervals) setBusy(iv);
    return live;
}

// Role of a buffer for double buffering: values of a role alternate between two copies. For
// vector results the Tensor value a tile covers (its origin) is part of the role, so that two
// ops of one kind in a chain (gelu's two muls) are two roles, each alternating from tile to
// tile; otherwise the second counts the first of its own chain as "the previous value of the
// role" and may reuse memory the previous chain's store still reads (V waits for MTE3: gelu
// 4096×11008 ran 30 % slower). Loads keep the coarser role: separate pairs for every tload
// cost more UB than they save (attention's 32 KiB score and mask tiles ran 10 % slower).
// The shape is compared by its extents (a formatted string per buffer cost more than the
// allocation around it).
using ShapeKey = std::array<int64_t, Shape::kMaxRank + 1>; // rank, then the extents
using RoleKey = std::tuple<uint8_t, uint16_t, uint8_t, ShapeKey, ValueId>;

ShapeKey shapeKey(const Shape& s) {
    ShapeKey k{};
    k[0] = s.rank();
    std::copy(s.begin(), s.end(), k.begin() + 1);
    return k;
}

// Roles are only looked up, never walked in order: a hash map (a std::map compared the shapes'
// extents at every level of the tree).
struct RoleKeyHash {
    size_t operator()(const RoleKey& k) const {
        const auto& [space, kind, dtype, shape, origin] = k;
        size_t h = std::hash<uint64_t>()(uint64_t(space) << 32 | uint64_t(kind) << 16 | dtype);
        auto mix = [&h](uint64_t v) {
            h ^= std::hash<uint64_t>()(v) + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2);
        };
        for (int64_t d : shape) mix(uint64_t(d));
        mix(origin);
        return h;
    }
};

RoleKey roleOf(const Function& tile, const Interval& iv) {
    const Value& v = tile.value(iv.head);
    const Type& t = tile.type(iv.head);
    const Op& def = *tile.producer(iv.head);
    const ValueId origin = iv.pipe == Pipe::V ? v.origin : kNoId;
    return {uint8_t(iv.space), uint16_t(def.kind), uint8_t(t.dtype), shapeKey(t.shape), origin};
}

// Free address ranges of one space. Each range remembers, per pipe, until when other pipes
// used it (PipeTimes like Interval::busy); adjacent ranges with equal tags are merged.
class FreeList {
public:
    explicit FreeList(int64_t capacity) { m_free[0] = {capacity, never()}; }

    // First fit among ranges a writer on `pipe` with `threshold` may reuse.
    int64_t take(int64_t size, Pipe pipe, int32_t threshold) {
        int64_t runStart = -1, runEnd = -1;
        for (const auto& [addr, r] : m_free) {
            if (r.busy[int(pipe)] >= threshold) {
                runStart = -1;
                continue;
            }
            if (runStart < 0 || runEnd != addr) runStart = addr;
            runEnd = addr + r.size;
            if (runEnd - runStart >= size) {
                carve(runStart, runStart + size);
                return runStart;
            }
        }
        return -1;
    }
    // Takes [addr, addr + size) if all of it is free and reusable.
    bool takeAt(int64_t addr, int64_t size, Pipe pipe, int32_t threshold) {
        auto it = m_free.upper_bound(addr);
        if (it == m_free.begin()) return false;
        --it;
        for (int64_t covered = it->first; covered < addr + size; ++it) {
            if (it == m_free.end() || it->first != covered ||
                it->second.busy[int(pipe)] >= threshold)
                return false;
            covered += it->second.size;
        }
        carve(addr, addr + size);
        return true;
    }
    void give(int64_t addr, int64_t size, const PipeTimes& busy) {
        m_free[addr] = {size, forgotten(busy)};
        mergeAround(m_free.find(addr));
    }
    // Times before `floor` can no longer matter to any later writer: forget them and merge.
    // The floor never decreases; ranges given back meanwhile were forgotten as they came, so
    // only a new floor walks the list.
    void forgetBefore(int32_t floor) {
        if (floor == m_floor) return;
        m_floor = floor;
        for (auto& [addr, r] : m_free) r.busy = forgotten(r.busy);
        for (auto it = m_free.begin(); it != m_free.end();) it = std::next(mergeAround(it));
    }
    int64_t largest() const {
        int64_t best = 0, runStart = -1, runEnd = -1;
        for (const auto& [addr, r] : m_free) {
            if (runStart < 0 || runEnd != addr) runStart = addr;
            runEnd = addr + r.size;
            best = std::max(best, runEnd - runStart);
        }
        return best;
    }

private:
    struct Range {
        int64_t size = 0;
        PipeTimes busy;
    };

    // Removes [lo, hi) (free, possibly spanning several ranges) from the list.
    void carve(int64_t lo, int64_t hi) {
        auto it = std::prev(m_free.upper_bound(lo));
        while (it != m_free.end() && it->first < hi) {
            const int64_t a = it->first, b = a + it->second.size;
            const PipeTimes busy = it->second.busy;
            it = m_free.erase(it);
            if (a < lo) m_free[a] = {lo - a, busy};
            if (b > hi) {
                m_free[hi] = {b - hi, busy};
                break;
            }
        }
    }
    // Merges `it` with equal-tagged adjacent neighbours; returns the merged range.
    std::map<int64_t, Range>::iterator mergeAround(std::map<int64_t, Range>::iterator it) {
        auto next = std::next(it);
        if (next != m_free.end() && it->first + it->second.size == next->first &&
            next->second.busy == it->second.busy) {
            it->second.size += next->second.size;
            m_free.erase(next);
        }
        if (it != m_free.begin()) {
            auto prev = std::prev(it);
            if (prev->first + prev->second.size == it->first &&
                prev->second.busy == it->second.busy) {
                prev->second.size += it->second.size;
                m_free.erase(it);
                return prev;
            }
        }
        return it;
    }

    PipeTimes forgotten(PipeTimes busy) const {
        for (int32_t& t : busy)
            if (t < m_floor) t = kNever;
        return busy;
    }

    std::map<int64_t, Range> m_free; // addr → range
    int32_t m_floor = INT32_MIN;     // of the last forgetBefore
};

struct Failure {
    uint32_t interval = kNoId;
    int64_t live = 0;
    int64_t largestFree = 0;
};

// Places the intervals `ids` (one space, in def order) by linear scan; on failure returns
// which interval did not fit and the state at that point.
Failure placeSpace(std::vector<Interval>& ivs, const std::vector<uint32_t>& ids, int64_t capacity) {
    // floor[i]: the smallest threshold of the intervals from i on.
    std::vector<int32_t> floor(ids.size() + 1, kAnyTime);
    for (size_t i = ids.size(); i-- > 0;) floor[i] = std::min(floor[i + 1], ivs[ids[i]].threshold);
    using Active = std::pair<uint32_t, uint32_t>; // (lastUse, interval)
    std::priority_queue<Active, std::vector<Active>, std::greater<>> active;
    FreeList free(capacity);
    int64_t live = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
        Interval& iv = ivs[ids[i]];
        while (!active.empty() && active.top().first < iv.def) {
            const Interval& dead = ivs[active.top().second];
            free.give(dead.addr, dead.size, dead.busy);
            live -= dead.size;
            active.pop();
        }
        free.forgetBefore(floor[i]);
        // Same role and slot as an earlier interval: its address if free (stable ping-pong
        // addresses), else first fit.
        const int64_t preferred = iv.prefer == kNoId ? -1 : ivs[iv.prefer].addr;
        iv.addr = preferred >= 0 && free.takeAt(preferred, iv.size, iv.pipe, iv.threshold)
                      ? preferred
                      : free.take(iv.size, iv.pipe, iv.threshold);
        if (iv.addr < 0) return {ids[i], live, free.largest()};
        live += iv.size;
        active.push({iv.lastUse, ids[i]});
    }
    return {};
}

// Sets each interval's threshold, slot and preferred address. Single buffering: any dead
// memory, preferring the previous interval of the role. Double buffering: only memory that
// other pipes were done with before the previous interval of the role was defined (so the
// producer of tile i+1 never waits for tile i), preferring the interval before (same slot).
void assignRoles(const Function& tile, std::vector<Interval>& ivs, const std::vector<uint32_t>& ids,
                 bool doubleBuffer) {
    struct History {
        uint32_t last = kNoId, beforeLast = kNoId;
        int count = 0;
    };
    std::unordered_map<RoleKey, History, RoleKeyHash> roles;
    for (uint32_t id : ids) {
        Interval& iv = ivs[id];
        History& h = roles[roleOf(tile, iv)];
        iv.threshold = doubleBuffer && h.last != kNoId ? int32_t(ivs[h.last].def) : kAnyTime;
        iv.slot = doubleBuffer ? h.count % 2 : 0;
        iv.prefer = doubleBuffer ? h.beforeLast : h.last;
        iv.addr = -1;
        h = {id, h.last, h.count + 1};
    }
}

// What makes the tiles smaller: a directive for a program the compiler tiled, the tile types
// for a hand-written Tile-level program (which has no directives).
std::string_view noFitAdvice(const BlockProgram& program, MemSpace space) {
    if (program.handWritten)
        return space == MemSpace::UB
                   ? "load smaller tiles: give the tload a tile type of fewer rows or columns "
                     "(such as tile<16x1024xf32, UB>) and cover the tensor with more of them, "
                     "in a loop over the blocks"
                   : "use smaller tiles: fewer rows or columns in the tile types of the tload "
                     "into L1 and of the tmove into L0A / L0B, or fewer live at once";
    return space == MemSpace::UB
               ? "give the ops of this chain a smaller vec_tile (fewer rows per tile; for a "
                 "reduction over the second-last axis, whole columns in a narrow strip)"
               : "reduce cube_tile";
}

[[noreturn]] void throwNoFit(const BlockProgram& program, const BlockFunction& block,
                             const Interval& iv, const Failure& f, int64_t capacity,
                             const std::string& file) {
    const Function& tile = program.tile;
    const Op& op = *tile.producer(iv.head);
    const Type& t = tile.type(iv.head);
    throw NoFitError(
        file, op.loc,
        fmt::format("{} {}: tile {}x{} ({}) does not fit {} in block '{}' even single-buffered: "
                    "capacity {}, {} live at this point, largest free range {}; {}",
                    opName(op.kind), valueName(tile, iv.head), t.shape.str(), dtypeName(t.dtype),
                    formatBytes(iv.size), memSpaceName(iv.space), block.name, formatBytes(capacity),
                    formatBytes(f.live), formatBytes(f.largestFree),
                    noFitAdvice(program, iv.space)));
}

// Internal check: buffers of one space whose live ranges intersect must not share bytes.
void checkNoOverlap(const BlockFunction& block) {
    for (MemSpace space : kSpaces) {
        std::vector<const Buffer*> bufs;
        for (const Buffer& b : block.buffers)
            if (b.space == space) bufs.push_back(&b);
        std::sort(bufs.begin(), bufs.end(),
                  [](const Buffer* a, const Buffer* b) { return a->firstUse < b->firstUse; });
        std::multimap<uint32_t, const Buffer*> byEnd; // live buffers by lastUse
        std::map<int64_t, const Buffer*> byAddr;      // live buffers by address
        for (const Buffer* b : bufs) {
            while (!byEnd.empty() && byEnd.begin()->first < b->firstUse) {
                byAddr.erase(byEnd.begin()->second->addr);
                byEnd.erase(byEnd.begin());
            }
            auto next = byAddr.lower_bound(b->addr);
            const Buffer* clash = nullptr;
            if (next != byAddr.end() && next->first < b->addr + b->size) clash = next->second;
            if (next != byAddr.begin() &&
                std::prev(next)->first + std::prev(next)->second->size > b->addr)
                clash = std::prev(next)->second;
            if (clash)
                throw CompileError({}, {},
                                   fmt::format("internal: buffers #{} and #{} of block '{}' "
                                               "overlap in {} while both live",
                                               clash->id, b->id, block.name, memSpaceName(space)));
            byAddr[b->addr] = b;
            byEnd.emplace(b->lastUse, b);
        }
    }
}

// Places one space of a block: double-buffered if asked and possible, else single-buffered
// (with a note), else a CompileError.
void allocateSpace(BlockProgram& program, const BlockFunction& block, std::vector<Interval>& ivs,
                   const std::vector<uint32_t>& ids, MemSpace space, const TargetInfo& target,
                   const std::string& file, bool describe) {
    const Function& tile = program.tile;
    const int64_t capacity = target.capacity(space);
    assignRoles(tile, ivs, ids, program.doubleBuffer);
    Failure f = placeSpace(ivs, ids, capacity);
    if (f.interval != kNoId && program.doubleBuffer) {
        const Op& at = *tile.producer(ivs[f.interval].head);
        program.notes.push_back(fmt::format(
            "block '{}': {} does not fit double-buffered ({} at {}:{} needs {} beside the "
            "previous tile's buffers, {} live); single-buffered",
            block.name, memSpaceName(space), opName(at.kind), at.loc.line, at.loc.col,
            formatBytes(ivs[f.interval].size), formatBytes(f.live)));
        assignRoles(tile, ivs, ids, false);
        f = placeSpace(ivs, ids, capacity);
    }
    if (f.interval == kNoId) return;
    if (!describe) throw NoFitError(file, {}, "does not fit"); // the caller may retry
    throwNoFit(program, block, ivs[f.interval], f, capacity, file);
}

// Clears what allocating `block` left in the per-value scratch arrays (after it, or a failure).
void forgetBlock(const Function& tile, const BlockFunction& block,
                 std::vector<uint32_t>& intervalOf, std::vector<uint32_t>& lastAt) {
    for (const BlockItem& item : block.items) {
        if (item.isSync()) continue;
        const Op& op = tile.op(item.op);
        for (ValueId v : op.operands) lastAt[v] = kNoId;
        if (op.result != kNoId) intervalOf[op.result] = lastAt[op.result] = kNoId;
    }
}

// Allocates `block` in its current order. `describe`: a failure to fit throws the error naming
// the value (building the function's name table: ~30 ms on a 1 M-value function), else a bare
// NoFitError for a caller that retries first.
void allocateInOrder(BlockProgram& program, BlockFunction& block, const TargetInfo& target,
                     const std::string& file, std::vector<uint32_t>& intervalOf,
                     std::vector<uint32_t>& lastAt, bool describe) {
    const Function& tile = program.tile;
    Liveness live = analyse(tile, block, target, intervalOf, lastAt);
    std::vector<Interval>& ivs = live.intervals;
    for (MemSpace space : kSpaces) {
        std::vector<uint32_t> ids;
        for (uint32_t i = 0; i < ivs.size(); ++i)
            if (ivs[i].space == space) ids.push_back(i);
        if (!ids.empty()) allocateSpace(program, block, ivs, ids, space, target, file, describe);
    }
    block.buffers.clear();
    block.buffers.reserve(ivs.size());
    for (uint32_t i = 0; i < ivs.size(); ++i) {
        const Interval& iv = ivs[i];
        block.buffers.push_back(
            {i, iv.space, iv.addr, iv.size, iv.def, iv.lastUse, iv.head, iv.slot});
    }
    for (ValueId v : live.values) program.bufferOf[v] = intervalOf[v];
    forgetBlock(tile, block, intervalOf, lastAt);
    checkNoOverlap(block);
}

// A block that does not fit in its depth-first order is tried in program order, then with every
// op's readers run as soon as they are ready (order-instructions' fallbacks); fused blocks keep
// the order fuse-cube-vector gave them. If none fits, the error is the first one (the order the
// Block stages show).
void allocateBlock(BlockProgram& program, BlockFunction& block, const TargetInfo& target,
                   const std::string& file, std::vector<uint32_t>& intervalOf,
                   std::vector<uint32_t>& lastAt) {
    const size_t notes = program.notes.size();
    try {
        allocateInOrder(program, block, target, file, intervalOf, lastAt, false);
        return;
    } catch (const CompileError&) {
        forgetBlock(program.tile, block, intervalOf, lastAt);
    }
    const std::vector<BlockItem> depthFirst = block.items;
    // Each fallback order in turn: true when the block fits in it.
    auto fitsIn = [&](bool reordered) {
        if (!reordered) return false;
        try {
            program.notes.resize(notes);
            allocateInOrder(program, block, target, file, intervalOf, lastAt, false);
            return true;
        } catch (const CompileError&) {
            forgetBlock(program.tile, block, intervalOf, lastAt);
            block.items = depthFirst;
            return false;
        }
    };
    const char* order = nullptr;
    if (block.cluster == kNoCluster) {
        if (fitsIn(reorderInProgramOrder(block)))
            order = "program order";
        else if (fitsIn(reorderEagerly(program.tile, block)))
            order = "an order that runs each op's readers as soon as they are ready";
    }
    if (!order) { // the depth-first attempt again, for its error described
        program.notes.resize(notes);
        allocateInOrder(program, block, target, file, intervalOf, lastAt, true);
        throw std::logic_error("allocate-buffers: a block that did not fit fits when retried");
    }
    program.notes.push_back(fmt::format("block '{}': does not fit in depth-first order; "
                                        "allocated in {}",
                                        block.name, order));
}

} // namespace

void allocateBuffers(BlockProgram& program, const TargetInfo& target, const std::string& file) {
    const size_t values = program.tile.valueCount();
    program.bufferOf.assign(values, kNoId);
    std::vector<uint32_t> intervalOf(values, kNoId), lastAt(values, kNoId);
    for (BlockFunction& block : program.blocks)
        allocateBlock(program, block, target, file, intervalOf, lastAt);
}

} // namespace pto
