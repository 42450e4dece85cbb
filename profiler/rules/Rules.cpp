// The rule table and the severity scale shared by all rules.
#include "profiler/rules/Rules.h"

#include "profiler/Profile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
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
// What a rule reads beyond the task slices and instruction rows every simulated trace has.
enum class Needs { Tasks, PipeTimes, CrossWaits };
struct Rule {
    std::string_view name; // the `rule` of the findings it gives
    RuleFn run;
    Needs needs = Needs::Tasks;
    // The opcode whose slices it reads: it needs them only when the program has such
    // instructions (a program without gathers has nothing for gather_dma to find). Empty: always.
    std::string_view onlyWith = {};
};
constexpr Rule kRules[] = {
    {"double_buffering", ruleDoubleBuffering, Needs::PipeTimes},
    {"cube_starved", ruleCubeStarved, Needs::PipeTimes},
    // Its fixed part per task comes from instruction slices (analyses/FixedCost): without them
    // it would be 0 and the estimate the old overestimate (a one-tile add: critical, real 7 %).
    {"too_few_tasks", ruleTooFewTasks, Needs::PipeTimes},
    {"scheduler_gaps", ruleSchedulerGaps},
    {"slow_core", ruleSlowCore},
    {"bandwidth_saturated", ruleBandwidthSaturated},
    {"gather_dma", ruleGatherDma, Needs::PipeTimes, "MGATHER"},
    {"scatter_dma", ruleScatterDma, Needs::PipeTimes, "MSCATTER"},
    {"latency_bound", ruleSyncWaits, Needs::PipeTimes},
    {"handoff_waits", ruleHandOffWaits, Needs::CrossWaits, "CROSS_WAIT_FLAG"}};

std::string levelText(const RunModel& m) {
    return m.traceLevel.empty() ? "this trace level" : "trace level " + m.traceLevel;
}

// Why the trace cannot feed `rule`; nullopt when it can.
std::optional<std::string> missingRecords(const Rule& rule, const RunModel& m) {
    if (!rule.onlyWith.empty() && !m.opcodes.contains(std::string(rule.onlyWith)))
        return std::nullopt;
    if (rule.needs == Needs::PipeTimes && !m.recordsInstrCycles())
        return fmt::format("pipe busy times are not recorded at {}; pto run --trace "
                           "instructions records them",
                           levelText(m));
    if (rule.needs == Needs::CrossWaits && !m.recordsWaits())
        return fmt::format("cross-core waits are not recorded at {}; pto run --trace full "
                           "records them",
                           levelText(m));
    return std::nullopt;
}

// Rules run on a simulated run: neither on a measured trace nor on a run of which nothing
// executed (every rule would read zeros as a bottleneck).
bool runsSimulatedRules(const RunModel& m) {
    return m.executed() && !m.measured;
}

// The measured rules read the profiler's pipe ratios: a kernel_details.csv without the
// aic_*/aiv_* *_ratio columns (a level 0 profile) gives none, and they cannot judge anything.
bool measuredRatiosKnown(const RunModel& m) {
    return std::any_of(m.tasks.begin(), m.tasks.end(),
                       [](const TaskRun& t) { return t.ran() && !t.pipeRatiosMissing; });
}

constexpr std::string_view kNoMeasuredRatios =
    "the profiler files give no pipe ratio for any kernel: kernel_details.csv or op_summary "
    "without the aic_*/aiv_* ratio columns, as a level 0 profile writes them; profile at level 1 "
    "or 2 for them";

// Findings that pull opposite ways say so: too_few_tasks splits tasks, and every extra piece pays
// again the fixed latency latency_bound counts, so the two gains do not add up.
void noteTradeOffs(std::vector<Finding>& out) {
    auto find = [&](std::string_view rule) {
        auto it =
            std::find_if(out.begin(), out.end(), [&](const Finding& f) { return f.rule == rule; });
        return it == out.end() ? nullptr : &*it;
    };
    Finding* latency = find("latency_bound");
    Finding* split = find("too_few_tasks");
    if (!latency || !split) return;
    latency->advice += "; trade-off with too_few_tasks: its smaller tasks each pay this fixed "
                       "latency again (its estimate counts that), so the two gains do not add up";
    split->advice += "; trade-off with latency_bound: the fixed part is that GM latency";
}

} // namespace

std::vector<Finding> runRules(const Profile& p) {
    std::vector<Finding> out;
    if (!p.model.executed()) return out; // every rule would read zeros as a bottleneck
    if (p.model.measured)
        ruleMeasuredKernels(p, out);
    else
        for (const Rule& rule : kRules)
            if (!missingRecords(rule, p.model)) rule.run(p, out);
    noteTradeOffs(out);
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        return a.gainCycles > b.gainCycles;
    });
    return out;
}

std::vector<std::string_view> checkedRules(const Profile& p) {
    if (!p.model.executed()) return {}; // runRules ran none
    if (p.model.measured)
        return measuredRatiosKnown(p.model)
                   ? std::vector<std::string_view>{kMeasuredRules.begin(), kMeasuredRules.end()}
                   : std::vector<std::string_view>{};
    std::vector<std::string_view> names;
    for (const Rule& rule : kRules)
        if (!missingRecords(rule, p.model)) names.push_back(rule.name);
    return names;
}

std::vector<UnevaluatedRule> unevaluatedRules(const Profile& p) {
    std::vector<UnevaluatedRule> out;
    if (p.model.executed() && p.model.measured && !measuredRatiosKnown(p.model))
        for (std::string_view rule : kMeasuredRules)
            out.push_back({rule, std::string(kNoMeasuredRatios)});
    if (!runsSimulatedRules(p.model)) return out;
    for (const Rule& rule : kRules)
        if (auto why = missingRecords(rule, p.model)) out.push_back({rule.name, std::move(*why)});
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
    const std::vector<std::string_view> names = checkedRules(p);
    if (names.empty()) return "no rule could run on what this trace records (below: not evaluated)";
    return fmt::format("no rule met its threshold; checked {} rules{} ({}) — thresholds in "
                       "docs/PROFILER.md, \"{}\"",
                       names.size(), p.model.measured ? " of measured traces" : "",
                       fmt::join(names, ", "), p.model.measured ? "Measured traces" : "Findings");
}

std::string notEvaluatedNote(const Profile& p) {
    const std::vector<UnevaluatedRule> skipped = unevaluatedRules(p);
    if (skipped.empty()) return {};
    // The rules grouped by why, in table order.
    std::vector<std::pair<std::string, std::vector<std::string_view>>> groups;
    for (const UnevaluatedRule& s : skipped) {
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const auto& g) { return g.first == s.why; });
        if (it == groups.end()) it = groups.insert(groups.end(), {s.why, {}});
        it->second.push_back(s.rule);
    }
    std::vector<std::string> parts;
    for (const auto& [why, rules] : groups)
        parts.push_back(fmt::format("{} ({})", fmt::join(rules, ", "), why));
    return fmt::format("{} rule{} — {}", skipped.size(), skipped.size() == 1 ? "" : "s",
                       fmt::join(parts, "; "));
}

} // namespace pto::prof
