// Fused cube-vector clusters in the engine: dispatching a cluster run onto one AIC and its two
// AIVs, cross-core flags between them, and the race check on their GM workspaces.
#include "simulator/engine/Engine.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::sim {

// --- Dispatch ----------------------------------------------------------------------------------

int Engine::clusterSlot(int hwCluster, ClusterRole role) const {
    if (role == ClusterRole::Aic) return hwCluster;
    return m_aicCount + 2 * hwCluster + (role == ClusterRole::Aiv1 ? 1 : 0);
}

// The lowest hardware cluster whose cores for the cluster's roles are all idle, or -1.
int Engine::freeCluster(const TimedCluster& cluster) const {
    for (int c = 0; c < m_hwClusters; ++c) {
        bool free = true;
        for (int r = 0; r < kClusterRoles && free; ++r)
            free = cluster.members[r] < 0 || m_isIdle[clusterSlot(c, ClusterRole(r))];
        if (free) return c;
    }
    return -1;
}

// Starts the first ready cluster on free cores; false when none is free for it.
bool Engine::dispatchCluster() {
    const auto index = static_cast<uint32_t>(m_readyClusters.top() & 0xffffffffu);
    const TimedCluster& cluster = m_program.clusters()[index];
    const int hw = freeCluster(cluster);
    if (hw < 0) return false;
    m_readyClusters.pop();
    dropEndedHandOffs(hw);
    for (int r = 0; r < kClusterRoles; ++r) {
        if (cluster.members[r] < 0) continue;
        const int slot = clusterSlot(hw, ClusterRole(r));
        std::fill_n(&crossCounter(slot, 0), kCrossSlots, CrossCounter{});
        m_syncedTo[static_cast<size_t>(slot)].fill(-1);
        if (m_trace && m_trace->wantsFull()) m_trace->resetCrossFlags(slot);
        dispatchTo(slot, static_cast<uint32_t>(cluster.members[r]));
    }
    return true;
}

// Forgets the hand-offs of cluster runs none of this hardware cluster's cores still runs. A
// cluster may use only some roles, so another run can hold the rest of the cores meanwhile: its
// records (an AIV's early read, its AIC's write still to come) stay.
void Engine::dropEndedHandOffs(int hw) {
    std::array<int32_t, kClusterRoles> running{};
    for (int r = 0; r < kClusterRoles; ++r) {
        const int slot = clusterSlot(hw, ClusterRole(r));
        running[static_cast<size_t>(r)] = m_isIdle[slot] ? -1 : m_cores[slot].cluster;
    }
    std::erase_if(m_handOffs[static_cast<size_t>(hw)], [&](const HandOff& h) {
        return std::ranges::find(running, h.cluster) == running.end();
    });
}

// --- Cross-core flags ------------------------------------------------------------------------

// A CROSS_WAIT_FLAG at the head of `pipe`: false (the pipe blocks) while no signal is pending;
// else consumes the oldest and schedules the wait's end (its startup, or the signal's arrival).
bool Engine::startCrossWait(int slot, Pipe pipe, const TimedInstr& ti) {
    CoreState& core = m_cores[slot];
    PipeState& ps = core.pipes[static_cast<int>(pipe)];
    CrossCounter& counter = crossCounter(slot, ti.flag);
    if (counter.count == 0) {
        ps.prevStreamAt = -1;
        ps.status = PipeStatus::WaitCross;
        core.waiting |= 1u << static_cast<uint32_t>(pipe);
        return false;
    }
    const int64_t arrive = counter.arrive[counter.head];
    int64_t& synced = m_syncedTo[static_cast<size_t>(slot)][ti.flag / kCrossFlagIds];
    synced = std::max(synced, counter.sentAt[counter.head]);
    counter.head = static_cast<uint8_t>((counter.head + 1) % kCrossPending);
    --counter.count;
    const int64_t end = std::max(m_now + ti.cycles, arrive);
    if (m_trace && m_trace->wantsFull() && m_now > ps.readyAt) {
        const Instr& in = core.source->instrs[ti.index];
        m_trace->crossFlagWait(slot, pipe, in.peer, in.event, core.kernel->traceId(ti.index),
                               taskId(core), ps.readyAt, m_now);
    }
    const uint32_t target = static_cast<uint32_t>(slot) * kPipeCount + static_cast<uint32_t>(pipe);
    m_queue.push(end, EventKind::PipeDone, target);
    return true;
}

// A completed CROSS_SET_FLAG: one signal to the peer core's counter for (this role, flag id),
// arriving sync.cross_core_latency from now; wakes the peer's pipe blocked on it.
void Engine::sendCross(int slot, const TimedInstr& ti, int64_t setSlice) {
    const CoreState& core = m_cores[slot];
    const ClusterRole peer = static_cast<ClusterRole>(ti.flag / kCrossFlagIds);
    const int id = ti.flag % kCrossFlagIds;
    const int hw = core.type == CoreType::AIC ? core.index : core.index / 2;
    const int to = clusterSlot(hw, peer);
    CoreState& target = m_cores[to];
    const int counterIndex = crossSlot(core.role, id);
    if (target.cluster != core.cluster || target.task < 0 ||
        m_program.tasks()[static_cast<size_t>(target.task)].role != peer) {
        warnAt(core, fmt::format("task {} sent CROSS_SET_FLAG {} #{} to {} {}, whose task of the "
                                 "cluster has ended",
                                 taskId(core), clusterRoleName(peer), id,
                                 coreDisplayName(target.type), target.index));
        return;
    }
    CrossCounter& counter = crossCounter(to, counterIndex);
    if (counter.count == kCrossPending) {
        FaultSite site;
        site.coreType = core.type;
        site.core = core.index;
        site.cycle = m_now;
        site.kernel = m_program.tasks()[core.task].kernel;
        site.instrIndex = ti.index;
        site.opcode = Opcode::CrossSetFlag;
        site.pipe = ti.pipe;
        site.tileOp = core.source->instrs[ti.index].tileOp;
        site.loc = core.source->instrs[ti.index].loc;
        throw SimFault(FaultKind::BadInstruction, site,
                       fmt::format("cross-core flag {} of {} {} already has {} signals pending "
                                   "(the counter holds {})",
                                   id, coreDisplayName(target.type), target.index, kCrossPending,
                                   kCrossPending));
    }
    counter.arrive[(counter.head + counter.count) % kCrossPending] = m_now + m_crossLatency;
    counter.sentAt[(counter.head + counter.count) % kCrossPending] = m_now;
    ++counter.count;
    if (m_trace && m_trace->wantsFull()) m_trace->crossFlagSet(to, counterIndex, setSlice);
    for (uint32_t p = 0; p < kPipeCount; ++p) {
        if (!(target.waiting & (1u << p))) continue;
        const PipeState& other = target.pipes[p];
        if (other.status == PipeStatus::WaitCross && other.instrs[other.pos].flag == counterIndex)
            startNext(to, static_cast<Pipe>(p));
    }
}

// --- Cross-core races on workspaces ---------------------------------------------------------
// A cluster core's GM transfer of workspace bytes that another core of the cluster wrote (or,
// for a write, read or wrote) is ordered only if that access completed before a cross-core
// signal from that core which this core has consumed (checked when the transfer starts and when
// it completes, so two transfers in flight together are caught by the later one). Otherwise a
// cross-core wait is missing:
// the data handed off may not be there yet, or may be overwritten before it was read.

bool Engine::inWorkspace(const Region& gm) const {
    // The first range ending after gm.lo is the only one that can overlap first (sorted,
    // disjoint ranges): a binary search per transfer, not a scan of every workspace.
    auto it = std::upper_bound(m_workspaces.begin(), m_workspaces.end(), gm.lo,
                               [](int64_t lo, const auto& r) { return lo < r.second; });
    return it != m_workspaces.end() && it->first < gm.hi;
}

void Engine::checkHandOff(int slot, const TimedInstr& ti, const Region& gm) {
    const CoreState& core = m_cores[slot];
    const int hw = core.type == CoreType::AIC ? core.index : core.index / 2;
    const auto& synced = m_syncedTo[static_cast<size_t>(slot)];
    for (const HandOff& h : m_handOffs[static_cast<size_t>(hw)]) {
        if (h.slot == slot || !(h.write || gm.write) || h.hi <= gm.lo || gm.hi <= h.lo) continue;
        // Not the peer core's current state: its task may have ended (a read of a slot its AIC
        // has not written yet, the AIV done before the write) or moved on to another cluster.
        if (h.cluster != core.cluster) continue;
        if (h.end > synced[static_cast<int>(h.role)]) throwRace(slot, ti, gm, h);
    }
}

void Engine::recordHandOff(int slot, const TimedInstr& ti, const Region& gm) {
    const CoreState& core = m_cores[slot];
    const int hw = core.type == CoreType::AIC ? core.index : core.index / 2;
    auto& list = m_handOffs[static_cast<size_t>(hw)];
    const HandOff h{gm.lo, gm.hi, m_now, ti.index, slot, core.cluster, core.role, gm.write};
    for (HandOff& old : list)
        if (old.slot == slot && old.lo == h.lo && old.hi == h.hi && old.write == h.write) {
            old = h;
            return;
        }
    list.push_back(h);
}

void Engine::throwRace(int slot, const TimedInstr& ti, const Region& gm, const HandOff& other) {
    const CoreState& core = m_cores[slot];
    const CoreState& peer = m_cores[other.slot];
    const Instr& in = core.source->instrs[ti.index];
    FaultSite site;
    site.coreType = core.type;
    site.core = core.index;
    site.pipe = ti.pipe;
    site.cycle = m_now;
    site.kernel = m_program.tasks()[core.task].kernel;
    site.instrIndex = ti.index;
    site.opcode = in.opcode;
    site.tileOp = in.tileOp;
    site.loc = in.loc;
    const int64_t synced = m_syncedTo[static_cast<size_t>(slot)][static_cast<int>(other.role)];
    throw SimFault(
        FaultKind::Overlap, site,
        fmt::format("cross-core race on workspace GM [0x{:x}, 0x{:x}): {} {} {} it at cycle {}, "
                    "but {} {} ({} of cluster {}) {} it (instr {}, done at cycle {}) after the "
                    "last cross-core signal {} {} consumed from it ({}); a CROSS_WAIT_FLAG is "
                    "missing",
                    std::max(gm.lo, other.lo), std::min(gm.hi, other.hi),
                    pipeLabel(core.type, core.index, ti.pipe), opcodeName(in.opcode),
                    gm.write ? "writes" : "reads", m_now, coreDisplayName(peer.type), peer.index,
                    clusterRoleName(other.role), m_program.clusters()[core.cluster].id,
                    other.write ? "wrote" : "read", other.index, other.end,
                    coreDisplayName(core.type), core.index,
                    synced < 0 ? std::string("none") : fmt::format("sent at cycle {}", synced)));
}

// --- Reporting ---------------------------------------------------------------------------------

void Engine::checkLeftoverCross(int slot) {
    const CoreState& core = m_cores[slot];
    for (int c = 0; c < kCrossSlots; ++c) {
        const CrossCounter& counter = crossCounter(slot, c);
        if (counter.count == 0) continue;
        warnAt(core,
               fmt::format("task {} ended with {} CROSS_SET_FLAG #{} from {} never waited for",
                           taskId(core), counter.count, c % kCrossFlagIds,
                           clusterRoleName(static_cast<ClusterRole>(c / kCrossFlagIds))));
    }
}

// A pipe blocked on CROSS_WAIT_FLAG: what it waits for, naming the peer core, and which
// blocked pipe of the peer holds the next CROSS_SET_FLAG of the flag for it.
void Engine::blockedOnCross(int slot, const TimedInstr& ti, BlockedPipe& b,
                            const std::vector<int>& entryOf) const {
    const CoreState& core = m_cores[slot];
    const ClusterRole peer = static_cast<ClusterRole>(ti.flag / kCrossFlagIds);
    const int id = ti.flag % kCrossFlagIds;
    const int hw = core.type == CoreType::AIC ? core.index : core.index / 2;
    const int from = clusterSlot(hw, peer);
    const CoreState& other = m_cores[from];
    const std::string peerName =
        fmt::format("{} {} ({} of cluster {})", coreDisplayName(other.type), other.index,
                    clusterRoleName(peer), m_program.clusters()[core.cluster].id);
    b.waitsFor = fmt::format("cross-core flag {} from {}", id, peerName);
    const bool peerRuns = other.kernel && other.cluster == core.cluster;
    const int wanted = crossSlot(core.role, id); // the peer's CROSS_SET_FLAG for this core
    for (uint32_t p = 0; peerRuns && p < kPipeCount && b.releasedBy < 0; ++p) {
        const PipeState& ps = other.pipes[p];
        for (uint32_t pos = ps.pos; pos < ps.end; ++pos) {
            const TimedInstr& t = other.kernel->instrs[pos];
            if (t.kind == InstrKind::CrossSet && t.flag == wanted) {
                b.releasedBy = entryOf[static_cast<size_t>(from) * kPipeCount + p];
                break;
            }
        }
    }
    if (b.releasedBy < 0)
        b.unreleased = fmt::format(": {} {} no CROSS_SET_FLAG {} {} left for it (missing "
                                   "cross-core set)",
                                   peerName, peerRuns ? "has" : "has ended with",
                                   clusterRoleName(core.role), id);
}

} // namespace pto::sim
