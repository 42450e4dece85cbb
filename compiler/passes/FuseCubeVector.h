// Block level: fused cube–vector clusters. A producer–consumer chain inside a loop whose cube
// and vector ops alternate through GM workspaces (QKᵀ → softmax → PV → rescale per query block)
// becomes one cluster: one AIC block with the cube work and two AIV blocks with the vector work
// (rows split between them), started together on an AIC and its two AIVs. The hand-offs move
// into small per-cluster ping-pong workspaces (depth 2), and each kernel is ordered as a
// software pipeline (the cube's QK of iteration j+1 before its PV of iteration j), so the cube
// and the vector cores overlap. insert-cross-flags then synchronises the hand-offs with
// CROSS_SET_FLAG / CROSS_WAIT_FLAG; build-exec-graph drops the dependencies inside a cluster.
// The rule, the workspaces and the order are in docs/PASSES.md (fuse-cube-vector).
#pragma once

#include "compiler/ir/Block.h"

#include <cstdint>

namespace pto {

struct FusionStats {
    uint32_t clusters = 0;
    uint32_t workspaces = 0; // ping-pong workspaces created
};

// Runs after order-instructions (it re-orders the blocks it builds) and before
// allocate-buffers. Tile ops keep their ids (provenance); the workspaces it creates are new
// gm_tensor ops at the end of the Tile function, the ones it empties are marked `retired`.
// Fewer clusters than half of `aicCores` leave the program unfused: a cluster ties an AIC and
// two AIVs to one query block, while the unfused tasks spread over every core (one head at
// S = 1024, decode attention).
FusionStats fuseCubeVector(BlockProgram& program, int aicCores);

} // namespace pto
