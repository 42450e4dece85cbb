// Rule: the run is latency bound with no pipe near busy — pipes mostly wait for each other
// (flags, barriers) or pay fixed per-instruction costs on small tiles.
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

namespace pto::prof {
namespace {

// The waits inside tasks — or, below trace level full, that they were not recorded: a 0 there
// would read as "nothing waited".
std::string waitsEvidence(const Profile& p) {
    if (!p.model.recordsWaits())
        return fmt::format("inside tasks: flag and barrier waits are not recorded at trace level "
                           "{} (run with --trace full to see them)",
                           p.model.traceLevel);
    const CoreBubbles& b = p.bubbles.total;
    return fmt::format("inside tasks: flag waits {}, barrier waits {} (summed over pipes and "
                       "cores, trace level full)",
                       pipeCyclesText(p, double(b.flagWait)),
                       pipeCyclesText(p, double(b.barrierWait)));
}

} // namespace

void ruleSyncWaits(const Profile& p, std::vector<Finding>& out) {
    const BoundVerdict& v = p.runBound;
    if (v.cls != BoundClass::Latency || v.cause != LatencyCause::Pipeline) return;
    Finding f;
    f.rule = "latency_bound";
    f.title = fmt::format("latency bound: {} of the roof, no pipe ≥ {} busy (busiest {} at {})",
                          percent(v.roofFraction), percent(kPipeThreshold),
                          pipeIdName(v.busiestPipe), percent(v.busiestRatio));
    f.advice = "larger tiles amortize the fixed cost of each instruction (≈20–60 cycles per "
               "tile instruction) and each DMA (latency ≈500 cycles); remove over-broad "
               "barriers; overlap independent work";
    f.evidence.push_back(waitsEvidence(p));
    f.entity = "run";
    double high =
        double(p.model.totalCycles) * std::max(0.0, 1.0 - v.roofFraction / kRoofThreshold);
    setGain(p, f, 0.25 * high, 0, high);
    out.push_back(std::move(f));
}

} // namespace pto::prof
