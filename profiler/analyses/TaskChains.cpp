// Loop-carried chains of a task: the groups of its kernel's Tile ops no edge joins, and whether
// each runs through several iterations of a loop (see TaskSpan.h).
#include "profiler/analyses/TaskChains.h"

#include "profiler/SqlRows.h"
#include "trace_db/TraceReader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace pto::prof {
namespace {

using Weights = std::unordered_map<std::int64_t, TileOpCycles>; // Tile op -> its cycles

// The part of one Tile stage the analysis reads: its edges (producer, consumer), its GM tensors,
// and the loop iteration of every op of a program loop ("kv#[6]").
struct StageGraph {
    std::vector<std::pair<std::int64_t, std::int64_t>> edges;
    std::unordered_set<std::int64_t> gmTensors;
    struct LoopOp {
        std::string iteration; ///< "\"kv\"#[6]"
        std::int64_t rows = 0; ///< a vector result's rows (all but its last dim); 0: a cube op
    };
    std::unordered_map<std::int64_t, LoopOp> loopOps;
};

// The rows of a tile shape "[2,1,128]": the product of all but its last extent (0 if unreadable).
std::int64_t shapeRows(const std::string& shape) {
    const auto dims = nlohmann::json::parse(shape, nullptr, false);
    if (!dims.is_array() || dims.empty()) return 0;
    std::int64_t rows = 1;
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
        if (!dims[i].is_number_integer() || dims[i].get<std::int64_t>() <= 0) return 0;
        rows *= dims[i].get<std::int64_t>();
    }
    return rows;
}

StageGraph readStage(const tracedb::TraceReader& reader, std::int64_t stage) {
    StageGraph g;
    forEachRow(reader, fmt::format("SELECT src, dst FROM edge WHERE stage_id = {}", stage),
               [&](auto row) { g.edges.emplace_back(cellInt(row[0]), cellInt(row[1])); });
    forEachRow(reader,
               fmt::format("SELECT id, kind, attrs, shape, pipe FROM node WHERE stage_id = {} "
                           "AND (kind = 'gm_tensor' OR attrs LIKE '%\"iter\"%')",
                           stage),
               [&](auto row) {
                   const std::int64_t id = cellInt(row[0]);
                   if (cellText(row[1]) == "gm_tensor") {
                       g.gmTensors.insert(id);
                       return;
                   }
                   const auto attrs = nlohmann::json::parse(cellText(row[2]), nullptr, false);
                   if (!attrs.is_object() || !attrs.contains("loop") || !attrs.contains("iter"))
                       return;
                   const bool vector = cellText(row[4]) == "V";
                   g.loopOps.emplace(
                       id, StageGraph::LoopOp{attrs["loop"].dump() + "#" + attrs["iter"].dump(),
                                              vector ? shapeRows(cellText(row[3])) : 0});
               });
    return g;
}

// Union-find over op ids.
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

struct KernelChains {
    std::int64_t groups = 0;
    std::int64_t rows = 0; ///< the rows of the groups' smallest vector results, summed
    bool carried = true;   ///< every group is a vector chain through two or more iterations
};

// The groups of each kernel's timed ops that the stage's edges join — through ops without
// instructions of their own (the later rounds of a counted loop, whose instructions name the
// first round's ops), and through a GM tensor only from a writer to a reader of the same kernel
// (a task storing and loading back; tensors other tasks wrote do not tie its pieces together).
void chainsOfStage(const StageGraph& g, const Weights& weight,
                   std::map<std::int64_t, KernelChains>& chainsOfKernel) {
    Groups groups;
    auto kernelOf = [&](std::int64_t op) {
        auto it = weight.find(op);
        return it == weight.end() ? std::int64_t(-1) : it->second.kernel;
    };
    std::unordered_map<std::int64_t, std::multimap<std::int64_t, std::int64_t>> writers;
    for (const auto& [src, dst] : g.edges) {
        if (g.gmTensors.count(dst)) {
            if (const std::int64_t k = kernelOf(src); k >= 0) writers[dst].emplace(k, src);
        } else if (!g.gmTensors.count(src)) {
            groups.join(src, dst);
        }
    }
    for (const auto& [src, dst] : g.edges) {
        const std::int64_t k = kernelOf(dst);
        auto written = writers.find(src);
        if (k < 0 || written == writers.end()) continue;
        auto [from, to] = written->second.equal_range(k);
        for (auto it = from; it != to; ++it) groups.join(dst, it->second);
    }
    // Per group (its root): its kernel, the first loop iteration met (cleared once a second
    // one is met) and the rows of its smallest vector result (0 once a cube op is met).
    struct Group {
        std::int64_t kernel = -1;
        std::optional<std::string> iteration;
        bool severalIterations = false, cube = false;
        std::int64_t rows = 0;
    };
    std::map<std::int64_t, Group> byRoot;
    for (const auto& [op, w] : weight) byRoot[groups.root(op)].kernel = w.kernel;
    for (const auto& [op, loopOp] : g.loopOps) {
        auto it = byRoot.find(groups.root(op));
        if (it == byRoot.end()) continue;
        Group& group = it->second;
        if (!group.iteration) group.iteration = loopOp.iteration;
        group.severalIterations = group.severalIterations || *group.iteration != loopOp.iteration;
        group.cube = group.cube || loopOp.rows == 0;
        group.rows = group.rows == 0 ? loopOp.rows : std::min(group.rows, loopOp.rows);
    }
    for (const auto& [r, group] : byRoot) {
        KernelChains& c = chainsOfKernel[group.kernel];
        ++c.groups;
        c.rows += group.rows;
        c.carried = c.carried && group.severalIterations && !group.cube && group.rows > 0;
    }
}

} // namespace

void loadTaskChains(const tracedb::TraceReader& reader, const std::vector<TileOpCycles>& ops,
                    RunModel& model) {
    std::map<std::int64_t, Weights> weightOfStage;
    for (const TileOpCycles& o : ops) {
        if (o.tileOp < 0 || o.tileStage < 0 || o.kernel < 0 || o.cycles <= 0) continue;
        auto [it, fresh] = weightOfStage[o.tileStage].try_emplace(o.tileOp, o);
        if (!fresh && it->second.kernel == o.kernel) it->second.cycles += o.cycles;
    }
    std::map<std::int64_t, KernelChains> chainsOfKernel;
    for (const auto& [stage, weight] : weightOfStage)
        chainsOfStage(readStage(reader, stage), weight, chainsOfKernel);
    for (TaskRun& t : model.tasks) {
        auto c = chainsOfKernel.find(t.kernel);
        if (c == chainsOfKernel.end() || !c->second.carried) continue;
        t.carriedChains = c->second.groups;
        t.carriedRows = c->second.rows;
    }
}

} // namespace pto::prof
