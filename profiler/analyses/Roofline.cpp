// Roofline points per task and per Tensor op.
#include "profiler/analyses/Roofline.h"

#include "profiler/MetricRows.h"
#include "profiler/Timeline.h"

#include <algorithm>
#include <set>

namespace pto::prof {
namespace {

double coreFlops(const ArchPeaks& p, std::string_view coreType) {
    return coreType == "AIC" ? p.cubeFlopsPerCycle : p.vectorFlopsPerCycle;
}

} // namespace

GmPaths gmPaths(const ArchPeaks& p, std::string_view coreType) {
    if (coreType == "AIC") return {.read = p.gmToL1Rate, .write = p.l0cToGmRate};
    return {.read = p.gmToUbRate, .write = p.ubToGmRate};
}

double gmRoof(const GmPaths& paths, double shared, std::int64_t bytes, std::int64_t writeBytes) {
    if (bytes <= 0 || paths.read <= 0 || shared <= 0) return std::min(paths.read, shared);
    const double writes = double(std::clamp<std::int64_t>(writeBytes, 0, bytes));
    const double reads = double(bytes) - writes;
    double time = std::max(reads / paths.read, double(bytes) / shared);
    if (writes > 0) time = std::max(time, paths.write > 0 ? writes / paths.write : 0.0);
    return time > 0 ? double(bytes) / time : std::min(paths.read, shared);
}

double dtypeRoofScale(double flops, double nominalFlops) {
    return flops > 0 && nominalFlops > 0 ? flops / nominalFlops : 1.0;
}

void completeRooflinePoint(RooflinePoint& r) {
    double cycles = double(std::max<std::int64_t>(r.cycles, 1));
    r.intensity = r.bytes > 0 ? r.flops / double(r.bytes) : 0;
    r.flopsPerCycle = r.flops / cycles;
    r.bytesPerCycle = double(r.bytes) / cycles;
    double memoryRoof = r.bytes > 0 ? r.intensity * r.bandwidth : 0;
    r.memoryRegion = r.flops <= 0 || (r.bytes > 0 && memoryRoof < r.computeRoof);
    if (r.flops <= 0)
        r.roofFraction = r.bandwidth > 0 ? r.bytesPerCycle / r.bandwidth : 0;
    else if (r.memoryRegion)
        r.roofFraction = memoryRoof > 0 ? r.flopsPerCycle / memoryRoof : 0;
    else
        r.roofFraction = r.computeRoof > 0 ? r.flopsPerCycle / r.computeRoof : 0;
}

namespace {

RooflinePoint taskPoint(const RunModel& m, const TaskRun& t, const ConcurrencyProfile& running) {
    RooflinePoint r;
    r.flops = t.flops;
    r.bytes = t.gmBytes;
    r.cycles = t.duration();
    r.cores = 1;
    r.computeRoof = coreFlops(m.peaks, t.coreType) * dtypeRoofScale(t.flops, t.nominalFlops);
    double sharing = std::max(1.0, running.average(t.start, t.end));
    r.bandwidth = gmRoof(gmPaths(m.peaks, t.coreType), m.peaks.gmBytesPerCycle / sharing, t.gmBytes,
                         t.gmWriteBytes);
    completeRooflinePoint(r);
    return r;
}

RooflinePoint opPoint(const RunModel& m, const TensorOpCost& op) {
    RooflinePoint r;
    r.flops = op.flops;
    r.bytes = op.gmBytes;
    r.cycles = op.last > op.first ? op.last - op.first : 0;
    std::set<int> cores;
    double computeRoof = 0;
    GmPaths paths;
    for (std::int64_t id : op.tasks) {
        const TaskRun* t = m.task(id);
        if (!t || !t->ran() || !cores.insert(t->core).second) continue;
        computeRoof += coreFlops(m.peaks, t->coreType);
        paths += gmPaths(m.peaks, t->coreType);
    }
    r.cores = double(cores.size());
    r.computeRoof = computeRoof * dtypeRoofScale(op.flops, op.nominalFlops);
    r.bandwidth = gmRoof(paths, m.peaks.gmBytesPerCycle, op.gmBytes, op.gmWriteBytes);
    completeRooflinePoint(r);
    return r;
}

} // namespace

RooflinePoint runRooflinePoint(const RunModel& m) {
    RooflinePoint point;
    double nominalFlops = 0;
    std::int64_t writeBytes = 0;
    GmPaths paths;
    std::set<int> cores;
    for (const TaskRun& t : m.tasks) {
        if (!t.ran()) continue;
        point.flops += t.flops;
        nominalFlops += t.nominalFlops;
        point.bytes += t.gmBytes;
        writeBytes += t.gmWriteBytes;
        if (!cores.insert(t.core).second) continue;
        point.computeRoof += coreFlops(m.peaks, t.coreType);
        paths += gmPaths(m.peaks, t.coreType);
    }
    point.bandwidth = gmRoof(paths, m.peaks.gmBytesPerCycle, point.bytes, writeBytes);
    point.computeRoof *= dtypeRoofScale(point.flops, nominalFlops);
    point.cycles = m.totalCycles;
    point.cores = double(cores.size());
    completeRooflinePoint(point);
    return point;
}

namespace {

void emit(MetricList& out, std::string_view entity, std::int64_t id, const RooflinePoint& r) {
    out.value(entity, id, "flops", r.flops);
    out.value(entity, id, "gm_bytes", double(r.bytes));
    out.value(entity, id, "cycles", double(r.cycles));
    out.value(entity, id, "intensity", r.intensity);
    out.value(entity, id, "flops_per_cycle", r.flopsPerCycle);
    out.value(entity, id, "bytes_per_cycle", r.bytesPerCycle);
    out.value(entity, id, "compute_roof", r.computeRoof);
    out.value(entity, id, "bandwidth_roof", r.bandwidth);
    out.value(entity, id, "roof_fraction", r.roofFraction);
    out.text(entity, id, "region", r.memoryRegion ? "memory" : "compute");
}

} // namespace

Roofline analyzeRoofline(const RunModel& model) {
    std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
    for (const TaskRun& t : model.tasks)
        if (t.ran()) intervals.emplace_back(t.start, t.end);
    ConcurrencyProfile running(intervals);
    Roofline r;
    for (const TaskRun& t : model.tasks) r.tasks.push_back(taskPoint(model, t, running));
    for (const TensorOpCost& op : model.tensorOps) r.tensorOps.push_back(opPoint(model, op));
    return r;
}

void appendMetrics(const Roofline& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows) {
    MetricList out(rows, "roofline");
    for (std::size_t i = 0; i < model.tasks.size(); ++i)
        if (model.tasks[i].ran()) emit(out, "task", model.tasks[i].id, result.tasks[i]);
    for (std::size_t i = 0; i < model.tensorOps.size(); ++i)
        if (result.tensorOps[i].cycles > 0)
            emit(out, model.tensorOps[i].entity(), model.tensorOps[i].id, result.tensorOps[i]);
}

} // namespace pto::prof
