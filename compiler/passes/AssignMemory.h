// assign-memory: places every tile of a Tile function in a memory space — UB for vector
// work, L1 / L0A / L0B / L0C for the cube's operand and accumulator tiles — and checks that
// each tile fits its buffer.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"

#include <string>

namespace pto {

// In place. Vector ops → UB, matmul and matmul_acc → L0C, gm_tensor and arguments → GM,
// whatever was set before. tload and tmove keep a space already set (hand-written Tile IR) if
// they can write it (tload: UB or L1; tmove: L0A or L0B), else CompileError; unset, a tmove
// goes to L0A or L0B by the matmul operand it feeds, a tload to L1 when its first reader is a
// cube op (tmove, matmul), UB otherwise. A value whose readers need several
// spaces keeps its producer's; insert-copies adds the rest (910B: cube ↔ vector only via GM).
// Throws CompileError naming the op and value when a tile exceeds its buffer.
void assignMemory(Function& tile, const TargetInfo& target, const std::string& file);

} // namespace pto
