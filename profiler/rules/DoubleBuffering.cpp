// Rule: load, compute and store pipes take turns where double buffering would overlap them.
#include "profiler/analyses/FixedCost.h"
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

#include <numeric>
#include <unordered_map>

namespace pto::prof {
namespace {

// Pipes that form the load → compute → store pipeline of a core type.
std::vector<PipeId> stagePipes(std::string_view coreType) {
    if (coreType == "AIC")
        return {PipeId::MTE2, PipeId::MTE1, PipeId::M, PipeId::FIX, PipeId::MTE3};
    return {PipeId::MTE2, PipeId::V, PipeId::MTE3};
}

struct TaskGain {
    double expected = 0, high = 0;
    std::int64_t sum = 0, max = 0;
    PipeId maxPipe = PipeId::S;
    double floor = 0; ///< the busiest pipe's time once its transfers stream back to back
};

// A pipe's time with double buffering: its transfers follow each other without the pipe
// blocking on a flag, so all but the first hide their GM latency behind the previous stream
// (docs/SIMULATOR.md, "Latency overlap").
double overlappedPipeTime(const TaskRun& t, PipeId pipe, const ArchPeaks& peaks) {
    double busy = double(t.busy[std::size_t(pipe)]);
    double transfers = double(t.gmTransfersOnPipe[std::size_t(pipe)]);
    if (transfers <= 1) return busy;
    double hidden = transferLatencyOn(t, pipe, peaks) * (transfers - 1) / transfers;
    return std::max(0.0, busy - hidden);
}

// If the stages overlapped the task would take its busiest pipe's time plus one tile's
// fill/drain of the others (their time ÷ the tiles it streams), the pipes' times somewhere
// between as they are and with their transfers' latency hidden; at best (high) the busiest
// pipe alone, with its latency hidden.
TaskGain gainOf(const TaskRun& t, const ArchPeaks& peaks) {
    TaskGain g;
    double floorSum = 0;
    for (PipeId p : stagePipes(t.coreType)) {
        std::int64_t busy = t.busy[std::size_t(p)];
        g.sum += busy;
        if (busy > g.max) g.max = busy, g.maxPipe = p;
        double floor = overlappedPipeTime(t, p, peaks);
        floorSum += floor;
        g.floor = std::max(g.floor, floor);
    }
    // Expected: midway between the pipes overlapping as they are and with their latency hidden.
    double tiles = std::max<double>(1.0, double(t.gmTransfers) / 2.0);
    double asTheyAre = double(g.max) + double(g.sum - g.max) / tiles;
    double hidden = g.floor + (floorSum - g.floor) / tiles;
    g.expected = std::max(0.0, double(t.duration()) - 0.5 * (asTheyAre + hidden));
    g.high = std::max(0.0, double(t.duration()) - g.floor);
    return g;
}

bool isDoubleBuffered(const RunModel& m, const TaskRun& t) {
    if (!m.doubleBuffer) return false;
    const auto& k = m.doubleBufferedBlocks;
    return std::find(k.begin(), k.end(), t.block >= 0 ? t.block : t.textBlock) != k.end();
}

} // namespace

void ruleDoubleBuffering(const Profile& p, std::vector<Finding>& out) {
    const RunModel& m = p.model;
    std::unordered_map<std::int64_t, std::size_t> index;
    for (std::size_t i = 0; i < m.tasks.size(); ++i) index[m.tasks[i].id] = i;
    // The run gets shorter by what the tasks of its critical path gain.
    double expected = 0, high = 0;
    const TaskRun* worst = nullptr;
    TaskGain worstGain;
    for (const PathStep& s : p.criticalPath.steps) {
        const TaskRun& t = m.tasks[index[s.task]];
        if (isDoubleBuffered(m, t)) continue;
        TaskGain g = gainOf(t, m.peaks);
        expected += g.expected;
        high += g.high;
        if (!worst || g.expected > worstGain.expected) worst = &t, worstGain = g;
    }
    if (!worst || expected < 0.05 * double(m.totalCycles)) return;
    Finding f;
    f.rule = "double_buffering";
    f.title = "pipes take turns: loads, compute and stores do not overlap";
    f.advice = m.doubleBuffer
                   ? "give the block's buffers a second slot (double buffering) so the load of "
                     "tile i+1 overlaps the compute of tile i and the store of tile i-1"
                   : "compile with double buffering (drop --no-double-buffer / "
                     "CompileOptions::doubleBuffer = false) so load, compute and store overlap";
    double overlap = worst->duration() > 0 ? double(worstGain.sum) / double(worst->duration()) : 0;
    f.evidence.push_back(fmt::format(
        "task {} on {}: {} long, its pipeline pipes are busy {} in sum but the busiest ({}) "
        "only {}",
        worst->name, m.coreOf(*worst)->name, cyclesText(p, double(worst->duration())),
        cyclesText(p, double(worstGain.sum)), pipeIdName(worstGain.maxPipe),
        cyclesText(p, double(worstGain.max))));
    f.evidence.push_back(
        fmt::format("pipe overlap {:.2f} (1.0 = strictly one pipe at a time)", overlap));
    f.evidence.push_back(fmt::format(
        "overlapped, its transfers would stream back to back and hide all but one GM latency "
        "({:.0f} cycles each): the busiest pipe would need {}",
        m.peaks.gmLatencyCycles, cyclesText(p, worstGain.floor)));
    f.evidence.push_back(
        m.doubleBuffer
            ? fmt::format("kernel {} has no buffer in double-buffer slot 1", worst->kernel)
            : "meta target: double_buffer = false");
    f.entity = "task";
    f.entityId = worst->id;
    setGain(p, f, expected, 0.5 * expected, high);
    out.push_back(std::move(f));
}

} // namespace pto::prof
