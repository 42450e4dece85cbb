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

/// The GM paths of cores, bytes/cycle each: reads (GM→L1 on an AIC, GM→UB on an AIV: MTE2) and
/// writes (L0C→GM through FIXPIPE, UB→GM on MTE3), which run at the same time.
struct GmPaths {
    double read = 0, write = 0;
    GmPaths& operator+=(const GmPaths& o) {
        read += o.read;
        write += o.write;
        return *this;
    }
};
GmPaths gmPaths(const ArchPeaks& peaks, std::string_view coreType);
/// The most GM bytes/cycle one core of the type can move, reads and writes at once (the roof a
/// chart draws per core type: no task's traffic, whatever its read/write mix, can exceed it).
inline double gmPathsTotal(const ArchPeaks& peaks, std::string_view coreType) {
    const GmPaths p = gmPaths(peaks, coreType);
    return p.read + p.write;
}

/// The GM bytes/cycle an entity moving `bytes`, `writeBytes` of them written, can reach: the
/// reads on the read paths and the writes on the write paths at once, all within `shared` (the
/// GM bandwidth it has). The bytes over the longest of the three times, so a task's achieved
/// bandwidth never exceeds it; min(read path, shared) when it moves nothing.
double gmRoof(const GmPaths& paths, double shared, std::int64_t bytes, std::int64_t writeBytes);

/// The nominal compute roof (f16 rates) scaled to the dtypes an entity really computed in:
/// flops ÷ nominal FLOPs (InstrCost::nominalFlops), 1 when it computed nothing.
double dtypeRoofScale(double flops, double nominalFlops);

/// Derives a point's intensity, achieved rates, region and roof fraction from its flops, bytes,
/// cycles, computeRoof and bandwidth.
void completeRooflinePoint(RooflinePoint& r);

/// The ridge of a point's roofs, FLOP per byte: its compute roof ÷ its bandwidth — left of it
/// the bandwidth roof is the lower one (memoryRegion). 0 without bandwidth.
inline double ridgeOf(const RooflinePoint& r) {
    return r.bandwidth > 0 ? r.computeRoof / r.bandwidth : 0;
}

/// The whole run as one point: its FLOPs and GM bytes over the run's cycles, against the compute
/// roof of the cores it used (in its operand dtypes) and gmRoof of their read and write paths
/// within the shared GM bandwidth. The run's bound class and the report's ridge use it.
RooflinePoint runRooflinePoint(const RunModel& model);

struct Roofline {
    std::vector<RooflinePoint> tasks;     ///< parallel to RunModel::tasks
    std::vector<RooflinePoint> tensorOps; ///< parallel to RunModel::tensorOps
};

/// A task's bandwidth is gmRoof of its core's paths within the shared GM bandwidth ÷ the average
/// number of tasks running alongside it; a Tensor op's, of its cores' paths within the shared
/// bandwidth.
Roofline analyzeRoofline(const RunModel& model);
void appendMetrics(const Roofline& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows);

} // namespace pto::prof
