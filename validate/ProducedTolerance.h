// The tolerance class and K a value is judged by against an independent golden (a reference
// that computes the whole result, e.g. NumPy in f64): through loops and, for a Tile-level
// kernel's written argument, from what its stores write into it (docs/VALIDATE.md).
#pragma once

#include "compiler/ir/Graph.h"
#include "validate/Tolerance.h"

#include <string>

namespace pto {

struct ProducedTolerance {
    ToleranceClass cls = ToleranceClass::Elementwise;
    int64_t k = 1;
    std::string op; // the producer's mnemonic ("matmul", "for"); empty for an argument
    SourceLoc loc;  // the producer's
};

// The class and K of value `v` of `fn`: its producer's own (Tolerance.h); a `for` result sums
// what one iteration accumulates into it once per trip, so K = trips × the K one pass of the
// body carries into the yielded value (DriftChain.h's propagation with the iter_args at 0),
// class Accumulation when that K exceeds 1. (Bisection compares with a reference that runs the
// same loop, so only each body's summation order differs there: it keeps the body's K.)
ProducedTolerance producedTolerance(const Function& fn, ValueId v);

// For argument `arg` of a Tile-level function: the loosest tolerance (largest K, then class)
// of the values its `tstore`s and `tscatter_add`s write into it, loop bodies included (a store
// inside a loop is counted once per trip for a scatter-add, whose trips add up). Elementwise,
// K = 1, op empty when nothing is stored into it.
ProducedTolerance storedTolerance(const Function& fn, ValueId arg);

} // namespace pto
