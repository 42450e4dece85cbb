// Roofline points per task and per Tensor op: FLOPs and GM bytes over the time they took,
// against the roof of the cores they ran on at their arithmetic intensity.
#pragma once

#include "profiler/RunModel.h"

#include <vector>

namespace pto::prof {

struct RooflinePoint {
    double flops = 0;
    std::int64_t bytes = 0;
    std::int64_t cycles = 0;   ///< time the entity took
    double intensity = 0;      ///< FLOP per GM byte (0 when no bytes)
    double flopsPerCycle = 0;  ///< achieved
    double bytesPerCycle = 0;  ///< achieved
    double computeRoof = 0;    ///< peak FLOP/cycle of the cores it ran on
    double bandwidth = 0;      ///< GM bytes/cycle available to it
    double roofFraction = 0;   ///< achieved ÷ roof at its intensity, [0, 1+]
    bool memoryRegion = false; ///< left of the ridge: the bandwidth roof is the lower one
    double cores = 0;          ///< cores it ran on
};

/// The nominal compute roof (f16 rates) scaled to the dtypes an entity really computed in:
/// flops ÷ nominal FLOPs (InstrCost::nominalFlops), 1 when it computed nothing.
double dtypeRoofScale(double flops, double nominalFlops);

/// Derives a point's intensity, achieved rates, region and roof fraction from its flops, bytes,
/// cycles, computeRoof and bandwidth.
void completeRooflinePoint(RooflinePoint& r);

struct Roofline {
    std::vector<RooflinePoint> tasks;     ///< parallel to RunModel::tasks
    std::vector<RooflinePoint> tensorOps; ///< parallel to RunModel::tensorOps
};

/// A task's bandwidth is min(its DMA path rate, shared GM bandwidth ÷ the average number of
/// tasks running alongside it); a Tensor op's is min(cores × path rate, shared bandwidth).
Roofline analyzeRoofline(const RunModel& model);
void appendMetrics(const Roofline& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows);

} // namespace pto::prof
