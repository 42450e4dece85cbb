// Rules: indexed DMAs (issue 16) are most of their pipe's time and move small rows — gathers
// (MGATHER, GM -> UB on MTE2) and scatter-adds (MSCATTER, UB -> GM on MTE3).
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

namespace pto::prof {
namespace {

/// What tells a gather finding from a scatter one.
struct IndexedDmaRule {
    const char* rule;
    const char* opcode;
    const char* what; ///< "gather", "scatter-add"
    PipeId pipe;
    const char* direction;
    const char* advice;
};

void ruleIndexedDma(const Profile& p, const RunModel::IndexedDma& d, const IndexedDmaRule& r,
                    std::vector<Finding>& out) {
    const RunModel& m = p.model;
    if (d.count == 0 || d.rows == 0) return;
    PipeCycles busy{};
    for (const TaskRun& t : m.tasks)
        for (std::size_t i = 0; i < kPipeCount; ++i) busy[i] += t.busy[i];
    const std::int64_t pipe = busy[std::size_t(r.pipe)];
    const double share = pipe > 0 ? double(d.cycles) / double(pipe) : 0;
    const bool busiest =
        std::max_element(busy.begin(), busy.end()) - busy.begin() == std::ptrdiff_t(r.pipe);
    if (share < 0.3 || !busiest) return;
    const std::string pipeName(pipeIdName(r.pipe));
    Finding f;
    f.rule = r.rule;
    f.title = fmt::format("bound by {} DMA: {} takes {} of the {} ({}) time, moving rows of {} "
                          "bytes at {} DMA efficiency",
                          r.what, r.opcode, percent(share), r.direction, pipeName, d.bytes / d.rows,
                          percent(d.efficiency));
    f.advice = r.advice;
    f.evidence.push_back(fmt::format("{} {}s moved {} rows, {} bytes, in {} of {} time", d.count,
                                     r.what, d.rows, d.bytes, pipeCyclesText(p, double(d.cycles)),
                                     pipeName));
    f.evidence.push_back(fmt::format("{} is the busiest pipe: {} over all tasks", pipeName,
                                     pipeCyclesText(p, double(pipe))));
    f.entity = "run";
    // Full-efficiency rows would shorten the DMAs' share of the run by (1 - efficiency).
    const double high = double(m.totalCycles) * share * (1.0 - d.efficiency);
    setGain(p, f, 0.5 * high, 0, high);
    out.push_back(std::move(f));
}

} // namespace

void ruleGatherDma(const Profile& p, std::vector<Finding>& out) {
    ruleIndexedDma(
        p, p.model.gathers,
        {"gather_dma", "MGATHER", "gather", PipeId::MTE2, "GM->UB",
         "gathered rows are small scattered transfers: gather wider rows (a row of 16 KiB or "
         "more, 512 B aligned, streams at full rate), gather once and reuse the rows on chip, or "
         "lay the table out so that selected rows sit together"},
        out);
}

void ruleScatterDma(const Profile& p, std::vector<Finding>& out) {
    ruleIndexedDma(
        p, p.model.scatters,
        {"scatter_dma", "MSCATTER", "scatter-add", PipeId::MTE3, "UB->GM",
         "each scattered row is a small read-add-write of GM: scatter wider rows, sum rows that "
         "go to the same destination on chip first (sort by index, then one add per "
         "destination), or gather instead of scattering when the reverse mapping is known"},
        out);
}

} // namespace pto::prof
