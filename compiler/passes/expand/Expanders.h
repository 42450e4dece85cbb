// One expander per Tensor op class: each emits the Tile ops of one Tensor op (docs/PASSES.md,
// expand-tiles). Dispatch is expandOp in ExpandTiles.cpp.
#pragma once

#include "compiler/passes/expand/Compute.h"

namespace pto::expand {

// Elementwise, scalar, unary, cast, cmp, where, broadcast and fill (Elementwise.cpp).
void expandElementwise(Ctx& c, const Op& op);
// reduce_sum / reduce_max / reduce_min over any axis (Reduce.cpp).
void expandReduce(Ctx& c, const Op& op);
// transpose: a tile transpose of the last two dims, or a permuting GM copy (Transpose.cpp).
void expandTranspose(Ctx& c, const Op& op);
// view, reshape and concat: offset arithmetic or GM copies (Layout.cpp).
void expandView(Ctx& c, const Op& op);
void expandReshape(Ctx& c, const Op& op);
void expandConcat(Ctx& c, const Op& op);
// gather: row gathers of a GM tensor by index tiles (Gather.cpp).
void expandGather(Ctx& c, const Op& op);
// topk along the last axis, whole rows per tile (TopK.cpp).
void expandTopK(Ctx& c, const Op& op);
// The tile grid of a gather's result or a scatter's source idx.shape + [D]: runs of consecutive
// indices by column blocks (Gather.cpp).
Shape indexRowsTile(const Shape& shape, DType dtype);
// scatter_add: the base copied into the result, then row scatters with atomic add (ScatterAdd.cpp).
void expandScatterAdd(Ctx& c, const Op& op);
// cumsum along one of the last two axes (CumSum.cpp).
void expandCumSum(Ctx& c, const Op& op);
// matmul on the cube core (Matmul.cpp).
void expandMatmul(Ctx& c, const Op& op);

} // namespace pto::expand
