// The tail of a loop: an iteration whose `clip` views are cut short at the tensor's end.
#pragma once

#include "compiler/ir/Graph.h"

#include <optional>
#include <span>
#include <string>

namespace pto {

// A loop body as one iteration runs it. `argIvs` holds, per body argument, the number an
// induction variable (the loop's own, or an outer one it captured) has in this iteration, or
// nullopt for data. When a `clip` view of this iteration reaches past its tensor's end, the
// result is a copy of `body` whose cut views carry their real `sizes` and whose values computed
// from them are retyped by shape inference; nullopt when no view is cut (every other
// iteration). `iteration` names the iteration in messages ("iteration 3").
// Throws CompileError (at the op, in `file`) when a cut shape reaches what cannot follow it: a
// yield (the iter_args keep their types: reduce the partial dimension first), a nested loop or
// call, or an op with a declared type other than cast.
std::optional<Function> tailIteration(const Function& body,
                                      std::span<const std::optional<int64_t>> argIvs,
                                      const std::string& file, const std::string& iteration);

// The real sizes of a `clip` view whose induction variables hold `ivs`: each dim cut at the
// tensor's end.
std::vector<int64_t> clippedViewSizes(const Function& f, const Op& view,
                                      std::span<const int64_t> ivs);

// The parameters of a bound function: how many of its arguments have type index.
size_t indexArgCount(const Function& f);

} // namespace pto
