// expand-tiles: lowers a Tensor function to the Tile level by unrolling every op over its tile
// grid (vec_tile / cube_tile directives and per-op overrides, or the defaults), with the data
// movement the tiling implies: tload/tstore between GM and tiles, the L1 → L0 hierarchy of
// matmul (tload into L1, tmove sub-tiles, matmul/matmul_acc), GM workspaces where a value
// cannot stay on chip, and gm_tensor outputs for the function results.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace pto {

// Tensor-level reads served from the value's GM home even when its producer computed the tile
// on chip: (Tensor value, Tensor op reading it) → its split group. Readers of one group share
// these loads; readers of different groups never do (a load shared across the levels of a stack
// of residual layers would join them on chip again). CubeRoundTrips.h says when.
using GmReads = std::map<std::pair<ValueId, OpId>, uint32_t>;

// Tensor → Tile. The result is a fresh function: arguments and gm_tensor results are GM,
// every tile has space None (assign-memory places them), origin = the Tensor value it covers
// and offset = its corner there. Every op copies parent = the id of the Tensor op it comes
// from and that op's loc. Throws CompileError (file:line:col, op and value named, the numbers)
// for tile shapes that break a buffer capacity or alignment rule and for unsupported cases.
Function expandTiles(const Function& tensor, const TargetInfo& target, const std::string& file,
                     const GmReads& gmReads = {});

} // namespace pto
