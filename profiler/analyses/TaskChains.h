// How far fewer tiles per task can cut a task whose work is a loop-carried chain: the groups of
// its Tile ops that no edge joins, when each group runs through two or more iterations of a
// program loop (a running max, a sum carried from iteration to iteration). Such a group is one
// chain however the work is dealt out to tasks: only smaller tiles along an axis no op reduces
// over, or a change to the program, make more of them.
#pragma once

#include "profiler/RunModel.h"

#include <cstdint>
#include <vector>

namespace pto::tracedb {
class TraceReader;
}

namespace pto::prof {

/// The executed cycles of one Tile op's instructions in one kernel text (sync instructions
/// left out: they wait, they do not work).
struct TileOpCycles {
    std::int64_t kernel = -1;
    std::int64_t tileStage = -1;
    std::int64_t tileOp = -1;
    std::int64_t cycles = 0;
};

/// Sets TaskRun::carriedChains for every task whose kernel's timed Tile ops (`ops`) form groups
/// that each hold ops of two or more iterations of a loop. Groups are joined by the edges of the
/// Tile stage, through ops without instructions of their own (the later rounds of a counted
/// loop) and through a GM tensor only from a writer to a reader of the same kernel. Reads each
/// Tile stage named once: its edges, GM tensors and the ops' loop iterations.
void loadTaskChains(const tracedb::TraceReader& reader, const std::vector<TileOpCycles>& ops,
                    RunModel& model);

} // namespace pto::prof
