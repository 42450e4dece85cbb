// Per-Tensor-op and per-source-line cycle attribution.
#include "profiler/analyses/Attribution.h"

#include "profiler/MetricRows.h"

#include <algorithm>
#include <numeric>

namespace pto::prof {

Attribution analyzeAttribution(const RunModel& model) {
    Attribution r;
    if (!model.recordsInstrCycles()) return r; // --trace tasks: no op has a cycle to share
    std::int64_t allBusy = 0;
    for (const TaskRun& t : model.tasks)
        allBusy += std::accumulate(t.busy.begin(), t.busy.end(), std::int64_t(0));
    for (std::size_t i = 0; i < model.tensorOps.size(); ++i) {
        const TensorOpCost& op = model.tensorOps[i];
        std::int64_t c = op.cycles();
        if (op.loop < 0) r.attributed += c; // a body op's cycles are in its loop's total
        if (c > 0 || op.flops > 0) (op.isLoopTotal() ? r.loops : r.ops).push_back({i, c, 0});
    }
    r.unattributed = std::max<std::int64_t>(0, allBusy - r.attributed);
    for (std::vector<OpShare>* list : {&r.ops, &r.loops}) {
        for (OpShare& s : *list)
            s.share = r.attributed > 0 ? double(s.cycles) / double(r.attributed) : 0;
        std::stable_sort(list->begin(), list->end(),
                         [](const OpShare& a, const OpShare& b) { return a.cycles > b.cycles; });
    }
    return r;
}

void appendMetrics(const Attribution& r, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows) {
    MetricList out(rows, "attribution");
    auto opRows = [&](const OpShare& s) {
        const TensorOpCost& op = model.tensorOps[s.op];
        const std::string_view entity = op.entity();
        out.value(entity, op.id, "cycles", double(s.cycles));
        out.value(entity, op.id, "share", s.share);
        out.value(entity, op.id, "src_line", double(op.srcLine));
        out.text(entity, op.id, "op", op.kind + (op.name.empty() ? "" : " " + op.name));
        if (op.loop >= 0) { // where the entity's id is a node, and which loop it is the body of
            out.value(entity, op.id, "stage", double(op.stageId));
            out.value(entity, op.id, "loop", double(model.tensorOps[std::size_t(op.loop)].id));
            out.text(entity, op.id, "loop_name", op.loopName);
        }
        for (std::size_t p = 0; p < kPipeCount; ++p)
            if (op.busy[p] > 0)
                out.value(entity, op.id, std::string(pipeIdName(PipeId(p))) + "_cycles",
                          double(op.busy[p]));
        if (op.first >= 0) {
            out.value(entity, op.id, "first_cycle", double(op.first));
            out.value(entity, op.id, "last_cycle", double(op.last));
        }
    };
    for (const OpShare& s : r.ops) opRows(s);
    for (const OpShare& s : r.loops) opRows(s);
    for (auto [line, cycles] : model.lineCycles)
        out.value("src_line", line, "cycles", double(cycles));
    out.value("run", std::nullopt, "attributed_cycles", double(r.attributed));
    out.value("run", std::nullopt, "unattributed_cycles", double(r.unattributed));
}

} // namespace pto::prof
