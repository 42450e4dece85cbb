// The GM hand-offs inside a fused cluster: which earlier access of the cluster's own workspace
// traffic each GM access of the cluster conflicts with (shared by fuse-cube-vector, which orders
// a cluster's kernels, and insert-cross-flags, which turns the conflicts into flags).
#pragma once

#include "compiler/ir/Block.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace pto {

// One GM access (tload, tstore, gather) of a block of a cluster.
struct ClusterAccess {
    OpId op = kNoId;
    uint32_t block = 0; // index into BlockProgram::blocks
    GmRegion region;
};

// The GM accesses of `blocks` (indices into program.blocks) in program order (op id: the order
// of the program as written, iteration by iteration), restricted to the GM tensors one of them
// writes (reads of inputs never conflict).
std::vector<ClusterAccess> clusterAccesses(const BlockProgram& program,
                                           const std::vector<uint32_t>& blocks);

// Walks `accesses` (in program order) and calls visit(later, earlier) for each earlier access
// that `later` must follow: the last write of the bytes it touches (RAW, WAW) and, for a write,
// the reads of those bytes since that write (WAR). Bytes are tracked in a grid of cells of the
// smallest access extent per tensor; a pair may be visited more than once.
void forEachGmConflict(
    const std::vector<ClusterAccess>& accesses,
    const std::function<void(const ClusterAccess& later, const ClusterAccess& earlier)>& visit);

} // namespace pto
