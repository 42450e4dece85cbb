// Rule: the cores of a fused cube-vector cluster wait for each other's hand-offs (cross-core
// flags) — the cube idles until the vector cores free a workspace slot, the vector cores idle
// until the cube fills one — so the pipeline between them is too shallow or unbalanced.
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

namespace pto::prof {
namespace {

// The task of one core type that waited longest on cross-core flags, or null.
const TaskRun* longestWait(const RunModel& m, bool cube, std::int64_t& total) {
    const TaskRun* worst = nullptr;
    for (const TaskRun& t : m.tasks) {
        if (t.waits.crossFlag <= 0 || (t.coreType == "AIC") != cube) continue;
        total += t.waits.crossFlag;
        if (!worst || t.waits.crossFlag > worst->waits.crossFlag) worst = &t;
    }
    return worst;
}

std::string taskText(const RunModel& m, const TaskRun& t) {
    const CoreInfo* core = m.coreOf(t);
    return fmt::format("task {}{} on {}", t.id, t.name.empty() ? "" : " '" + t.name + "'",
                       core ? core->name : "?");
}

} // namespace

void ruleHandOffWaits(const Profile& p, std::vector<Finding>& out) {
    const RunModel& m = p.model;
    std::int64_t cubeTotal = 0, vectorTotal = 0;
    const TaskRun* cube = longestWait(m, true, cubeTotal);
    const TaskRun* vector = longestWait(m, false, vectorTotal);
    if (!cube && !vector) return;
    const TaskRun& worst =
        !cube ? *vector
              : (!vector || cube->waits.crossFlag >= vector->waits.crossFlag ? *cube : *vector);
    const bool both = cube && vector;
    Finding f;
    f.rule = "handoff_waits";
    f.title = fmt::format("cube↔vector hand-off waits: the {} {} for the {}",
                          &worst == cube ? "cube waits" : "vector cores wait",
                          pipeCyclesText(p, double(worst.waits.crossFlag)),
                          &worst == cube ? "vector cores" : "cube");
    f.advice = both ? "both sides wait for each other: the hand-off pipeline is too shallow — "
                      "give it more workspace slots so the producer can run further ahead"
                    : fmt::format("only the {}, so the {} is the slower side of the "
                                  "cluster: balance the work per block (or split the slower "
                                  "side's work) rather than deepen the pipeline",
                                  &worst == cube ? "cube waits" : "vector cores wait",
                                  &worst == cube ? "vector side" : "cube");
    f.evidence.push_back(fmt::format("cross-core waits (summed over pipes and tasks, trace level "
                                     "full): cube tasks {}, vector tasks {}",
                                     pipeCyclesText(p, double(cubeTotal)),
                                     pipeCyclesText(p, double(vectorTotal))));
    // The task's waits are summed over its pipes (lane time); its duration is wall-clock time.
    f.evidence.push_back(fmt::format("longest: {} waited {} in its {}", taskText(m, worst),
                                     pipeCyclesText(p, double(worst.waits.crossFlag)),
                                     cyclesText(p, double(worst.duration()))));
    f.entity = "task";
    f.entityId = worst.id;
    // When both sides wait, a deeper pipeline overlaps up to the smaller of the two waits (half
    // of it expected); when one side waits, the other bounds the cluster and only rebalancing
    // helps: a tenth of the wait expected, up to all of it.
    const double high = double(std::min(
        both ? std::min(cube->waits.crossFlag, vector->waits.crossFlag) : worst.waits.crossFlag,
        worst.duration()));
    setGain(p, f, (both ? 0.5 : 0.1) * high, 0, high);
    out.push_back(std::move(f));
}

} // namespace pto::prof
