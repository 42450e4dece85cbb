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

// The ops of one vector chain that come after the cube: reached on chip from its loads of
// `fromCube` (GM tensors the cycle's cube chains write).
std::unordered_set<OpId> afterTheCube(const Function& tile, const TileChain& chain,
                                      const std::unordered_set<ValueId>& fromCube) {
    const std::unordered_set<OpId> in(chain.ops.begin(), chain.ops.end());
    std::unordered_set<OpId> after;
    // The chain's ops are in program order, and on-chip operands are produced earlier: one
    // forward sweep reaches everything.
    for (OpId id : chain.ops) {
        const Op& op = tile.op(id);
        bool reached = op.kind == OpKind::TLoad && fromCube.count(op.operands.at(0));
        for (ValueId v : op.operands) {
            const Value& value = tile.value(v);
            reached = reached || (value.def != kNoId && value.type.space != MemSpace::GM &&
                                  in.count(value.def) && after.count(value.def));
        }
        if (reached) after.insert(id);
    }
    return after;
}

} // namespace

GmReads cubeRoundTripReads(const Function& tile, const std::vector<TileChain>& cycle) {
    std::unordered_set<ValueId> fromCube;
    for (const TileChain& chain : cycle) {
        if (chain.core != CoreType::AIC) continue;
        for (OpId id : chain.ops)
            if (const Op& op = tile.op(id); op.kind == OpKind::TStore)
                fromCube.insert(op.operands.at(1));
    }
    GmReads reads;
    for (const TileChain& chain : cycle) {
        if (chain.core != CoreType::AIV) continue;
        const std::unordered_set<OpId> after = afterTheCube(tile, chain, fromCube);
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
    UnionFind vector(ops.size());
    for (const Op& op : ops) {
        if (isCube(op.kind)) continue;
        for (ValueId v : op.operands)
            if (const Op* p = tensor.producer(v); p && !isCube(p->kind)) vector.unite(op.id, p->id);
    }
    std::vector<std::vector<OpId>> readers(tensor.valueCount());
    for (const Op& op : ops)
        for (ValueId v : op.operands) readers[v].push_back(op.id);
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
