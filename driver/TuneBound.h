// The analytic lower bound `pto tune` prunes with: no simulation of a compiled program can take
// fewer cycles than this.
#pragma once

#include "compiler/ir/Pto.h"
#include "simulator/arch/ArchConfig.h"

#include <cstdint>

namespace pto {

/// max(the longest task, each core type's work spread evenly over its cores), where a task
/// takes at least its busiest pipe's work: compute and on-chip moves at the cost model's
/// cycles, GM transfers at their bytes over the path's uncontended rate (no latency, no
/// contention), flag and barrier instructions at nothing. Every term is something the engine
/// can only make longer (pipes run in order, a core runs one task at a time, a shared
/// bandwidth share never exceeds the path's rate), so the bound holds for every run.
/// Throws SimFault for a program the simulator would refuse.
int64_t cycleLowerBound(const PtoProgram& program, const sim::ArchConfig& arch);

} // namespace pto
