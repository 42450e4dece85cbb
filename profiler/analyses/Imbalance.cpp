// Load balance across cores and the run's tail.
#include "profiler/analyses/Imbalance.h"

#include "profiler/MetricRows.h"
#include "profiler/Timeline.h"

#include <algorithm>
#include <map>

namespace pto::prof {

Imbalance analyzeImbalance(const RunModel& model) {
    Imbalance r;
    std::map<int, std::int64_t> busyOfCore;
    std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
    for (const TaskRun& t : model.tasks) {
        if (!t.ran()) continue;
        busyOfCore[t.core] += t.duration();
        intervals.emplace_back(t.start, t.end);
    }
    for (std::string type : {"AIC", "AIV"}) {
        TypeBalance b;
        b.coreType = type;
        b.available = type == "AIC" ? model.peaks.aicCores : model.peaks.aivCores;
        for (const TaskRun& t : model.tasks) b.tasks += t.ran() && t.coreType == type ? 1 : 0;
        double sum = 0;
        for (auto [core, busy] : busyOfCore) {
            if (model.cores[std::size_t(core)].type != type) continue;
            ++b.used;
            sum += double(busy);
            if (b.slowestCore < 0 || busy > b.maxBusy) b.slowestCore = core, b.maxBusy = busy;
            b.minBusy = b.used == 1 ? busy : std::min(b.minBusy, busy);
        }
        if (b.used == 0) continue;
        b.meanBusy = sum / b.used;
        b.imbalance = b.meanBusy > 0 ? double(b.maxBusy) / b.meanBusy - 1 : 0;
        r.types.push_back(b);
    }
    int used = int(busyOfCore.size());
    ConcurrencyProfile running(intervals);
    std::int64_t end = running.lastTimeAtLeast(std::max(1, (used + 1) / 2));
    r.tailStart = end < 0 ? model.endCycle() : std::min(end, model.endCycle());
    r.tailCycles = model.endCycle() - r.tailStart;
    return r;
}

void appendMetrics(const Imbalance& r, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows) {
    MetricList out(rows, "imbalance");
    for (const TypeBalance& b : r.types) {
        std::string p = b.coreType == "AIC" ? "aic_" : "aiv_";
        out.value("run", std::nullopt, p + "cores_used", b.used);
        out.value("run", std::nullopt, p + "cores_available", b.available);
        out.value("run", std::nullopt, p + "tasks", b.tasks);
        out.value("run", std::nullopt, p + "mean_busy_cycles", b.meanBusy);
        out.value("run", std::nullopt, p + "max_busy_cycles", double(b.maxBusy));
        out.value("run", std::nullopt, p + "min_busy_cycles", double(b.minBusy));
        out.value("run", std::nullopt, p + "imbalance", b.imbalance);
        if (b.slowestCore >= 0)
            out.text("run", std::nullopt, p + "slowest_core",
                     model.cores[std::size_t(b.slowestCore)].name);
    }
    out.value("run", std::nullopt, "tail_start", double(r.tailStart));
    out.value("run", std::nullopt, "tail_cycles", double(r.tailCycles));
}

} // namespace pto::prof
