// Rule: cube tasks are fed too slowly — MTE2 (GM→L1) busier than the cube — so larger K tiles
// or L1 reuse (more output tiles per L1 block) would feed the cube with fewer GM bytes per FLOP.
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

#include <unordered_map>

namespace pto::prof {

void ruleCubeStarved(const Profile& p, std::vector<Finding>& out) {
    const RunModel& m = p.model;
    std::unordered_map<std::int64_t, std::size_t> index;
    for (std::size_t i = 0; i < m.tasks.size(); ++i) index[m.tasks[i].id] = i;
    double expected = 0, high = 0;
    std::size_t worst = SIZE_MAX;
    for (const PathStep& s : p.criticalPath.steps) {
        std::size_t i = index[s.task];
        const TaskRun& t = m.tasks[i];
        const PipeRatios& r = p.pipeUtil.tasks[i];
        double mte2 = r.ratio[std::size_t(PipeId::MTE2)], mac = r.ratio[std::size_t(PipeId::M)];
        // MTE2 is the pipe that limits the cube: busy most of the task and busier than the MACs.
        if (t.coreType != "AIC" || mte2 < 0.6 || mac >= mte2) continue;
        double dur = double(t.duration());
        double cube =
            double(std::max(t.busy[std::size_t(PipeId::M)], t.busy[std::size_t(PipeId::MTE1)]));
        // Twice the FLOPs per loaded byte halves the MTE2 time.
        expected += std::min(0.5 * double(t.busy[std::size_t(PipeId::MTE2)]), dur - cube);
        high += dur - cube;
        if (worst == SIZE_MAX ||
            mte2 - mac > p.pipeUtil.tasks[worst].ratio[std::size_t(PipeId::MTE2)] -
                             p.pipeUtil.tasks[worst].ratio[std::size_t(PipeId::M)])
            worst = i;
    }
    if (worst == SIZE_MAX || expected <= 0) return;
    const TaskRun& t = m.tasks[worst];
    const PipeRatios& r = p.pipeUtil.tasks[worst];
    const RooflinePoint& point = p.roofline.tasks[worst];
    Finding f;
    f.rule = "cube_starved";
    f.title = "cube waits for data: MTE2 (GM→L1) is busier than the cube";
    f.advice = "raise FLOPs per loaded byte: a larger K tile (cube_tile kL1) and L1 reuse "
               "(mL1 > mL0 or nL1 > nL0, so one L1 block feeds several accumulators); "
               "`pto whatif run.db --set dma.gm_to_l1.rate=2x` shows what a faster GM→L1 path "
               "would give";
    f.evidence.push_back(fmt::format("task {} on {}: aic_mte2_ratio {}, aic_mac_ratio {}, "
                                     "memory_bound {:.2f} (> 1: memory bound)",
                                     t.name, m.coreOf(t)->name,
                                     percent(r.ratio[std::size_t(PipeId::MTE2)]),
                                     percent(r.ratio[std::size_t(PipeId::M)]), r.memoryBound()));
    f.evidence.push_back(fmt::format("arithmetic intensity {:.1f} FLOP/B; the cube needs {:.1f} "
                                     "FLOP/B at {:.1f} B/cycle to stay busy",
                                     point.intensity,
                                     point.bandwidth > 0 ? point.computeRoof / point.bandwidth : 0,
                                     point.bandwidth));
    f.entity = "task";
    f.entityId = t.id;
    setGain(p, f, expected, 0.25 * expected, high);
    out.push_back(std::move(f));
}

} // namespace pto::prof
