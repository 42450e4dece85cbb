// Critical path walk backwards from the last task to finish, and per-task slack.
#include "profiler/analyses/CriticalPath.h"

#include "profiler/MetricRows.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace pto::prof {
namespace {

using Index = std::unordered_map<std::int64_t, std::size_t>; // task id → index in model.tasks

struct Graph {
    std::vector<std::vector<std::size_t>> preds, succs;
    std::vector<std::size_t> corePrev; // previous task on the same core, or npos
};

constexpr std::size_t kNone = std::size_t(-1);

Graph buildGraph(const RunModel& m, const Index& index) {
    Graph g;
    g.preds.resize(m.tasks.size());
    g.succs.resize(m.tasks.size());
    g.corePrev.assign(m.tasks.size(), kNone);
    for (auto [from, to] : m.deps) {
        auto a = index.find(from), b = index.find(to);
        if (a == index.end() || b == index.end()) continue;
        g.preds[b->second].push_back(a->second);
        g.succs[a->second].push_back(b->second);
    }
    std::vector<std::size_t> order(m.tasks.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](auto a, auto b) { return m.tasks[a].start < m.tasks[b].start; });
    std::unordered_map<int, std::size_t> lastOnCore;
    for (std::size_t i : order) {
        const TaskRun& t = m.tasks[i];
        if (!t.ran()) continue;
        if (auto it = lastOnCore.find(t.core); it != lastOnCore.end()) g.corePrev[i] = it->second;
        lastOnCore[t.core] = i;
    }
    return g;
}

std::vector<PathStep> walkBack(const RunModel& m, const Graph& g, std::size_t last) {
    std::vector<PathStep> steps;
    std::vector<bool> seen(m.tasks.size(), false);
    for (std::size_t cur = last; cur != kNone && !seen[cur];) {
        seen[cur] = true;
        const TaskRun& t = m.tasks[cur];
        std::size_t dep = kNone;
        for (std::size_t p : g.preds[cur])
            if (m.tasks[p].ran() && (dep == kNone || m.tasks[p].end > m.tasks[dep].end)) dep = p;
        std::size_t core = g.corePrev[cur];
        std::int64_t depEnd = dep == kNone ? -1 : m.tasks[dep].end;
        std::int64_t coreEnd = core == kNone ? -1 : m.tasks[core].end;
        PathStep step{t.id, PathLink::Start, t.start - m.startCycle};
        std::size_t next = kNone;
        if (depEnd >= 0 && depEnd >= coreEnd) {
            step = {t.id, PathLink::Dependency, t.start - depEnd};
            next = dep;
        } else if (coreEnd >= 0) {
            step = {t.id, PathLink::Core, t.start - coreEnd};
            next = core;
        }
        steps.push_back(step);
        cur = next;
    }
    std::reverse(steps.begin(), steps.end());
    return steps;
}

// The fixed cost between a task becoming ready and starting: its traced dispatch stall, or
// the arch's dispatch cost when the trace has no stalls (none for a measured trace).
std::int64_t dispatchCost(const RunModel& m, const TaskRun& t) {
    if (t.waits.dispatch > 0) return t.waits.dispatch;
    return m.assumedDispatch();
}

std::vector<std::int64_t> slackOf(const RunModel& m, const Graph& g) {
    std::vector<std::size_t> order(m.tasks.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](auto a, auto b) { return m.tasks[a].start > m.tasks[b].start; });
    std::vector<std::int64_t> latestStart(m.tasks.size(), m.endCycle()), slack(m.tasks.size(), 0);
    for (std::size_t i : order) {
        const TaskRun& t = m.tasks[i];
        if (!t.ran()) continue;
        std::int64_t latestEnd = m.endCycle();
        for (std::size_t s : g.succs[i])
            if (m.tasks[s].ran())
                latestEnd = std::min(latestEnd, latestStart[s] - dispatchCost(m, m.tasks[s]));
        latestStart[i] = latestEnd - t.duration();
        slack[i] = std::max<std::int64_t>(0, latestStart[i] - t.start);
    }
    return slack;
}

} // namespace

std::string_view pathLinkName(PathLink link) {
    switch (link) {
    case PathLink::Dependency:
        return "dependency";
    case PathLink::Core:
        return "core";
    default:
        return "start";
    }
}

CriticalPath analyzeCriticalPath(const RunModel& model) {
    CriticalPath r;
    Index index;
    std::size_t last = kNone;
    for (std::size_t i = 0; i < model.tasks.size(); ++i) {
        index[model.tasks[i].id] = i;
        if (model.tasks[i].ran() && (last == kNone || model.tasks[i].end > model.tasks[last].end))
            last = i;
    }
    Graph g = buildGraph(model, index);
    r.slack = slackOf(model, g);
    if (last == kNone) return r;
    r.steps = walkBack(model, g, last);
    r.length = model.tasks[last].end - model.startCycle;
    for (const PathStep& s : r.steps) {
        r.taskCycles += model.tasks[index[s.task]].duration();
        r.gapCycles += std::max<std::int64_t>(0, s.gap);
        r.slack[index[s.task]] = 0;
    }
    return r;
}

void appendMetrics(const CriticalPath& r, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows) {
    MetricList out(rows, "critical_path");
    out.value("run", std::nullopt, "length_cycles", double(r.length));
    out.value("run", std::nullopt, "task_cycles", double(r.taskCycles));
    out.value("run", std::nullopt, "gap_cycles", double(r.gapCycles));
    out.value("run", std::nullopt, "tasks_on_path", double(r.steps.size()));
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        out.value("task", r.steps[i].task, "path_position", double(i));
        out.value("task", r.steps[i].task, "path_gap", double(r.steps[i].gap));
        out.text("task", r.steps[i].task, "path_link", std::string(pathLinkName(r.steps[i].via)));
    }
    for (std::size_t i = 0; i < model.tasks.size(); ++i)
        if (model.tasks[i].ran()) out.value("task", model.tasks[i].id, "slack", double(r.slack[i]));
}

} // namespace pto::prof
