// The functional hook of the timing engine: whoever wants to see each instruction at the
// moment it completes (the functional executor; tests that record the order).
#pragma once

#include "compiler/ir/Pto.h"

#include <span>

namespace pto::sim {

/// Called once per instruction, when it completes, in simulated-time order (ties in event
/// order, which is deterministic). `instr` is the instruction inside the simulated
/// PtoProgram, so its address identifies it; `rebases` are the running task's GM rebases
/// (Task::rebases: the instruction's GM operands as the task runs them are
/// rebasedInstr(instr, rebases)). Exceptions propagate out of the simulation; a SimFault gets the
/// cycle added.
class InstrSink {
public:
    virtual ~InstrSink() = default;
    virtual void execute(int coreId, CoreType core, const Instr& instr,
                         std::span<const GmRebase> rebases) = 0;
};

} // namespace pto::sim
