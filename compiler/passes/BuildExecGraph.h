// Block → Exec: the task graph, one task per block function, dependencies from GM regions.
#pragma once

#include "compiler/ir/Block.h"
#include "compiler/ir/Exec.h"

namespace pto {

// Task i runs block function i on a core of its type. There is an edge X → Y for every pair of
// tasks with overlapping GM accesses, at least one of them a write, X's access first in program
// order: RAW (X writes, Y reads), WAW, WAR. One edge per task pair (kind RAW over WAW over WAR);
// TaskDep::tensor is the index of the GM tensor in gmLayoutOrder(). Regions are indexed per
// tensor in a grid of tile-sized cells, so the cost grows with the number of overlapping pairs,
// not with tasks². Throws CompileError if two tasks depend on each other (a cycle).
ExecGraph buildExecGraph(const BlockProgram& program);

// The same graph without the cycle check (partition-blocks merges the tasks of a cycle).
ExecGraph gmDependencyGraph(const BlockProgram& program);

} // namespace pto
