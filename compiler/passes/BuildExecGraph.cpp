// Block → Exec: tasks and their GM dependencies, found through a per-tensor grid of regions.
#include "compiler/passes/BuildExecGraph.h"

#include "compiler/ir/Printer.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>

namespace pto {
namespace {

struct Access {
    uint32_t task = 0;
    OpId op = kNoId;
    GmRegion region;
};

struct Edge {
    uint32_t from = 0;
    uint32_t to = 0;
    DepKind kind = DepKind::Raw;
    uint32_t tensor = 0;
};

// Preference when two tasks have several dependencies: the one to report (RAW first).
int kindRank(DepKind k) {
    return k == DepKind::Raw ? 0 : k == DepKind::Waw ? 1 : 2;
}

// The value as the printer shows it (error paths only: builds the function's name table).
std::string gmName(const Function& tile, ValueId v) {
    std::string s(1, '%');
    s += NameTable(tile)[v];
    return s;
}

// GM accesses grouped by GM tensor index, in program order; tensors nobody writes are dropped
// (reads never conflict with reads).
std::vector<std::vector<Access>>
collectAccesses(const BlockProgram& program, const std::vector<uint32_t>& gmIndex, size_t gmCount) {
    std::vector<std::vector<Access>> perTensor(gmCount);
    std::vector<bool> written(gmCount, false);
    for (uint32_t task = 0; task < program.blocks.size(); ++task) {
        for (const BlockItem& item : program.blocks[task].items) {
            if (item.isSync()) continue;
            const Op& op = program.tile.op(item.op);
            if (!readsOrWritesGm(op.kind)) continue;
            GmRegion region = gmRegionOf(program.tile, op);
            uint32_t t = gmIndex[region.tensor];
            if (t == kNoId || region.rows <= 0 || region.cols <= 0) continue;
            perTensor[t].push_back({task, op.id, region});
            written[t] = written[t] || region.write;
        }
    }
    for (size_t t = 0; t < gmCount; ++t) {
        if (!written[t]) perTensor[t].clear();
        std::sort(perTensor[t].begin(), perTensor[t].end(),
                  [](const Access& a, const Access& b) { return a.op < b.op; }); // program order
    }
    return perTensor;
}

// Number of cells of size `cell` a half-open range [lo, lo + len) touches.
int64_t cellSpan(int64_t lo, int64_t len, int64_t cell) {
    return (lo + len - 1) / cell - lo / cell + 1;
}

// Cell size: the smallest access extent per axis, coarsened until the accesses cover at most
// a small multiple of their count in cells (a tiny access among big ones must not explode).
std::pair<int64_t, int64_t> chooseCells(const std::vector<Access>& acc) {
    int64_t ch = INT64_MAX, cw = INT64_MAX;
    for (const Access& a : acc) {
        ch = std::min(ch, std::max<int64_t>(1, a.region.rows));
        cw = std::min(cw, std::max<int64_t>(1, a.region.cols));
    }
    const int64_t budget = 8 * int64_t(acc.size()) + 4096;
    for (;;) {
        int64_t total = 0, rowCells = 0, colCells = 0;
        for (const Access& a : acc) {
            int64_t r = cellSpan(a.region.row, a.region.rows, ch);
            int64_t c = cellSpan(a.region.col, a.region.cols, cw);
            total += r * c;
            rowCells += r;
            colCells += c;
        }
        if (total <= budget) return {ch, cw};
        (rowCells >= colCells ? ch : cw) *= 2;
    }
}

bool covers(const GmRegion& outer, const GmRegion& inner) {
    return outer.row <= inner.row && inner.row + inner.rows <= outer.row + outer.rows &&
           outer.col <= inner.col && inner.col + inner.cols <= outer.col + outer.cols;
}

// Over the tasks' clusters: which pairs of accesses conflict, and which write orders
// everything before it for a later access.
class ConflictScan {
public:
    ConflictScan(const std::vector<uint32_t>& clusterOf, GmDeps mode)
        : m_clusterOf(clusterOf), m_mode(mode) {}

    // Tasks of one fused cluster start together; their conflicts are cross-core flags.
    bool conflict(const Access& x, const Access& y) const {
        if (!x.region.write && !y.region.write) return false;
        if (x.task == y.task) return false;
        const uint32_t c = m_clusterOf[x.task];
        if (c != kNoCluster && c == m_clusterOf[y.task]) return false;
        return x.region.overlaps(y.region);
    }

    // An earlier write z that covers y orders every access x before it against y: x → z (they
    // overlap, z writes: an edge, or one task) and z → y. The edges x → y are then implied,
    // unless an edge of the path is a cross-core flag (z in a cluster, not y's task).
    bool orders(const Access& z, const Access& y) const {
        if (m_mode == GmDeps::EveryPair || !z.region.write) return false;
        if (z.task != y.task && m_clusterOf[z.task] != kNoCluster) return false;
        return covers(z.region, y.region);
    }

private:
    const std::vector<uint32_t>& m_clusterOf;
    GmDeps m_mode;
};

// A grid of cells over one tensor's accesses: (cell, access) for every cell an access touches,
// sorted by cell, then in program order.
struct CellGrid {
    int64_t ch = 1, cw = 1, width = 1;
    std::vector<std::pair<int64_t, uint32_t>> entries;

    int64_t cornerCell(const GmRegion& a, const GmRegion& b) const {
        return std::max(a.row, b.row) / ch * width + std::max(a.col, b.col) / cw;
    }
};

CellGrid cellGrid(const std::vector<Access>& acc) {
    CellGrid g;
    std::tie(g.ch, g.cw) = chooseCells(acc);
    for (const Access& a : acc)
        g.width = std::max(g.width, (a.region.col + a.region.cols - 1) / g.cw + 1);
    for (uint32_t i = 0; i < acc.size(); ++i) {
        const GmRegion& r = acc[i].region;
        for (int64_t cr = r.row / g.ch; cr <= (r.row + r.rows - 1) / g.ch; ++cr)
            for (int64_t cc = r.col / g.cw; cc <= (r.col + r.cols - 1) / g.cw; ++cc)
                g.entries.emplace_back(cr * g.width + cc, i);
    }
    std::sort(g.entries.begin(), g.entries.end());
    return g;
}

// Appends the edges of one tensor's accesses (in program order; not of one fused cluster: those
// are cross-core flags, and a cluster's ping-pong workspace would give every pair of its
// iterations). Each access is paired with the earlier ones of every cell it touches, latest
// first: a read with the writes, a write with every access, in GmDeps::Ordering mode up to the
// write that covers it (ConflictScan::orders). A pair is reported only in the cell holding the
// corner of their intersection, so once; the covering write lies in each of the cells.
void findConflicts(const std::vector<Access>& acc, uint32_t tensor,
                   const std::vector<uint32_t>& clusterOf, GmDeps mode, std::vector<Edge>& out) {
    if (acc.empty()) return;
    const uint32_t firstCluster = clusterOf[acc.front().task];
    if (firstCluster != kNoCluster && std::all_of(acc.begin(), acc.end(), [&](const Access& a) {
            return clusterOf[a.task] == firstCluster;
        }))
        return; // a cluster's own workspace
    const CellGrid grid = cellGrid(acc);
    const auto& cells = grid.entries;
    const ConflictScan scan(clusterOf, mode);
    // The previous write of the same cell, per entry (SIZE_MAX: none).
    std::vector<size_t> prevWrite(cells.size(), SIZE_MAX);
    for (size_t k = 1; k < cells.size(); ++k)
        if (cells[k].first == cells[k - 1].first)
            prevWrite[k] = acc[cells[k - 1].second].region.write ? k - 1 : prevWrite[k - 1];
    for (size_t k = 0; k < cells.size(); ++k) {
        const int64_t key = cells[k].first;
        const Access& y = acc[cells[k].second];
        const bool write = y.region.write; // a read conflicts with writes only
        for (size_t j = write ? k - 1 : prevWrite[k]; j != SIZE_MAX && cells[j].first == key;
             j = write ? j - 1 : prevWrite[j]) {
            const Access& x = acc[cells[j].second];
            if (scan.conflict(x, y) && grid.cornerCell(x.region, y.region) == key)
                out.push_back(
                    {x.task, y.task,
                     x.region.write ? (write ? DepKind::Waw : DepKind::Raw) : DepKind::War,
                     tensor});
            if (scan.orders(x, y)) break;
        }
    }
}

// One edge per task pair, the most telling kind first; sorted by (from, to).
std::vector<TaskDep> dedupe(std::vector<Edge>& edges) {
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
        return std::tuple(a.from, a.to, kindRank(a.kind), a.tensor) <
               std::tuple(b.from, b.to, kindRank(b.kind), b.tensor);
    });
    std::vector<TaskDep> deps;
    deps.reserve(edges.size());
    for (const Edge& e : edges)
        if (deps.empty() || deps.back().from != e.from || deps.back().to != e.to)
            deps.push_back({e.from, e.to, e.kind, e.tensor});
    return deps;
}

// Kahn's algorithm; a leftover edge means a cycle, which no task order can honour.
void checkAcyclic(const ExecGraph& graph, const BlockProgram& program,
                  const std::vector<ValueId>& gmOrder) {
    const size_t n = graph.tasks.size();
    std::vector<uint32_t> indegree(n, 0), start(n + 1, 0);
    for (const TaskDep& d : graph.deps) {
        ++indegree[d.to];
        ++start[d.from + 1];
    }
    for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < n; ++i)
        if (indegree[i] == 0) ready.push_back(i);
    size_t done = 0;
    while (!ready.empty()) {
        uint32_t t = ready.back();
        ready.pop_back();
        ++done;
        for (uint32_t e = start[t]; e < start[t + 1]; ++e)
            if (--indegree[graph.deps[e].to] == 0) ready.push_back(graph.deps[e].to);
    }
    if (done == n) return;
    for (const TaskDep& d : graph.deps) {
        if (indegree[d.from] == 0 || indegree[d.to] == 0) continue;
        const BlockFunction& a = program.blocks[d.from];
        const BlockFunction& b = program.blocks[d.to];
        // where the value comes back: b's first access of the tensor (else the function)
        SourceLoc at = program.tile.loc;
        for (const BlockItem& item : b.items) {
            if (item.isSync()) continue;
            const Op& op = program.tile.op(item.op);
            if (readsOrWritesGm(op.kind) &&
                gmRegionOf(program.tile, op).tensor == gmOrder[d.tensor]) {
                at = op.loc;
                break;
            }
        }
        throw CompileError({}, at,
                           "tasks '" + a.name + "' and '" + b.name +
                               "' lie on a cycle of GM dependencies (through " +
                               gmName(program.tile, gmOrder[d.tensor]) +
                               "): they cannot be ordered as separate tasks; a value left the "
                               "chain's tiles through GM and came back: give the ops that read "
                               "each other's results one vec_tile (a vec_tile directive before "
                               "them)");
    }
}

} // namespace

ExecGraph gmDependencyGraph(const BlockProgram& program, GmDeps mode) {
    ExecGraph graph;
    graph.tasks.reserve(program.blocks.size());
    for (uint32_t i = 0; i < program.blocks.size(); ++i) {
        const BlockFunction& b = program.blocks[i];
        graph.tasks.push_back({i, i, b.core, b.name, b.cluster, b.sub});
    }

    const std::vector<ValueId> gmOrder = gmLayoutOrder(program.tile);
    std::vector<uint32_t> gmIndex(program.tile.valueCount(), kNoId);
    for (uint32_t i = 0; i < gmOrder.size(); ++i) gmIndex[gmOrder[i]] = i;

    std::vector<std::vector<Access>> perTensor = collectAccesses(program, gmIndex, gmOrder.size());
    // Tasks of one fused cluster start together; their conflicts are cross-core flags
    // (insert-cross-flags), not task dependencies.
    std::vector<uint32_t> clusterOf;
    for (const BlockFunction& b : program.blocks) clusterOf.push_back(b.cluster);
    std::vector<Edge> edges;
    for (uint32_t t = 0; t < perTensor.size(); ++t)
        findConflicts(perTensor[t], t, clusterOf, mode, edges);
    graph.deps = dedupe(edges);
    return graph;
}

ExecGraph buildExecGraph(const BlockProgram& program, GmDeps mode) {
    ExecGraph graph = gmDependencyGraph(program, mode);
    checkAcyclic(graph, program, gmLayoutOrder(program.tile));
    return graph;
}

} // namespace pto
