// Whether an elementwise op's operand tiles would all have to wait on chip for a reduction of
// that same operand (rms_norm of a row longer than UB): such an operand is read again from GM.
#pragma once

#include "compiler/passes/expand/Compute.h"

namespace pto::expand {

// Operand i of the elementwise `op` (result tile grid `tile`) is "held across a reduction" when
// another operand depends on a reduction of it (or of a value computed from it, a few ops up)
// and the operand's tiles along the reduced axes — which all stay on chip until the reduction
// is known, since this op reads every one of them afterwards — take more than half of UB. The
// op then reads those tiles privately: recomputed from their inputs or loaded again from GM,
// each just before its use (docs/PASSES.md, expand-tiles).
bool heldAcrossReduction(const Ctx& c, const Op& op, size_t i, const Shape& tile);

} // namespace pto::expand
