// Every analysis of one run, computed together from the run model, and their metric rows.
#pragma once

#include "profiler/RunModel.h"
#include "profiler/analyses/Attribution.h"
#include "profiler/analyses/Bound.h"
#include "profiler/analyses/Bubbles.h"
#include "profiler/analyses/CriticalPath.h"
#include "profiler/analyses/Imbalance.h"
#include "profiler/analyses/PipeUtil.h"
#include "profiler/analyses/Roofline.h"
#include "profiler/analyses/Throughput.h"
#include "profiler/rules/Finding.h"

#include <filesystem>
#include <vector>

namespace pto::prof {

struct Profile {
    RunModel model;
    PipeUtil pipeUtil;
    Throughput throughput;
    Roofline roofline;
    Bound bound;
    CriticalPath criticalPath;
    Bubbles bubbles;
    Imbalance imbalance;
    Attribution attribution;
    BoundVerdict runBound;         ///< the whole run at the chip's roof
    std::vector<Finding> findings; ///< by estimated gain, descending
};

/// Runs every analysis and rule on the model.
Profile analyze(RunModel model);
/// Opens, loads and analyzes a trace file (TraceError for files that are not a finished trace).
Profile analyzeTrace(const std::filesystem::path& path);

/// The `metric` rows of every analysis and the findings (analysis `finding`).
std::vector<tracedb::MetricRow> profileMetrics(const Profile& profile);

/// Writes profileMetrics into the trace file (TraceWriter::append) unless it already holds
/// this profiler's metrics (meta `profiler_version`). Returns true when it wrote.
bool storeProfile(const std::filesystem::path& path, const Profile& profile);

} // namespace pto::prof
