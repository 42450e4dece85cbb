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
// ops run in program order (order-instructions); a cycle between AIC and AIV work stays an error,
// reported at the vector op whose on-chip read closes it (closingReads below).
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

// The cycles of GM dependencies that mix AIC and AIV work — the cycles partition-blocks rejects
// (one-core cycles it merges) — each as its components, or nothing. `tile` as partition-blocks
// takes it (after assign-memory); it is given back unchanged.
std::vector<std::vector<TileChain>> mixedGmCycles(Function& tile);

// An on-chip read that closes a mixed cycle. Every op of the cycle has a level: the most times
// data reaching it came back from the cycle's cube chains to the vector cores (through GM,
// directly or through other chains). The vector op `reader` reads `operand` on chip from a
// lower level — a shared load, or an op before a cube that the reader comes after — so one
// vector task would both feed the cube task and wait for it. Reading the operand from GM
// instead splits the cycle there.
struct ClosingRead {
    OpId reader = kNoId;
    ValueId operand = kNoId;
    int level = 0; // the reader's
};

// The closing reads of `cycle` (one of mixedGmCycles), in program order of their readers.
std::vector<ClosingRead> closingReads(const Function& tile, const std::vector<TileChain>& cycle);

// A quick filter for mixedGmCycles on expand-tiles' output (no spaces assigned yet): false when
// no cycle of read-after-write GM dependencies between its on-chip components mixes cube and
// vector work (regions and order aside; write-after-read is left out, so a rare cycle through
// one may pass unseen and partition-blocks reports it as before).
bool mayHaveMixedGmCycle(const Function& tile);

} // namespace pto
