// Compute / memory / latency classification per task and per Tensor op.
#include "profiler/analyses/Bound.h"

#include "profiler/MetricRows.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace pto::prof {
namespace {

bool isComputePipe(PipeId p) {
    return p == PipeId::M || p == PipeId::V || p == PipeId::S;
}

// The cube or vector pipe busy ≥ kPipeThreshold: the unit itself is the limit. Its
// instructions' real throughput (startup + per-repeat cost, 2–8 cycles per vector repeat) is
// below the nominal peak the roof uses, so a saturated unit can sit well under the roof.
bool isSaturatedComputeUnit(PipeId p, double ratio) {
    return (p == PipeId::M || p == PipeId::V) && ratio >= kPipeThreshold;
}

// A Tensor op's pipe ratios: its instruction cycles per pipe over (span × cores).
std::array<double, kPipeCount> opRatios(const TensorOpCost& op, const RooflinePoint& point) {
    std::array<double, kPipeCount> ratios{};
    double denom = double(point.cycles) * std::max(point.cores, 1.0);
    if (denom <= 0) return ratios;
    for (std::size_t p = 0; p < kPipeCount; ++p) ratios[p] = double(op.busy[p]) / denom;
    return ratios;
}

void emit(MetricList& out, std::string_view entity, std::int64_t id, const BoundVerdict& v) {
    out.text(entity, id, "class", std::string(boundName(v.cls)));
    if (v.cause != LatencyCause::None)
        out.text(entity, id, "cause", std::string(causeName(v.cause)));
    if (v.cls != BoundClass::Unknown) { // unknown: no pipe time to name a busiest pipe by
        out.text(entity, id, "busiest_pipe", std::string(pipeIdName(v.busiestPipe)));
        out.value(entity, id, "busiest_ratio", v.busiestRatio);
    }
    out.value(entity, id, "roof_fraction", v.roofFraction);
}

} // namespace

std::string_view boundName(BoundClass c) {
    switch (c) {
    case BoundClass::Compute:
        return "compute";
    case BoundClass::Memory:
        return "memory";
    case BoundClass::Unknown:
        return "unknown";
    case BoundClass::None:
        return "none";
    default:
        return "latency";
    }
}

std::string_view causeName(LatencyCause c) {
    switch (c) {
    case LatencyCause::Pipeline:
        return "pipeline";
    case LatencyCause::Compute:
        return "compute";
    case LatencyCause::Memory:
        return "memory";
    default:
        return "";
    }
}

std::string BoundVerdict::label() const {
    if (cls == BoundClass::Unknown) return "unknown (" + std::string(unknownWhy) + ")";
    if (cause == LatencyCause::None) return std::string(boundName(cls));
    return std::string(boundName(cls)) + " (" + std::string(causeName(cause)) + ")";
}

std::string BoundVerdict::reason() const {
    if (cls != BoundClass::Compute || roofFraction >= kRoofThreshold) return {};
    return std::string(pipeIdName(busiestPipe)) + " " +
           std::to_string(int(std::lround(100 * busiestRatio))) + "% busy, the unit saturated";
}

BoundVerdict classify(const RooflinePoint& point, const std::array<double, kPipeCount>& ratios) {
    BoundVerdict v;
    v.roofFraction = point.roofFraction;
    v.busiestPipe = PipeId(std::max_element(ratios.begin(), ratios.end()) - ratios.begin());
    v.busiestRatio = ratios[std::size_t(v.busiestPipe)];
    if (point.roofFraction >= kRoofThreshold) {
        v.cls = point.memoryRegion ? BoundClass::Memory : BoundClass::Compute;
        return v;
    }
    if (isSaturatedComputeUnit(v.busiestPipe, v.busiestRatio)) {
        v.cls = BoundClass::Compute;
        return v;
    }
    v.cls = BoundClass::Latency;
    if (v.busiestRatio < kPipeThreshold)
        v.cause = LatencyCause::Pipeline;
    else
        v.cause = isComputePipe(v.busiestPipe) ? LatencyCause::Compute : LatencyCause::Memory;
    return v;
}

BoundVerdict classifyMeasured(const std::array<double, kPipeCount>& ratios) {
    BoundVerdict v = classify(RooflinePoint{}, ratios);
    if (v.cls == BoundClass::Latency && v.cause == LatencyCause::Memory) {
        v.cls = BoundClass::Memory;
        v.cause = LatencyCause::None;
    }
    return v;
}

BoundVerdict classifyRunTotals(const RooflinePoint& point, const CoreTypeBusy& aic,
                               const CoreTypeBusy& aiv) {
    std::array<double, kPipeCount> ratios{};
    for (const CoreTypeBusy* type : {&aic, &aiv})
        for (std::size_t i = 0; i < kPipeCount && type->active > 0; ++i)
            ratios[i] = std::max(ratios[i], double(type->busy[i]) / double(type->active));
    return classify(point, ratios);
}

BoundVerdict withoutPipeTimes(BoundVerdict v) {
    if (v.cls == BoundClass::Latency) v.cls = BoundClass::Unknown, v.cause = LatencyCause::None;
    return v;
}

Bound analyzeBound(const RunModel& model, const PipeUtil& util, const Roofline& roofline) {
    Bound b;
    // A simulated run traced at --trace tasks has no pipe busy times: only the roof can tell.
    const bool pipeTimes = model.recordsInstrCycles();
    for (std::size_t i = 0; i < model.tasks.size(); ++i) {
        const TaskRun& t = model.tasks[i];
        BoundVerdict v = model.measured ? classifyMeasured(util.tasks[i].ratio)
                                        : classify(roofline.tasks[i], util.tasks[i].ratio);
        if (t.pipeRatiosMissing) {
            v.cls = BoundClass::Unknown;
            v.cause = LatencyCause::None;
            v.unknownWhy = "no ratios";
        }
        b.tasks.push_back(pipeTimes ? v : withoutPipeTimes(v));
    }
    for (std::size_t i = 0; i < model.tensorOps.size(); ++i)
        b.tensorOps.push_back(
            classify(roofline.tensorOps[i], opRatios(model.tensorOps[i], roofline.tensorOps[i])));
    return b;
}

void appendMetrics(const Bound& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows) {
    MetricList out(rows, "bound");
    for (std::size_t i = 0; i < model.tasks.size(); ++i)
        if (model.tasks[i].ran()) emit(out, "task", model.tasks[i].id, result.tasks[i]);
    for (std::size_t i = 0; i < model.tensorOps.size(); ++i)
        if (model.tensorOps[i].last > model.tensorOps[i].first)
            emit(out, model.tensorOps[i].entity(), model.tensorOps[i].id, result.tensorOps[i]);
}

} // namespace pto::prof
