// Achieved vs peak compute and bandwidth for the run.
#include "profiler/analyses/Throughput.h"

#include "profiler/MetricRows.h"
#include "profiler/analyses/Roofline.h"

#include <set>

namespace pto::prof {

Throughput analyzeThroughput(const RunModel& model) {
    Throughput r;
    const ArchPeaks& p = model.peaks;
    r.totalCycles = model.totalCycles;
    r.seconds = double(model.totalCycles) / p.clockHz;
    std::set<int> aic, aiv;
    double cubeNominalFlops = 0;
    for (const TaskRun& t : model.tasks) {
        bool cube = t.coreType == "AIC";
        (cube ? r.cubeFlops : r.vectorFlops) += t.flops;
        if (cube) cubeNominalFlops += t.nominalFlops;
        r.gmBytes += t.gmBytes;
        if (t.ran()) (cube ? aic : aiv).insert(t.core);
    }
    r.aicUsed = int(aic.size());
    r.aivUsed = int(aiv.size());
    double cycles = double(std::max<std::int64_t>(model.totalCycles, 1));
    double toTera = p.clockHz / 1e12;
    r.cubeTflops = r.cubeFlops / cycles * toTera;
    r.vectorTflops = r.vectorFlops / cycles * toTera;
    r.tflops = r.cubeTflops + r.vectorTflops;
    // The cube's peak in the operand dtypes the run used (i8 doubles it, f32 quarters it).
    r.cubePeakTflops =
        p.cubeFlopsPerCycle * p.aicCores * toTera * dtypeRoofScale(r.cubeFlops, cubeNominalFlops);
    r.vectorPeakTflops = p.vectorFlopsPerCycle * p.aivCores * toTera;
    r.gbps = double(r.gmBytes) / cycles * p.clockHz / 1e9;
    r.peakGbps = p.gmBytesPerCycle * p.clockHz / 1e9;
    r.cubeUtilization = r.cubePeakTflops > 0 ? r.cubeTflops / r.cubePeakTflops : 0;
    r.vectorUtilization = r.vectorPeakTflops > 0 ? r.vectorTflops / r.vectorPeakTflops : 0;
    r.bandwidthUtilization = r.peakGbps > 0 ? r.gbps / r.peakGbps : 0;
    r.intensity = r.gmBytes > 0 ? (r.cubeFlops + r.vectorFlops) / double(r.gmBytes) : 0;
    // The ridge of the roof the run's bound class is measured against (not the whole chip's:
    // a vector-only run's ridge is the vector cores' peak over their GM paths).
    r.ridge = ridgeOf(runRooflinePoint(model));
    return r;
}

void appendMetrics(const Throughput& r, std::vector<tracedb::MetricRow>& rows) {
    MetricList out(rows, "throughput");
    const std::pair<const char*, double> values[] = {
        {"total_cycles", double(r.totalCycles)},
        {"seconds", r.seconds},
        {"cube_flops", r.cubeFlops},
        {"vector_flops", r.vectorFlops},
        {"gm_bytes", double(r.gmBytes)},
        {"tflops", r.tflops},
        {"cube_tflops", r.cubeTflops},
        {"cube_peak_tflops", r.cubePeakTflops},
        {"cube_utilization", r.cubeUtilization},
        {"vector_tflops", r.vectorTflops},
        {"vector_peak_tflops", r.vectorPeakTflops},
        {"vector_utilization", r.vectorUtilization},
        {"gm_gbps", r.gbps},
        {"gm_peak_gbps", r.peakGbps},
        {"bandwidth_utilization", r.bandwidthUtilization},
        {"arithmetic_intensity", r.intensity},
        {"ridge_point", r.ridge},
        {"aic_used", double(r.aicUsed)},
        {"aiv_used", double(r.aivUsed)},
    };
    for (auto [key, v] : values) out.value("run", std::nullopt, key, v);
}

} // namespace pto::prof
