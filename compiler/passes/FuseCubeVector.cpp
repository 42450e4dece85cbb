// fuse-cube-vector: find the alternating cube/vector chains of a loop, make them clusters,
// move their hand-offs into ping-pong workspaces and order their kernels as a pipeline.
#include "compiler/passes/FuseCubeVector.h"
#include "compiler/passes/UnionFind.h"

#include "compiler/passes/BuildExecGraph.h"
#include "compiler/passes/ClusterGm.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace pto {
namespace {

constexpr int64_t kPingPongDepth = 2; // hand-off slots per workspace (double buffering)

// The loop iterations an op's `iter` attr names (unroll-loops; the innermost last), or nullptr
// when it has none. Read in place: every op of the program is asked.
const std::vector<int64_t>* iterAttr(const Op& op) {
    const AttrValue* v = op.attrs.find("iter");
    const auto* iters = v ? std::get_if<std::vector<int64_t>>(v) : nullptr;
    return iters && !iters->empty() ? iters : nullptr;
}

// The loop iteration of every tile op in a block (-1: none known). Compute ops carry the `iter`
// attr of unroll-loops; the data movement insert-copies added takes it from its on-chip
// producers (a store), else from its users (a load and its moves).
std::vector<int64_t> iterations(const BlockProgram& p) {
    const Function& tile = p.tile;
    const size_t n = tile.ops().size();
    std::vector<int64_t> iter(n, -1);
    // The producer of v when it is a block op and v an on-chip tile, else kNoId (the value's
    // def is the producer's id: the producer op itself is not read).
    auto onChip = [&](ValueId v) -> OpId {
        const Value& value = tile.value(v);
        return value.def != kNoId && p.blockOfOp[value.def] != kNoId &&
                       value.type.space != MemSpace::GM
                   ? value.def
                   : kNoId;
    };
    for (OpId id = 0; id < n; ++id) {
        if (p.blockOfOp[id] == kNoId) continue;
        const Op& op = tile.op(id);
        if (const std::vector<int64_t>* iters = iterAttr(op)) {
            iter[id] = iters->back();
            continue;
        }
        for (ValueId v : op.operands)
            if (const OpId prod = onChip(v); prod != kNoId)
                iter[id] = std::max(iter[id], iter[prod]);
    }
    // Loads and moves take the earliest iteration of their users (a value loaded once and
    // read in iterations j and j+1 belongs to j), so every edge keeps its iteration order.
    std::vector<bool> fromUsers(n, false);
    for (OpId id = 0; id < n; ++id) fromUsers[id] = p.blockOfOp[id] != kNoId && iter[id] < 0;
    for (OpId id = OpId(n); id-- > 0;) {
        if (p.blockOfOp[id] == kNoId || iter[id] < 0) continue;
        for (ValueId v : tile.op(id).operands)
            if (const OpId prod = onChip(v);
                prod != kNoId && fromUsers[prod] && (iter[prod] < 0 || iter[id] < iter[prod]))
                iter[prod] = iter[id];
    }
    return iter;
}

// The on-chip dataflow components of the program's block items (as partition-blocks found
// them), with their core, ops in item order, and whether they belong to an unrolled loop.
struct Components {
    std::vector<uint32_t> ofOp;         // tile op → component (kNoId: not in a block)
    std::vector<std::vector<OpId>> ops; // per component, in block item order
    std::vector<CoreType> core;
    std::vector<bool> inLoop;  // some op carries the `iter` attr of unroll-loops
    std::vector<int64_t> iter; // tile op → loop iteration (-1: none)
    uint32_t count() const { return uint32_t(core.size()); }
};

Components findComponents(const BlockProgram& p) {
    const Function& tile = p.tile;
    const size_t n = tile.ops().size();
    UnionFind uf(n);
    for (const BlockFunction& b : p.blocks)
        for (const BlockItem& it : b.items) {
            if (it.isSync()) continue;
            for (ValueId v : tile.op(it.op).operands)
                if (const Value& value = tile.value(v); value.def != kNoId &&
                                                        value.type.space != MemSpace::GM &&
                                                        p.blockOfOp[value.def] != kNoId)
                    uf.unite(it.op, value.def);
        }
    Components c;
    c.ofOp.assign(n, kNoId);
    std::vector<uint32_t> compOfRoot(n, kNoId);
    for (OpId id = 0; id < n; ++id) { // numbered by first op
        if (p.blockOfOp[id] == kNoId) continue;
        uint32_t& comp = compOfRoot[uf.find(id)];
        if (comp == kNoId) {
            comp = c.count();
            c.core.push_back(p.blocks[p.blockOfOp[id]].core);
            c.ops.emplace_back();
            c.inLoop.push_back(false);
        }
        c.ofOp[id] = comp;
    }
    c.iter = iterations(p);
    for (OpId id = 0; id < n; ++id)
        if (c.ofOp[id] != kNoId && c.iter[id] >= 0) c.inLoop[c.ofOp[id]] = true;
    for (const BlockFunction& b : p.blocks)
        for (const BlockItem& it : b.items)
            if (!it.isSync()) c.ops[c.ofOp[it.op]].push_back(it.op);
    return c;
}

// GM dependencies between components: build-exec-graph with one task per component, every
// conflicting pair (groups and ties are made of direct exchanges, not of their order).
std::vector<TaskDep> componentDeps(BlockProgram& p, const Components& comps) {
    BlockProgram probe;
    probe.tile = std::move(p.tile);
    struct Restore { // gives the function back even if buildExecGraph throws
        Function& to;
        Function& from;
        ~Restore() { to = std::move(from); }
    } restore{p.tile, probe.tile};
    probe.blocks.resize(comps.count());
    for (uint32_t c = 0; c < comps.count(); ++c) {
        BlockFunction& b = probe.blocks[c];
        b.id = c;
        b.core = comps.core[c];
        b.name = "component " + std::to_string(c);
        for (OpId op : comps.ops[c])
            if (readsOrWritesGm(probe.tile.op(op).kind)) b.items.push_back({op, {}});
    }
    return buildExecGraph(probe, GmDeps::EveryPair).deps; // planClusters reads direct edges
}

// A cluster in the making: its AIC components and the AIV components of each AIV.
struct ClusterPlan {
    std::vector<uint32_t> aic;
    std::vector<uint32_t> aiv[2];
};

// Groups of loop components tied by GM dependencies; a group becomes a cluster when its cube
// and vector work alternate (some vector component reads from the cube and feeds it back).
std::vector<ClusterPlan> planClusters(const Components& comps, const std::vector<TaskDep>& deps) {
    UnionFind group(comps.count());
    std::vector<bool> fromCube(comps.count(), false), toCube(comps.count(), false);
    for (const TaskDep& d : deps) {
        if (!comps.inLoop[d.from] || !comps.inLoop[d.to]) continue;
        group.unite(d.from, d.to);
        if (d.kind != DepKind::Raw) continue;
        if (comps.core[d.from] == CoreType::AIC) fromCube[d.to] = true;
        if (comps.core[d.to] == CoreType::AIC) toCube[d.from] = true;
    }
    // A vector component outside the loop that exchanges data with one group only (the initial
    // state of its rows, the final division) joins it: one task wave instead of three.
    // (kNoId: no group seen yet; kSeveralGroups: more than one, so it joins none.)
    constexpr uint32_t kSeveralGroups = kNoId - 1;
    std::vector<uint32_t> joins(comps.count(), kNoId);
    for (const TaskDep& d : deps)
        for (auto [outer, inner] : {std::pair(d.from, d.to), std::pair(d.to, d.from)}) {
            if (comps.inLoop[outer] || !comps.inLoop[inner] || comps.core[outer] != CoreType::AIV)
                continue;
            const uint32_t root = group.find(inner);
            joins[outer] = joins[outer] == kNoId || joins[outer] == root ? root : kSeveralGroups;
        }
    std::map<uint32_t, std::vector<uint32_t>> members; // root → components (first op order)
    for (uint32_t c = 0; c < comps.count(); ++c) {
        if (comps.inLoop[c])
            members[group.find(c)].push_back(c);
        else if (joins[c] != kNoId && joins[c] != kSeveralGroups)
            members[joins[c]].push_back(c);
    }

    // AIV components that exchange GM data stay on one AIV (a row block's softmax and rescale).
    UnionFind vecTie(comps.count());
    for (const TaskDep& d : deps)
        if (comps.core[d.from] == CoreType::AIV && comps.core[d.to] == CoreType::AIV)
            vecTie.unite(d.from, d.to);

    std::vector<ClusterPlan> plans;
    for (auto& [root, list] : members) {
        bool alternates = false, hasCube = false;
        for (uint32_t c : list) {
            hasCube = hasCube || comps.core[c] == CoreType::AIC;
            alternates = alternates || (comps.core[c] == CoreType::AIV && fromCube[c] && toCube[c]);
        }
        if (!hasCube || !alternates) continue;
        ClusterPlan plan;
        std::map<uint32_t, std::vector<uint32_t>> vecSets; // tie root → components
        size_t vecOps = 0;
        for (uint32_t c : list) {
            if (comps.core[c] == CoreType::AIC) {
                plan.aic.push_back(c);
            } else {
                vecSets[vecTie.find(c)].push_back(c);
                vecOps += comps.ops[c].size();
            }
        }
        // Split the row sets between the two AIVs in order, the first taking about half.
        size_t taken = 0;
        for (auto& [tie, set] : vecSets) {
            size_t ops = 0;
            for (uint32_t c : set) ops += comps.ops[c].size();
            const int sub = taken > 0 && 2 * taken >= vecOps ? 1 : 0;
            plan.aiv[sub].insert(plan.aiv[sub].end(), set.begin(), set.end());
            taken += ops;
        }
        plans.push_back(std::move(plan));
    }
    return plans;
}

// --- Ping-pong workspaces ----------------------------------------------------------------------

// Every workspace whose accesses all belong to clusters, each cluster's in a window of its own,
// is replaced per cluster by a ping-pong buffer of two windows: the k-th such workspace written
// at one source line (one per loop iteration) goes to slot k mod 2.
class PingPong {
public:
    PingPong(BlockProgram& p, const std::vector<uint32_t>& clusterOfBlock)
        : m_p(p), m_clusterOf(clusterOfBlock) {}

    uint32_t run() {
        collect();
        uint32_t created = 0;
        for (auto& [key, tensors] : m_channels) created += remap(key, tensors);
        return created;
    }

private:
    struct Window {
        int64_t row0 = INT64_MAX, col0 = INT64_MAX, row1 = 0, col1 = 0;
        OpId firstOp = kNoId;
        uint32_t firstStoreLine = 0, firstStoreCol = 0;
        bool hasStore = false;
        std::vector<OpId> ops;
    };
    struct TensorUse {
        bool outside = false; // accessed by a block outside every cluster
        std::map<uint32_t, Window> perCluster;
    };
    using ChannelKey = std::tuple<uint32_t, uint32_t, uint32_t, int, int64_t, int64_t>;

    void collect() {
        std::unordered_map<ValueId, TensorUse> uses;
        for (uint32_t b = 0; b < m_p.blocks.size(); ++b)
            for (const BlockItem& it : m_p.blocks[b].items) {
                if (it.isSync()) continue;
                const Op& op = m_p.tile.op(it.op);
                if (!readsOrWritesGm(op.kind)) continue;
                const GmRegion r = gmRegionOf(m_p.tile, op);
                const Op* def = m_p.tile.producer(r.tensor);
                if (!def || def->kind != OpKind::GmTensor ||
                    def->attrs.getString("role") != "workspace")
                    continue;
                TensorUse& u = uses[r.tensor];
                if (m_clusterOf[b] == kNoCluster || op.kind == OpKind::Gather) {
                    u.outside = true;
                    continue;
                }
                Window& w = u.perCluster[m_clusterOf[b]];
                w.row0 = std::min(w.row0, r.row);
                w.col0 = std::min(w.col0, r.col);
                w.row1 = std::max(w.row1, r.row + r.rows);
                w.col1 = std::max(w.col1, r.col + r.cols);
                w.firstOp = std::min(w.firstOp, op.id);
                if (r.write && !w.hasStore) {
                    w.hasStore = true;
                    w.firstStoreLine = op.loc.line;
                    w.firstStoreCol = op.loc.col;
                }
                w.ops.push_back(op.id);
            }
        for (auto& [tensor, u] : uses) {
            if (u.outside || !disjoint(u)) continue;
            for (auto& [cluster, w] : u.perCluster) {
                if (!w.hasStore) continue;
                const Type& t = m_p.tile.type(tensor);
                ChannelKey key{cluster,      w.firstStoreLine, w.firstStoreCol,
                               int(t.dtype), w.row1 - w.row0,  w.col1 - w.col0};
                m_channels[key].push_back({tensor, std::move(w)});
            }
            m_retire.push_back(tensor);
        }
    }

    static bool disjoint(const TensorUse& u) {
        std::vector<const Window*> ws;
        for (const auto& [c, w] : u.perCluster) ws.push_back(&w);
        for (size_t i = 0; i < ws.size(); ++i)
            for (size_t j = i + 1; j < ws.size(); ++j)
                if (ws[i]->row0 < ws[j]->row1 && ws[j]->row0 < ws[i]->row1 &&
                    ws[i]->col0 < ws[j]->col1 && ws[j]->col0 < ws[i]->col1)
                    return false;
        return true;
    }

    uint32_t remap(const ChannelKey& key, std::vector<std::pair<ValueId, Window>>& tensors) {
        std::sort(tensors.begin(), tensors.end(),
                  [](const auto& a, const auto& b) { return a.second.firstOp < b.second.firstOp; });
        const int64_t rows = std::get<4>(key), cols = std::get<5>(key);
        const ValueId first = tensors.front().first;
        Type t = m_p.tile.type(first);
        const int64_t depth = std::min<int64_t>(kPingPongDepth, int64_t(tensors.size()));
        t.shape = Shape{depth * rows, cols};
        Op decl;
        decl.kind = OpKind::GmTensor;
        decl.attrs.set("role", std::string("workspace"));
        decl.attrs.set("ping_pong", depth);
        decl.loc = m_p.tile.op(m_p.tile.value(first).def).loc;
        decl.parent = m_p.tile.op(m_p.tile.value(first).def).parent;
        const std::string base =
            m_p.tile.value(first).name.empty() ? std::string("ws") : m_p.tile.value(first).name;
        const OpId id =
            m_p.tile.addOp(std::move(decl), &t, base + "_pp" + std::to_string(std::get<0>(key)));
        const ValueId buffer = m_p.tile.op(id).result;
        m_p.blockOfOp.push_back(kNoId);
        for (size_t k = 0; k < tensors.size(); ++k) {
            const Window& w = tensors[k].second;
            const int64_t slotRow = int64_t(k % size_t(depth)) * rows;
            for (OpId opId : w.ops) {
                Op& op = m_p.tile.op(opId);
                const GmRegion r = gmRegionOf(m_p.tile, op);
                const size_t gmOperand = op.kind == OpKind::TStore ? 1 : 0;
                op.operands[gmOperand] = buffer;
                op.attrs.set("offset",
                             std::vector<int64_t>{slotRow + r.row - w.row0, r.col - w.col0});
            }
        }
        return 1;
    }

public:
    void retire() {
        for (ValueId v : m_retire) m_p.tile.op(m_p.tile.value(v).def).attrs.set("retired", true);
    }

private:
    BlockProgram& m_p;
    const std::vector<uint32_t>& m_clusterOf;
    std::map<ChannelKey, std::vector<std::pair<ValueId, Window>>> m_channels;
    std::vector<ValueId> m_retire;
};

// --- Pipeline order ----------------------------------------------------------------------------

// Orders each cluster block as a software pipeline. Every op gets (stage, level, hop): level
// counts the cube↔vector hand-offs on its longest path inside the cluster (QK 0, softmax 1,
// PV 2, rescale 3), hop the GM hand-offs on one core; stage = its loop iteration + level / 2,
// so the cube's QK of iteration j+1 comes before its PV of iteration j and the vector cores
// do the softmax of j+1 before the rescale of j. Every dependency goes from a smaller to a
// not smaller key, so the stable sort keeps each block a valid order.
class PipelineOrder {
public:
    PipelineOrder(BlockProgram& p, const Components& comps)
        : m_p(p), m_comps(comps), m_key(p.tile.ops().size()), m_keyed(p.tile.ops().size(), 0) {}

    void run(const std::vector<uint32_t>& blocks) {
        std::vector<OpId> ops;
        for (uint32_t b : blocks)
            for (const BlockItem& it : m_p.blocks[b].items) ops.push_back(it.op);
        std::sort(ops.begin(), ops.end());
        int64_t firstLoopOp = INT64_MAX, maxIter = 0;
        for (OpId id : ops)
            if (m_comps.iter[id] >= 0) {
                firstLoopOp = std::min<int64_t>(firstLoopOp, id);
                maxIter = std::max(maxIter, m_comps.iter[id]);
            }
        const std::vector<ClusterAccess> acc = clusterAccesses(m_p, blocks);
        std::unordered_map<OpId, std::vector<OpId>> gmSources; // reader → earlier writers
        forEachGmConflict(acc, [&](const ClusterAccess& later, const ClusterAccess& earlier) {
            if (!later.region.write && earlier.region.write)
                gmSources[later.op].push_back(earlier.op);
        });
        for (OpId id : ops) {
            const Op& op = m_p.tile.op(id);
            const CoreType core = m_p.blocks[m_p.blockOfOp[id]].core;
            Key k;
            int64_t after = INT64_MIN; // the latest stage of what it reads
            for (ValueId v : op.operands)
                if (const Op* prod = m_p.tile.producer(v); prod && keyed(prod->id)) {
                    const Key& pk = key(prod->id);
                    k.level = std::max(k.level, pk.level);
                    k.hop = std::max(k.hop, pk.hop);
                    after = std::max(after, pk.stage);
                }
            if (auto it = gmSources.find(id); it != gmSources.end())
                for (OpId w : it->second) {
                    const Key& wk = key(w);
                    const bool cross = m_p.blocks[m_p.blockOfOp[w]].core != core;
                    k.level = std::max(k.level, wk.level + (cross ? 1 : 0));
                    k.hop = std::max(k.hop, wk.hop + 1);
                    after = std::max(after, wk.stage);
                }
            // Outside the loop: with what it reads (a store of the initial state), else before
            // the loop or after it by program position.
            const int64_t i = m_comps.iter[id] >= 0       ? m_comps.iter[id] + k.level / 2
                              : after != INT64_MIN        ? after
                              : int64_t(id) < firstLoopOp ? -1
                                                          : maxIter + 1;
            k.stage = m_comps.iter[id] >= 0 ? i : std::max(i, after);
            k.free = !gmSources.count(id);
            for (ValueId v : op.operands)
                if (const Op* prod = m_p.tile.producer(v); prod && keyed(prod->id))
                    k.free = k.free && key(prod->id).free;
            key(id) = k;
        }
        delayToUsers(ops);
        for (uint32_t b : blocks) sortBlock(m_p.blocks[b]);
    }

private:
    struct Key {
        int64_t stage = 0;
        int level = 0;
        int hop = 0;
        bool free = true; // reads nothing the cluster computes (an input load, its moves)
    };

    static auto tie(const Key& k) { return std::tuple(k.stage, k.level, k.hop); }

    // The key of a tile op, marking it keyed (a map's operator[]): dense arrays by op id, not a
    // hash map, since every op of every cluster gets one (millions at S = 32768).
    Key& key(OpId id) {
        m_keyed[id] = 1;
        return m_key[id];
    }
    bool keyed(OpId id) const { return m_keyed[id] != 0; }

    // An op that reads nothing the cluster computes (a load of an input for the PV of iteration
    // j, whose other operand arrives a stage later, and its moves) moves up to its earliest
    // user, so it does not hold L1/L0 space across a stage. Users first (reverse program
    // order); keys stay ordered.
    void delayToUsers(const std::vector<OpId>& ops) {
        std::unordered_map<OpId, Key> earliestUser;
        for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
            Key& k = key(*it);
            if (auto u = earliestUser.find(*it);
                k.free && u != earliestUser.end() && tie(k) < tie(u->second)) {
                k.stage = u->second.stage;
                k.level = u->second.level;
                k.hop = u->second.hop;
            }
            for (ValueId v : m_p.tile.op(*it).operands) {
                const Op* prod = m_p.tile.producer(v);
                if (!prod || !keyed(prod->id) || m_p.tile.type(v).space == MemSpace::GM) continue;
                auto [e, fresh] = earliestUser.try_emplace(prod->id, k);
                if (!fresh && tie(k) < tie(e->second)) e->second = k;
            }
        }
    }

    void sortBlock(BlockFunction& block) {
        std::vector<std::pair<uint32_t, uint32_t>> pos; // (component, position) per item
        std::unordered_map<uint32_t, uint32_t> seen;
        for (const BlockItem& it : block.items) {
            const uint32_t c = m_comps.ofOp[it.op];
            pos.emplace_back(c, seen[c]++);
        }
        std::vector<size_t> order(block.items.size());
        std::iota(order.begin(), order.end(), size_t(0));
        auto rank = [&](size_t i) {
            const Key& k = key(block.items[i].op);
            return std::tuple(k.stage, k.level, k.hop, m_comps.ops[pos[i].first].front(),
                              pos[i].second);
        };
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return rank(a) < rank(b); });
        std::vector<BlockItem> items;
        items.reserve(order.size());
        for (size_t i : order) items.push_back(block.items[i]);
        block.items = std::move(items);
    }

    BlockProgram& m_p;
    const Components& m_comps;
    std::vector<Key> m_key;    // by tile op id
    std::vector<char> m_keyed; // by tile op id: m_key holds the op's key
};

// --- Blocks ------------------------------------------------------------------------------------

// The program's blocks without the clustered components (emptied blocks dropped), followed by
// the clusters' blocks (AIC, AIV 0, AIV 1); ids, names and blockOfOp renumbered.
void rebuildBlocks(BlockProgram& p, const Components& comps,
                   const std::vector<ClusterPlan>& plans) {
    std::vector<bool> fused(comps.count(), false);
    for (const ClusterPlan& plan : plans) {
        for (uint32_t c : plan.aic) fused[c] = true;
        for (const auto& side : plan.aiv)
            for (uint32_t c : side) fused[c] = true;
    }
    std::vector<BlockFunction> blocks;
    uint32_t maxGroup = 0;
    for (BlockFunction& b : p.blocks) {
        maxGroup = std::max(maxGroup, b.group);
        std::erase_if(b.items, [&](const BlockItem& it) { return fused[comps.ofOp[it.op]]; });
        if (!b.items.empty()) blocks.push_back(std::move(b));
    }
    const std::string base = p.tile.name.empty() ? "kernel" : p.tile.name;
    auto addBlock = [&](uint32_t cluster, CoreType core, uint8_t sub,
                        const std::vector<uint32_t>& members, std::string_view role) {
        if (members.empty()) return;
        BlockFunction b;
        b.core = core;
        b.cluster = cluster;
        b.sub = sub;
        b.group = ++maxGroup;
        b.name = base + "_fused" + std::to_string(cluster) + "_" + std::string(role);
        for (uint32_t c : members)
            for (OpId op : comps.ops[c]) b.items.push_back({op, {}});
        blocks.push_back(std::move(b));
    };
    for (uint32_t c = 0; c < plans.size(); ++c) {
        addBlock(c, CoreType::AIC, 0, plans[c].aic, "aic");
        addBlock(c, CoreType::AIV, 0, plans[c].aiv[0], "aiv0");
        addBlock(c, CoreType::AIV, 1, plans[c].aiv[1], "aiv1");
    }
    p.blocks = std::move(blocks);
    std::fill(p.blockOfOp.begin(), p.blockOfOp.end(), kNoId);
    for (uint32_t id = 0; id < p.blocks.size(); ++id) {
        p.blocks[id].id = id;
        for (const BlockItem& it : p.blocks[id].items) p.blockOfOp[it.op] = id;
    }
}

} // namespace

FusionStats fuseCubeVector(BlockProgram& program, int aicCores) {
    FusionStats stats;
    // Without an unrolled loop in a block (a loop's ops carry `iter`) no component is in one.
    const std::vector<Op>& ops = program.tile.ops();
    if (std::none_of(ops.begin(), ops.end(), [&](const Op& op) {
            const std::vector<int64_t>* iters = iterAttr(op);
            return program.blockOfOp[op.id] != kNoId && iters && iters->back() >= 0;
        }))
        return stats;
    const Components comps = findComponents(program);
    bool cubeInLoop = false; // a cluster alternates cube and vector work of the loop
    for (uint32_t c = 0; c < comps.count(); ++c)
        cubeInLoop = cubeInLoop || (comps.inLoop[c] && comps.core[c] == CoreType::AIC);
    if (!cubeInLoop) return stats;
    std::vector<TaskDep> deps;
    try {
        deps = componentDeps(program, comps);
    } catch (const CompileError&) {
        // Chains on a cycle of GM dependencies, which partition-blocks runs as one task (mixed
        // vec_tiles): split into components again they cannot be ordered, so no cluster.
        program.notes.push_back("fuse-cube-vector: the loop's tile chains depend on each other "
                                "through GM both ways: left unfused");
        return stats;
    }
    const std::vector<ClusterPlan> plans = planClusters(comps, deps);
    if (plans.empty()) return stats;
    if (2 * plans.size() < size_t(std::max(aicCores, 0))) {
        program.notes.push_back("fuse-cube-vector: " + std::to_string(plans.size()) +
                                " cube-vector clusters would keep fewer than half of the " +
                                std::to_string(aicCores) + " AIC cores busy: left unfused");
        return stats;
    }
    rebuildBlocks(program, comps, plans);
    stats.clusters = uint32_t(plans.size());

    std::vector<uint32_t> clusterOfBlock;
    std::vector<std::vector<uint32_t>> blocksOf(plans.size());
    for (const BlockFunction& b : program.blocks) {
        clusterOfBlock.push_back(b.cluster);
        if (b.cluster != kNoCluster) blocksOf[b.cluster].push_back(b.id);
    }
    PingPong pingPong(program, clusterOfBlock);
    stats.workspaces = pingPong.run();
    pingPong.retire();
    PipelineOrder order(program, comps);
    for (const std::vector<uint32_t>& blocks : blocksOf) order.run(blocks);
    program.notes.push_back("fuse-cube-vector: " + std::to_string(stats.clusters) +
                            " cube-vector clusters, " + std::to_string(stats.workspaces) +
                            " ping-pong workspaces");
    return stats;
}

} // namespace pto
