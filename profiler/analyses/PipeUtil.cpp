// Pipe busy ratios (msprof vocabulary) per core and per task.
#include "profiler/analyses/PipeUtil.h"

#include "profiler/MetricRows.h"

#include <algorithm>

namespace pto::prof {

bool coreHasPipe(std::string_view coreType, PipeId pipe) {
    if (coreType == "AIC") return pipe != PipeId::V;
    return pipe == PipeId::S || pipe == PipeId::MTE2 || pipe == PipeId::V || pipe == PipeId::MTE3;
}

namespace {

PipeRatios ratiosOf(std::string coreType, const PipeCycles& busy, std::int64_t active) {
    PipeRatios r;
    r.coreType = std::move(coreType);
    r.activeCycles = active;
    for (std::size_t p = 0; p < kPipeCount; ++p)
        r.ratio[p] = active > 0 ? double(busy[p]) / double(active) : 0.0;
    return r;
}

} // namespace

double PipeRatios::memoryBound() const {
    double compute = std::max(ratio[std::size_t(PipeId::M)], ratio[std::size_t(PipeId::V)]);
    double mte2 = ratio[std::size_t(PipeId::MTE2)];
    return mte2 / std::max(compute, 1e-3);
}

PipeId PipeRatios::busiest() const {
    return PipeId(std::max_element(ratio.begin(), ratio.end()) - ratio.begin());
}

std::string msprofRatioName(std::string_view coreType, PipeId pipe) {
    if (!coreHasPipe(coreType, pipe)) return {};
    std::string prefix = coreType == "AIC" ? "aic_" : "aiv_";
    switch (pipe) {
    case PipeId::M:
        return prefix + "mac_ratio";
    case PipeId::V:
        return prefix + "vec_ratio";
    case PipeId::S:
        return prefix + "scalar_ratio";
    case PipeId::FIX:
        return prefix + "fixpipe_ratio";
    case PipeId::MTE1:
        return prefix + "mte1_ratio";
    case PipeId::MTE2:
        return prefix + "mte2_ratio";
    case PipeId::MTE3:
        return prefix + "mte3_ratio";
    default:
        return {};
    }
}

std::string heldRatioName(const RunModel& model, std::string_view coreType, PipeId pipe) {
    std::string name = msprofRatioName(coreType, pipe);
    if (model.measured && !model.measuredRatioKeys.count(name)) return {};
    return name;
}

PipeUtil analyzePipeUtil(const RunModel& model) {
    PipeUtil result;
    std::vector<PipeCycles> coreBusy(model.cores.size(), PipeCycles{});
    std::vector<std::int64_t> coreActive(model.cores.size(), 0);
    for (const TaskRun& t : model.tasks) {
        result.tasks.push_back(ratiosOf(t.coreType, t.busy, t.duration()));
        if (!t.ran() || t.pipeRatiosMissing) continue; // a core's ratios: of known times only
        std::size_t c = std::size_t(t.core);
        coreActive[c] += t.duration();
        for (std::size_t p = 0; p < kPipeCount; ++p) coreBusy[c][p] += t.busy[p];
    }
    for (std::size_t c = 0; c < model.cores.size(); ++c)
        result.cores.push_back(ratiosOf(model.cores[c].type, coreBusy[c], coreActive[c]));
    return result;
}

void appendMetrics(const PipeUtil& result, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows) {
    MetricList out(rows, "pipe_util");
    auto emit = [&](std::string_view entity, std::int64_t id, const PipeRatios& r) {
        if (r.activeCycles <= 0) return;
        out.value(entity, id, "active_cycles", double(r.activeCycles));
        if (!model.recordsInstrCycles()) return; // --trace tasks: no pipe time was recorded
        for (std::size_t p = 0; p < kPipeCount; ++p) {
            std::string name = heldRatioName(model, r.coreType, PipeId(p));
            if (!name.empty()) out.value(entity, id, name, r.ratio[p]);
        }
        out.value(entity, id, "memory_bound", r.memoryBound());
    };
    for (std::size_t c = 0; c < model.cores.size(); ++c)
        emit("core", model.cores[c].trackId, result.cores[c]);
    for (std::size_t t = 0; t < model.tasks.size(); ++t)
        emit("task", model.tasks[t].id, result.tasks[t]);
}

} // namespace pto::prof
