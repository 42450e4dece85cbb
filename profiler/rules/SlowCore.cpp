// Rule: one core (or a few) is busy much longer than the others of its type: load imbalance,
// and the run's tail where most cores already idle.
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

namespace pto::prof {

void ruleSlowCore(const Profile& p, std::vector<Finding>& out) {
    for (const TypeBalance& b : p.imbalance.types) {
        if (b.used < 2 || b.imbalance < 0.2) continue;
        double high = double(b.maxBusy) - b.meanBusy;
        if (high < 0.05 * double(p.model.totalCycles)) continue;
        const CoreInfo& core = p.model.cores[std::size_t(b.slowestCore)];
        Finding f;
        f.rule = "slow_core";
        f.title = fmt::format("{} is busy {} longer than the mean {} core", core.name,
                              percent(b.imbalance), b.coreType);
        f.advice = "balance the work: give tasks equal tile counts (uneven edge tiles, a tile "
                   "count that does not divide by the core count), or split the largest task";
        f.evidence.push_back(fmt::format("{} busy {}; mean over {} used {} cores {}; least {}",
                                         core.name, cyclesText(p, double(b.maxBusy)), b.used,
                                         b.coreType, cyclesText(p, b.meanBusy),
                                         cyclesText(p, double(b.minBusy))));
        f.evidence.push_back(fmt::format("tail: the last {} of the run has fewer than half of "
                                         "the used cores busy",
                                         cyclesText(p, double(p.imbalance.tailCycles))));
        f.entity = "core";
        f.entityId = core.trackId;
        setGain(p, f, 0.5 * high, 0, high);
        out.push_back(std::move(f));
    }
}

} // namespace pto::prof
