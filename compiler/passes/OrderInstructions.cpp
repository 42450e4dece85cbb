// Block level: item order per block: chains in program order, each in dependency-first order.
#include "compiler/passes/OrderInstructions.h"

#include <algorithm>
#include <numeric>

namespace pto {
namespace {

uint32_t findRoot(std::vector<uint32_t>& parent, uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

// The ops of one block with their in-block dataflow, indexed by position in the old items.
class BlockGraph {
public:
    // `local` is scratch indexed by tile op id, all kNoId on entry and on exit.
    BlockGraph(const Function& tile, const BlockFunction& block, std::vector<uint32_t>& local)
        : m_tile(tile), m_local(local) {
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
        const Op* p = m_tile.producer(v);
        return p ? m_local[p->id] : kNoId;
    }

private:
    const Function& m_tile;
    std::vector<uint32_t>& m_local;
    std::vector<OpId> m_ops;
};

// Ops nobody in the block reads, sorted by (first op of their component, op id): the chains in
// program order, each chain's sinks in program order.
std::vector<uint32_t> sinksInChainOrder(const BlockGraph& g) {
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
    std::vector<uint32_t> sinks;
    for (uint32_t i = 0; i < n; ++i)
        if (users[i] == 0) sinks.push_back(i);
    std::sort(sinks.begin(), sinks.end(), [&](uint32_t a, uint32_t b) {
        return std::pair(g.op(findRoot(parent, a)), g.op(a)) <
               std::pair(g.op(findRoot(parent, b)), g.op(b));
    });
    return sinks;
}

// Depth-first post-order from the sinks, operands left to right (iterative).
std::vector<BlockItem> postOrder(const BlockGraph& g, const std::vector<uint32_t>& sinks) {
    std::vector<BlockItem> ordered;
    ordered.reserve(g.size());
    std::vector<bool> done(g.size(), false);
    std::vector<std::pair<uint32_t, uint32_t>> stack; // (op position, next operand)
    for (uint32_t sink : sinks) {
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

} // namespace

void orderInstructions(BlockProgram& program) {
    std::vector<uint32_t> local(program.tile.ops().size(), kNoId);
    for (BlockFunction& block : program.blocks) {
        BlockGraph graph(program.tile, block, local);
        block.items = postOrder(graph, sinksInChainOrder(graph));
    }
}

} // namespace pto
