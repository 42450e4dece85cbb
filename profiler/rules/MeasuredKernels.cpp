// Rules for measured traces: kernels bound by a memory pipe (MTE2 above all) or by the scalar
// unit, and cube kernels that keep the cube idle (docs/PROFILER.md, "Measured traces").
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

#include <algorithm>

namespace pto::prof {
namespace {

// Kernels matching a test, with the time a fix could save on each: (task index, saving).
struct Group {
    std::vector<std::pair<std::size_t, double>> members;
    double time = 0, saving = 0;
};

double otherMax(const std::array<double, kPipeCount>& r, PipeId except) {
    double best = 0;
    for (std::size_t i = 0; i < kPipeCount; ++i)
        if (PipeId(i) != except) best = std::max(best, r[i]);
    return best;
}

void emit(const Profile& p, Group g, std::string_view rule, std::string title, std::string advice,
          std::string_view ratioName, PipeId pipe, std::vector<Finding>& out) {
    if (g.members.empty()) return;
    std::sort(g.members.begin(), g.members.end(), [&](auto& a, auto& b) {
        return p.model.tasks[a.first].duration() > p.model.tasks[b.first].duration();
    });
    Finding f;
    f.rule = std::string(rule);
    f.title = fmt::format(fmt::runtime(title), g.members.size(), cyclesText(p, g.time));
    f.advice = std::move(advice);
    for (std::size_t i = 0; i < g.members.size() && i < 5; ++i) {
        const TaskRun& t = p.model.tasks[g.members[i].first];
        f.evidence.push_back(
            fmt::format("{} ({} ns, {} {})", t.name, t.duration(), ratioName,
                        percent(p.pipeUtil.tasks[g.members[i].first].ratio[std::size_t(pipe)])));
    }
    f.entity = "task";
    f.entityId = p.model.tasks[g.members.front().first].id;
    // High: the kernel shrinks to its next-busiest pipe; expected half that, low a quarter.
    setGain(p, f, g.saving / 2, g.saving / 4, g.saving);
    out.push_back(std::move(f));
}

} // namespace

void ruleMeasuredKernels(const Profile& p, std::vector<Finding>& out) {
    Group memory, scalar, cube;
    for (std::size_t i = 0; i < p.model.tasks.size(); ++i) {
        const TaskRun& t = p.model.tasks[i];
        if (t.pipeRatiosMissing) continue; // no ratio is no evidence
        const auto& r = p.pipeUtil.tasks[i].ratio;
        const BoundVerdict& v = p.bound.tasks[i];
        double dur = double(t.duration());
        if (v.cls == BoundClass::Memory && v.busiestPipe == PipeId::MTE2) {
            double saving = dur * (1 - otherMax(r, PipeId::MTE2) / std::max(v.busiestRatio, 1e-9));
            memory.members.emplace_back(i, saving);
            memory.time += dur;
            memory.saving += saving;
        } else if (v.cls == BoundClass::Latency && v.busiestPipe == PipeId::S &&
                   v.busiestRatio >= kPipeThreshold) {
            double saving = dur * (1 - otherMax(r, PipeId::S) / v.busiestRatio);
            scalar.members.emplace_back(i, saving);
            scalar.time += dur;
            scalar.saving += saving;
        }
        bool cubeKernel = t.coreType == "AIC" || t.coreType == "MIX_AIC";
        if (cubeKernel && r[std::size_t(PipeId::M)] < 0.5 && dur > 0) {
            double saving = dur * (1 - r[std::size_t(PipeId::M)] / kPipeThreshold) / 2;
            cube.members.emplace_back(i, saving);
            cube.time += dur;
            cube.saving += saving;
        }
    }
    emit(p, memory, kMeasuredRules[0], "{} kernels are memory bound on MTE2 (GM → on-chip), {}",
         "cut GM traffic: keep operands on chip longer (bigger tiles, fusion), or use wider, "
         "aligned transfers",
         "aic/aiv_mte2_ratio", PipeId::MTE2, out);
    emit(p, scalar, kMeasuredRules[1], "{} kernels are held by the scalar unit, {}",
         "move index and loop arithmetic off the scalar pipe (vectorise it, hoist it out of "
         "loops, use static shapes so tiling is computed at compile time)",
         "aic/aiv_scalar_ratio", PipeId::S, out);
    emit(p, cube, kMeasuredRules[2], "{} cube kernels keep the cube under 50% busy, {}",
         "feed the cube: double-buffer L1/L0 loads, larger K per tile, fewer small matmuls",
         "aic_mac_ratio", PipeId::M, out);
}

} // namespace pto::prof
