// Rule: fewer tasks than cores, so part of the chip sits idle for the whole run.
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

namespace pto::prof {

void ruleTooFewTasks(const Profile& p, std::vector<Finding>& out) {
    for (const TypeBalance& b : p.imbalance.types) {
        if (b.used >= b.available || b.used == 0) continue;
        double sum = b.meanBusy * b.used;
        double ideal = sum / b.available;
        // Spreading the same work over every core; bandwidth-bound work gains less.
        double high = double(b.maxBusy) - ideal;
        double expected = high * (1.0 - std::min(1.0, p.throughput.bandwidthUtilization));
        if (high < 0.05 * double(p.model.totalCycles)) continue;
        Finding f;
        f.rule = "too_few_tasks";
        f.title = fmt::format("{} tasks keep only {} of {} {} cores busy", b.tasks, b.used,
                              b.available, b.coreType);
        f.advice = "split the work into more tasks: smaller tiles, or fewer tiles per task "
                   "(--tiles-per-task), so every core gets a share";
        f.evidence.push_back(fmt::format("{} cores used: {} / {}; busiest core {} busy", b.coreType,
                                         b.used, b.available, cyclesText(p, double(b.maxBusy))));
        f.evidence.push_back(
            fmt::format("the same work over {} cores: {} each", b.available, cyclesText(p, ideal)));
        f.evidence.push_back(fmt::format("GM bandwidth used: {} of peak (limits the gain)",
                                         percent(p.throughput.bandwidthUtilization)));
        f.entity = "run";
        setGain(p, f, expected, 0, high);
        out.push_back(std::move(f));
    }
}

} // namespace pto::prof
