// Tile → Block: partitions the Tile function into block functions, one core type each.
#pragma once

#include "compiler/ir/Block.h"

#include <cstdint>
#include <optional>
#include <string>

namespace pto {

// Packing by iteration ranges for a loop whose windows (compiler/passes/LoopWindow.h) differ by
// multiples of `period` iterations: `trips` iterations of loop `loopName` are unrolled in this
// compile. Not used by the pipeline yet: with it the cube tasks of a matmul loop grow linearly,
// but their kernels' counted loops need 8-iteration rounds (docs/ARCHITECTURE.md, "Loop
// windows"), so the windows still do not extrapolate.
struct IterationPacking {
    std::string loopName;
    int64_t trips = 0;
    int64_t period = 8;
};

struct PartitionOptions {
    int aicCores = 24;
    int aivCores = 48;
    int tilesPerTask = 0; /* 0 = auto */
};

// Components of on-chip dataflow (tile ops linked through non-GM values) each run on one core
// type. Components with the same signature (op kinds, tile shapes and dtypes in order) form an
// isomorphic group; a group's components are packed in program order into block functions,
// `tilesPerTask` consecutive ones each (auto: spread evenly over the cores of the type). Two
// components that depend on each other through GM, directly or not, never share a block: only
// components at the same depth of the GM dependency graph are packed together. Components on a
// cycle of GM dependencies (a value leaves one chain through GM and a result computed from it
// comes back, e.g. ops with different vec_tiles) are merged into one component first, whose
// ops run in program order (order-instructions); a cycle between AIC and AIV work stays an error.
// Blocks are ordered by that depth, then by first op, and named <function>_<aic|aiv>_<n>; the items
// of each block are its ops, component by component, in program order. GM declarations belong to no
// block. With `iterations` (and auto packing), a bucket made of one component per lane and
// iteration of that loop (lane: the component's position within its iteration, e.g. the head)
// is packed by iteration instead: each lane gets up to `period` blocks (as many as the cores
// allow), and each block a contiguous range of iterations whose length is linear in the trip
// count — so compiles whose trip counts differ by whole periods give the same tasks, each
// running a longer range, which is what loop windows extrapolate. Throws CompileError for ops that
// cannot run on a core (Tensor-only kinds, unassigned spaces) and for a component that mixes AIC
// and AIV work.
BlockProgram partitionBlocks(Function tile, const PartitionOptions& opts,
                             const std::optional<IterationPacking>& iterations = std::nullopt);

// One on-chip dataflow component of a Tile function: its core type and its ops.
struct TileChain {
    CoreType core = CoreType::AIV;
    std::vector<OpId> ops;
};

// The components on a cycle of GM dependencies that mixes AIC and AIV work — the cycle
// partition-blocks rejects (one-core cycles it merges) — or nothing. `tile` as partition-blocks
// takes it (after assign-memory); it is given back unchanged.
std::vector<TileChain> mixedGmCycle(Function& tile);

// A quick filter for mixedGmCycle on expand-tiles' output (no spaces assigned yet): false when
// no cycle of read-after-write GM dependencies between its on-chip components mixes cube and
// vector work (regions and order aside; write-after-read is left out, so a rare cycle through
// one may pass unseen and partition-blocks reports it as before).
bool mayHaveMixedGmCycle(const Function& tile);

} // namespace pto
