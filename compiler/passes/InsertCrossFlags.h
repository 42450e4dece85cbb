// Block level: cross-core flags of fused clusters. For every GM hand-off between two cores of
// a cluster (a write read by a peer, or a ping-pong slot a peer must have read before it is
// written again) the producing core sets a flag after its access and the consuming core waits
// for it before its own: CROSS_SET_FLAG / CROSS_WAIT_FLAG on the pipes of the two accesses.
#pragma once

#include "compiler/ir/Block.h"

namespace pto {

// Runs after insert-sync (the flags sit between the items it ordered) and before
// build-exec-graph. One flag id per (sending core, receiving core) of a cluster; a counter
// carries the hand-offs in order: the k-th wait of a core matches the k-th set of its peer.
// Blocks outside clusters are untouched.
void insertCrossFlags(BlockProgram& program);

} // namespace pto
