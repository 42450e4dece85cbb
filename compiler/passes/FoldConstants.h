// fold-constants: removes exact algebraic identities from a Tensor function (x·1, x/1, x−0,
// x+(−0), same-type casts, widen-then-narrow casts, same-shape reshapes/broadcasts/views,
// identity transposes, neg(neg x), transpose∘transpose). Never changes a single result bit.
#pragma once

#include "compiler/ir/Graph.h"

namespace pto {

// Tensor → Tensor, in place: uses of a folded op's result (function results included) are
// redirected to the value it equals; the folded op is erased. Ops left unused (e.g. the inner
// neg of neg(neg x)) are left for dead-code.
void foldConstants(Function& f);

} // namespace pto
