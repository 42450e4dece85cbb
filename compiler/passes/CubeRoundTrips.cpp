// expand-tiles without cube round trips: finding the vector chains on both sides of a cube op
// and the GM reads that split them (see CubeRoundTrips.h).
#include "compiler/passes/CubeRoundTrips.h"

#include "compiler/ir/Block.h"
#include "compiler/passes/AssignMemory.h"
#include "compiler/passes/EliminateDeadCode.h"
#include "compiler/passes/ExpandTiles.h"
#include "compiler/passes/UnionFind.h"

#include <algorithm>

namespace pto {
namespace {

// Rounds of splitting (each splits every cycle found) before partition-blocks is left to report
// what remains.
constexpr int kMaxRounds = 4;

bool isCube(OpKind k) {
    return opInfo(k).cls == OpClass::Matmul;
}

} // namespace

GmReads cubeRoundTripReads(const Function& tile, const std::vector<std::vector<TileChain>>& cycles,
                           uint32_t firstGroup) {
    GmReads reads;
    uint32_t group = firstGroup;
    for (const std::vector<TileChain>& cycle : cycles) {
        int top = 0;
        for (const ClosingRead& r : closingReads(tile, cycle)) {
            const ValueId origin = tile.value(r.operand).origin;
            const OpId parent = tile.op(r.reader).parent;
            if (origin != kNoId && parent != kNoId)
                reads.emplace(std::pair(origin, parent), group + uint32_t(r.level));
            top = std::max(top, r.level);
        }
        group += uint32_t(top) + 1;
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
    // The dataflow between vector groups and cube ops, a group being one node: a group that
    // feeds the cube and reads back what it made — directly, through further matmuls (a
    // projection of a projection) or through other groups — lies on a cycle of it.
    auto node = [&](const Op& op) { return isCube(op.kind) ? op.id : OpId(vector.find(op.id)); };
    std::vector<std::vector<OpId>> succ(ops.size());
    std::vector<uint32_t> indegree(ops.size(), 0);
    std::vector<bool> present(ops.size(), false);
    for (const Op& op : ops) {
        const OpId to = node(op);
        present[to] = true;
        for (ValueId v : op.operands)
            if (const Op* p = tensor.producer(v); p && node(*p) != to) {
                succ[node(*p)].push_back(to);
                ++indegree[to];
            }
    }
    std::vector<OpId> ready; // Kahn's algorithm: what is left unvisited lies on a cycle
    size_t nodes = 0, visited = 0;
    for (OpId n = 0; n < ops.size(); ++n) {
        nodes += present[n];
        if (present[n] && indegree[n] == 0) ready.push_back(n);
    }
    while (!ready.empty()) {
        const OpId n = ready.back();
        ready.pop_back();
        ++visited;
        for (OpId to : succ[n])
            if (--indegree[to] == 0) ready.push_back(to);
    }
    return visited != nodes;
}

Function expandTilesAvoidingCubeRoundTrips(const Function& tensor, const TargetInfo& target,
                                           const std::string& file) {
    Function tile = expandTiles(tensor, target, file);
    if (!mayRoundTripThroughCube(tensor) || !mayHaveMixedGmCycle(tile)) return tile;
    GmReads reads;
    for (int round = 0; round < kMaxRounds; ++round) {
        Function probe = tile;
        std::vector<std::vector<TileChain>> cycles;
        try { // as partition-blocks will see it (insert-copies leaves expand-tiles' output as is)
            assignMemory(probe, target, file);
            eliminateDeadCode(probe);
            cycles = mixedGmCycles(probe);
        } catch (const CompileError&) {
            return tile; // the passes themselves report it
        }
        if (cycles.empty()) return tile;
        const size_t known = reads.size();
        uint32_t nextGroup = 0; // a round's groups are new: its readers share no earlier loads
        for (const auto& [read, group] : reads) nextGroup = std::max(nextGroup, group + 1);
        reads.merge(cubeRoundTripReads(probe, cycles, nextGroup)); // every cycle at once
        if (reads.size() == known) return tile; // nothing more to split: partition-blocks says why
        tile = expandTiles(tensor, target, file, reads);
    }
    return tile;
}

} // namespace pto
