// Operand tiles an elementwise op must not take from its on-chip producer: those that would all
// wait on chip for a reduction of themselves, and those another operand computed on the cube.
#pragma once

#include "compiler/passes/expand/Compute.h"

namespace pto::expand {

// Operand i of the elementwise `op` (result tile grid `tile`) is "held across a reduction" when
// another operand depends on a reduction of it (or of a value computed from it, a few ops up)
// and the operand's tiles along the reduced axes — which all stay on chip until the reduction
// is known, since this op reads every one of them afterwards — take more than half of UB, and
// they can be recomputed from values in GM within kMaxRecompute ops. The op then reads those
// tiles privately: recomputed from their inputs or loaded again from GM, each just before its
// use (docs/PASSES.md, expand-tiles).
bool heldAcrossReduction(const Ctx& c, const Op& op, size_t i, const Shape& tile);

// Operand i of `op` has on-chip tiles, and another operand was computed from it through a
// matmul (`%y = add (matmul %a, %w), %a`): the matmul read it from GM, so taking its tiles on
// chip would make the vector chain and the cube task wait for each other (a GM cycle no task
// order can honour). The op then reads it from its GM home instead.
bool computedBackThroughCube(const Ctx& c, const Op& op, size_t i);

} // namespace pto::expand
