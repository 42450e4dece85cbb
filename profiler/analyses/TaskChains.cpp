// Loop-carried chains of a task: the groups of its kernel's Tile ops that depend on one another,
// and whether each carries a value from one iteration of a loop to a later one (see
// TaskChains.h).
#include "profiler/analyses/TaskChains.h"

#include "profiler/SqlRows.h"
#include "trace_db/TraceReader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace pto::prof {
namespace {

using Kernels = std::unordered_map<std::int64_t, std::int64_t>; // timed Tile op -> its kernel

// The part of one Tile stage the analysis reads: its edges (producer, consumer), the nodes that
// are no op (the program's arguments, its return, GM tensors), and every op of a program loop.
struct StageGraph {
    std::vector<std::pair<std::int64_t, std::int64_t>> edges;
    std::unordered_set<std::int64_t> notOps;
    std::unordered_set<std::int64_t> gmTensors;
    struct LoopOp {
        std::string loop;
        std::vector<std::int64_t> iter;
        std::int64_t rows = 0; ///< its result's rows (all but the last dim); 0: a cube core's op
    };
    std::unordered_map<std::int64_t, LoopOp> loopOps;
};

// The rows of a tile shape "[2,1,128]": the product of all but its last extent (0 if unreadable
// or absurd).
std::int64_t shapeRows(const std::string& shape) {
    const auto dims = nlohmann::json::parse(shape, nullptr, false);
    if (!dims.is_array() || dims.empty()) return 0;
    std::int64_t rows = 1;
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
        if (!dims[i].is_number_integer() || dims[i].get<std::int64_t>() <= 0 ||
            __builtin_mul_overflow(rows, dims[i].get<std::int64_t>(), &rows))
            return 0;
    }
    return rows;
}

StageGraph readStage(const tracedb::TraceReader& reader, std::int64_t stage) {
    StageGraph g;
    forEachRow(reader, fmt::format("SELECT src, dst FROM edge WHERE stage_id = {}", stage),
               [&](auto row) { g.edges.emplace_back(cellInt(row[0]), cellInt(row[1])); });
    forEachRow(reader,
               fmt::format("SELECT id, kind, attrs, shape, core FROM node WHERE stage_id = {} AND "
                           "(kind IN ('gm_tensor', 'arg', 'return') OR attrs LIKE '%\"iter\"%')",
                           stage),
               [&](auto row) {
                   const std::int64_t id = cellInt(row[0]);
                   const std::string kind = cellText(row[1]);
                   if (kind == "gm_tensor" || kind == "arg" || kind == "return") {
                       g.notOps.insert(id);
                       if (kind == "gm_tensor") g.gmTensors.insert(id);
                       return;
                   }
                   const auto attrs = nlohmann::json::parse(cellText(row[2]), nullptr, false);
                   if (!attrs.is_object() || !attrs.contains("loop") || !attrs.contains("iter") ||
                       !attrs["iter"].is_array())
                       return;
                   StageGraph::LoopOp op{attrs["loop"].dump(), {}, 0};
                   for (const auto& i : attrs["iter"])
                       op.iter.push_back(i.is_number_integer() ? i.template get<std::int64_t>()
                                                               : -1);
                   op.rows = cellText(row[4]) == "aic" ? 0 : shapeRows(cellText(row[3]));
                   g.loopOps.emplace(id, std::move(op));
               });
    return g;
}

// Union-find over node ids.
class Groups {
public:
    std::int64_t root(std::int64_t x) {
        std::int64_t r = x;
        for (auto it = m_parent.try_emplace(r, r).first; it->second != r; it = m_parent.find(r))
            r = it->second;
        while (x != r) x = std::exchange(m_parent[x], r); // path compression
        return r;
    }
    void join(std::int64_t a, std::int64_t b) { m_parent[root(a)] = root(b); }

private:
    std::unordered_map<std::int64_t, std::int64_t> m_parent;
};

// Joins the ops that depend on one another: along every edge between two ops, and through a GM
// tensor from a writer to the readers of the same kernel (a task storing and loading back;
// tensors other tasks wrote do not tie its pieces together). A source op (one with no op before
// it — a fill, a load of an input) joins all its consumers when `sourcesJoin` (as the compiler
// keeps ops that share one in one task); otherwise, being copyable, only consumers that are one
// group already, and it is put in `shared` (belonging to no group) when they are not.
Groups joinDependentOps(const StageGraph& g, const Kernels& kernelOf, bool sourcesJoin,
                        std::unordered_set<std::int64_t>& shared) {
    auto isOp = [&](std::int64_t n) { return !g.notOps.count(n); };
    std::unordered_set<std::int64_t> fed; // ops with an op before them
    for (const auto& [src, dst] : g.edges)
        if (isOp(src) && isOp(dst)) fed.insert(dst);
    Groups groups;
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> sourceConsumers;
    // Per GM tensor and kernel: the ops that write it and those that read it back.
    std::map<std::pair<std::int64_t, std::int64_t>,
             std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>
        gm;
    for (const auto& [src, dst] : g.edges) {
        if (isOp(src) && isOp(dst)) {
            if (fed.count(src))
                groups.join(src, dst);
            else
                sourceConsumers[src].push_back(dst);
        } else if (g.gmTensors.count(dst) && kernelOf.count(src)) {
            gm[{dst, kernelOf.at(src)}].first.push_back(src);
        } else if (g.gmTensors.count(src) && kernelOf.count(dst)) {
            gm[{src, kernelOf.at(dst)}].second.push_back(dst);
        }
    }
    for (const auto& [tensor, io] : gm) {
        const auto& [writers, readers] = io;
        if (writers.empty() || readers.empty()) continue;
        for (std::int64_t op : writers) groups.join(op, writers.front());
        for (std::int64_t op : readers) groups.join(op, writers.front());
    }
    for (const auto& [source, consumers] : sourceConsumers) {
        const std::int64_t r = groups.root(consumers.front());
        if (sourcesJoin || std::all_of(consumers.begin(), consumers.end(),
                                       [&](std::int64_t c) { return groups.root(c) == r; }))
            for (std::int64_t c : consumers) groups.join(source, c);
        else
            shared.insert(source);
    }
    return groups;
}

struct KernelChains {
    std::int64_t groups = 0;
    std::int64_t rows = 0; ///< the rows of the groups' smallest results, summed
    bool carried = true;   ///< every group carries a value to a later loop iteration
    bool known = true;     ///< no group runs in another kernel too
    bool limits() const { return groups > 0 && carried && known; }
};

// Per kernel: its groups of timed ops, each carried when one of its edges goes from an op of a
// loop's iteration to an op of a later one, on vector cores only (a cube's chain is cut by its
// output blocks, which the rows of a vector tile do not describe).
std::map<std::int64_t, KernelChains> chainsOfStage(const StageGraph& g, const Kernels& kernelOf,
                                                   bool sourcesJoin) {
    std::map<std::int64_t, KernelChains> chainsOfKernel;
    std::unordered_set<std::int64_t> shared;
    Groups groups = joinDependentOps(g, kernelOf, sourcesJoin, shared);
    struct Group {
        std::int64_t kernel = -1;
        bool severalKernels = false, carried = false, cube = false;
        std::int64_t rows = 0;
    };
    std::map<std::int64_t, Group> byRoot;
    for (const auto& [op, kernel] : kernelOf) {
        if (shared.count(op)) continue;
        Group& group = byRoot[groups.root(op)];
        group.severalKernels =
            group.severalKernels || (group.kernel >= 0 && group.kernel != kernel);
        group.kernel = std::max(group.kernel, kernel);
    }
    for (const auto& [op, loopOp] : g.loopOps) {
        auto it = byRoot.find(groups.root(op));
        if (it == byRoot.end()) continue;
        it->second.cube = it->second.cube || loopOp.rows == 0;
        it->second.rows =
            it->second.rows == 0 ? loopOp.rows : std::min(it->second.rows, loopOp.rows);
    }
    for (const auto& [src, dst] : g.edges) {
        auto a = g.loopOps.find(src), b = g.loopOps.find(dst);
        if (a == g.loopOps.end() || b == g.loopOps.end() || a->second.loop != b->second.loop ||
            !(a->second.iter < b->second.iter))
            continue;
        if (auto it = byRoot.find(groups.root(dst)); it != byRoot.end()) it->second.carried = true;
    }
    for (const auto& [r, group] : byRoot) {
        KernelChains& c = chainsOfKernel[group.kernel];
        ++c.groups;
        c.rows += group.rows;
        c.carried = c.carried && group.carried && !group.cube && group.rows > 0;
        c.known = c.known && !group.severalKernels;
    }
    return chainsOfKernel;
}

} // namespace

void loadTaskChains(const tracedb::TraceReader& reader, const std::vector<TileOpCycles>& ops,
                    RunModel& model) {
    std::map<std::int64_t, Kernels> kernelsOfStage;
    for (const TileOpCycles& o : ops)
        if (o.tileOp >= 0 && o.tileStage >= 0 && o.kernel >= 0 && o.cycles > 0)
            kernelsOfStage[o.tileStage].try_emplace(o.tileOp, o.kernel);
    // As the compiler groups them (ops sharing a source stay in one task), and as they depend
    // on one another (each chain on its own).
    std::map<std::int64_t, KernelChains> asCompiled, asDependent;
    for (const auto& [stage, kernelOf] : kernelsOfStage) {
        const StageGraph g = readStage(reader, stage);
        asCompiled.merge(chainsOfStage(g, kernelOf, true));
        asDependent.merge(chainsOfStage(g, kernelOf, false));
    }
    for (TaskRun& t : model.tasks) {
        auto compiled = asCompiled.find(t.kernel);
        if (compiled == asCompiled.end() || !compiled->second.limits()) continue;
        t.carriedRows = compiled->second.rows;
        auto dependent = asDependent.find(t.kernel);
        if (dependent != asDependent.end() && dependent->second.limits())
            t.carriedChains = dependent->second.groups;
    }
}

} // namespace pto::prof
