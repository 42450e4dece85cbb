// Block level: the item order of every block function.
#pragma once

#include "compiler/ir/Block.h"

namespace pto {

// Reorders each block's items into a topological order of its tile ops that keeps the
// block's components (tile chains) in program order, one after the other, so that the pipes
// of consecutive chains can overlap. Inside a chain the order is a depth-first post-order
// from the chain's sinks (in program order), visiting operands left to right: every op comes
// right after what it needs, loads just before their first use, and a matmul_acc chain keeps
// k ascending (the accumulator is operand 0). A block with two overlapping GM accesses, one a
// write (chains partition-blocks merged on a GM cycle), keeps program order instead, since the
// depth-first order sees on-chip dataflow only. Must run before insert-sync.
void orderInstructions(BlockProgram& program);

// The fallback order of a block whose depth-first order does not fit its on-chip memory
// (allocate-buffers retries with it): its ops in program order (op id). A value two chains read
// — an unrolled loop's block feeding both carried values — then dies in its own iteration
// instead of living until the second chain's turn. False when the items already are in it.
bool reorderInProgramOrder(BlockFunction& block);

// The last fallback (after program order): the block's current order with every op's readers
// moved up to run as soon as their operands are ready. A tile several reductions along
// different axes read (a column sum accumulated over row tiles and a row max of each) then dies
// with its own row tile instead of staying live until the accumulation's sink comes up. False
// when the items already are in it, or the block has a GM hazard (its order is program order).
bool reorderEagerly(const Function& tile, BlockFunction& block);

} // namespace pto
