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

/// Runs every rule; findings by expected gain, descending.
std::vector<Finding> runRules(const Profile& p);

/// What a report says when no rule fired: which rules were checked and where their thresholds
/// are documented, so "none" is never an unexplained blank.
std::string noFindingsNote(const Profile& profile);

} // namespace pto::prof
