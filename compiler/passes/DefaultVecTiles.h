// The default vec tiles of expand-tiles, chosen per fused chain rather than per op: vector ops
// without a vec_tile directive or override that pass tiles to each other on chip get one
// tile grid, so no value of a chain detours through GM between two of its ops.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"

#include <optional>
#include <vector>

namespace pto {

/// Default tile size of a vec tile and of a GM copy tile; default vec tiles assume f32 elements
/// so that every op of a chain shares one grid.
inline constexpr int64_t kDefaultTileBytes = 16 * 1024;
inline constexpr int64_t kDefaultElemBytes = 4;

/// The default vec tile of one op over its iteration space `space`: the whole space when it
/// fits a quarter of UB, else 16 KiB of f32 in rows of the last dim (leading dims 1).
Shape defaultOpVecTile(const Shape& space, const TargetInfo& target);

/// The default cube tile [mL0, mL1, kL0, kL1, nL0, nL1] of an m×n matmul of `a` × `b` operands:
/// the wide one (128×256 output blocks, one 128 KiB f32 accumulator, kL1 = 256) loads 96 B per
/// cube cycle instead of the 128 B of a 128×128 block, so it is taken when its blocks still give
/// every AIC at least two (the last wave's imbalance stays small); else the narrow 128×128 one.
/// 4-byte operands halve k so L1 and L0B still double-buffer.
const std::vector<int64_t>& defaultCubeTile(int64_t m, int64_t n, DType a, DType b,
                                            const TargetInfo& target);

/// GM copy tiles: the whole last dim when it fits 16 KiB, rows along the second-last dim only,
/// so every copy tile is consecutive rows of any tensor sharing the last two dims.
Shape defaultCopyTile(const Shape& shape, DType dtype);

// The default vec tile of every op of the Tensor function `tensor` (indexed by op id) that is
// tiled on the vector core and has no tile of its own (no directive in scope, no per-op
// vec_tile); nullopt for every other op. The tile is over the op's iteration space (the
// result; a reduction's operand). docs/PASSES.md ("Tile shapes") states the rule.
std::vector<std::optional<Shape>> planDefaultVecTiles(const Function& tensor,
                                                      const TargetInfo& target);

} // namespace pto
