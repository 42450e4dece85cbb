// expand-tiles without cube round trips: a vector tile chain may not both feed a cube op and
// read its result back (the cube and vector cores hand data over only between tasks, so the
// two tasks would wait on each other). Where the tile grids alone would make such a chain
// (flash attention written without vec_tile directives: its scores, statistics and output
// accumulator share one grid), the values the chain hands from before the cube to after it go
// through GM instead, which splits it in two.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"
#include "compiler/passes/ExpandTiles.h"
#include "compiler/passes/PartitionBlocks.h"

#include <string>

namespace pto {

// The reads that split the vector chains of `cycles` (mixedGmCycles of the Tile function `tile`,
// after assign-memory): each closing read (PartitionBlocks.h) — a vector op reading on chip an
// operand from before a cube it comes after, a shared load included — becomes a GM read of
// that operand's Tensor value by the op's Tensor op, in the split group of its cycle and level
// (groups numbered from `firstGroup`). Empty when no read can be mapped back.
GmReads cubeRoundTripReads(const Function& tile, const std::vector<std::vector<TileChain>>& cycles,
                           uint32_t firstGroup = 0);

// Whether vector ops that are linked (through vector-op operands, or a value both read) feed
// a matmul and read what it made, directly or through further matmuls and vector ops (the
// residual add of `x → exp → matmul → matmul → add x`): only then can a vector chain make a
// round trip through the cube, and expandTilesAvoidingCubeRoundTrips needs to look.
bool mayRoundTripThroughCube(const Function& tensor);

// expand-tiles, then — when the tiled program would put a vector chain on both sides of a cube
// op — expand-tiles again with the GM reads that split it (up to a few rounds; what is left is
// partition-blocks' error as before). The check runs assign-memory and tile-dead-code on a copy
// (insert-copies leaves expand-tiles' output as it is) and partition-blocks' component analysis
// on the result; programs without such a chain are expanded once and lowered as before.
Function expandTilesAvoidingCubeRoundTrips(const Function& tensor, const TargetInfo& target,
                                           const std::string& file);

} // namespace pto
