// The default vec tiles of expand-tiles, chosen per fused chain rather than per op: vector ops
// without a vec_tile directive or override that pass tiles to each other on chip get one
// tile grid, so no value of a chain detours through GM between two of its ops.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"

#include <optional>
#include <vector>

namespace pto {

// The default vec tile of every op of the Tensor function `tensor` (indexed by op id) that is
// tiled on the vector core and has no tile of its own (no directive in scope, no per-op
// vec_tile); nullopt for every other op. The tile is over the op's iteration space (the
// result; a reduction's operand). docs/PASSES.md ("Tile shapes") states the rule.
std::vector<std::optional<Shape>> planDefaultVecTiles(const Function& tensor,
                                                      const TargetInfo& target);

} // namespace pto
