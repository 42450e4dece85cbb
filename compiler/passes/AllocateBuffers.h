// Block level: on-chip buffer allocation (liveness, in-place accumulation, double buffering).
#pragma once

#include "compiler/ir/Block.h"
#include "compiler/ir/Target.h"

#include <string>

namespace pto {

// Per block and per space (L1, L0A, L0B, L0C, UB): a linear scan over the item order. A tile
// value lives from its defining item to its last reader; sizes and addresses are multiples of
// target.bufferAlign; first fit, freed ranges reused. A matmul_acc result takes its
// accumulator's buffer when that is the accumulator's last use (one Buffer per such chain).
// Double buffering (program.doubleBuffer): a value may not reuse memory that was live after
// the definition of the previous value of the same role (space, defining op kind, dtype,
// shape), so consecutive tiles of a role alternate between two copies (Buffer::slot = 0, 1, 0…)
// and the load of tile i+1 never waits for the compute of tile i. When a space does not fit
// double-buffered it is allocated single-buffered and a note is added to program.notes; when
// that does not fit either, throws CompileError naming the op, the space, the bytes needed,
// the capacity and the bytes live at that point. Fills program.bufferOf and checks that no
// two live buffers overlap.
void allocateBuffers(BlockProgram& program, const TargetInfo& target, const std::string& file);

} // namespace pto
