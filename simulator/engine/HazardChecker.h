// The overlapping-live-buffer check: two instructions of one core on different pipes that
// touch the same on-chip bytes at overlapping times, at least one writing — a RAW, WAR or WAW
// hazard the program's flags and barriers did not order. Raises OverlapFault.
#pragma once

// Cheap by construction: at most one instruction per pipe is in flight, so each core keeps one
// entry per pipe (the running instruction's on-chip regions, computed from its operands when it
// starts) and a mask of the pipes holding one. When an instruction starts it is compared with the
// other pipes' entries — first by the spaces they read and write (one AND), then region by region
// (exact for strided rows). A correctly synchronised program never has a conflicting pair in
// flight: the consumer of a buffer starts only after the SET_FLAG that follows its producer.
//
// The fault names both instructions with the cycles they ran, so it is raised once both
// durations are known: at once when both are fixed-time, else when the GM transfer among them
// completes (its end depends on the bandwidth it gets). A pair whose times only touch (one
// ends at the cycle the other starts) is no hazard. Works without data (timing-only mode).
//
// It also checks program order (checkOrder): an instruction that starts while one listed before
// it on another pipe, touching the same bytes, has not started yet ran out of order — unless a
// WAIT_FLAG from the starting pipe holds that earlier one back (heldBack), which orders the two
// whatever the listing says.

#include "compiler/ir/Pto.h"
#include "compiler/ir/PtoRegion.h"
#include "simulator/engine/TimedProgram.h"
#include "simulator/numerics/SimFault.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pto::sim {

/// One of the two instructions of an overlap.
struct HazardAccess {
    Pipe pipe = Pipe::S;
    int64_t instrIndex = -1; ///< index in its kernel's program order
    Opcode opcode = Opcode::TLoad;
    OpId tileOp = kNoId;
    SourceLoc loc;
    Region region; ///< the bytes it touches that the other one also touches
    int64_t start = 0;
    int64_t end = 0;
};

class OverlapFault : public SimFault {
public:
    /// `first` started no later than `second`. With `outOfOrder`, `second` comes first in
    /// program order but had not started when `first` did (its start and end are -1).
    OverlapFault(CoreType coreType, int core, int64_t kernel, HazardAccess first,
                 HazardAccess second, int64_t cycle, const std::string& sourceFile,
                 bool outOfOrder = false);

    const HazardAccess& first() const { return m_first; }
    const HazardAccess& second() const { return m_second; }

private:
    HazardAccess m_first;
    HazardAccess m_second;
};

class HazardChecker {
public:
    /// Core slots: AIC 0..aicCount−1, then AIV.
    HazardChecker(int aicCount, int cores, std::string sourceFile);

    /// Instruction `ti` of `kernel` (PtoProgram::kernels[kernelIndex]) starts on core `slot` at
    /// `now`; `end` is its completion cycle or −1 when not known yet (GM transfers). Throws
    /// OverlapFault when it conflicts with a fixed-time instruction in flight on another pipe.
    void start(int slot, const TimedKernel& kernel, const Kernel& source, uint32_t kernelIndex,
               const TimedInstr& ti, int64_t now, int64_t end);
    /// The instruction running on (slot, pipe) completes at `now`. Throws OverlapFault when
    /// a conflict it was part of is now known to overlap in time.
    void finish(int slot, Pipe pipe, int64_t now);
    /// Instruction `ti` starts on core `slot` at `now` while `queued[q]` is the first
    /// instruction of pipe q's queue (an index into kernel.instrs) not started yet. Throws
    /// OverlapFault when one of those that comes earlier in program order touches the same
    /// on-chip bytes, one of the two writing: `ti` runs before it, against the program (a
    /// consumer whose producer has not even started overlaps it in no cycle). Looks at most
    /// kOrderLookahead queued instructions per pipe.
    static constexpr uint32_t kOrderLookahead = 16;
    /// Raises the out-of-program-order fault: `ti` (touching `mine`) started at `now` before
    /// `earlier` (touching `theirs`), which comes first in the program, had started — or, with
    /// `earlierStart` ≥ 0 (a GM transfer running since then), had completed.
    [[noreturn]] void raiseOrder(int slot, const Kernel& source, uint32_t kernelIndex,
                                 const TimedInstr& ti, const Region& mine,
                                 const TimedInstr& earlier, const Region& theirs, int64_t now,
                                 int64_t earlierStart = -1) const;
    /// `flags` is the core's flag counters: an earlier instruction that a WAIT_FLAG from ti's
    /// pipe holds back is no fault (heldBack).
    void checkOrder(int slot, const TimedKernel& kernel, const Kernel& source, uint32_t kernelIndex,
                    const TimedInstr& ti, const std::array<uint32_t, kPipeCount>& queued,
                    std::span<const int32_t> flags, int64_t now) const;
    /// Whether pipe `p`'s queued instructions [from, at) hold a WAIT_FLAG from `pipe` that the
    /// flag's pending sets (`flags`, less those earlier waits of the queue use) do not cover:
    /// then instruction `at` starts after a SET_FLAG that `pipe` has yet to run, so after what
    /// `pipe` runs now — ordered, even when the listing writes it first (a listing may put a
    /// consumer's wait above its producer; pipes follow only their own queues and flags).
    static bool heldBack(const TimedKernel& kernel, uint32_t from, uint32_t at, Pipe pipe,
                         std::span<const int32_t> flags);

private:
    /// A running instruction with a copy of its regions (compared often, so kept close).
    struct InFlight {
        const Kernel* source = nullptr;
        const TimedInstr* instr = nullptr;
        uint32_t kernelIndex = 0;
        int64_t start = 0;
        int64_t end = -1;
        uint8_t regionCount = 0; ///< copies of the instruction's fields (no pointer chase)
        uint8_t readSpaces = 0;
        uint8_t writeSpaces = 0;
        std::array<Region, 4> regions{};
    };
    struct Conflict {
        int slot = 0;
        InFlight first, second;
        Region firstRegion, secondRegion;
    };

    void compare(int slot, const InFlight& running, const InFlight& starting);
    void resolve(size_t index);
    [[noreturn]] void raise(const Conflict& c, int64_t cycle) const;
    InFlight& entry(int slot, Pipe pipe) {
        return m_inFlight[static_cast<size_t>(slot) * kPipeCount + static_cast<size_t>(pipe)];
    }

    int m_aicCount;
    std::string m_sourceFile;
    std::vector<InFlight> m_inFlight; ///< slot * kPipeCount + pipe
    std::vector<uint32_t> m_active;   ///< per slot: pipes with an entry
    std::vector<Conflict> m_pending;  ///< conflicts waiting for a GM transfer's end
};

} // namespace pto::sim
