// Achieved compute and GM bandwidth of the whole run against the chip's peaks.
#pragma once

#include "profiler/RunModel.h"

namespace pto::prof {

struct Throughput {
    std::int64_t totalCycles = 0;
    double seconds = 0;
    double cubeFlops = 0, vectorFlops = 0; ///< FLOPs of AIC and AIV tasks
    std::int64_t gmBytes = 0;
    double cubeTflops = 0, vectorTflops = 0, tflops = 0;
    double cubePeakTflops = 0, vectorPeakTflops = 0;
    double gbps = 0, peakGbps = 0;
    double cubeUtilization = 0;      ///< achieved ÷ peak, [0, 1]
    double vectorUtilization = 0;    ///< achieved ÷ peak, [0, 1]
    double bandwidthUtilization = 0; ///< achieved ÷ peak, [0, 1]
    double intensity = 0;            ///< FLOP per GM byte
    /// The ridge of the run's roof (ridgeOf(runRooflinePoint)): the compute peak of the cores it
    /// used ÷ the GM bandwidth they can reach, FLOP per byte — where the bound class turns.
    double ridge = 0;
    int aicUsed = 0, aivUsed = 0; ///< cores that ran at least one task
};

Throughput analyzeThroughput(const RunModel& model);
void appendMetrics(const Throughput& result, std::vector<tracedb::MetricRow>& rows);

} // namespace pto::prof
