// Tile → Block: on-chip dataflow components, isomorphic groups, GM depth, packing into tasks.
#include "compiler/passes/PartitionBlocks.h"
#include "compiler/passes/UnionFind.h"

#include "compiler/ir/Placement.h"
#include "compiler/ir/Printer.h"
#include "compiler/passes/BuildExecGraph.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

namespace pto {
namespace {

// The value as the printer shows it (error paths only: builds the function's name table).
std::string valueName(const Function& f, ValueId v) {
    std::string s(1, '%');
    s += NameTable(f)[v];
    return s;
}

std::string describe(const Function& f, const Op& op) {
    std::string s(opName(op.kind));
    if (op.result != kNoId) return s + " " + valueName(f, op.result);
    if (!op.operands.empty()) return s + " " + valueName(f, op.operands[0]);
    return s;
}

// What is wrong with the memory spaces of a tile op's operands and result ("" = nothing).
std::string spaceProblem(const Function& tile, const Op& op, const Placement& place) {
    auto space = [&](ValueId v) { return tile.type(v).space; };
    auto is = [&](size_t i, std::initializer_list<MemSpace> ok) {
        return i < op.operands.size() &&
               std::find(ok.begin(), ok.end(), space(op.operands[i])) != ok.end();
    };
    switch (op.kind) {
    case OpKind::TLoad:
        return is(0, {MemSpace::GM}) ? "" : "loads from a value that is not in GM";
    case OpKind::Gather:
        return is(0, {MemSpace::GM}) && is(1, {MemSpace::UB})
                   ? ""
                   : "gathers rows of a GM tensor by a UB index tile only";
    case OpKind::TStore:
        return is(1, {MemSpace::GM}) ? "" : "stores to a value that is not in GM";
    case OpKind::TScatterAdd:
        return is(0, {MemSpace::UB}) && is(1, {MemSpace::GM}) && is(2, {MemSpace::UB})
                   ? ""
                   : "adds UB rows into a GM tensor by a UB index tile only";
    case OpKind::TMove:
        return is(0, {MemSpace::L1}) &&
                       (space(op.result) == MemSpace::L0A || space(op.result) == MemSpace::L0B)
                   ? ""
                   : "moves L1 sub-tiles into L0A/L0B only";
    case OpKind::Matmul:
        return is(0, {MemSpace::L0A}) && is(1, {MemSpace::L0B}) ? "" : "reads L0A × L0B tiles";
    case OpKind::MatmulAcc:
        return is(0, {MemSpace::L0C}) && is(1, {MemSpace::L0A}) && is(2, {MemSpace::L0B})
                   ? ""
                   : "accumulates an L0C tile with L0A × L0B tiles";
    default:
        break;
    }
    if (place.pipe != Pipe::V) return "";
    for (size_t i = 0; i < op.operands.size(); ++i)
        if (!is(i, {MemSpace::UB})) return "vector ops read UB tiles only";
    return op.result == kNoId || space(op.result) == MemSpace::UB
               ? ""
               : "vector ops write UB tiles only";
}

// The core type an op runs on; throws for ops that have no place on a core.
CoreType coreOf(const Function& tile, const Op& op) {
    if (!(opInfo(op.kind).levels & kLevelTile) || isDirective(op.kind))
        throw CompileError({}, op.loc,
                           describe(tile, op) +
                               ": not a Tile-level op (run decompose-composites and expand-tiles "
                               "before partition-blocks)");
    for (ValueId v : op.operands)
        if (tile.type(v).space == MemSpace::None)
            throw CompileError({}, op.loc,
                               describe(tile, op) + ": operand " + valueName(tile, v) +
                                   " has no memory space (did assign-memory run?)");
    if (op.result != kNoId && !tile.type(op.result).isTile())
        throw CompileError({}, op.loc,
                           describe(tile, op) + ": result must be an on-chip tile, not " +
                               std::string(memSpaceName(tile.type(op.result).space)));
    Placement place = placeTileOp(tile, op);
    std::string problem = place.core == CoreType::None
                              ? std::string("no core can run it with these memory spaces")
                              : spaceProblem(tile, op, place);
    if (!problem.empty()) throw CompileError({}, op.loc, describe(tile, op) + ": " + problem);
    return place.core;
}

// Components of on-chip dataflow in CSR form, numbered by first op (program order).
struct Components {
    std::vector<uint32_t> ofOp;  // op → component (kNoId for GM declarations)
    std::vector<uint32_t> start; // component c owns ops[start[c] .. start[c+1])
    std::vector<OpId> ops;       // program order within each component
    std::vector<CoreType> core;
    uint32_t count() const { return uint32_t(core.size()); }
    OpId first(uint32_t c) const { return ops[start[c]]; }
};

// Every op united with the producers of its on-chip operands (GM declarations stay alone).
UnionFind onChipDataflow(const Function& tile) {
    UnionFind uf(tile.ops().size());
    for (const Op& op : tile.ops()) {
        if (op.kind == OpKind::GmTensor) continue;
        for (ValueId v : op.operands) {
            const Value& value = tile.value(v); // its def is the producer's id (not read)
            if (value.def != kNoId && value.type.space != MemSpace::GM) uf.unite(op.id, value.def);
        }
    }
    return uf;
}

// The components of `uf` (on-chip dataflow, plus the merges of mergeGmCycles).
Components findComponents(const Function& tile, UnionFind& uf) {
    Components c;
    c.ofOp.assign(tile.ops().size(), kNoId);
    std::vector<uint32_t> size;
    for (const Op& op : tile.ops()) {
        if (op.kind == OpKind::GmTensor) continue;
        CoreType core = coreOf(tile, op);
        uint32_t root = uf.find(op.id);
        if (root == op.id) {
            c.ofOp[op.id] = c.count();
            c.core.push_back(core);
            size.push_back(0);
        } else {
            c.ofOp[op.id] = c.ofOp[root];
        }
        uint32_t comp = c.ofOp[op.id];
        ++size[comp];
        if (core != c.core[comp]) {
            const Op& head = tile.op(root);
            throw CompileError(
                {}, op.loc,
                "internal: on-chip dataflow mixes core types: " + describe(tile, op) + " runs on " +
                    std::string(coreTypeName(core)) + " but is connected to " +
                    describe(tile, head) + " on " + std::string(coreTypeName(c.core[comp])) +
                    " (AIC and AIV exchange data only through GM)");
        }
    }
    c.start.assign(c.count() + 1, 0);
    for (uint32_t i = 0; i < c.count(); ++i) c.start[i + 1] = c.start[i] + size[i];
    c.ops.resize(c.start.back());
    std::vector<uint32_t> fill(c.start.begin(), c.start.end() - 1);
    for (const Op& op : tile.ops())
        if (c.ofOp[op.id] != kNoId) c.ops[fill[c.ofOp[op.id]]++] = op.id;
    return c;
}

void appendType(std::string& sig, const Type& t) {
    sig += char(t.dtype);
    sig += char(t.space);
    for (int64_t d : t.shape) sig.append(reinterpret_cast<const char*>(&d), sizeof d);
    sig += '|';
}

// Isomorphic group of every component: equal signatures (kinds, types, order) share a group.
std::vector<uint32_t> isomorphicGroups(const Function& tile, const Components& comps) {
    std::unordered_map<std::string, uint32_t> groupOf;
    std::vector<uint32_t> group(comps.count());
    std::string sig;
    for (uint32_t c = 0; c < comps.count(); ++c) {
        sig.clear();
        for (uint32_t i = comps.start[c]; i < comps.start[c + 1]; ++i) {
            const Op& op = tile.op(comps.ops[i]);
            sig.append(reinterpret_cast<const char*>(&op.kind), sizeof op.kind);
            for (ValueId v : op.operands) appendType(sig, tile.type(v));
            if (op.result != kNoId) appendType(sig, tile.type(op.result));
            sig += ';';
        }
        group[c] = groupOf.try_emplace(sig, uint32_t(groupOf.size())).first->second;
    }
    return group;
}

// The op that names component c in messages: its first op that computes (the user's op it
// comes from), not the loads, stores and moves the Tile passes added; else its first op.
OpId chainHead(const Function& tile, const Components& comps, uint32_t c) {
    for (uint32_t i = comps.start[c]; i < comps.start[c + 1]; ++i) {
        const OpKind k = tile.op(comps.ops[i]).kind;
        if (k != OpKind::TLoad && k != OpKind::TStore && k != OpKind::TMove) return comps.ops[i];
    }
    return comps.first(c);
}

// The GM dependencies between components: those of buildExecGraph with one task per component
// (`checked`: throwing its error for a cycle).
ExecGraph componentDeps(Function& tile, const Components& comps, bool checked) {
    BlockProgram probe;
    probe.tile = std::move(tile);
    probe.blocks.resize(comps.count());
    for (uint32_t c = 0; c < comps.count(); ++c) {
        BlockFunction& b = probe.blocks[c];
        b.id = c;
        b.core = comps.core[c];
        const Op& first = probe.tile.op(chainHead(probe.tile, comps, c));
        b.name = "the tile chain of " + std::string(opName(first.kind)) + " at " +
                 std::to_string(first.loc.line) + ":" + std::to_string(first.loc.col);
        for (uint32_t i = comps.start[c]; i < comps.start[c + 1]; ++i)
            if (const Op& op = probe.tile.op(comps.ops[i]); readsOrWritesGm(op.kind))
                b.items.push_back({op.id, {}});
    }
    struct Restore { // gives the function back even if buildExecGraph throws
        Function& to;
        Function& from;
        ~Restore() { to = std::move(from); }
    } restore{tile, probe.tile};
    return checked ? buildExecGraph(probe) : gmDependencyGraph(probe);
}

// The cycles of GM dependencies between components: the strongly connected components of
// `deps` with more than one member (Tarjan's algorithm, iterative).
std::vector<std::vector<uint32_t>> gmCycles(uint32_t n, const ExecGraph& deps) {
    std::vector<uint32_t> start(n + 1, 0);
    for (const TaskDep& d : deps.deps) ++start[d.from + 1];
    for (uint32_t c = 0; c < n; ++c) start[c + 1] += start[c]; // deps are sorted by `from`
    std::vector<uint32_t> index(n, kNoId), low(n, 0), onStack;
    std::vector<bool> stacked(n, false);
    std::vector<std::pair<uint32_t, uint32_t>> walk; // (component, next edge)
    std::vector<std::vector<uint32_t>> cycles;
    uint32_t next = 0;
    for (uint32_t root = 0; root < n; ++root) {
        if (index[root] != kNoId) continue;
        walk.push_back({root, start[root]});
        index[root] = low[root] = next++;
        onStack.push_back(root);
        stacked[root] = true;
        while (!walk.empty()) {
            auto& [c, e] = walk.back();
            if (e < start[c + 1]) {
                const uint32_t to = deps.deps[e++].to;
                if (index[to] == kNoId) {
                    index[to] = low[to] = next++;
                    onStack.push_back(to);
                    stacked[to] = true;
                    walk.push_back({to, start[to]});
                } else if (stacked[to]) {
                    low[c] = std::min(low[c], index[to]);
                }
                continue;
            }
            const uint32_t done = c;
            walk.pop_back();
            if (!walk.empty()) low[walk.back().first] = std::min(low[walk.back().first], low[done]);
            if (low[done] != index[done]) continue;
            std::vector<uint32_t> cycle;
            uint32_t member = kNoId;
            do {
                member = onStack.back();
                onStack.pop_back();
                stacked[member] = false;
                cycle.push_back(member);
            } while (member != done);
            if (cycle.size() > 1) cycles.push_back(std::move(cycle));
        }
    }
    return cycles;
}

// Unites the components of every cycle of GM dependencies whose members run on one core type:
// a value left one chain's tiles through GM, another chain worked on it, and the first chain
// reads the result back. One task then runs them all in program order, in which every GM
// access follows the ones it depends on. True when something was merged.
bool mergeGmCycles(const Components& comps, const ExecGraph& deps, UnionFind& uf) {
    bool merged = false;
    for (const std::vector<uint32_t>& cycle : gmCycles(comps.count(), deps)) {
        const bool oneCore = std::all_of(cycle.begin(), cycle.end(), [&](uint32_t m) {
            return comps.core[m] == comps.core[cycle.front()];
        });
        if (!oneCore) continue; // a mixed cycle stays an error
        for (uint32_t m : cycle) uf.unite(comps.first(m), comps.first(cycle.front()));
        merged = true;
    }
    return merged;
}

// The on-chip components of `tile`, those on a one-core cycle of GM dependencies merged, and the
// GM dependencies between them.
std::pair<Components, ExecGraph> mergedComponents(Function& tile) {
    UnionFind uf = onChipDataflow(tile);
    Components comps = findComponents(tile, uf);
    ExecGraph deps = componentDeps(tile, comps, false);
    if (mergeGmCycles(comps, deps, uf)) {
        comps = findComponents(tile, uf);
        deps = componentDeps(tile, comps, false);
    }
    return {std::move(comps), std::move(deps)};
}

// Depth of every component in the graph of its GM dependencies (0 = depends on nothing);
// nullopt when they form a cycle.
std::optional<std::vector<uint32_t>> gmDepths(const ExecGraph& deps, uint32_t count) {
    std::vector<uint32_t> depth(count, 0), indegree(count, 0);
    std::vector<uint32_t> start(count + 1, 0);
    for (const TaskDep& d : deps.deps) {
        ++indegree[d.to];
        ++start[d.from + 1];
    }
    for (uint32_t c = 0; c < count; ++c) start[c + 1] += start[c];
    std::vector<uint32_t> ready;
    for (uint32_t c = 0; c < count; ++c)
        if (indegree[c] == 0) ready.push_back(c);
    uint32_t visited = 0;
    while (!ready.empty()) { // deps are sorted by `from`: CSR over deps.deps
        uint32_t c = ready.back();
        ready.pop_back();
        ++visited;
        for (uint32_t e = start[c]; e < start[c + 1]; ++e) {
            uint32_t to = deps.deps[e].to;
            depth[to] = std::max(depth[to], depth[c] + 1);
            if (--indegree[to] == 0) ready.push_back(to);
        }
    }
    if (visited != count) return std::nullopt;
    return depth;
}

struct PendingBlock {
    uint32_t depth = 0;
    OpId firstOp = 0;
    uint32_t group = 0;
    CoreType core = CoreType::AIV;
    std::vector<uint32_t> comps;
};

// Splits the components of one (group, depth) bucket into blocks of consecutive components.
void packBucket(const std::vector<uint32_t>& bucket, int cores, int tilesPerTask,
                std::vector<PendingBlock>& out, const PendingBlock& proto) {
    const size_t n = bucket.size();
    size_t pos = 0;
    const size_t blocks =
        tilesPerTask > 0 ? (n + tilesPerTask - 1) / tilesPerTask : std::min(n, size_t(cores));
    for (size_t b = 0; b < blocks; ++b) {
        size_t take = tilesPerTask > 0 ? std::min(size_t(tilesPerTask), n - pos)
                                       : n / blocks + (b < n % blocks ? 1 : 0);
        PendingBlock block = proto;
        block.comps.assign(bucket.begin() + pos, bucket.begin() + pos + take);
        out.push_back(std::move(block));
        pos += take;
    }
}

// The iteration of `loop` each component of `bucket` belongs to (every labelled op of a
// component in the same one), or nullopt when a component has none or spans several.
std::optional<std::vector<int64_t>> iterationsOf(const Function& tile, const Components& comps,
                                                 const std::vector<uint32_t>& bucket,
                                                 const std::string& loop) {
    std::vector<int64_t> out;
    out.reserve(bucket.size());
    for (uint32_t c : bucket) {
        std::optional<int64_t> iter;
        for (uint32_t i = comps.start[c]; i < comps.start[c + 1]; ++i) {
            const Attrs& a = tile.op(comps.ops[i]).attrs;
            if (!a.has("loop")) continue; // data movement the Tile passes added
            std::optional<std::vector<int64_t>> v = a.getInts("iter");
            if (a.getString("loop") != loop || !v || v->size() != 1 ||
                (iter && *iter != v->front()))
                return std::nullopt;
            iter = v->front();
        }
        if (!iter) return std::nullopt;
        out.push_back(*iter);
    }
    return out;
}

// Packs a bucket of `lanes` components per iteration (iterations 0 .. trips-1 in order) by
// ranges of iterations, lane by lane (PartitionOptions::iterations); false when the bucket is not
// of that form or there are fewer cores than lanes (then it is packed as any other).
bool packByIterations(const Function& tile, const Components& comps,
                      const std::vector<uint32_t>& bucket, int cores, const IterationPacking& loop,
                      std::vector<PendingBlock>& out, const PendingBlock& proto) {
    if (loop.trips <= 0 || loop.period <= 0 || bucket.size() % size_t(loop.trips) != 0)
        return false;
    std::optional<std::vector<int64_t>> iters = iterationsOf(tile, comps, bucket, loop.loopName);
    const size_t lanes = bucket.size() / size_t(loop.trips);
    if (!iters) return false;
    for (size_t i = 0; i < bucket.size(); ++i)
        if ((*iters)[i] != int64_t(i / lanes)) return false;
    const int64_t perLane = std::min<int64_t>(loop.period, cores / int64_t(lanes));
    if (perLane < 1) return false;
    // trips = rounds · period + rest: block b grows by `grow` iterations per period, so its
    // range is linear in the rounds for a fixed rest.
    const int64_t rounds = loop.trips / loop.period, rest = loop.trips % loop.period;
    for (size_t lane = 0; lane < lanes; ++lane) {
        int64_t first = 0;
        for (int64_t b = 0; b < perLane; ++b) {
            const int64_t grow = loop.period / perLane + (b < loop.period % perLane ? 1 : 0);
            const int64_t take = rounds * grow + rest / perLane + (b < rest % perLane ? 1 : 0);
            PendingBlock block = proto;
            for (int64_t j = first; j < first + take; ++j)
                block.comps.push_back(bucket[size_t(j) * lanes + lane]);
            first += take;
            if (!block.comps.empty()) out.push_back(std::move(block));
        }
    }
    return true;
}

// Blocks of every (group, depth) bucket, sorted by (depth, first op): a topological order of
// the tasks.
std::vector<PendingBlock> planBlocks(const Function& tile, const Components& comps,
                                     const std::vector<uint32_t>& group,
                                     const std::vector<uint32_t>& depth,
                                     const PartitionOptions& opts,
                                     const std::optional<IterationPacking>& iterations) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> bucketOf;
    std::vector<std::vector<uint32_t>> buckets; // in order of their first component
    for (uint32_t c = 0; c < comps.count(); ++c) {
        auto [it, fresh] = bucketOf.try_emplace({group[c], depth[c]}, uint32_t(buckets.size()));
        if (fresh) buckets.emplace_back();
        buckets[it->second].push_back(c);
    }
    std::vector<PendingBlock> pending;
    for (const std::vector<uint32_t>& bucket : buckets) {
        const uint32_t c0 = bucket.front();
        const CoreType core = comps.core[c0];
        const int cores = core == CoreType::AIC ? opts.aicCores : opts.aivCores;
        if (cores <= 0 && opts.tilesPerTask <= 0)
            throw CompileError({}, tile.op(comps.first(c0)).loc,
                               "partition-blocks: no " + std::string(coreTypeName(core)) +
                                   " cores to run " + std::to_string(bucket.size()) +
                                   " tile chains like " + describe(tile, tile.op(comps.first(c0))));
        PendingBlock proto{depth[c0], 0, group[c0], core, {}};
        if (iterations && opts.tilesPerTask <= 0 &&
            packByIterations(tile, comps, bucket, cores, *iterations, pending, proto))
            continue;
        packBucket(bucket, cores, opts.tilesPerTask, pending, proto);
    }
    for (PendingBlock& b : pending) b.firstOp = comps.first(b.comps.front());
    std::sort(pending.begin(), pending.end(), [](const PendingBlock& a, const PendingBlock& b) {
        return std::pair(a.depth, a.firstOp) < std::pair(b.depth, b.firstOp);
    });
    return pending;
}

// The block functions: ids in order, names <function>_<core>_<n>, items component by component.
BlockProgram buildProgram(Function tile, const Components& comps,
                          const std::vector<PendingBlock>& pending) {
    BlockProgram program;
    program.blockOfOp.assign(tile.ops().size(), kNoId);
    program.blocks.resize(pending.size());
    const std::string base = tile.name.empty() ? "kernel" : tile.name;
    int perCore[3] = {0, 0, 0};
    for (uint32_t id = 0; id < pending.size(); ++id) {
        const PendingBlock& p = pending[id];
        BlockFunction& block = program.blocks[id];
        block.id = id;
        block.core = p.core;
        block.group = p.group;
        block.name = base + "_" + std::string(coreTypeName(p.core)) + "_" +
                     std::to_string(perCore[int(p.core)]++);
        size_t items = 0;
        for (uint32_t c : p.comps) items += comps.start[c + 1] - comps.start[c];
        block.items.reserve(items);
        for (uint32_t c : p.comps)
            for (uint32_t i = comps.start[c]; i < comps.start[c + 1]; ++i) {
                block.items.push_back({comps.ops[i], {}});
                program.blockOfOp[comps.ops[i]] = id;
            }
    }
    program.tile = std::move(tile);
    return program;
}

// The GM tensor `op` writes (tstore, tscatter_add), or kNoId.
ValueId gmWritten(const Op& op) {
    const bool writes = op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd;
    return writes ? op.operands.at(1) : kNoId;
}

// The level of every op of the cycle's chains (-1 for the others): how many times data reaching
// it came back from the cube to the vector cores, over the on-chip and GM dataflow between the
// chains (a vector op loading what a cube chain wrote is one level above that chain). A vector
// op above the level of an on-chip operand is after a cube that its producer is before or
// beside: a stack of residual layers puts each layer's add one level above the last.
std::vector<int> cubeLevels(const Function& tile, const std::vector<TileChain>& cycle) {
    std::vector<int> level(tile.ops().size(), -1);
    std::vector<bool> onVector(tile.ops().size(), false);
    for (const TileChain& chain : cycle)
        for (OpId id : chain.ops) {
            level[id] = 0;
            onVector[id] = chain.core == CoreType::AIV;
        }
    struct Written {
        int byVector = 0, byCube = -1; // the highest level of a write from each side
    };
    std::unordered_map<ValueId, Written> written; // GM tensor → its writes so far
    // Program order: on-chip operands are produced, and GM tensors written, before they are read.
    for (const Op& op : tile.ops()) {
        if (level[op.id] < 0) continue;
        int l = 0;
        if (op.kind == OpKind::TLoad || op.kind == OpKind::Gather)
            if (auto it = written.find(op.operands.at(0)); it != written.end())
                l = std::max(it->second.byVector, it->second.byCube + (onVector[op.id] ? 1 : 0));
        for (ValueId v : op.operands)
            if (const Value& value = tile.value(v);
                value.def != kNoId && value.type.space != MemSpace::GM && level[value.def] >= 0)
                l = std::max(l, level[value.def]);
        level[op.id] = l;
        if (ValueId gm = gmWritten(op); gm != kNoId) {
            int& side = onVector[op.id] ? written[gm].byVector : written[gm].byCube;
            side = std::max(side, l);
        }
    }
    return level;
}

// closingReads with the levels of cubeLevels.
std::vector<ClosingRead> closingReadsAt(const Function& tile, const std::vector<TileChain>& cycle,
                                        const std::vector<int>& level) {
    std::vector<ClosingRead> reads;
    for (const TileChain& chain : cycle) {
        if (chain.core != CoreType::AIV) continue;
        for (OpId id : chain.ops)
            for (ValueId v : tile.op(id).operands)
                if (const Value& value = tile.value(v); value.def != kNoId &&
                                                        value.type.space != MemSpace::GM &&
                                                        level[value.def] < level[id])
                    reads.push_back({id, v, level[id]});
    }
    std::stable_sort(reads.begin(), reads.end(), [](const ClosingRead& a, const ClosingRead& b) {
        return a.reader < b.reader;
    });
    return reads;
}

// Where the user wrote the op a tile op comes from: "5:8" (its kind may be a part of the
// user's op: rms_norm's cast).
std::string placeOf(const Op& op) {
    return std::to_string(op.loc.line) + ":" + std::to_string(op.loc.col);
}

// The op that names a closing read's operand in messages: its producer when that computes, else
// (a load shared by several ops) the first other op of the cycle reading it below the reader;
// nullptr for a load no lower op shares (a read that splitting leaves as it is).
const Op* sharerOf(const Function& tile, const ClosingRead& r, const std::vector<int>& level) {
    const Op& def = tile.op(tile.value(r.operand).def);
    if (def.kind != OpKind::TLoad && def.kind != OpKind::Gather) return &def;
    for (const Op& op : tile.ops()) {
        if (op.id == r.reader || level[op.id] < 0 || level[op.id] >= level[r.reader]) continue;
        if (std::find(op.operands.begin(), op.operands.end(), r.operand) != op.operands.end())
            return &op;
    }
    return nullptr;
}

// The first op that computes in the cycle's cube chains (a matmul), or kNoId.
OpId firstCubeOp(const Function& tile, const std::vector<TileChain>& cycle) {
    OpId first = kNoId;
    for (const TileChain& chain : cycle) {
        if (chain.core != CoreType::AIC) continue;
        for (OpId id : chain.ops)
            if (const OpKind k = tile.op(id).kind;
                k != OpKind::TLoad && k != OpKind::TStore && k != OpKind::TMove) {
                first = std::min(first, id);
                break;
            }
    }
    return first;
}

// Throws the error of a mixed cycle at the first op whose on-chip read closes it (the op to
// change), naming the op it shares tiles with and the cube between them; returns when no read
// closes it.
void throwClosingRead(const Function& tile, const std::vector<TileChain>& cycle) {
    const std::vector<int> level = cubeLevels(tile, cycle);
    for (const ClosingRead& r : closingReadsAt(tile, cycle, level)) {
        const Op* sharer = sharerOf(tile, r, level);
        if (!sharer) continue;
        const Op& def = tile.op(tile.value(r.operand).def);
        const bool load = def.kind == OpKind::TLoad || def.kind == OpKind::Gather;
        const std::string value = load ? valueName(tile, def.operands.at(0)) : "that value";
        const std::string at = placeOf(tile.op(r.reader)), other = placeOf(*sharer);
        const std::string what =
            load ? "the tiles of " + value + " that the op at " + other + " reads too"
                 : "what the op at " + other + " computed";
        const OpId cube = firstCubeOp(tile, cycle);
        const std::string toCube = cube == kNoId
                                       ? "the cube"
                                       : "the cube (" + std::string(opName(tile.op(cube).kind)) +
                                             " at " + placeOf(tile.op(cube)) + ")";
        throw CompileError({}, tile.op(r.reader).loc,
                           "the op at " + at + " reads on chip " + what +
                               ", but the tile chain of the op at " + other + " feeds " + toCube +
                               " and the op at " + at +
                               " reads what the cube made: one vector "
                               "task would both feed a cube task and wait for it (a cycle of GM "
                               "dependencies); give the ops at " +
                               at + " and " + other +
                               " different vec_tiles (a per-op {vec_tile = [...]} on each) so "
                               "that the one at " +
                               at + " reads " + value + " from GM");
    }
}

// The chains of the components `members`.
std::vector<TileChain> chainsOf(const Components& comps, const std::vector<uint32_t>& members) {
    std::vector<TileChain> chains;
    for (uint32_t c : members)
        chains.push_back(
            {comps.core[c], std::vector<OpId>(comps.ops.begin() + comps.start[c],
                                              comps.ops.begin() + comps.start[c + 1])});
    return chains;
}

} // namespace

std::vector<ClosingRead> closingReads(const Function& tile, const std::vector<TileChain>& cycle) {
    return closingReadsAt(tile, cycle, cubeLevels(tile, cycle));
}

bool mayHaveMixedGmCycle(const Function& tile) {
    UnionFind uf = onChipDataflow(tile); // expand-tiles' output: tiles have no space yet
    const auto& ops = tile.ops();
    std::vector<uint32_t> comp(ops.size(), kNoId);
    std::vector<bool> cube;
    for (const Op& op : ops) {
        if (op.kind == OpKind::GmTensor) continue;
        uint32_t& c = comp[uf.find(op.id)];
        if (c == kNoId) {
            c = uint32_t(cube.size());
            cube.push_back(false);
        }
        comp[op.id] = c;
        if (op.kind == OpKind::Matmul || op.kind == OpKind::MatmulAcc || op.kind == OpKind::TMove)
            cube[c] = true;
    }
    // Read-after-write through each GM tensor, regions and order aside.
    std::unordered_map<ValueId, std::vector<uint32_t>> writers, readers;
    for (const Op& op : ops) {
        if (!readsOrWritesGm(op.kind)) continue;
        const bool store = op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd;
        (store ? writers : readers)[op.operands.at(store ? 1 : 0)].push_back(comp[op.id]);
    }
    ExecGraph deps;
    for (const auto& [tensor, from] : writers)
        if (auto it = readers.find(tensor); it != readers.end())
            for (uint32_t w : from)
                for (uint32_t r : it->second)
                    if (w != r) deps.deps.push_back({w, r});
    std::sort(deps.deps.begin(), deps.deps.end(), [](const TaskDep& a, const TaskDep& b) {
        return std::pair(a.from, a.to) < std::pair(b.from, b.to);
    });
    deps.deps.erase(std::unique(deps.deps.begin(), deps.deps.end(),
                                [](const TaskDep& a, const TaskDep& b) {
                                    return a.from == b.from && a.to == b.to;
                                }),
                    deps.deps.end());
    for (const std::vector<uint32_t>& cycle : gmCycles(uint32_t(cube.size()), deps))
        if (std::any_of(cycle.begin(), cycle.end(), [&](uint32_t c) { return cube[c]; }) &&
            !std::all_of(cycle.begin(), cycle.end(), [&](uint32_t c) { return cube[c]; }))
            return true;
    return false;
}

std::vector<std::vector<TileChain>> mixedGmCycles(Function& tile) {
    auto [comps, deps] = mergedComponents(tile);
    std::vector<std::vector<TileChain>> out;
    for (const std::vector<uint32_t>& cycle : gmCycles(comps.count(), deps))
        out.push_back(chainsOf(comps, cycle));
    return out;
}

BlockProgram partitionBlocks(Function tile, const PartitionOptions& opts,
                             const std::optional<IterationPacking>& iterations) {
    auto [comps, deps] = mergedComponents(tile);
    std::optional<std::vector<uint32_t>> depth = gmDepths(deps, comps.count());
    if (!depth) { // a cycle mixing AIC and AIV work (the others are merged): throw its error
        for (const std::vector<uint32_t>& cycle : gmCycles(comps.count(), deps))
            throwClosingRead(tile, chainsOf(comps, cycle));
        componentDeps(tile, comps, true);
    }
    const std::vector<uint32_t> group = isomorphicGroups(tile, comps);
    const std::vector<PendingBlock> pending =
        planBlocks(tile, comps, group, *depth, opts, iterations);
    return buildProgram(std::move(tile), comps, pending);
}

} // namespace pto
