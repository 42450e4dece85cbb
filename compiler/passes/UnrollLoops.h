// unroll-loops: replaces every `for` of a Tensor function by copies of its body, one per
// iteration, so the passes after it see straight-line Tensor IR.
#pragma once

#include "compiler/ir/Graph.h"

#include <string>

namespace pto {

// Tensor → Tensor: each iteration's ops are the body's ops with the induction variable
// substituted (view offsets become constants), the iter_args bound to the previous iteration's
// yielded values (the initial values for the first), and the captures to the outer values; the
// loop's results become the last iteration's yields. Nested loops unroll inside out. Every
// copied op keeps the body op's `loc` (its source line) and gets parent = the top-level op it
// came from (the loop) and the attributes loop = "name" (nested: "outer/inner"; an unnamed
// loop is called by its position, "for@7:3") and iter = [iteration, …] (0-based, outermost
// first). Directives keep no such attributes. An iteration whose `clip` views are cut at the
// tensor's end (the tail) copies the body retyped for the shorter views (LoopTail.h); errors
// name `file`.
void unrollLoops(Function& f, const std::string& file = {});

// The ops `f` has once its loops are unrolled (saturating at INT64_MAX), and the top-level loop
// contributing most (nullptr when there is none): checked against the budget before unrolling.
struct UnrolledCount {
    int64_t ops = 0;
    const Op* largestLoop = nullptr;
};
UnrolledCount countUnrolledOps(const Function& f);

} // namespace pto
