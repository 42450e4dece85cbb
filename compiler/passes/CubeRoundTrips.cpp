// expand-tiles without cube round trips: finding the vector chains on both sides of a cube op
// and the GM reads that split them (see CubeRoundTrips.h).
#include "compiler/passes/CubeRoundTrips.h"

#include "compiler/ir/Block.h"
#include "compiler/passes/AssignMemory.h"
#include "compiler/passes/EliminateDeadCode.h"
#include "compiler/passes/ExpandTiles.h"
#include "compiler/passes/UnionFind.h"

#include <unordered_set>

namespace pto {
namespace {

// Rounds of splitting before partition-blocks is left to report what remains.
constexpr int kMaxRounds = 4;

bool isCube(OpKind k) {
    return opInfo(k).cls == OpClass::Matmul;
}

// The GM tensor `op` writes (tstore, tscatter_add), or kNoId.
ValueId gmWritten(const Op& op) {
    const bool writes = op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd;
    return writes ? op.operands.at(1) : kNoId;
}

// The ops of one vector chain that come after the cube: reached on chip from its reads (loads,
// gathers) of `fromCube`.
std::unordered_set<OpId> afterTheCube(const Function& tile, const TileChain& chain,
                                      const std::unordered_set<ValueId>& fromCube) {
    const std::unordered_set<OpId> in(chain.ops.begin(), chain.ops.end());
    std::unordered_set<OpId> after;
    // The chain's ops are in program order, and on-chip operands are produced earlier: one
    // forward sweep reaches everything.
    for (OpId id : chain.ops) {
        const Op& op = tile.op(id);
        bool reached = (op.kind == OpKind::TLoad || op.kind == OpKind::Gather) &&
                       fromCube.count(op.operands.at(0));
        for (ValueId v : op.operands) {
            const Value& value = tile.value(v);
            reached = reached || (value.def != kNoId && value.type.space != MemSpace::GM &&
                                  in.count(value.def) && after.count(value.def));
        }
        if (reached) after.insert(id);
    }
    return after;
}

// afterTheCube of every vector chain of `cycle`, where `fromCube` grows to a fixed point: the
// GM tensors the cube chains write, then those written by ops after the cube (the cube's
// product may reach a chain through another vector chain and GM).
std::vector<std::unordered_set<OpId>> opsAfterTheCube(const Function& tile,
                                                      const std::vector<TileChain>& cycle) {
    std::unordered_set<ValueId> fromCube;
    for (const TileChain& chain : cycle)
        if (chain.core == CoreType::AIC)
            for (OpId id : chain.ops)
                if (ValueId gm = gmWritten(tile.op(id)); gm != kNoId) fromCube.insert(gm);
    std::vector<std::unordered_set<OpId>> after(cycle.size());
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t c = 0; c < cycle.size(); ++c) {
            if (cycle[c].core != CoreType::AIV) continue;
            after[c] = afterTheCube(tile, cycle[c], fromCube);
            for (OpId id : after[c])
                if (ValueId gm = gmWritten(tile.op(id)); gm != kNoId)
                    grew = fromCube.insert(gm).second || grew;
        }
    }
    return after;
}

} // namespace

GmReads cubeRoundTripReads(const Function& tile, const std::vector<TileChain>& cycle) {
    const std::vector<std::unordered_set<OpId>> afterOf = opsAfterTheCube(tile, cycle);
    GmReads reads;
    for (const std::unordered_set<OpId>& after : afterOf) {
        for (OpId id : after) {
            const Op& op = tile.op(id);
            for (ValueId v : op.operands) {
                const Value& value = tile.value(v);
                if (value.def == kNoId || value.type.space == MemSpace::GM ||
                    after.count(value.def))
                    continue;
                if (value.origin != kNoId && op.parent != kNoId)
                    reads.insert({value.origin, op.parent});
            }
        }
    }
    return reads;
}

bool mayRoundTripThroughCube(const Function& tensor) {
    const auto& ops = tensor.ops();
    std::vector<std::vector<OpId>> readers(tensor.valueCount());
    for (const Op& op : ops)
        for (ValueId v : op.operands) readers[v].push_back(op.id);
    // Vector ops are linked through the vector ops they read, and through every value two of
    // them read (they may share its tile loads: an index read by a gather and a scatter_add).
    UnionFind vector(ops.size());
    for (const Op& op : ops) {
        if (isCube(op.kind)) continue;
        for (ValueId v : op.operands)
            if (const Op* p = tensor.producer(v); p && !isCube(p->kind)) vector.unite(op.id, p->id);
    }
    for (const std::vector<OpId>& of : readers) {
        OpId first = kNoId;
        for (OpId r : of) {
            if (isCube(ops[r].kind)) continue;
            if (first == kNoId) first = r;
            vector.unite(first, r);
        }
    }
    for (const Op& mm : ops) {
        if (!isCube(mm.kind) || mm.result == kNoId) continue;
        std::unordered_set<uint32_t> before;
        for (ValueId v : mm.operands)
            if (const Op* p = tensor.producer(v); p && !isCube(p->kind))
                before.insert(vector.find(p->id));
        for (OpId r : readers[mm.result])
            if (!isCube(ops[r].kind) && before.count(vector.find(r))) return true;
    }
    return false;
}

Function expandTilesAvoidingCubeRoundTrips(const Function& tensor, const TargetInfo& target,
                                           const std::string& file) {
    Function tile = expandTiles(tensor, target, file);
    if (!mayRoundTripThroughCube(tensor) || !mayHaveMixedGmCycle(tile)) return tile;
    GmReads reads;
    for (int round = 0; round < kMaxRounds; ++round) {
        Function probe = tile;
        std::vector<TileChain> cycle;
        try { // as partition-blocks will see it (insert-copies leaves expand-tiles' output as is)
            assignMemory(probe, target, file);
            eliminateDeadCode(probe);
            cycle = mixedGmCycle(probe);
        } catch (const CompileError&) {
            return tile; // the passes themselves report it
        }
        if (cycle.empty()) return tile;
        const size_t known = reads.size();
        reads.merge(cubeRoundTripReads(probe, cycle));
        if (reads.size() == known) return tile; // nothing more to split: partition-blocks says why
        tile = expandTiles(tensor, target, file, reads);
    }
    return tile;
}

} // namespace pto
