// The summary of a measured trace (`pto import`): what the profiler files hold — the run's time
// from the first kernel start to the last kernel end, its kernels and their time — and what they
// do not (FLOP and byte counts, so no throughput or roofline; task dependencies, so no critical
// path). `pto report` (text, Markdown, JSON), the HTML export and pto-studio's bottleneck view
// all show it where a simulated run shows its arch, peaks and roofs: a measured trace was not
// run on the simulator's chip model, so none of those apply to it.
#pragma once

#include "profiler/Profile.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pto::prof {

/// The summary as `pto report --format json` writes it for a measured trace: trace, program,
/// measured (true), source, start_ns (the first kernel start on the trace's clock), total_ns,
/// time_us, kernels, kernel_time_us and not_measured (what the profiler files do not hold).
nlohmann::json measuredSummaryJson(const Profile& profile);

struct SummaryRow {
    std::string label; ///< "time"
    std::string value; ///< "136581.009 us from the first kernel start to the last end"
};

/// The summary as labelled rows (source, time, kernels, not measured), from measuredSummaryJson:
/// every renderer shows these and nothing of the simulator's chip model.
std::vector<SummaryRow> measuredSummaryRows(const nlohmann::json& summary);

} // namespace pto::prof
