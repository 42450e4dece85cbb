// The static synchronisation check of PTO kernels: proves that every two instructions of a
// kernel on different pipes that touch overlapping on-chip bytes, one of them writing (RAW, WAR,
// WAW), are ordered by the kernel's SET_FLAG/WAIT_FLAG pairs and barriers.
#pragma once

// The model is the simulator's (simulator/engine/Engine.cpp): each pipe runs its instructions
// one at a time in program order; a SET_FLAG src->dst #e counts up when it completes and the
// n-th WAIT_FLAG of (src, dst, e) starts after the n-th SET_FLAG of it completed (flags are
// counters, zero when a task starts); a BARRIER awaiting pipe Q starts after every earlier Q
// instruction (in program order) completed. Counted loops run round by round as the simulator
// expands them. Cross-core flags order nothing inside a kernel here: what a round trip through
// a peer core would order is not proven, so it counts as unordered.
//
// The check runs the kernel abstractly, always the earliest instruction (in program order) that
// the flags let start, keeping per pipe a vector clock (how many instructions of each pipe are
// known to have completed before its next one starts). Every on-chip region touched is an entry
// holding, per pipe, the last instruction that read it and the last that wrote it; an access is
// compared with the entries whose bytes meet its own (found once, when a region is first seen), so
// the cost is near-linear in executed instructions. A pipe instruction is ordered before a later
// access when the access's clock counts it; the last one of a pipe suffices, since a pipe is in
// order. Hazards on GM are not checked (the simulator checks on-chip bytes only).

#include "compiler/ir/Pto.h"
#include "compiler/ir/PtoRegion.h"

#include <cstdint>
#include <optional>
#include <string>

namespace pto {

/// One executed instruction of a problem.
struct SyncAccess {
    uint32_t instrIndex = 0; ///< index in Kernel::instrs (the listing as written)
    int32_t loop = -1;       ///< index in Kernel::loops, -1 outside counted loops
    int64_t round = 0;       ///< loop round (0 outside loops)
    Opcode opcode = Opcode::TAdd;
    Pipe pipe = Pipe::S;
    OpId tileOp = kNoId;
    SourceLoc loc;
    Region region; ///< the operand footprint involved (space None for a stuck sync)
};

struct SyncProblem {
    enum class Kind : uint8_t {
        Unordered, ///< first and second touch shared bytes with no order between them
        Stuck,     ///< first is a WAIT_FLAG or BARRIER that can never start (a deadlock)
    };
    Kind kind = Kind::Unordered;
    uint32_t kernel = 0;
    SyncAccess first;    ///< earlier in program order
    SyncAccess second;   ///< Unordered only
    std::string message; ///< the problem in words, naming the kernel and both instructions
};

/// The first unordered pair (or stuck sync) of kernel `index` of `p`; nullopt when proven.
/// `file` names the source in the message's line positions.
std::optional<SyncProblem> checkKernelSync(const PtoProgram& p, uint32_t index,
                                           const std::string& file = {});

/// The first problem of any kernel, kernels in order.
std::optional<SyncProblem> checkPtoSync(const PtoProgram& p, const std::string& file = {});

/// "RAW", "WAR" or "WAW" for an unordered pair (first in program order).
std::string_view hazardKindName(const SyncProblem& problem);

} // namespace pto
