// The rule table and the severity scale shared by all rules.
#include "profiler/rules/Rules.h"

#include "profiler/Profile.h"

#include <algorithm>

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

std::vector<Finding> runRules(const Profile& p) {
    using Rule = void (*)(const Profile&, std::vector<Finding>&);
    constexpr Rule kRules[] = {ruleDoubleBuffering, ruleCubeStarved, ruleTooFewTasks,
                               ruleSchedulerGaps,   ruleSlowCore,    ruleBandwidthSaturated,
                               ruleSyncWaits};
    std::vector<Finding> out;
    if (p.model.measured)
        ruleMeasuredKernels(p, out);
    else
        for (Rule rule : kRules) rule(p, out);
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        return a.gainCycles > b.gainCycles;
    });
    return out;
}

} // namespace pto::prof
