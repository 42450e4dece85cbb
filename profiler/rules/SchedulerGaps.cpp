// Rule: the critical path spends a large share of the run in dispatch and scheduling gaps.
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

namespace pto::prof {

void ruleSchedulerGaps(const Profile& p, std::vector<Finding>& out) {
    const CriticalPath& cp = p.criticalPath;
    double total = double(p.model.totalCycles);
    if (cp.steps.empty() || double(cp.gapCycles) < 0.10 * total) return;
    // One task per core would pay the dispatch cost once instead of once per path task.
    double high = double(cp.gapCycles) - double(p.model.assumedDispatch());
    if (high <= 0) return;
    Finding f;
    f.rule = "scheduler_gaps";
    f.title = fmt::format("{} of the run is dispatch and scheduling gaps on the critical path",
                          percent(double(cp.gapCycles) / total));
    f.advice = "make tasks longer (more tiles per task) so the per-task dispatch cost is paid "
               "less often, or shorten dependency chains between small tasks";
    f.evidence.push_back(fmt::format("critical path: {} tasks, {} running, {} in gaps",
                                     cp.steps.size(), cyclesText(p, double(cp.taskCycles)),
                                     cyclesText(p, double(cp.gapCycles))));
    f.evidence.push_back(
        p.model.measured
            ? std::string("measured trace: the launch cost per task is not known, the gaps "
                          "include it")
            : fmt::format("dispatch cost {} per task (arch sched.dispatch_cost)",
                          cyclesText(p, p.model.peaks.dispatchCycles)));
    f.entity = "run";
    setGain(p, f, 0.5 * high, 0.25 * high, high);
    out.push_back(std::move(f));
}

} // namespace pto::prof
