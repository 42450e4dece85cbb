// Where a Tile-level op runs: its core type and pipe, derived from its kind and the memory
// spaces of its operands and result (the one rule used by partitioning, sync and codegen).
#pragma once

#include "compiler/ir/Graph.h"

namespace pto {

struct Placement {
    CoreType core = CoreType::None; // None: GM declarations, or spaces not yet assigned
    Pipe pipe = Pipe::S;
};

Placement placeTileOp(const Function& tile, const Op& op);

} // namespace pto
