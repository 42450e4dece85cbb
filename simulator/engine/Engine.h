// The discrete-event timing engine: cores whose pipes run their instruction queues in order,
// flags and barriers between pipes, GM transfers through the shared-bandwidth server, and the
// device scheduler that dispatches ready tasks to idle cores.
#pragma once

// The model (docs/SIMULATOR.md has the full text)
// ---------
// Time advances from event to event (EventQueue), never cycle by cycle. A core runs one task
// at a time; the task's kernel is split into one in-order queue per pipe (TimedKernel::instrs).
// A pipe starts its next instruction when the previous one has finished and, for WAIT_FLAG,
// when the flag counter of (core, src, dst, event) is positive (it then decrements it), for
// BARRIER when every earlier instruction of the awaited pipe has completed. SET_FLAG
// increments its counter when it completes. Pipes are otherwise independent. An instruction
// takes its precomputed duration, except a GM transfer: the L2 model (L2Cache) splits its bytes
// into hits and misses when it starts; after its latency (l2.latency when all bytes hit, else
// hbm.latency, less the share dma.latency_overlap of the time since the pipe's previous GM
// transfer began streaming, unless the pipe blocked on a flag or barrier since) the misses and
// writes stream through the HBM BandwidthServer and the hits through the L2 one, at rates that
// change as other transfers start and end; it completes when both parts are done. With
// SimOptions::checkHazards every instruction that starts is checked against the other pipes'
// running ones (HazardChecker, OverlapFault). When an instruction completes it is handed to the
// InstrSink (the functional executor), so the numbers see exactly the order the timing produced. A
// task ends when all its pipes have drained; then its successors whose dependencies are all done
// become ready, and the scheduler dispatches ready tasks (lowest task id first) to idle cores of
// their type (lowest index first); a dispatched task starts sched.dispatch_cost later. If the queue
// runs dry with tasks left, the program is deadlocked: DeadlockFault.
//
// Fused clusters: the tasks of one cluster become ready together (when the last of them is)
// and are dispatched together, before any ordinary task, to the lowest hardware cluster c whose
// AIC c and AIVs 2c, 2c+1 are idle. CROSS_SET_FLAG, when it completes, sends one signal to the
// peer core's counter for (sender role, flag id); the signal arrives sync.cross_core_latency
// later. CROSS_WAIT_FLAG blocks its pipe while that counter is zero, then consumes the oldest
// signal and lasts its startup, or until the signal arrives if it is still on its way. A 17th
// pending signal is a fault (the counters hold 16).

#include "simulator/arch/ArchConfig.h"
#include "simulator/engine/BandwidthServer.h"
#include "simulator/engine/BufferOccupancy.h"
#include "simulator/engine/CostModel.h"
#include "simulator/engine/Deadlock.h"
#include "simulator/engine/EventQueue.h"
#include "simulator/engine/HazardChecker.h"
#include "simulator/engine/InstrSink.h"
#include "simulator/engine/L2Cache.h"
#include "simulator/engine/SimOptions.h"
#include "simulator/engine/SimResult.h"
#include "simulator/engine/TimedProgram.h"
#include "simulator/engine/TraceEmitter.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <vector>

namespace pto::sim {

class Engine {
public:
    /// `sink` (functional execution) and `trace` may be null. Everything passed must outlive
    /// the engine.
    Engine(const TimedProgram& program, const ArchConfig& arch, const CostModel& costs,
           const SimOptions& options, InstrSink* sink, TraceEmitter* trace);

    /// Runs the whole task graph. Throws SimFault (a fault of the functional executor, with
    /// the cycle added), OverlapFault, DeadlockFault or SimLimitExceeded.
    SimResult run();

private:
    enum class PipeStatus : uint8_t { Drained, Busy, WaitFlag, WaitBarrier, WaitCross };

    /// Signals a core received for one (sender role, flag id): their arrival times, oldest
    /// first (a ring of kCrossPending).
    static constexpr int kCrossPending = 16;
    struct CrossCounter {
        uint8_t count = 0;
        uint8_t head = 0;
        std::array<int64_t, kCrossPending> arrive{};
        std::array<int64_t, kCrossPending> sentAt{}; ///< when the sender's set completed
    };

    /// A cluster core's completed GM transfer of workspace bytes (the cross-core race check).
    struct HandOff {
        int64_t lo = 0, hi = 0; ///< GM bytes [lo, hi) (bounding range)
        int64_t end = 0;        ///< completion cycle
        uint32_t index = 0;     ///< instruction index in its kernel
        int slot = 0;           ///< core slot
        int32_t cluster = -1;   ///< the cluster run it belongs to (its core may have moved on)
        ClusterRole role = ClusterRole::Aic;
        bool write = false;
    };

    struct PipeState {
        const TimedInstr* instrs = nullptr; ///< kernel->instrs.data() (one load fewer per use)
        uint32_t pos = 0;                   ///< head of the queue, index into kernel->instrs
        uint32_t end = 0;
        uint32_t completed = 0; ///< instructions completed in this task
        PipeStatus status = PipeStatus::Drained;
        int64_t readyAt = 0;               ///< when the head could have started (for wait slices)
        int64_t startedAt = 0;             ///< when the running instruction started
        double hbmBytes = 0;               ///< GM transfer: bytes served by HBM (misses, writes)
        double l2Bytes = 0;                ///< GM transfer: bytes served by L2 (hits)
        std::array<double, 2> throttled{}; ///< GM transfer: cycles lost per server
        uint8_t parts = 0;                 ///< GM transfer: server parts still streaming
        int64_t streamAt = 0;              ///< GM transfer: when its bytes began to stream
        int64_t prevStreamAt = -1;         ///< stream start of the pipe's last GM transfer, if the
                                           ///< pipe has not blocked since (-1: none or blocked)
    };

    struct CoreState {
        CoreType type = CoreType::AIV;
        int index = 0;
        int32_t task = -1; ///< task index dispatched or running, -1 = idle
        const TimedKernel* kernel = nullptr;
        const Kernel* source = nullptr;
        std::span<const GmRebase> rebases; ///< the running task's (TimedTask::rebases)
        int64_t transferShift = 0;         ///< the running task's (TimedTask::transferShift)
        int live = 0;                      ///< pipes not yet drained
        uint32_t waiting = 0;              ///< bit per pipe blocked on a flag or barrier
        int64_t dispatchedAt = 0;
        int64_t startedAt = 0;
        std::array<PipeState, kPipeCount> pipes{};
        std::array<int32_t, kFlagSlots> flags{};
        int32_t cluster = -1; ///< cluster (TimedProgram::clusters) of the running task, -1 = none
        ClusterRole role = ClusterRole::Aic;
        const KernelOccupancy* occupancy = nullptr; ///< trace level full only
        std::array<int64_t, kOccupancySpaces> occupied{};
    };

    /// Lowest value first: ready tasks as (task id << 32 | task index), idle cores as slots.
    using MinHeap = std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>>;

    // Scheduler
    void dispatchReady();
    /// Full trace: the ready-task counts per core type at m_now.
    void traceReady();
    void makeReady(uint32_t task);
    bool dispatchCluster();
    void dropEndedHandOffs(int hw);
    int freeCluster(const TimedCluster& cluster) const;
    void dispatchTo(int slot, uint32_t task);
    int clusterSlot(int hwCluster, ClusterRole role) const;
    void startTask(int slot);
    void finishTask(int slot);
    // Pipes
    void startNext(int slot, Pipe pipe);
    void checkOrder(int slot, const TimedInstr& ti) const;
    void beginStream(int slot, Pipe pipe);
    void completeInstr(int slot, Pipe pipe);
    void wakeWaiters(int slot, bool flagChanged, Pipe finishedPipe);
    bool startCrossWait(int slot, Pipe pipe, const TimedInstr& ti);
    bool inWorkspace(const Region& gm) const;
    void checkHandOff(int slot, const TimedInstr& ti, const Region& gm);
    void recordHandOff(int slot, const TimedInstr& ti, const Region& gm);
    [[noreturn]] void throwRace(int slot, const TimedInstr& ti, const Region& gm,
                                const HandOff& other);
    void sendCross(int slot, const TimedInstr& ti, int64_t setSlice);
    CrossCounter& crossCounter(int slot, int counter) {
        return m_cross[static_cast<size_t>(slot) * kCrossSlots + static_cast<size_t>(counter)];
    }
    void lookupL2(PipeState& ps, const GmTransfer& transfer, const Region& gm);
    void joinServers(int slot, Pipe pipe, PipeState& ps, double cap);
    void bandwidthDone(int server);
    void applyOccupancy(int slot, std::span<const OccupancyDelta> deltas);
    void scheduleBandwidth(int server);
    // Reporting
    void checkLeftoverFlags(int slot);
    void checkLeftoverCross(int slot);
    void warnAt(const CoreState& core, std::string message);
    void blockedOnCross(int slot, const TimedInstr& ti, BlockedPipe& b,
                        const std::vector<int>& entryOf) const;
    void traceDependencies();
    [[noreturn]] void throwDeadlock();
    [[noreturn]] void throwLimit(const Event& e) const;
    std::string limitCause(const Event& e) const;
    uint32_t taskId(const CoreState& core) const { return m_program.tasks()[core.task].id; }

    const TimedProgram& m_program;
    const CostModel& m_costs;
    const SimOptions& m_options;
    InstrSink* m_sink;
    TraceEmitter* m_trace;
    int m_aicCount;
    int m_hwClusters; ///< AIC c with AIVs 2c, 2c+1, for c < min(AICs, AIVs / 2)
    int64_t m_dispatchCost;
    int64_t m_crossLatency;
    int64_t m_bound; ///< the last cycle simulated: maxCycles, never past kCyclesCeiling - 1

    EventQueue m_queue;
    std::array<BandwidthServer, 2> m_servers;                         // kHbm, kL2
    std::array<std::vector<BandwidthServer::Finished>, 2> m_finished; // collect()'s, per server
    L2Cache m_l2;
    HazardChecker m_hazards;
    std::optional<BufferOccupancy> m_occupancy; // trace level full only
    int64_t m_now = 0;
    std::vector<CoreState> m_cores;
    std::vector<uint32_t> m_pendingPreds;
    std::array<MinHeap, 3> m_ready;    // per CoreType
    std::array<MinHeap, 3> m_idle;     // per CoreType (may hold cores a cluster took: see m_isIdle)
    std::vector<char> m_isIdle;        // per core slot
    MinHeap m_readyClusters;           // (first task id << 32 | cluster index)
    std::vector<int> m_clusterWaiting; // per cluster: members not yet ready
    std::vector<CrossCounter> m_cross; // core slot * kCrossSlots + crossSlot (clusters only)
    std::vector<std::vector<HandOff>> m_handOffs; // per hardware cluster (checkHazards)
    /// Per core slot: the latest set completion, per sending role, of a signal it consumed.
    std::vector<std::array<int64_t, kClusterRoles>> m_syncedTo;
    // GM byte ranges of workspaces, sorted, overlapping ones joined (inWorkspace searches them)
    std::vector<std::pair<int64_t, int64_t>> m_workspaces;
    std::vector<int64_t> m_taskSlices; // trace slice per task, 0 = none
    size_t m_tasksDone = 0;
    SimResult m_result;
};

} // namespace pto::sim
