// A PtoProgram prepared for the timing engine: every instruction checked once and reduced to
// a small record (its kind, pipe, duration or transfer, flag slot), per-pipe instruction
// queues per kernel, and the task graph with successor lists. Built before the run, so the
// event loop does no lookups, allocations or cost arithmetic per instruction.
#pragma once

#include "compiler/ir/Pto.h"
#include "compiler/ir/PtoLoops.h"
#include "compiler/ir/PtoRegion.h"
#include "compiler/ir/Target.h"
#include "simulator/arch/ArchConfig.h"
#include "simulator/engine/BigArray.h"
#include "simulator/engine/CostModel.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pto::sim {

inline constexpr int kEventIds = 8; ///< flag event ids 0..7
/// Flags of a core: one counter per (src pipe, dst pipe, event id).
inline constexpr int kFlagSlots = kPipeCount * kPipeCount * kEventIds;

constexpr int flagSlot(Pipe src, Pipe dst, int event) {
    return (static_cast<int>(src) * kPipeCount + static_cast<int>(dst)) * kEventIds + event;
}

/// Cross-core flags a core receives: one counter per (sending role, flag id).
inline constexpr int kCrossSlots = kClusterRoles * kCrossFlagIds;
constexpr int crossSlot(ClusterRole from, int id) {
    return static_cast<int>(from) * kCrossFlagIds + id;
}

enum class InstrKind : uint8_t {
    Fixed,     ///< compute or on-chip move: a precomputed duration
    SetFlag,   ///< increments its flag when it completes
    WaitFlag,  ///< starts when its flag is positive, decrements it
    Barrier,   ///< starts when every earlier instruction of the awaited pipe has completed
    GmDma,     ///< a GM transfer: latency, then the shared-bandwidth server
    CrossSet,  ///< signals flag `flag` of the peer core when it completes
    CrossWait, ///< starts when the peer has signalled flag `flag`, consumes one signal
};

struct TimedInstr {
    int64_t cycles = 0; ///< duration (GmDma: uncontended, for reference)
    uint32_t index = 0; ///< position in the kernel's program order (Kernel::instrs)
    uint32_t aux = 0;   ///< Barrier: earlier instrs of the awaited pipe; GmDma: transfer index
    uint16_t flag = 0;  ///< SetFlag / WaitFlag: flagSlot(); CrossSet / CrossWait:
                        ///< crossSlot(peer, id)
    InstrKind kind = InstrKind::Fixed;
    Pipe pipe = Pipe::S;
    Pipe awaited = Pipe::S;  ///< Barrier
    uint8_t regionCount = 0; ///< on-chip operands it reads or writes (the hazard check
                             ///< computes their regions from the instruction when it starts)
    uint8_t readSpaces = 0;  ///< bit per MemSpace it reads on chip
    uint8_t writeSpaces = 0; ///< bit per MemSpace it writes on chip
};
static_assert(sizeof(TimedInstr) == 24, "one record per instruction: keep it small");

struct GmTransfer {
    GmTransferCost cost;
    Region gm; ///< the GM bytes it reads (TLOAD) or writes (TSTORE), for the L2 lookup
    DmaPath path = DmaPath::GmToUb;
    bool gather = false; ///< MGATHER/MSCATTER: data-dependent rows, looked up as L2 misses
                         ///< (reads) or written through (docs/SIMULATOR.md)
};

struct TimedKernel {
    CoreType core = CoreType::AIV;
    int64_t firstInstrId = 1; ///< trace instr id of instruction 0 (1 + running index)
    /// The instructions grouped by pipe, program order within a pipe: pipe p's queue is
    /// instrs[pipeBegin[p], pipeBegin[p + 1]). (A part of the program's one array.)
    std::span<const TimedInstr> instrs;
    std::array<uint32_t, kPipeCount + 1> pipeBegin{};
    std::array<int64_t, kDmaPathCount> bytes{}; ///< bytes moved per path by one run
    uint32_t firstTransfer = 0; ///< its GmTransfer records: [firstTransfer, endTransfer)
    uint32_t endTransfer = 0;
    /// A kernel with counted loops runs expanded (compiler/ir/PtoLoops.h): per executed
    /// instruction its compact index and loop round; null when the kernel has no loops.
    const ExpandedKernelMap* expansion = nullptr;
    const Kernel* compact = nullptr; ///< the kernel as written (with its loops)

    /// The trace's instr id of executed instruction `index` (the compact instruction's id).
    int64_t traceId(uint32_t index) const {
        return firstInstrId + (expansion ? expansion->compactIndex[index] : index);
    }
    /// "kv, iter 7" ("tiles, round 2 of 3": loopSliceLabel) for an executed instruction of a
    /// counted loop, "" for the others.
    std::string loopLabel(uint32_t index) const {
        if (!expansion || expansion->loop[index] < 0) return {};
        const InstrLoop& loop = compact->loops[size_t(expansion->loop[index])];
        return loopSliceLabel(loop, expansion->round[index],
                              expansion->compactIndex[index] - loop.begin);
    }
};

struct TimedTask {
    uint32_t id = 0;     ///< Task::id
    uint32_t kernel = 0; ///< index into kernels
    CoreType core = CoreType::AIV;
    uint32_t predecessors = 0;        ///< dependency count
    std::vector<uint32_t> successors; ///< task indices
    int32_t cluster = -1;             ///< index into TimedProgram::clusters(), -1 = none
    ClusterRole role = ClusterRole::Aic;
    /// The task's GM rebases (Task::rebases of the source program): its kernel's GM regions as
    /// it runs them are rebasedRegion(region, rebases). The kernel's records are shared.
    std::span<const GmRebase> rebases;
    /// Added to a GmDma's TimedInstr::aux for this task: non-zero when a rebase moves a
    /// transfer to another GM alignment (mem.gm_align), which changes its efficiency; the task
    /// then has its own copy of the kernel's GmTransfer records, with costs of its addresses.
    int64_t transferShift = 0;
};

/// `r`, a GM region of a kernel, as a task with `rebases` accesses it (the verifier and
/// TimedProgram's checks make sure a region lies inside one rebase or none).
Region rebasedRegion(const Region& r, std::span<const GmRebase> rebases);

/// A fused cluster: its tasks (indices, -1 for a role it does not use) start together on one
/// AIC and its two AIVs.
struct TimedCluster {
    uint32_t id = 0; ///< Task::cluster
    std::array<int32_t, kClusterRoles> members{-1, -1, -1};
    uint32_t firstTaskId = UINT32_MAX; ///< dispatch order among ready clusters
    int memberCount() const {
        return static_cast<int>(
            std::count_if(members.begin(), members.end(), [](int32_t m) { return m >= 0; }));
    }
};

class TimedProgram {
public:
    /// Checks the program against the chip (pipes and spaces of each core type, DMA paths,
    /// flag ids, operand bounds, the task graph) and precomputes everything. Throws SimFault
    /// (BadInstruction, OutOfBounds) naming the kernel, instruction and provenance.
    /// With `loops`, `program` is loops->flat and instruction ids follow `compact`, the
    /// program as written.
    TimedProgram(const PtoProgram& program, const ArchConfig& arch, const CostModel& costs,
                 const PtoProgram* compact = nullptr, const LoopExpansion* loops = nullptr);

    const PtoProgram& source() const { return *m_source; }
    const std::vector<TimedKernel>& kernels() const { return m_kernels; }
    std::span<const GmTransfer> gmTransfers() const { return m_transfers.span(); }
    const std::vector<TimedTask>& tasks() const { return m_tasks; }
    const std::vector<TimedCluster>& clusters() const { return m_clusters; }
    int64_t instructionCount() const { return m_instructionCount; }

private:
    void buildKernel(uint32_t index, const CostModel& costs);
    void buildTasks(const ArchConfig& arch, const CostModel& costs);
    int64_t rebasedTransfers(const Task& task, const CostModel& costs);
    void buildClusters(const ArchConfig& arch);
    void checkCrossPeers(const TimedCluster& cluster) const;
    void checkRebasedBounds(const Task& task, uint32_t kernel) const;

    const PtoProgram* m_source;
    TargetInfo m_target;
    int64_t m_gmBytes = 0;
    std::vector<TimedKernel> m_kernels;
    BigArray<TimedInstr> m_instrs; ///< every kernel's records (TimedKernel::instrs)
    BigArray<GmTransfer> m_transfers;
    std::vector<TimedTask> m_tasks;
    std::vector<TimedCluster> m_clusters;
    int64_t m_instructionCount = 0;
    std::vector<TimedInstr> m_scratch; // buildKernel's records in program order
};

} // namespace pto::sim
