// The fault thrown when the simulated program can make no more progress: every blocked pipe
// with the wait it is stuck on, and the cycle of waits when there is one.
#pragma once

#include "compiler/ir/Pto.h"
#include "simulator/numerics/SimFault.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pto::sim {

/// One pipe that can never continue.
struct BlockedPipe {
    CoreType coreType = CoreType::None;
    int core = -1; ///< index within the core type
    Pipe pipe = Pipe::S;
    int64_t kernel = -1;
    int64_t instrIndex = -1; ///< the instruction it waits to start (index in its kernel)
    Opcode opcode = Opcode::WaitFlag;
    int64_t since = 0;    ///< cycle the wait began
    std::string waitsFor; ///< "flag MTE2->V#0", "barrier on MTE2"
    OpId tileOp = kNoId;
    SourceLoc loc;
    /// Index (in the blocked list) of the pipe that would release this one: the pipe holding
    /// the next SET_FLAG of the flag, or the awaited pipe of a barrier; -1 when nothing could.
    int releasedBy = -1;
    /// Why nothing releases it, when the engine knows better than the generic text (a
    /// cross-core wait names the peer core); starts with ": ".
    std::string unreleased;
};

class DeadlockFault : public SimFault {
public:
    /// Builds the message from the blocked pipes (the first is the fault's site), the cycle
    /// the run stopped at and the number of tasks that never started.
    DeadlockFault(std::vector<BlockedPipe> blocked, int64_t cycle, size_t tasksNotStarted,
                  const std::string& sourceFile);

    const std::vector<BlockedPipe>& blocked() const { return m_blocked; }
    /// Indices into blocked() forming a cycle of waits (empty when there is none).
    const std::vector<int>& waitCycle() const { return m_cycle; }

private:
    std::vector<BlockedPipe> m_blocked;
    std::vector<int> m_cycle;
};

/// "AIV 3 pipe V" — how faults and traces name a core's pipe.
std::string pipeLabel(CoreType coreType, int core, Pipe pipe);

} // namespace pto::sim
