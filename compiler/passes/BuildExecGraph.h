// Block → Exec: the task graph, one task per block function, dependencies from GM regions.
#pragma once

#include "compiler/ir/Block.h"
#include "compiler/ir/Exec.h"

#include <cstdint>

namespace pto {

// Which GM dependencies a graph holds. Ordering (the exec graph): those that order the tasks —
// per GM region, an access follows the writes since the last write covering it (that one
// included), and a write the reads since then too: the transitive reduction of the RAW/WAW/WAR
// chains, so the graph grows with the accesses (n iterations storing one GM tile: n - 1
// dependencies, not n²/2), while every pair of conflicting accesses stays ordered through a path.
// EveryPair: an edge for every pair of tasks with conflicting accesses (fuse-cube-vector groups
// the components that exchange data directly).
enum class GmDeps : uint8_t { Ordering, EveryPair };

// Task i runs block function i on a core of its type. Edges X → Y come from pairs of
// overlapping GM accesses of different tasks, at least one of them a write, X's access first in
// program order: RAW (X writes, Y reads), WAW, WAR. One edge per task pair (kind RAW over WAW
// over WAR); TaskDep::tensor is the index of the GM tensor in gmLayoutOrder(). Regions are
// indexed per tensor in a grid of tile-sized cells, so the cost grows with the pairs examined,
// not with tasks². Throws CompileError if two tasks depend on each other (a cycle).
ExecGraph buildExecGraph(const BlockProgram& program, GmDeps mode = GmDeps::Ordering);

// The same graph without the cycle check (partition-blocks merges the tasks of a cycle: the
// reduction keeps the cycles, the depths and what reaches what).
ExecGraph gmDependencyGraph(const BlockProgram& program, GmDeps mode = GmDeps::Ordering);

} // namespace pto
