// Codegen: PTO virtual instructions from the Block program and its Exec graph.
#pragma once

#include "compiler/ir/Block.h"
#include "compiler/ir/Exec.h"
#include "compiler/ir/Pto.h"

namespace pto {

// Lays out the GM tensors (gmLayoutOrder: arguments, outputs, workspaces; 512 B aligned) and
// turns every block function into a Kernel: each tile op into one instruction (two for a
// broadcast operand that has no fused form; a reduction or cumsum of an N-D tile along another
// axis than the last, one per index of the dims before that axis), each sync item into
// SET_FLAG (on its src pipe), WAIT_FLAG (on its dst pipe) or BARRIER. Operands are resolved to
// (space, address, rows × cols, row stride): on-chip from the block's buffers (stride = tile cols),
// GM from the tensor base and the tload/tstore offset (stride = the tensor's last dim). A [1×c] or
// [1×1] operand broadcast over rows reads with row stride 0. Every instruction carries its tile op
// and loc (a flag those of the op it follows or precedes). The exec graph is copied as is. Throws
// CompileError for shapes no instruction can express.
PtoProgram emitPto(const BlockProgram& program, const ExecGraph& exec);

// A hand-written Tile-level program's outputs are the arguments it stores into (tstore,
// tscatter_add) as written — also in a loop body, whatever the trip count: an argument whose
// only stores sit in a loop that runs 0 times is still an output (InOut), written after the
// run as given. `program` was emitted from `asWritten` unrolled (same arguments, same order).
void markStoredArguments(PtoProgram& program, const Function& asWritten);

} // namespace pto
