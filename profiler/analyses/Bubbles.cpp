// Per-core bubble analysis.
#include "profiler/analyses/Bubbles.h"

#include "profiler/MetricRows.h"

#include <algorithm>
#include <unordered_map>

namespace pto::prof {
namespace {

// The cycle each task became ready: the latest end of its predecessors (0 without any).
std::unordered_map<std::int64_t, std::int64_t> readyTimes(const RunModel& m) {
    std::unordered_map<std::int64_t, std::int64_t> endOf, ready;
    for (const TaskRun& t : m.tasks) endOf[t.id] = t.end;
    for (auto [from, to] : m.deps) ready[to] = std::max(ready[to], endOf[from]);
    return ready;
}

void add(CoreBubbles& into, const CoreBubbles& b) {
    into.busy += b.busy;
    into.scheduler += b.scheduler;
    into.predecessor += b.predecessor;
    into.tail += b.tail;
    into.unused += b.unused;
    into.flagWait += b.flagWait;
    into.barrierWait += b.barrierWait;
    into.bandwidthStall += b.bandwidthStall;
    into.tasks += b.tasks;
}

} // namespace

Bubbles analyzeBubbles(const RunModel& model) {
    Bubbles r;
    r.cores.resize(model.cores.size());
    auto ready = readyTimes(model);
    std::vector<std::vector<const TaskRun*>> perCore(model.cores.size());
    for (const TaskRun& t : model.tasks)
        if (t.ran()) perCore[std::size_t(t.core)].push_back(&t);
    for (std::size_t c = 0; c < model.cores.size(); ++c) {
        auto& tasks = perCore[c];
        CoreBubbles& b = r.cores[c];
        std::sort(tasks.begin(), tasks.end(), [](auto* a, auto* x) { return a->start < x->start; });
        if (tasks.empty()) b.unused = model.totalCycles;
        std::int64_t prevEnd = model.startCycle;
        for (const TaskRun* t : tasks) {
            std::int64_t idle = std::max<std::int64_t>(0, t->start - prevEnd);
            std::int64_t dispatch = t->waits.dispatch > 0
                                        ? t->dispatch
                                        : std::max(prevEnd, t->start - model.assumedDispatch());
            std::int64_t readyAt = ready.count(t->id) ? ready[t->id] : 0;
            std::int64_t waitPred =
                std::clamp(std::min(readyAt, dispatch) - prevEnd, std::int64_t(0), idle);
            b.predecessor += waitPred;
            b.scheduler += idle - waitPred;
            b.busy += t->duration();
            b.flagWait += t->waits.flag;
            b.barrierWait += t->waits.barrier;
            b.bandwidthStall += t->waits.bandwidth;
            ++b.tasks;
            prevEnd = std::max(prevEnd, t->end);
        }
        if (!tasks.empty()) b.tail = std::max<std::int64_t>(0, model.endCycle() - prevEnd);
        add(r.total, b);
    }
    return r;
}

void appendMetrics(const Bubbles& r, const RunModel& model, std::vector<tracedb::MetricRow>& rows) {
    MetricList out(rows, "bubbles");
    auto emit = [&](std::string_view entity, std::optional<std::int64_t> id, const CoreBubbles& b) {
        out.value(entity, id, "busy_cycles", double(b.busy));
        out.value(entity, id, "wait_scheduler_cycles", double(b.scheduler));
        out.value(entity, id, "wait_predecessor_cycles", double(b.predecessor));
        out.value(entity, id, "idle_tail_cycles", double(b.tail));
        out.value(entity, id, "unused_cycles", double(b.unused));
        out.value(entity, id, "wait_flag_cycles", double(b.flagWait));
        out.value(entity, id, "wait_barrier_cycles", double(b.barrierWait));
        out.value(entity, id, "stall_bandwidth_cycles", double(b.bandwidthStall));
        out.value(entity, id, "tasks", double(b.tasks));
    };
    for (std::size_t c = 0; c < model.cores.size(); ++c)
        emit("core", model.cores[c].trackId, r.cores[c]);
    emit("run", std::nullopt, r.total);
}

} // namespace pto::prof
