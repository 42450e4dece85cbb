// The rules that turn analyses into findings; each lives in its own file under rules/.
#pragma once

#include "profiler/rules/Finding.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace pto::prof {

struct Profile;

void ruleDoubleBuffering(const Profile& p, std::vector<Finding>& out);
void ruleCubeStarved(const Profile& p, std::vector<Finding>& out);
void ruleTooFewTasks(const Profile& p, std::vector<Finding>& out);
void ruleSchedulerGaps(const Profile& p, std::vector<Finding>& out);
void ruleSlowCore(const Profile& p, std::vector<Finding>& out);
void ruleBandwidthSaturated(const Profile& p, std::vector<Finding>& out);
void ruleGatherDma(const Profile& p, std::vector<Finding>& out);
void ruleScatterDma(const Profile& p, std::vector<Finding>& out);
void ruleSyncWaits(const Profile& p, std::vector<Finding>& out);
void ruleHandOffWaits(const Profile& p, std::vector<Finding>& out);
/// Measured traces only (the rules above read what only a simulated run records).
void ruleMeasuredKernels(const Profile& p, std::vector<Finding>& out);
/// The rules ruleMeasuredKernels gives findings of (the only ones run on a measured trace).
inline constexpr std::array<std::string_view, 3> kMeasuredRules{
    "measured_mte2_bound", "measured_scalar_bound", "measured_low_cube_utilization"};

/// Runs every rule the trace has the records for; findings by expected gain, descending.
std::vector<Finding> runRules(const Profile& p);

/// A rule that could not be evaluated: the trace lacks what it reads (pipe busy times at
/// --trace tasks, cross-core waits below --trace full). It found nothing because it did not
/// look, so reports must not count it as checked.
struct UnevaluatedRule {
    std::string_view rule;
    std::string why; ///< "needs pipe busy times, not recorded at trace level tasks (…)"
};

/// The rules runRules evaluated on this run (table order; the measured-trace rules for one).
std::vector<std::string_view> checkedRules(const Profile& p);
/// The rules runRules skipped for want of records, with why; empty when the trace has them all.
std::vector<UnevaluatedRule> unevaluatedRules(const Profile& p);

/// What a report says when no rule fired: which rules were checked and where their thresholds
/// are documented, so "none" is never an unexplained blank.
std::string noFindingsNote(const Profile& profile);
/// The rules not evaluated, grouped by why: "3 rules — double_buffering, cube_starved,
/// latency_bound (pipe busy times are not recorded at trace level tasks; …)"; "" when every rule
/// was evaluated. Reports print it after "not evaluated:" whether or not a rule fired.
std::string notEvaluatedNote(const Profile& profile);

} // namespace pto::prof
