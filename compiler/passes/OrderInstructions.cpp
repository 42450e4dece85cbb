// Block level: item order per block: chains in program order, each in dependency-first order.
#include "compiler/passes/OrderInstructions.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace pto {
namespace {

uint32_t findRoot(std::vector<uint32_t>& parent, uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

// The ops of one block with their in-block dataflow, indexed by position in the old items.
class BlockGraph {
public:
    // `local` is scratch indexed by tile op id, all kNoId on entry and on exit; `defs` is
    // definingOps(tile).
    BlockGraph(const Function& tile, const std::vector<OpId>& defs, const BlockFunction& block,
               std::vector<uint32_t>& local)
        : m_tile(tile), m_defs(defs), m_local(local) {
        m_ops.reserve(block.items.size());
        for (const BlockItem& item : block.items) {
            if (item.isSync())
                throw CompileError({}, tile.loc,
                                   "internal: order-instructions must run before insert-sync "
                                   "(block '" +
                                       block.name + "' already has sync items)");
            m_local[item.op] = uint32_t(m_ops.size());
            m_ops.push_back(item.op);
        }
    }
    ~BlockGraph() {
        for (OpId op : m_ops) m_local[op] = kNoId;
    }
    BlockGraph(const BlockGraph&) = delete;
    BlockGraph& operator=(const BlockGraph&) = delete;

    size_t size() const { return m_ops.size(); }
    OpId op(uint32_t i) const { return m_ops[i]; }
    const std::vector<ValueId>& operands(uint32_t i) const { return m_tile.op(m_ops[i]).operands; }
    // Position of the in-block producer of v, or kNoId.
    uint32_t producer(ValueId v) const {
        const OpId def = m_defs[v];
        return def == kNoId ? kNoId : m_local[def];
    }

private:
    const Function& m_tile;
    const std::vector<OpId>& m_defs;
    std::vector<uint32_t>& m_local;
    std::vector<OpId> m_ops;
};

// The block's components (position of each op's root: its component's first op) and the ops
// nobody in the block reads, sorted by (first op of their component, op id): the chains in
// program order, each chain's sinks in program order.
struct Chains {
    std::vector<uint32_t> root;
    std::vector<uint32_t> sinks;
};

Chains chainsOf(const BlockGraph& g) {
    const uint32_t n = uint32_t(g.size());
    std::vector<uint32_t> parent(n), users(n, 0);
    std::iota(parent.begin(), parent.end(), 0u);
    for (uint32_t i = 0; i < n; ++i)
        for (ValueId v : g.operands(i))
            if (uint32_t p = g.producer(v); p != kNoId) {
                ++users[p];
                uint32_t a = findRoot(parent, i), b = findRoot(parent, p);
                if (a != b) parent[g.op(a) < g.op(b) ? b : a] = g.op(a) < g.op(b) ? a : b;
            }
    Chains c;
    c.root.resize(n);
    for (uint32_t i = 0; i < n; ++i) c.root[i] = findRoot(parent, i);
    for (uint32_t i = 0; i < n; ++i)
        if (users[i] == 0) c.sinks.push_back(i);
    std::sort(c.sinks.begin(), c.sinks.end(), [&](uint32_t a, uint32_t b) {
        return std::pair(g.op(c.root[a]), g.op(a)) < std::pair(g.op(c.root[b]), g.op(b));
    });
    return c;
}

// Components holding several matmul accumulators (an L1 block of mL1 > mL0 or nL1 > nL0):
// their accumulators share every L1 tile, so a depth-first order would load the whole K of
// the block before the second accumulator starts (more than L1 holds). They keep program
// order instead — expand-tiles emits them k-step by k-step, each L1 tile just before its use.
std::vector<bool> programOrdered(const Function& tile, const BlockGraph& g, const Chains& c) {
    std::vector<uint32_t> heads(g.size(), 0);
    for (uint32_t i = 0; i < g.size(); ++i)
        if (tile.op(g.op(i)).kind == OpKind::Matmul) ++heads[c.root[i]];
    std::vector<bool> keep(g.size(), false);
    for (uint32_t i = 0; i < g.size(); ++i) keep[i] = heads[c.root[i]] >= 2;
    return keep;
}

// Depth-first post-order from the sinks, operands left to right (iterative); a component to
// keep in program order is emitted whole, by op id, when its first sink comes up.
std::vector<BlockItem> postOrder(const BlockGraph& g, const Chains& c,
                                 const std::vector<bool>& keepOrder) {
    std::vector<BlockItem> ordered;
    ordered.reserve(g.size());
    std::vector<bool> done(g.size(), false);
    // The members of each component kept in program order, by root (one pass over the block,
    // not one per component: a cube block holds thousands of them).
    std::vector<std::vector<uint32_t>> membersOf(g.size());
    for (uint32_t i = 0; i < g.size(); ++i)
        if (keepOrder[i]) membersOf[c.root[i]].push_back(i);
    std::vector<std::pair<uint32_t, uint32_t>> stack; // (op position, next operand)
    for (uint32_t sink : c.sinks) {
        if (keepOrder[sink]) {
            if (done[sink]) continue;
            std::vector<uint32_t>& members = membersOf[c.root[sink]];
            std::sort(members.begin(), members.end(),
                      [&](uint32_t a, uint32_t b) { return g.op(a) < g.op(b); });
            for (uint32_t i : members) {
                done[i] = true;
                ordered.push_back({g.op(i), {}});
            }
            continue;
        }
        stack.push_back({sink, 0});
        while (!stack.empty()) {
            const uint32_t i = stack.back().first;
            const uint32_t next = stack.back().second++;
            if (next < g.operands(i).size()) {
                uint32_t p = g.producer(g.operands(i)[next]);
                if (p != kNoId && !done[p]) stack.push_back({p, 0});
                continue;
            }
            if (!done[i]) {
                done[i] = true;
                ordered.push_back({g.op(i), {}});
            }
            stack.pop_back();
        }
    }
    return ordered;
}

// Whether two of the block's GM accesses overlap, one of them a write (tile chains
// partition-blocks merged because data went through GM and came back): the depth-first order
// follows on-chip dataflow only, so such a block keeps program order, in which every GM access
// follows the ones it depends on. `written` is scratch indexed by value id, all false on entry
// and on exit.
bool hasGmHazard(const Function& tile, const BlockFunction& block, std::vector<bool>& written) {
    std::vector<GmRegion> acc;
    for (const BlockItem& item : block.items)
        if (const Op& op = tile.op(item.op); readsOrWritesGm(op.kind)) {
            acc.push_back(gmRegionOf(tile, op));
            if (acc.back().write) written[acc.back().tensor] = true;
        }
    std::erase_if(acc, [&](const GmRegion& r) { return !written[r.tensor]; });
    for (const GmRegion& r : acc) written[r.tensor] = false;
    std::sort(acc.begin(), acc.end(), [](const GmRegion& a, const GmRegion& b) {
        return std::pair(a.tensor, a.row) < std::pair(b.tensor, b.row);
    });
    for (size_t i = 0; i < acc.size(); ++i)
        for (size_t j = i + 1; j < acc.size() && acc[j].tensor == acc[i].tensor &&
                               acc[j].row < acc[i].row + acc[i].rows;
             ++j)
            if ((acc[i].write || acc[j].write) && acc[i].overlaps(acc[j])) return true;
    return false;
}

} // namespace

void orderInstructions(BlockProgram& program) {
    std::vector<uint32_t> local(program.tile.ops().size(), kNoId);
    std::vector<bool> written(program.tile.valueCount(), false);
    const std::vector<OpId> defs = definingOps(program.tile);
    for (BlockFunction& block : program.blocks) {
        BlockGraph graph(program.tile, defs, block, local); // throws for sync items
        if (hasGmHazard(program.tile, block, written)) {
            reorderInProgramOrder(block);
            continue;
        }
        const Chains chains = chainsOf(graph);
        block.items = postOrder(graph, chains, programOrdered(program.tile, graph, chains));
    }
}

bool reorderEagerly(const Function& tile, BlockFunction& block) {
    std::vector<bool> written(tile.valueCount(), false);
    if (hasGmHazard(tile, block, written)) return false;
    const std::vector<OpId> defs = definingOps(tile);
    std::vector<uint32_t> local(tile.ops().size(), kNoId);
    const BlockGraph g(tile, defs, block, local);
    const auto n = uint32_t(g.size());
    std::vector<std::vector<uint32_t>> users(n);
    std::vector<uint32_t> waiting(n, 0); // in-block operands not emitted yet
    for (uint32_t i = 0; i < n; ++i)
        for (ValueId v : g.operands(i))
            if (const uint32_t p = g.producer(v); p != kNoId) {
                users[p].push_back(i);
                ++waiting[i];
            }
    std::vector<bool> done(n, false);
    std::vector<BlockItem> ordered;
    ordered.reserve(n);
    std::vector<uint32_t> stack;
    for (uint32_t first = 0; first < n; ++first) {
        if (done[first] || waiting[first] != 0) continue; // emitted, or its operands follow it
        stack.push_back(first);
        while (!stack.empty()) {
            const uint32_t i = stack.back();
            stack.pop_back();
            if (done[i]) continue;
            done[i] = true;
            ordered.push_back({g.op(i), {}});
            // Readers that are ready now, the first of them next.
            for (auto it = users[i].rbegin(); it != users[i].rend(); ++it)
                if (--waiting[*it] == 0) stack.push_back(*it);
        }
    }
    if (ordered.size() != n)
        throw std::logic_error("order-instructions: a block's items are not in dataflow order");
    bool same = true;
    for (uint32_t i = 0; i < n && same; ++i) same = ordered[i].op == block.items[i].op;
    if (same) return false;
    block.items = std::move(ordered);
    return true;
}

bool reorderInProgramOrder(BlockFunction& block) {
    auto byOp = [](const BlockItem& a, const BlockItem& b) { return a.op < b.op; };
    if (std::is_sorted(block.items.begin(), block.items.end(), byOp)) return false;
    std::stable_sort(block.items.begin(), block.items.end(), byOp);
    return true;
}

} // namespace pto
