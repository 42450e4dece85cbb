// Rule: cube tasks are fed too slowly — MTE2 (GM→L1) busier than the cube. The gain is what the
// what-if it names (a GM→L1 path twice as fast) would give: the part of MTE2 the path's rate
// accounts for, never below one GM latency per load, and only while MTE2 is what the task
// waits for. The advice says what raises FLOPs per loaded byte, or that no tiling can.
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

#include <cmath>
#include <unordered_map>

namespace pto::prof {
namespace {

// A path task's MTE2 with dma.gm_to_l1.rate doubled, and what the task gains by it.
struct FasterPath {
    double pathShare = 0; ///< reads ÷ path rate ÷ MTE2 busy: how much of MTE2 the rate sets
    double mte2After = 0;
    double high = 0;
};

FasterPath fasterPath(const TaskRun& t, const ArchPeaks& peaks) {
    FasterPath f;
    const double mte2 = double(t.busy[std::size_t(PipeId::MTE2)]);
    const double reads = double(t.gmBytes - t.gmWriteBytes);
    if (mte2 <= 0 || reads <= 0 || peaks.gmToL1Rate <= 0) return f;
    const double stream = std::min(mte2, reads / peaks.gmToL1Rate);
    f.pathShare = stream / mte2;
    // Each load still waits for its latency (a shorter stream hides less of the next one's).
    const double latencies =
        peaks.gmLatencyCycles * double(t.gmTransfersOnPipe[std::size_t(PipeId::MTE2)]);
    f.mte2After = std::max(mte2 - stream / 2, std::min(mte2, latencies));
    double others = 0;
    for (PipeId p : {PipeId::M, PipeId::MTE1, PipeId::FIX})
        others = std::max(others, double(t.busy[std::size_t(p)]));
    f.high = std::max(
        0.0, std::min(mte2 - f.mte2After, double(t.duration()) - std::max(others, f.mte2After)));
    return f;
}

// A path task whose MTE2 limits its cube: busy most of the task and busier than the MACs, and
// mostly set by the GM→L1 rate (else latency or the shared GM bandwidth limits it, and a faster
// path would not help: decode_attention ran 2% slower with it).
bool starved(const TaskRun& t, const PipeRatios& r, const FasterPath& f) {
    double mte2 = r.ratio[std::size_t(PipeId::MTE2)], mac = r.ratio[std::size_t(PipeId::M)];
    return t.coreType == "AIC" && mte2 >= 0.6 && mac < mte2 && f.pathShare >= 0.5 && f.high > 0;
}

// The most FLOPs per GM byte an output block that fits in L0C gives (m·n f32 accumulators):
// 2·m·n·K FLOPs for (m + n)·K operand elements, at m = n; `dtypeScale` is the cube's rate for the
// operands against f16 (2 for i8: 1-byte operands; 0.25 for f32: 4-byte ones).
double blockIntensityCap(const ArchPeaks& peaks, double dtypeScale) {
    const double operandBytes = dtypeScale >= 2 ? 1.0 : dtypeScale <= 0.5 ? 4.0 : 2.0;
    return std::sqrt(peaks.l0cBytes / 4.0) / operandBytes;
}

std::string adviceFor(const ArchPeaks& peaks, const RooflinePoint& point, double needed) {
    const double intensity = point.intensity;
    const double cap = blockIntensityCap(
        peaks, peaks.cubeFlopsPerCycle > 0 ? point.computeRoof / peaks.cubeFlopsPerCycle : 1.0);
    std::string what =
        fmt::format("GM bytes per FLOP fall only with a larger output block per task (cube_tile "
                    "m and n: bytes/FLOP ∝ 1/m + 1/n) or A/B reused across output blocks; the K "
                    "tile (kL0, kL1) does not change them");
    if (cap < 0.95 * needed && intensity > 0.8 * cap)
        what = fmt::format(
            "no tiling feeds it: an output block L0C holds ({:.0f} KiB of f32) reaches at most "
            "{:.1f} FLOP/B, the task has {:.1f} and the cube needs {:.1f}; {}",
            peaks.l0cBytes / 1024, cap, intensity, needed,
            "only a faster GM→L1 path or L2 reuse across cores helps");
    return what + "; `pto whatif run.db --set dma.gm_to_l1.rate=2x` shows what a GM→L1 path "
                  "twice as fast gives (the estimated gain)";
}

} // namespace

void ruleCubeStarved(const Profile& p, std::vector<Finding>& out) {
    const RunModel& m = p.model;
    std::unordered_map<std::int64_t, std::size_t> index;
    for (std::size_t i = 0; i < m.tasks.size(); ++i) index[m.tasks[i].id] = i;
    double high = 0;
    std::size_t worst = SIZE_MAX;
    for (const PathStep& s : p.criticalPath.steps) {
        std::size_t i = index[s.task];
        const FasterPath f = fasterPath(m.tasks[i], m.peaks);
        if (!starved(m.tasks[i], p.pipeUtil.tasks[i], f)) continue;
        high += f.high;
        const auto& r = p.pipeUtil.tasks;
        if (worst == SIZE_MAX ||
            r[i].ratio[std::size_t(PipeId::MTE2)] - r[i].ratio[std::size_t(PipeId::M)] >
                r[worst].ratio[std::size_t(PipeId::MTE2)] - r[worst].ratio[std::size_t(PipeId::M)])
            worst = i;
    }
    if (worst == SIZE_MAX) return;
    const TaskRun& t = m.tasks[worst];
    const PipeRatios& r = p.pipeUtil.tasks[worst];
    const RooflinePoint& point = p.roofline.tasks[worst];
    const FasterPath f = fasterPath(t, m.peaks);
    const double needed = ridgeOf(point);
    Finding finding;
    finding.rule = "cube_starved";
    finding.title = "cube waits for data: MTE2 (GM→L1) is busier than the cube";
    finding.advice = adviceFor(m.peaks, point, needed);
    finding.evidence.push_back(fmt::format(
        "task {} on {}: aic_mte2_ratio {}, aic_mac_ratio {}, memory_bound {:.2f} (> 1: memory "
        "bound)",
        t.name, m.coreOf(t)->name, percent(r.ratio[std::size_t(PipeId::MTE2)]),
        percent(r.ratio[std::size_t(PipeId::M)]), r.memoryBound()));
    finding.evidence.push_back(fmt::format("arithmetic intensity {:.1f} FLOP/B; the cube needs "
                                           "{:.1f} FLOP/B at {:.1f} B/cycle to stay busy",
                                           point.intensity, needed, point.bandwidth));
    finding.evidence.push_back(fmt::format(
        "GM→L1 at {:.1f} B/cycle sets {} of its MTE2 time; twice as fast, MTE2 would take {} "
        "(each of its {} loads still waits ≥ {:.0f} cycles of GM latency), and the task the "
        "longest of MTE2, cube, MTE1 and FIX",
        m.peaks.gmToL1Rate, percent(f.pathShare), cyclesText(p, f.mte2After),
        t.gmTransfersOnPipe[std::size_t(PipeId::MTE2)], m.peaks.gmLatencyCycles));
    finding.entity = "task";
    finding.entityId = t.id;
    // The pipes rarely overlap perfectly once MTE2 and the cube take similar time: half the
    // ideal is expected (assumption; gemm_4096 gained 52 %, moe_gating 50 % of it).
    setGain(p, finding, 0.5 * high, 0.25 * high, high);
    out.push_back(std::move(finding));
}

} // namespace pto::prof
