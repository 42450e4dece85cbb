// The Block level: the Tile graph partitioned into block functions, each bound to one core
// type, with its on-chip buffers (space, address, size, live range) and the sync between its
// pipes. A block function's body is an ordered list of items: a tile op of the Tile function
// (by id) or a sync operation.
#pragma once

#include "compiler/ir/Exec.h"
#include "compiler/ir/Graph.h"
#include "compiler/ir/Printer.h"

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace pto {

enum class SyncKind : uint8_t { SetFlag, WaitFlag, Barrier, CrossSetFlag, CrossWaitFlag };
std::string_view syncKindName(SyncKind kind);

// set_flag(src→dst, event) runs on `src` after the producer; wait_flag(src→dst, event) runs on
// `dst` before the consumer. A barrier waits for all earlier instructions of pipe `src`.
// Cross-core flags of a fused cluster (insert-cross-flags): issued on pipe `src`, `event` the
// flag id (0..15), `peer` the core of the cluster signalled or awaited.
struct Sync {
    SyncKind kind = SyncKind::SetFlag;
    Pipe src = Pipe::S;
    Pipe dst = Pipe::S;
    uint8_t event = 0; // 0..7 (cross-core flags: 0..15)
    ClusterRole peer = ClusterRole::Aic;
    friend bool operator==(const Sync&, const Sync&) = default;
};

struct BlockItem {
    OpId op = kNoId; // a tile op, or kNoId for a sync item
    Sync sync;
    bool isSync() const { return op == kNoId; }
};

struct Buffer {
    uint32_t id = 0;
    MemSpace space = MemSpace::UB;
    int64_t addr = 0;      // byte offset in the space
    int64_t size = 0;      // bytes, aligned
    uint32_t firstUse = 0; // item index of the defining op
    uint32_t lastUse = 0;  // item index of the last reader
    ValueId value = kNoId; // the tile value held
    int slot = 0;          // double-buffer slot (0 or 1)
};

struct BlockFunction {
    uint32_t id = 0;
    std::string name;
    CoreType core = CoreType::AIV;
    uint32_t group = 0; // isomorphic group: block functions with the same instruction shape
    /// A fused cube-vector cluster this block belongs to (fuse-cube-vector), kNoCluster if none,
    /// and for an AIV block which of the cluster's two AIVs runs it.
    uint32_t cluster = kNoCluster;
    uint8_t sub = 0;
    std::vector<BlockItem> items;
    std::vector<Buffer> buffers;
};

// The Block level of a program: the final Tile function plus its partition.
struct BlockProgram {
    Function tile; // the Tile-level function the items refer to
    std::vector<BlockFunction> blocks;
    std::vector<uint32_t> blockOfOp; // tile op id → block id (kNoId for GM declarations)
    std::vector<uint32_t> bufferOf;  // tile value id → index into its block's buffers
    bool doubleBuffer = true;
    // The Tile function was written by hand (a Tile-level .pto): its tiles are the shapes of
    // its tload types, not a vec_tile / cube_tile choice (errors advise accordingly).
    bool handWritten = false;
    std::vector<std::string> notes; // remarks of the Block passes (single-buffer fallback…)
};

// The GM region a tload reads or a tstore writes: a rectangle of the GM tensor's 2-D view
// (rows = the product of the leading dims, cols = the last dim; row stride = cols).
struct GmRegion {
    ValueId tensor = kNoId;
    int64_t row = 0, col = 0;   // corner in the 2-D view
    int64_t rows = 0, cols = 0; // extent (the tile's rows × cols)
    bool write = false;         // tstore
    bool overlaps(const GmRegion& o) const {
        return tensor == o.tensor && row < o.row + o.rows && o.row < row + rows &&
               col < o.col + o.cols && o.col < col + cols;
    }
};

// The Tile ops that move data between GM and a tile: tload, tstore, gather and tscatter_add.
inline bool readsOrWritesGm(OpKind kind) {
    return kind == OpKind::TLoad || kind == OpKind::TStore || kind == OpKind::Gather ||
           kind == OpKind::TScatterAdd;
}

// The region of a tload/tstore from its `offset` attr (absent = the origin) and its tile's
// shape; a gather's or tscatter_add's region is its column strip over every row of the tensor.
// Throws CompileError (naming the op) when the tile does not lie inside the tensor.
inline GmRegion gmRegionOf(const Function& tile, const Op& op) {
    const bool store = op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd;
    GmRegion r;
    r.write = store;
    r.tensor = store ? op.operands.at(1) : op.operands.at(0);
    const Shape& tileShape = tile.type(store ? op.operands[0] : op.result).shape;
    const Shape& gm = tile.type(r.tensor).shape;
    // The attr read in place (this runs for every GM access in several passes: no copy).
    const AttrValue* attr = op.attrs.find("offset");
    const std::vector<int64_t>* given = attr ? std::get_if<std::vector<int64_t>>(attr) : nullptr;
    std::vector<int64_t> origin;
    if (!given || given->empty()) origin.assign(size_t(gm.rank()), 0);
    const std::vector<int64_t>& offset = given && !given->empty() ? *given : origin;
    r.rows = tileShape.rows();
    r.cols = tileShape.cols();
    if (op.kind == OpKind::TScatterAdd) r.rows = gm.rows(); // any row: the index decides
    if (op.kind == OpKind::Gather) // any row of the matrix its leading offsets pick
        r.rows = gm.rank() >= 2 ? gm[gm.rank() - 2] : gm.rows();
    bool ok = int(offset.size()) == gm.rank();
    for (int d = 0; ok && d + 1 < gm.rank(); ++d) {
        ok = offset[d] >= 0 && offset[d] < gm[d];
        r.row = r.row * gm[d] + (ok ? offset[d] : 0);
    }
    if (ok && gm.rank() > 0) r.col = offset.back();
    ok = ok && r.col >= 0 && r.col + r.cols <= gm.cols() && r.row + r.rows <= gm.rows();
    if (!ok) {
        std::string msg(opName(op.kind));
        msg += ": tile " + tileShape.str() + " at offset [";
        for (size_t i = 0; i < offset.size(); ++i)
            msg += (i ? ", " : "") + std::to_string(offset[i]);
        msg += "] does not lie inside GM tensor %";
        msg += NameTable(tile)[r.tensor];
        msg += " of shape " + gm.str() + " as a 2-D region (rows × cols with a row stride)";
        throw CompileError({}, op.loc, msg);
    }
    return r;
}

// The GM values of a Tile function in layout order: arguments, then the function's results,
// then the remaining `gm_tensor` values (workspaces) in program order, except those a pass
// retired (attr `retired`: fuse-cube-vector moved every access into ping-pong workspaces). The
// position in this list is the GM tensor index of TaskDep::tensor and of PtoProgram::gm.
inline std::vector<ValueId> gmLayoutOrder(const Function& tile) {
    std::vector<ValueId> order;
    std::unordered_set<ValueId> seen;
    auto add = [&](ValueId v) {
        if (v != kNoId && seen.insert(v).second) order.push_back(v);
    };
    for (ValueId v : tile.args) add(v);
    for (ValueId v : tile.results)
        if (tile.type(v).space == MemSpace::GM) add(v);
    for (const Op& op : tile.ops())
        if (op.kind == OpKind::GmTensor && !op.attrs.getBool("retired")) add(op.result);
    return order;
}

} // namespace pto
