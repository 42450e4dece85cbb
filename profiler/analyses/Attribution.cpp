// Per-Tensor-op and per-source-line cycle attribution.
#include "profiler/analyses/Attribution.h"

#include "profiler/MetricRows.h"

#include <algorithm>
#include <numeric>

namespace pto::prof {

Attribution analyzeAttribution(const RunModel& model) {
    Attribution r;
    std::int64_t allBusy = 0;
    for (const TaskRun& t : model.tasks)
        allBusy += std::accumulate(t.busy.begin(), t.busy.end(), std::int64_t(0));
    for (std::size_t i = 0; i < model.tensorOps.size(); ++i) {
        std::int64_t c = model.tensorOps[i].cycles();
        r.attributed += c;
        if (c > 0 || model.tensorOps[i].flops > 0) r.ops.push_back({i, c, 0});
    }
    r.unattributed = std::max<std::int64_t>(0, allBusy - r.attributed);
    for (OpShare& s : r.ops)
        s.share = r.attributed > 0 ? double(s.cycles) / double(r.attributed) : 0;
    std::stable_sort(r.ops.begin(), r.ops.end(),
                     [](const OpShare& a, const OpShare& b) { return a.cycles > b.cycles; });
    return r;
}

void appendMetrics(const Attribution& r, const RunModel& model,
                   std::vector<tracedb::MetricRow>& rows) {
    MetricList out(rows, "attribution");
    for (const OpShare& s : r.ops) {
        const TensorOpCost& op = model.tensorOps[s.op];
        out.value("tensor_op", op.id, "cycles", double(s.cycles));
        out.value("tensor_op", op.id, "share", s.share);
        out.value("tensor_op", op.id, "src_line", double(op.srcLine));
        out.text("tensor_op", op.id, "op", op.kind + (op.name.empty() ? "" : " " + op.name));
        for (std::size_t p = 0; p < kPipeCount; ++p)
            if (op.busy[p] > 0)
                out.value("tensor_op", op.id, std::string(pipeIdName(PipeId(p))) + "_cycles",
                          double(op.busy[p]));
        if (op.first >= 0) {
            out.value("tensor_op", op.id, "first_cycle", double(op.first));
            out.value("tensor_op", op.id, "last_cycle", double(op.last));
        }
    }
    for (auto [line, cycles] : model.lineCycles)
        out.value("src_line", line, "cycles", double(cycles));
    out.value("run", std::nullopt, "attributed_cycles", double(r.attributed));
    out.value("run", std::nullopt, "unattributed_cycles", double(r.unattributed));
}

} // namespace pto::prof
