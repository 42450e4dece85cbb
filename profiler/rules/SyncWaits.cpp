// Rule: the run is latency bound with no pipe near busy — its critical path pays GM latency and
// dispatch, fixed costs no pipe's throughput hides; the gain is what halving the GM latency
// saves on the path (its fill and drain at least, every transfer's latency at most).
#include "profiler/analyses/FixedCost.h"
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

namespace pto::prof {
namespace {

// The waits inside tasks — or, below trace level full, that they were not recorded: a 0 there
// would read as "nothing waited".
std::string waitsEvidence(const Profile& p) {
    if (!p.model.recordsWaits())
        return fmt::format("inside tasks: flag and barrier waits are not recorded at trace level "
                           "{} (run with --trace full to see them)",
                           p.model.traceLevel);
    const CoreBubbles& b = p.bubbles.total;
    return fmt::format("inside tasks: flag waits {}, barrier waits {} (summed over pipes and "
                       "cores, trace level full)",
                       pipeCyclesText(p, double(b.flagWait)),
                       pipeCyclesText(p, double(b.barrierWait)));
}

// The GM latency the critical path's tasks pay: at least their fill and drain (serial), at
// most every transfer's full latency.
struct PathLatency {
    double fixed = 0, all = 0;
    std::int64_t transfers = 0;
};

PathLatency pathLatency(const Profile& p) {
    const RunModel& m = p.model;
    PathLatency l;
    for (const PathStep& s : p.criticalPath.steps) {
        const TaskRun* t = m.task(s.task);
        if (!t) continue;
        l.fixed += fixedCostOf(*t, m.peaks).total();
        double all = 0;
        for (std::size_t pipe = 0; pipe < kPipeCount; ++pipe)
            all += transferLatencyOn(*t, PipeId(pipe), m.peaks);
        l.all += std::min(double(t->duration()), all);
        for (std::int64_t n : t->gmTransfersOnPipe) l.transfers += n;
    }
    l.all = std::max(l.all, l.fixed);
    return l;
}

} // namespace

void ruleSyncWaits(const Profile& p, std::vector<Finding>& out) {
    const BoundVerdict& v = p.runBound;
    if (v.cls != BoundClass::Latency || v.cause != LatencyCause::Pipeline) return;
    const PathLatency l = pathLatency(p);
    Finding f;
    f.rule = "latency_bound";
    f.title = fmt::format("latency bound: {} of the roof, no pipe ≥ {} busy (busiest {} at {})",
                          percent(v.roofFraction), percent(kPipeThreshold),
                          pipeIdName(v.busiestPipe), percent(v.busiestRatio));
    f.advice = "fewer round trips to GM on the critical path: fuse ops so intermediate tiles stay "
               "on chip, load each tile once, overlap loads with compute (double buffering); "
               "larger tiles cut the transfers per byte only while every core still gets a task; "
               "`pto whatif run.db --set hbm.latency=0.5x --set l2.latency=0.5x` shows what the "
               "GM latency costs (the estimated gain)";
    f.evidence.push_back(waitsEvidence(p));
    f.evidence.push_back(fmt::format(
        "critical path: {} GM transfers at {:.0f} cycles of latency each; {} of it paid one after "
        "another before the first compute or after the last (fill and drain), at most {}",
        l.transfers, p.model.peaks.gmLatencyCycles, cyclesText(p, l.fixed), cyclesText(p, l.all)));
    f.evidence.push_back(fmt::format("plus {} dispatch per task (sched.dispatch_cost), which no "
                                     "tiling shortens",
                                     cyclesText(p, p.model.peaks.dispatchCycles)));
    f.entity = "run";
    // Halving the GM latency saves half of what the path pays for it; low: half of the fill and
    // drain, of which part is a transfer's inefficiency (small or misaligned) that stays
    // (assumption; samples/matmul.pto saves 431 of its 961).
    setGain(p, f, 0.25 * (l.fixed + l.all), 0.25 * l.fixed, 0.5 * l.all);
    out.push_back(std::move(f));
}

} // namespace pto::prof
