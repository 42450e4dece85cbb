// Pipe busy ratios per core and per task, named as msprof names them (aic_mac_ratio, …).
#pragma once

#include "profiler/RunModel.h"

#include <string>
#include <vector>

namespace pto::prof {

struct PipeRatios {
    std::string coreType;                   ///< AIC or AIV
    std::int64_t activeCycles = 0;          ///< task time the ratios are relative to
    std::array<double, kPipeCount> ratio{}; ///< busy / activeCycles per pipe
    /// msprof's memory_bound: mte2_ratio / max(mac_ratio, vec_ratio) (> 1: memory bound).
    double memoryBound() const;
    PipeId busiest() const;
};

struct PipeUtil {
    std::vector<PipeRatios> cores; ///< parallel to RunModel::cores
    std::vector<PipeRatios> tasks; ///< parallel to RunModel::tasks
};

/// Ratio = instruction cycles of the pipe ÷ the cycles the core spent in tasks (msprof's
/// definition; waits are not busy).
/// Whether a core of type `coreType` (AIC or AIV) has `pipe`.
bool coreHasPipe(std::string_view coreType, PipeId pipe);

PipeUtil analyzePipeUtil(const RunModel& model);

/// "aic_mac_ratio", "aiv_vec_ratio", "aic_fixpipe_ratio", …; empty for a pipe the type lacks.
std::string msprofRatioName(std::string_view coreType, PipeId pipe);

/// msprofRatioName for a ratio `model` holds a value of: empty also when a measured trace's
/// files have no such column (kernel_details.csv and TASK_PMU_INFO have no aic_mte3_ratio) —
/// 0 % would be a measurement the files do not hold. The stored pipe_util rows, the report's
/// pipes, the HTML heat map and pto-studio's utilization table show these ratios only.
std::string heldRatioName(const RunModel& model, std::string_view coreType, PipeId pipe);

void appendMetrics(const PipeUtil& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows);

} // namespace pto::prof
