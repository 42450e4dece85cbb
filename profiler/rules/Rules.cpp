// The rule table and the severity scale shared by all rules.
#include "profiler/rules/Rules.h"

#include "profiler/Profile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>

namespace pto::prof {

std::string_view severityName(Severity s) {
    switch (s) {
    case Severity::Critical:
        return "critical";
    case Severity::Warning:
        return "warning";
    default:
        return "info";
    }
}

Severity severityForGain(double fraction) {
    if (fraction >= 0.30) return Severity::Critical;
    if (fraction >= 0.05) return Severity::Warning;
    return Severity::Info;
}

namespace {

using RuleFn = void (*)(const Profile&, std::vector<Finding>&);
struct Rule {
    std::string_view name; // the `rule` of the findings it gives
    RuleFn run;
};
constexpr Rule kRules[] = {{"double_buffering", ruleDoubleBuffering},
                           {"cube_starved", ruleCubeStarved},
                           {"too_few_tasks", ruleTooFewTasks},
                           {"scheduler_gaps", ruleSchedulerGaps},
                           {"slow_core", ruleSlowCore},
                           {"bandwidth_saturated", ruleBandwidthSaturated},
                           {"gather_dma", ruleGatherDma},
                           {"scatter_dma", ruleScatterDma},
                           {"latency_bound", ruleSyncWaits},
                           {"handoff_waits", ruleHandOffWaits}};

} // namespace

std::vector<Finding> runRules(const Profile& p) {
    std::vector<Finding> out;
    if (!p.model.executed()) return out; // every rule would read zeros as a bottleneck
    if (p.model.measured)
        ruleMeasuredKernels(p, out);
    else
        for (const Rule& rule : kRules) rule.run(p, out);
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        return a.gainCycles > b.gainCycles;
    });
    return out;
}

std::string noFindingsNote(const Profile& p) {
    if (!p.model.executed())
        return p.model.simFault.empty()
                   ? fmt::format("{} (no task or instruction slices), so there is nothing to "
                                 "classify or find",
                                 p.model.notExecutedReason())
                   : fmt::format("{}, so there is nothing to classify or find (the fault: {})",
                                 p.model.notExecutedReason(), p.model.simFault);
    std::vector<std::string_view> names;
    for (const Rule& rule : kRules) names.push_back(rule.name);
    if (p.model.measured) names.assign(kMeasuredRules.begin(), kMeasuredRules.end());
    return fmt::format("no rule met its threshold; checked {} rules{} ({}) — thresholds in "
                       "docs/PROFILER.md, \"{}\"",
                       names.size(), p.model.measured ? " of measured traces" : "",
                       fmt::join(names, ", "), p.model.measured ? "Measured traces" : "Findings");
}

} // namespace pto::prof
