// insert-copies: makes every tile operand readable where its op runs, inserting tload, tmove
// and tstore (with a GM workspace for cube ↔ vector transfers) where a value lives in another
// memory space than its reader needs.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"

#include <string>

namespace pto {

// In place, after assign-memory. Each (value, needed space) pair is copied once, just before
// its first reader, and later readers share the copy. Paths: L1 → L0A/L0B by tmove; a tload'ed
// tile needed in another space is loaded again from the same GM region; UB or L0C → L1 / UB
// through a fresh `gm_tensor {role = "workspace"}` (tstore, then tload). A function already
// legal (what expand-tiles + assign-memory produce) is left untouched. Throws CompileError for
// unplaced tiles and for transfers the hardware has no path for (e.g. L0A → UB).
void insertCopies(Function& tile, const TargetInfo& target, const std::string& file);

} // namespace pto
