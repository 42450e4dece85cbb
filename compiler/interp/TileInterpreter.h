// The reference interpreter of the Tile level: evaluates a Tile-level function (the fully
// unrolled tile graph) on real data, so every Tile pass can be checked against the Tensor level.
#pragma once

// Model. GM values (function arguments and `gm_tensor` results) are byte arrays that live for
// the whole run: arguments start as the inputs, gm_tensors (outputs and workspaces) start
// zeroed, and `tstore` writes into them in program order. Every other value is an SSA tile
// computed once by its op:
// - tload %g {offset}: the tile-shaped region of GM tensor %g at `offset` (rank of %g). A tile
//   of the same rank as %g is the box at `offset`; a 2-D tile of a rank-N tensor spans
//   contiguous rows of %g viewed as rows × cols (leading dims folded), starting at the row of
//   offset[0..N-2] and the column offset[N-1].
// - tmove %s {offset = [i, j]}: the sub-tile of %s at [i, j] (the same rule, %s as container).
// - tstore %t, %g {offset}: writes %t into that region of %g; an f32 (L0C) tile stored into a
//   narrower GM tensor is rounded RNE, as the FIX pipe does.
// - matmul: f32 accumulation over k in order (the Tensor-level kernel); matmul_acc %c, %a, %b
//   computes the k-tile's partial product from 0, then adds it to %c elementwise in f32.
// - every vector op (elementwise, scalar, unary, cast, cmp, where, reduce, transpose,
//   broadcast, fill) has its Tensor-level semantics on the 2-D tiles, where row ([r×1]),
//   column ([1×c]) and scalar ([1×1]) broadcasts are NumPy broadcasting.
// Memory spaces, buffer addresses and the op order among independent ops do not affect the
// values, so the interpreter runs after every Tile pass, including before assign-memory
// (space None). Directives are ignored.
//
// Bad IR (a tload from a non-GM value, a region outside its tensor, mismatched matmul_acc
// shapes...) raises CompileError naming the op, the values and the numbers.

#include "compiler/interp/TensorInterpreter.h"

namespace pto {

// keepValues: EvalResult::values[v] is the tile computed for v (for GM values: their final
// contents), for numerical bisection.
EvalResult evaluateTile(const Function& tile, std::span<const TensorData> inputs,
                        bool keepValues = false);

} // namespace pto
