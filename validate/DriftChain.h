// The accumulation drift a value can carry from the reductions it derives from: the K its
// comparisons use once its inputs have drifted (docs/VALIDATE.md, "Drift through a chain").
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/TensorData.h"
#include "validate/Tolerance.h"

#include <cstdint>
#include <span>
#include <vector>

namespace pto {

// Per value of `fn`: the relative drift the value may carry, in units of the f32 unit roundoff
// u = 2^-24, written as the K of the accumulation rule (K·u on rtol, K·u·rms(g) on atol). An op
// that sums (Tolerance.h's accumulationLength > 1: matmul, reduce_sum, softmax, norms; not
// reduce_max/min, which are the same in any order) adds its own K to the largest of its
// operands' (first-order propagation: the relative errors of a chain add up, an elementwise op
// passes its inputs' on); a cast of a drifted value to f16 or bf16 may round the other way, so
// it carries at least one ulp of that type (2^14 resp. 2^17 u). Arguments carry 0, and so do
// integer and bool values (a count, an index or a mask is exact or wrong, never drifted). A
// loop's iter_args go through its body once per iteration (what it accumulates into them grows
// with the trip count); a call's results take the largest of its operands' (the callee is not
// visible here).
// With `values` (the reference values of `fn`, by ValueId), an op whose result is far more
// sensitive to its input than the input is to rounding passes on an amplified drift: exp turns
// a relative error e of x into a relative error |x|·e of its result, so the K it passes on is
// the operand's times max(1, max |x|) (and likewise sigmoid, silu, gelu and softmax, by their
// condition numbers: amplification()); without them no op amplifies.
std::vector<int64_t> propagatedAccumulation(const Function& fn,
                                            std::span<const TensorData> values = {});

// Whether an operand of the op producing `v` carries drift (`chain` from the function above).
bool inputsMayDrift(const Function& fn, ValueId v, const std::vector<int64_t>& chain);

// The class and K value `v` of `fn` is judged by when its inputs have drifted: its producer's
// own (Tolerance.h) widened to the drift it inherits — the Accumulation class with K = chain[v]
// when that exceeds its own K, and a float rounded to an integer (cast) may be one step off (the
// Composite rule for integers). Without a producer: Elementwise, K = 1.
std::pair<ToleranceClass, int64_t> driftedTolerance(const Function& fn, ValueId v,
                                                    const std::vector<int64_t>& chain);

} // namespace pto
