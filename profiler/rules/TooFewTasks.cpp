// Rule: fewer tasks than cores, so part of the chip sits idle for the whole run — with the gain
// a split really has once every extra piece pays a task's fixed part (analyses/FixedCost) again.
#include "profiler/analyses/FixedCost.h"
#include "profiler/rules/RuleSupport.h"
#include "profiler/rules/Rules.h"

#include <cmath>

namespace pto::prof {
namespace {

// The busiest core of a type: its busy time, the fixed part of the tasks it ran, and each
// task's share of the rest with the most pieces a tiling can cut it into.
struct CoreWork {
    struct Part {
        double cycles = 0;
        /// A loop-carried task's most pieces (TaskRun::carriedRows); 0: any number.
        std::int64_t mostPieces = 0;
        /// Its chains once each has an input of its own (TaskRun::carriedChains; 0: unknown).
        std::int64_t chainsApart = 0;
        const TaskRun* task = nullptr;
        /// The most pieces, with the chains given inputs of their own when `apart`; 0: any.
        std::int64_t most(bool apart) const {
            return apart && mostPieces > 0 ? std::max(mostPieces, chainsApart) : mostPieces;
        }
    };
    double busy = 0, fixed = 0;
    int fillTransfers = 0, drainTransfers = 0;
    std::vector<Part> parts;
    double variable() const { return std::max(0.0, busy - fixed); }
    /// The variable part once every task is cut into up to `pieces` pieces, as its chains allow
    /// (`apart`: once chains that share an input have one each).
    double variableIn(int pieces, bool apart) const {
        double total = 0, cut = 0;
        for (const Part& part : parts) {
            total += part.cycles;
            const std::int64_t most = part.most(apart);
            cut += part.cycles / double(most > 0 ? std::min<std::int64_t>(pieces, most) : pieces);
        }
        return total > 0 ? variable() * cut / total : variable() / pieces;
    }
    /// The biggest part (most cycles) that `keep` accepts, or nullptr.
    template <typename Keep> const Part* biggest(Keep keep) const {
        const Part* found = nullptr;
        for (const Part& part : parts)
            if (keep(part) && (!found || part.cycles > found->cycles)) found = &part;
        return found;
    }
    /// The biggest part a split into `pieces` cannot cut that far (a loop-carried chain), or
    /// nullptr.
    const Part* limitedAt(int pieces, bool apart) const {
        return biggest([&](const Part& p) { return p.most(apart) > 0 && p.most(apart) < pieces; });
    }
    /// The biggest part whose chains share an input, so that the compiler keeps more of them in
    /// one task than a tiling can cut apart; nullptr if none.
    const Part* sharingChains() const {
        return biggest(
            [](const Part& p) { return p.mostPieces > 0 && p.chainsApart > p.mostPieces; });
    }
    /// The task holding most of the variable part when it is one loop-carried chain of one-row
    /// tiles: no tiling cuts it; nullptr otherwise.
    const TaskRun* singleChain() const {
        const Part* most = biggest([](const Part&) { return true; });
        return most && most->mostPieces == 1 && most->cycles > 0 ? most->task : nullptr;
    }
};

CoreWork busiestCoreWork(const Profile& p, const TypeBalance& b) {
    CoreWork w;
    w.busy = double(b.maxBusy);
    for (const TaskRun& t : p.model.tasks) {
        if (t.core != b.slowestCore || t.core < 0) continue;
        const double fixed = fixedCostOf(t, p.model.peaks).total();
        w.fixed += fixed;
        w.fillTransfers += t.fillTransfers;
        w.drainTransfers += t.drainTransfers;
        w.parts.push_back(
            {std::max(0.0, double(t.duration()) - fixed), t.carriedRows, t.carriedChains, &t});
    }
    w.fixed = std::min(w.fixed, w.busy);
    return w;
}

// No split moves the type's GM bytes faster than the shared GM bandwidth.
double bandwidthFloor(const Profile& p, const TypeBalance& b) {
    double bytes = 0;
    for (const TaskRun& t : p.model.tasks)
        if (t.coreType == b.coreType) bytes += double(t.gmBytes);
    return p.model.peaks.gmBytesPerCycle > 0 ? bytes / p.model.peaks.gmBytesPerCycle : 0;
}

// A whole split: every task cut into `pieces`, each on a core of its own (one round), paying the
// fixed part and 1/pieces of the rest. Splits into more pieces than free cores need rounds and
// gain only if the pieces divide the work evenly, which whole tiles of legal shapes rarely do
// (samples/matmul.pto: 16 output blocks on 24 AICs, no tiling of 145 gained more than 0.8 %):
// they count in the range's high end only.
// `apart`: the split needs chains that share an input to get one each (a change to the program).
struct Split {
    int pieces = 1;
    double time = 0; ///< the busiest core's busy time after the split
    bool apart = false;
};

Split bestSplit(const TypeBalance& b, const CoreWork& w, double floor, bool apart) {
    Split best{1, w.busy, apart};
    for (int k = 2; k * b.used <= b.available; ++k) {
        double time = std::max(w.fixed + w.variableIn(k, apart), floor);
        if (time < best.time) best = {k, time, apart};
    }
    return best;
}

std::string splitEvidence(const Profile& p, const TypeBalance& b, const CoreWork& w,
                          const Split& s) {
    if (const CoreWork::Part* sharing = w.sharingChains(); s.apart && sharing)
        return fmt::format("task {} ({}) holds {} chains that each carry a value from one "
                           "iteration of its loop to the next and share an input (an initial "
                           "fill, a loaded tile), so the compiler keeps them in one task; with "
                           "an input each, the best split in one round is {} pieces per task: {} "
                           "per core",
                           sharing->task->name, cyclesText(p, sharing->cycles),
                           sharing->chainsApart, s.pieces, cyclesText(p, s.time));
    if (const TaskRun* chain = w.singleChain(); s.pieces == 1 && chain) {
        if (chain->carriedChains > 1)
            return fmt::format("task {} ({} of the busiest core's {}) holds {} chains that each "
                               "carry a value from one iteration of its loop to the next, on "
                               "tiles of one row, and share an input (an initial fill, a loaded "
                               "tile), so the compiler keeps them in one task: no tiling cuts it",
                               chain->name, cyclesText(p, double(chain->duration())),
                               cyclesText(p, w.busy), chain->carriedChains);
        return fmt::format("task {} ({} of the busiest core's {}) is one chain that carries a "
                           "value from each iteration of its loop to the next, on tiles of one "
                           "row: no tiling cuts it",
                           chain->name, cyclesText(p, double(chain->duration())),
                           cyclesText(p, w.busy));
    }
    if (s.pieces == 1)
        return fmt::format("no split fits the {} cores in one round: 2 pieces per task need {} "
                           "cores, so some run two pieces ({} instead of {:.0f} cycles) unless "
                           "the tiles divide the work more finely and evenly",
                           b.available, 2 * b.used, cyclesText(p, 2 * (w.fixed + w.variable() / 2)),
                           w.busy);
    if (const CoreWork::Part* chain = w.limitedAt(s.pieces, s.apart))
        return fmt::format(
            "best split in one round: up to {} pieces per task, as far as the work allows — task "
            "{} ({}) is chains that carry a value from each iteration of its loop to the next and "
            "cuts into at most {} (its tiles' rows): {} per core",
            s.pieces, chain->task->name, cyclesText(p, chain->cycles), chain->mostPieces,
            cyclesText(p, s.time));
    return fmt::format("best split in one round: {} pieces per task ({} tasks) of {:.0f} + "
                       "{:.0f} / {} cycles: {} per core",
                       s.pieces, s.pieces * b.tasks, w.fixed, w.variable(), s.pieces,
                       cyclesText(p, s.time));
}

std::string adviceFor(const Profile& p, const Split& s, const CoreWork& w) {
    if (const CoreWork::Part* sharing = w.sharingChains(); s.apart && sharing)
        return fmt::format("give each of the {} chains of task {} an input of its own (one initial "
                           "fill per chain, not one shared): the compiler then makes them tasks of "
                           "their own ({} pieces per task) — a change to the program; neither "
                           "--tiles-per-task nor smaller tiles cut them apart",
                           sharing->chainsApart, sharing->task->name, s.pieces);
    if (const TaskRun* chain = w.singleChain(); s.pieces == 1 && chain) {
        if (chain->carriedChains > 1)
            return fmt::format("give each of its {} chains an input of its own (one initial fill "
                               "per chain) so that they become tasks of their own; or split the "
                               "loop's range into parts that run side by side and combine their "
                               "results at the end (as flash decoding does) — changes to the "
                               "program: neither --tiles-per-task nor smaller tiles cut it",
                               chain->carriedChains);
        return "its biggest task is one loop-carried chain, which neither --tiles-per-task nor "
               "smaller tiles cut; to use the idle cores, split the loop's range into parts that "
               "run side by side and combine their results at the end (as flash decoding does) — "
               "a change to the program";
    }
    if (s.time < 0.95 * w.busy && p.model.totalCycles > 0 &&
        w.busy - s.time >= 0.05 * double(p.model.totalCycles))
        return fmt::format(
            "split the work into more tasks ({} pieces per task): smaller tiles, "
            "or fewer tiles per task (--tiles-per-task), so every core gets a share; "
            "each extra piece pays the fixed {:.0f} cycles again",
            s.pieces, w.fixed);
    return fmt::format("splitting barely pays here: each extra piece pays the fixed {:.0f} cycles "
                       "again and whole splits leave cores idle or need extra rounds; keep the "
                       "tiling, or split only into a count of tasks that fills the cores in one "
                       "round",
                       w.fixed);
}

} // namespace

void ruleTooFewTasks(const Profile& p, std::vector<Finding>& out) {
    for (const TypeBalance& b : p.imbalance.types) {
        if (b.used >= b.available || b.used == 0) continue;
        const CoreWork w = busiestCoreWork(p, b);
        const double floor = bandwidthFloor(p, b);
        // The work spread exactly over every core, one fixed part per core: no split does better.
        double high = std::min(w.variable() * (1.0 - double(b.used) / b.available),
                               std::max(0.0, w.busy - floor));
        if (high <= 0 || high < 0.05 * double(p.model.totalCycles)) continue;
        // With the knobs as they are; and, when chains share an input, with one input each (the
        // change the finding then names, if it gains 5 % of the run more).
        Split s = bestSplit(b, w, floor, false);
        if (w.sharingChains()) {
            const Split apart = bestSplit(b, w, floor, true);
            if (apart.time < s.time - 0.05 * double(p.model.totalCycles)) s = apart;
        }
        double expected = w.busy - s.time;
        Finding f;
        f.rule = "too_few_tasks";
        f.title = fmt::format("{} tasks keep only {} of {} {} cores busy", b.tasks, b.used,
                              b.available, b.coreType);
        f.advice = adviceFor(p, s, w);
        f.evidence.push_back(fmt::format("{} cores used: {} / {}; busiest core {} busy", b.coreType,
                                         b.used, b.available, cyclesText(p, w.busy)));
        f.evidence.push_back(fmt::format(
            "of which fixed: {} — the latency its {} load(s) before its first compute and {} "
            "store(s) after its last showed (duration less bytes at the path's rate); it does "
            "not shrink when a task is split",
            cyclesText(p, w.fixed), w.fillTransfers, w.drainTransfers));
        f.evidence.push_back(splitEvidence(p, b, w, s));
        if (floor > 0.5 * w.busy)
            f.evidence.push_back(fmt::format("the {} tasks' GM bytes need {} at the shared GM "
                                             "bandwidth (limits the gain)",
                                             b.coreType, cyclesText(p, floor)));
        f.entity = "run";
        setGain(p, f, expected, 0.5 * expected, high);
        out.push_back(std::move(f));
    }
}

} // namespace pto::prof
