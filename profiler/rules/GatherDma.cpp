// Rule: gather DMAs (MGATHER, issue 16) are most of the GM -> UB time and move small rows.
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

namespace pto::prof {

void ruleGatherDma(const Profile& p, std::vector<Finding>& out) {
    const RunModel& m = p.model;
    const RunModel::Gathers& g = m.gathers;
    if (g.count == 0 || g.rows == 0) return;
    PipeCycles busy{};
    for (const TaskRun& t : m.tasks)
        for (std::size_t i = 0; i < kPipeCount; ++i) busy[i] += t.busy[i];
    const std::int64_t mte2 = busy[std::size_t(PipeId::MTE2)];
    const double share = mte2 > 0 ? double(g.cycles) / double(mte2) : 0;
    const bool mte2Busiest =
        std::max_element(busy.begin(), busy.end()) - busy.begin() == std::ptrdiff_t(PipeId::MTE2);
    if (share < 0.3 || !mte2Busiest) return;
    Finding f;
    f.rule = "gather_dma";
    f.title = fmt::format("bound by gather DMA: MGATHER takes {} of the GM->UB (MTE2) time, "
                          "moving rows of {} bytes at {} DMA efficiency",
                          percent(share), g.bytes / g.rows, percent(g.efficiency));
    f.advice = "gathered rows are small scattered transfers: gather wider rows (a row of 16 KiB "
               "or more, 512 B aligned, streams at full rate), gather once and reuse the rows on "
               "chip, or lay the table out so that selected rows sit together";
    f.evidence.push_back(fmt::format("{} gathers moved {} rows, {} bytes, in {} of MTE2 time",
                                     g.count, g.rows, g.bytes, cyclesText(p, double(g.cycles))));
    f.evidence.push_back(
        fmt::format("MTE2 is the busiest pipe: {} over all tasks", cyclesText(p, double(mte2))));
    f.entity = "run";
    // Full-efficiency rows would shorten the gathers' share of the run by (1 - efficiency).
    const double high = double(m.totalCycles) * share * (1.0 - g.efficiency);
    setGain(p, f, 0.5 * high, 0, high);
    out.push_back(std::move(f));
}

} // namespace pto::prof
