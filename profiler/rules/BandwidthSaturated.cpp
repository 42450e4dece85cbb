// Rule: GM transfers are throttled by the shared HBM/L2 bandwidth.
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

#include <numeric>

namespace pto::prof {

void ruleBandwidthSaturated(const Profile& p, std::vector<Finding>& out) {
    const RunModel& m = p.model;
    std::int64_t stall = p.bubbles.total.bandwidthStall, transfer = 0;
    for (const TaskRun& t : m.tasks)
        transfer += t.busy[std::size_t(PipeId::MTE2)] + t.busy[std::size_t(PipeId::MTE3)] +
                    t.busy[std::size_t(PipeId::FIX)];
    double stallShare = transfer > 0 ? double(stall) / double(transfer) : 0;
    double util = p.throughput.bandwidthUtilization;
    if (stallShare < 0.2 && util < 0.7) return;
    Finding f;
    f.rule = "bandwidth_saturated";
    f.title = fmt::format("GM bandwidth is the limit: {} of peak used, {} of transfer time "
                          "throttled",
                          percent(util), percent(stallShare));
    f.advice = "move fewer GM bytes: fuse ops so intermediates stay on chip, reuse tiles from "
               "L1/UB, use narrower dtypes; `pto whatif run.db --set hbm.bandwidth=2x` shows "
               "what more bandwidth would give";
    f.evidence.push_back(fmt::format("{:.1f} GB/s of {:.1f} GB/s peak ({} bytes)",
                                     p.throughput.gbps, p.throughput.peakGbps,
                                     p.throughput.gmBytes));
    f.evidence.push_back(
        fmt::format("bandwidth stalls: {} of {} MTE2/MTE3/FIX time{}",
                    pipeCyclesText(p, double(stall)), pipeCyclesText(p, double(transfer)),
                    m.traceLevel == "full" ? "" : " (stalls are traced at trace level full only)"));
    f.entity = "run";
    // Halving the bytes would at most halve the memory-bound share of the run.
    double high = 0.5 * double(m.totalCycles) * std::min(1.0, std::max(util, stallShare));
    setGain(p, f, 0.5 * high, 0, high);
    out.push_back(std::move(f));
}

} // namespace pto::prof
