// Tile → Block: partitions the Tile function into block functions, one core type each.
#pragma once

#include "compiler/ir/Block.h"

namespace pto {

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
// components at the same depth of the GM dependency graph are packed together. Blocks are
// ordered by that depth, then by first op, and named <function>_<aic|aiv>_<n>; the items of
// each block are its ops, component by component, in program order. GM declarations belong
// to no block. Throws CompileError for ops that cannot run on a core (Tensor-only kinds,
// unassigned spaces) and for a component that mixes AIC and AIV work.
BlockProgram partitionBlocks(Function tile, const PartitionOptions& opts);

} // namespace pto
