// How far a task whose work is loop-carried chains can be cut: the groups of its Tile ops that
// depend on one another, when each carries a value from one iteration of a program loop to a
// later one (a running max, a sum) on vector tiles. Such a group is one chain however the work is
// dealt out to tasks, and smaller tiles cut it only along its rows (a chain that reduces along
// its last dim cannot be cut there); a change to the program makes more of them.
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

/// Sets TaskRun::carriedRows for every task whose kernel's timed Tile ops (`ops`; cycles > 0:
/// the op ran) form groups that each carry a value from one iteration of a loop to a later one
/// on vector tiles: the rows of each group's smallest tile, summed. Ops are grouped along the
/// Tile stage's edges between ops — a source op (no op before it: a fill, a load of an input)
/// joins its consumers only when they are one group already, and a GM tensor joins the ops of
/// one kernel that write it and read it back. A kernel with a group that also holds another
/// kernel's ops gets no limit. Reads each Tile stage named once: its edges, its nodes that are
/// no op, and the loop iteration and shape of its loop ops.
void loadTaskChains(const tracedb::TraceReader& reader, const std::vector<TileOpCycles>& ops,
                    RunModel& model);

} // namespace pto::prof
