// The discrete-event loop: task dispatch, per-pipe instruction issue, flags, barriers, GM
// transfers through the bandwidth server, and completion (see Engine.h for the model).
#include "simulator/engine/Engine.h"

#include "simulator/engine/Deadlock.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::sim {
namespace {

constexpr uint32_t kPipes = kPipeCount;
constexpr uint32_t kPrefetchAhead = 8; // TimedInstr records fetched ahead per pipe
constexpr uint32_t kTransferAhead = 4; // GmTransfer records fetched this many instrs ahead

int typeIndex(CoreType t) {
    return static_cast<int>(t);
}

uint64_t readyKey(uint32_t taskId, uint32_t index) {
    return (static_cast<uint64_t>(taskId) << 32) | index;
}

// The two bandwidth servers; a BandwidthDone event's target is (generation << 1 | server).
constexpr int kHbm = 0;
constexpr int kL2 = 1;

uint32_t serverTag(uint32_t generation, int server) {
    return ((generation << 1) | static_cast<uint32_t>(server)) & Event::kTargetMask;
}

// Sorts half-open byte ranges and joins those that overlap (not those that only touch, so a
// point strictly inside the union is strictly inside one of the ranges it came from).
void mergeRanges(std::vector<std::pair<int64_t, int64_t>>& ranges) {
    std::sort(ranges.begin(), ranges.end());
    size_t kept = 0;
    for (const auto& r : ranges) {
        if (kept > 0 && r.first < ranges[kept - 1].second)
            ranges[kept - 1].second = std::max(ranges[kept - 1].second, r.second);
        else
            ranges[kept++] = r;
    }
    ranges.resize(kept);
}

} // namespace

Engine::Engine(const TimedProgram& program, const ArchConfig& arch, const CostModel& costs,
               const SimOptions& options, InstrSink* sink, TraceEmitter* trace)
    : m_program(program), m_costs(costs), m_options(options), m_sink(sink), m_trace(trace),
      m_aicCount(static_cast<int>(arch.count(Param::AicCount))),
      m_hwClusters(
          static_cast<int>(std::min(arch.count(Param::AicCount), arch.count(Param::AivCount) / 2))),
      m_dispatchCost(toCycles(arch.cycles(Param::SchedDispatchCost))),
      m_crossLatency(toCycles(arch.cycles(Param::SyncCrossCoreLatency))),
      m_bound(std::min(options.maxCycles, kCyclesCeiling - 1)),
      m_servers{BandwidthServer(costs.hbmBandwidth()), BandwidthServer(costs.l2Bandwidth())},
      m_l2(program.source().gmBytes(), arch.bytes(Param::L2Size), arch.bytes(Param::L2LineSize)),
      m_hazards(m_aicCount, m_aicCount + static_cast<int>(arch.count(Param::AivCount)),
                options.sourceFile) {
    const int aiv = static_cast<int>(arch.count(Param::AivCount));
    m_cores.resize(static_cast<size_t>(m_aicCount + aiv));
    m_isIdle.assign(m_cores.size(), 1);
    for (int slot = 0; slot < static_cast<int>(m_cores.size()); ++slot) {
        CoreState& core = m_cores[slot];
        core.type = slot < m_aicCount ? CoreType::AIC : CoreType::AIV;
        core.index = slot < m_aicCount ? slot : slot - m_aicCount;
        m_idle[typeIndex(core.type)].push(static_cast<uint64_t>(slot));
        CoreStats stats;
        stats.type = core.type;
        stats.core = core.index;
        m_result.cores.push_back(stats);
    }
    if (m_trace && m_trace->wantsFull()) m_occupancy.emplace(program.source());
    const auto& tasks = program.tasks();
    m_pendingPreds.resize(tasks.size());
    m_taskSlices.assign(tasks.size(), 0);
    m_result.tasks.resize(tasks.size());
    const auto& clusters = program.clusters();
    m_clusterWaiting.resize(clusters.size());
    for (size_t c = 0; c < clusters.size(); ++c) m_clusterWaiting[c] = clusters[c].memberCount();
    if (!clusters.empty()) {
        m_cross.resize(m_cores.size() * kCrossSlots);
        m_handOffs.resize(static_cast<size_t>(std::max(m_hwClusters, 0)));
        m_syncedTo.resize(m_cores.size());
        for (const GmTensor& t : program.source().gm)
            if (t.role == GmRole::Workspace && t.bytes() > 0)
                m_workspaces.emplace_back(t.addr, t.addr + t.bytes());
        mergeRanges(m_workspaces);
    }
    for (uint32_t i = 0; i < tasks.size(); ++i) {
        m_pendingPreds[i] = tasks[i].predecessors;
        m_result.tasks[i].task = tasks[i].id;
        if (tasks[i].predecessors == 0) makeReady(i);
    }
}

SimResult Engine::run() {
    dispatchReady();
    while (!m_queue.empty()) {
        const Event e = m_queue.pop();
        const uint32_t target = e.target();
        if (e.time > m_bound) { // unless a stale completion, foreseen before the rates changed
            if (e.kind() != EventKind::BandwidthDone ||
                target == serverTag(m_servers[target & 1u].generation(), target & 1))
                throwLimit(e);
            continue;
        }
        m_now = e.time;
        ++m_result.events;
        switch (e.kind()) {
        case EventKind::PipeDone:
            completeInstr(static_cast<int>(target / kPipes), static_cast<Pipe>(target % kPipes));
            break;
        case EventKind::DmaStream:
            beginStream(static_cast<int>(target / kPipes), static_cast<Pipe>(target % kPipes));
            break;
        case EventKind::BandwidthDone: {
            // A stale event (older generation) would find nothing done; skip it early.
            const int server = static_cast<int>(target & 1u);
            if (target == serverTag(m_servers[server].generation(), server)) bandwidthDone(server);
            break;
        }
        case EventKind::TaskStart:
            startTask(static_cast<int>(target));
            break;
        }
    }
    if (m_tasksDone < m_program.tasks().size()) throwDeadlock();
    m_result.totalCycles = Cycles(m_now);
    m_result.memory.l2Evictions = m_l2.evictions();
    m_result.memory.l2Granule = m_l2.granule();
    if (m_trace) traceDependencies();
    return std::move(m_result);
}

// --- Scheduler -------------------------------------------------------------------------------

// A task whose dependencies are done: ready on its own, or its cluster is when it is the last.
void Engine::makeReady(uint32_t task) {
    const TimedTask& t = m_program.tasks()[task];
    if (t.cluster < 0) {
        m_ready[typeIndex(t.core)].push(readyKey(t.id, task));
        traceReady();
        return;
    }
    if (--m_clusterWaiting[static_cast<size_t>(t.cluster)] == 0)
        m_readyClusters.push(
            readyKey(m_program.clusters()[static_cast<size_t>(t.cluster)].firstTaskId,
                     static_cast<uint32_t>(t.cluster)));
}

void Engine::dispatchReady() {
    while (!m_readyClusters.empty() && dispatchCluster()) {
    }
    for (CoreType type : {CoreType::AIC, CoreType::AIV}) {
        MinHeap& ready = m_ready[typeIndex(type)];
        MinHeap& idle = m_idle[typeIndex(type)];
        while (!ready.empty() && !idle.empty()) {
            const auto slot = static_cast<int>(idle.top());
            idle.pop();
            if (!m_isIdle[slot]) continue; // taken by a cluster since it was queued
            const auto task = static_cast<uint32_t>(ready.top() & 0xffffffffu);
            ready.pop();
            dispatchTo(slot, task);
        }
    }
    traceReady();
}

void Engine::traceReady() {
    if (!m_trace || !m_trace->wantsFull()) return;
    for (CoreType type : {CoreType::AIC, CoreType::AIV})
        m_trace->readyTasks(type == CoreType::AIC, m_now, m_ready[typeIndex(type)].size());
}

void Engine::dispatchTo(int slot, uint32_t task) {
    CoreState& core = m_cores[slot];
    m_isIdle[slot] = 0;
    core.task = static_cast<int32_t>(task);
    core.dispatchedAt = m_now;
    core.cluster = m_program.tasks()[task].cluster;
    core.role = m_program.tasks()[task].role;
    m_queue.push(m_now + m_dispatchCost, EventKind::TaskStart, static_cast<uint32_t>(slot));
}

void Engine::startTask(int slot) {
    CoreState& core = m_cores[slot];
    const TimedTask& task = m_program.tasks()[core.task];
    core.kernel = &m_program.kernels()[task.kernel];
    core.source = &m_program.source().kernels[task.kernel];
    core.rebases = task.rebases;
    core.transferShift = task.transferShift;
    core.startedAt = m_now;
    core.flags.fill(0);
    core.live = 0;
    core.waiting = 0;
    if (m_occupancy) core.occupancy = &m_occupancy->kernel(task.kernel);
    for (uint32_t p = 0; p < kPipes; ++p) {
        PipeState& pipe = core.pipes[p];
        pipe = PipeState{};
        pipe.instrs = core.kernel->instrs.data();
        pipe.pos = core.kernel->pipeBegin[p];
        pipe.end = core.kernel->pipeBegin[p + 1];
        pipe.readyAt = m_now;
        if (pipe.pos < pipe.end) ++core.live;
    }
    if (m_trace && m_trace->wantsFull()) {
        m_trace->resetFlags(slot);
        if (m_now > core.dispatchedAt)
            m_trace->dispatchStall(slot, task.id, core.dispatchedAt, m_now);
    }
    if (core.live == 0) {
        finishTask(slot);
        return;
    }
    for (uint32_t p = 0; p < kPipes; ++p)
        if (core.pipes[p].pos < core.pipes[p].end) startNext(slot, static_cast<Pipe>(p));
}

void Engine::finishTask(int slot) {
    CoreState& core = m_cores[slot];
    const uint32_t index = static_cast<uint32_t>(core.task);
    const TimedTask& task = m_program.tasks()[index];
    checkLeftoverFlags(slot);
    if (core.cluster >= 0) checkLeftoverCross(slot);
    TaskRun& run = m_result.tasks[index];
    run.coreType = core.type;
    run.core = core.index;
    run.dispatched = Cycles(core.dispatchedAt);
    run.start = Cycles(core.startedAt);
    run.end = Cycles(m_now);
    CoreStats& stats = m_result.cores[slot];
    stats.taskTime += Cycles(m_now - core.startedAt);
    ++stats.tasks;
    for (int p = 0; p < kDmaPathCount; ++p) m_result.bytesMoved[p] += core.kernel->bytes[p];
    m_result.instructions += static_cast<int64_t>(core.kernel->instrs.size());
    if (m_trace)
        m_taskSlices[index] = m_trace->task(
            slot, task.id, m_program.source().exec.tasks[index].name, core.startedAt, m_now);
    core.task = -1;
    core.kernel = nullptr;
    core.cluster = -1;
    m_isIdle[slot] = 1;
    m_idle[typeIndex(core.type)].push(static_cast<uint64_t>(slot));
    ++m_tasksDone;
    for (uint32_t next : task.successors)
        if (--m_pendingPreds[next] == 0) makeReady(next);
    dispatchReady();
}

// --- Pipes -------------------------------------------------------------------------------------

// The hazard check of `ti` against the instructions other pipes have not started yet.
void Engine::checkOrder(int slot, const TimedInstr& ti) const {
    const CoreState& core = m_cores[slot];
    std::array<uint32_t, kPipeCount> queued{};
    for (size_t p = 0; p < kPipeCount; ++p) {
        const PipeState& ps = core.pipes[p];
        // A busy pipe's head has started (it is running); a waiting pipe's has not.
        queued[p] = ps.status == PipeStatus::Busy && ps.pos < ps.end ? ps.pos + 1 : ps.pos;
    }
    const uint32_t kernelIndex = m_program.tasks()[core.task].kernel;
    m_hazards.checkOrder(slot, *core.kernel, *core.source, kernelIndex, ti, queued, core.flags,
                         m_now);
    if (ti.kind != InstrKind::GmDma) return;
    // The same for the GM bytes of this core's transfers: a TLOAD of what an earlier TSTORE of
    // this core writes (a workspace round trip) must wait for it — until it has completed, so
    // the running transfer of each pipe counts too (on chip, the overlap check sees that one).
    auto gmOf = [&](const TimedInstr& t) {
        return rebasedRegion(m_program.gmTransfers()[t.aux + core.transferShift].gm, core.rebases);
    };
    const Region mine = gmOf(ti);
    for (size_t p = 0; p < kPipeCount; ++p) {
        if (p == static_cast<size_t>(ti.pipe)) continue;
        const uint32_t end = core.kernel->pipeBegin[p + 1];
        for (uint32_t i = core.pipes[p].pos, seen = 0;
             i < end && seen < HazardChecker::kOrderLookahead; ++i, ++seen) {
            const TimedInstr& other = core.kernel->instrs[i];
            if (other.index > ti.index) break;
            if (other.kind != InstrKind::GmDma) continue;
            const Region theirs = gmOf(other);
            if (!(mine.write || theirs.write) || !intersects(mine, theirs)) continue;
            if (HazardChecker::heldBack(*core.kernel, queued[p], i, ti.pipe, core.flags)) break;
            const PipeState& ps = core.pipes[p];
            const bool running = i == ps.pos && ps.status == PipeStatus::Busy;
            m_hazards.raiseOrder(slot, *core.source, kernelIndex, ti, mine, other, theirs, m_now,
                                 running ? ps.startedAt : -1);
        }
    }
}

void Engine::startNext(int slot, Pipe pipe) {
    CoreState& core = m_cores[slot];
    PipeState& ps = core.pipes[static_cast<int>(pipe)];
    if (ps.pos == ps.end) {
        ps.status = PipeStatus::Drained;
        if (--core.live == 0) finishTask(slot);
        return;
    }
    const TimedInstr& ti = ps.instrs[ps.pos];
    // The pipe's queue is read in order, one record per instruction, interleaved with every
    // other pipe's: fetch a few records ahead (a cache miss per record otherwise).
    __builtin_prefetch(ps.instrs + std::min(ps.pos + kPrefetchAhead, ps.end));
    // A GM transfer's record (cold: read once per run) a few instructions ahead.
    if (ps.pos + kTransferAhead < ps.end) {
        const TimedInstr& soon = ps.instrs[ps.pos + kTransferAhead];
        if (soon.kind == InstrKind::GmDma) { // 72 bytes: on one or two cache lines
            const auto* record = reinterpret_cast<const char*>(
                &m_program.gmTransfers()[soon.aux + core.transferShift]);
            __builtin_prefetch(record);
            __builtin_prefetch(record + sizeof(GmTransfer) - 1);
        }
    }
    if (m_options.checkHazards && ps.pos + 2 < ps.end) { // its operands, for the hazard check
        const auto* soon =
            reinterpret_cast<const char*>(&core.source->instrs[ps.instrs[ps.pos + 2].index]);
        __builtin_prefetch(soon);
        __builtin_prefetch(soon + 64);
        __builtin_prefetch(soon + 128);
    }
    const uint32_t index = ti.index;
    const uint32_t target = static_cast<uint32_t>(slot) * kPipes + static_cast<uint32_t>(pipe);
    const uint32_t bit = 1u << static_cast<uint32_t>(pipe);
    switch (ti.kind) {
    case InstrKind::WaitFlag:
        if (core.flags[ti.flag] == 0) {
            ps.prevStreamAt = -1; // a blocked queue issues no requests ahead
            ps.status = PipeStatus::WaitFlag;
            core.waiting |= bit;
            return;
        }
        --core.flags[ti.flag];
        if (m_trace && m_trace->wantsFull() && m_now > ps.readyAt) {
            const Instr& in = core.source->instrs[index];
            m_trace->flagWait(slot, pipe, in.flagSrc, in.flagDst, in.event,
                              core.kernel->traceId(index), taskId(core), ps.readyAt, m_now);
        }
        m_queue.push(m_now + ti.cycles, EventKind::PipeDone, target);
        break;
    case InstrKind::CrossWait:
        if (!startCrossWait(slot, pipe, ti)) return;
        break;
    case InstrKind::Barrier:
        if (core.pipes[static_cast<int>(ti.awaited)].completed < ti.aux) {
            ps.prevStreamAt = -1;
            ps.status = PipeStatus::WaitBarrier;
            core.waiting |= bit;
            return;
        }
        if (m_trace && m_trace->wantsFull() && m_now > ps.readyAt)
            m_trace->barrierWait(slot, pipe, ti.awaited, core.kernel->traceId(index), taskId(core),
                                 ps.readyAt, m_now);
        m_queue.push(m_now + ti.cycles, EventKind::PipeDone, target);
        break;
    case InstrKind::GmDma: {
        const GmTransfer& transfer = m_program.gmTransfers()[ti.aux + core.transferShift];
        const Region gm = rebasedRegion(transfer.gm, core.rebases);
        lookupL2(ps, transfer, gm);
        const bool allHit = !transfer.gm.write && ps.hbmBytes == 0;
        if (m_options.checkHazards && ti.regionCount) {
            checkOrder(slot, ti);
            m_hazards.start(slot, *core.kernel, *core.source, m_program.tasks()[core.task].kernel,
                            ti, m_now, -1);
        }
        if (m_options.checkHazards && core.cluster >= 0 && inWorkspace(gm))
            checkHandOff(slot, ti, gm);
        int64_t latency = allHit ? m_costs.l2Latency() : transfer.cost.latency;
        if (ps.prevStreamAt >= 0) // back to back: requests went out during the last stream
            latency -= toCycles(m_costs.latencyOverlap() *
                                    static_cast<double>(std::min(latency, m_now - ps.prevStreamAt)),
                                CycleRounding::Nearest);
        m_queue.push(m_now + latency, EventKind::DmaStream, target);
        break;
    }
    case InstrKind::Fixed:
    case InstrKind::SetFlag:
    case InstrKind::CrossSet:
        if (m_options.checkHazards && ti.regionCount) {
            checkOrder(slot, ti);
            m_hazards.start(slot, *core.kernel, *core.source, m_program.tasks()[core.task].kernel,
                            ti, m_now, m_now + ti.cycles);
        }
        m_queue.push(m_now + ti.cycles, EventKind::PipeDone, target);
        break;
    }
    ps.status = PipeStatus::Busy;
    ps.startedAt = m_now;
    core.waiting &= ~bit;
    if (core.occupancy) applyOccupancy(slot, core.occupancy->atStart(index));
}

// Adds an instruction's buffer deltas to the core's live bytes and samples the counters.
void Engine::applyOccupancy(int slot, std::span<const OccupancyDelta> deltas) {
    CoreState& core = m_cores[slot];
    for (const OccupancyDelta& d : deltas) {
        core.occupied[d.space] += d.bytes;
        m_trace->occupancy(slot, d.space, m_now, core.occupied[d.space]);
    }
}

// Splits a GM transfer's bytes into L2 hits and HBM traffic: reads of resident lines hit, the
// rest miss and become resident; writes go through to HBM and leave their lines resident.
void Engine::lookupL2(PipeState& ps, const GmTransfer& transfer, const Region& gm) {
    if (transfer.gather) { // its rows are data-dependent: every byte misses (an assumption)
        ps.l2Bytes = 0;
        ps.hbmBytes = transfer.cost.bytes;
        ps.throttled = {};
        const auto bytes = static_cast<int64_t>(transfer.cost.bytes);
        if (transfer.gm.write) { // a scatter: its atomic adds go through to HBM
            m_result.memory.hbmWriteBytes += bytes;
            return;
        }
        m_result.memory.l2MissBytes += bytes;
        m_result.memory.hbmReadBytes += bytes;
        return;
    }
    const L2Cache::Split split = m_l2.access(gm);
    const double looked = static_cast<double>(split.hit + split.miss);
    const double hitShare =
        transfer.gm.write || looked <= 0 ? 0.0 : static_cast<double>(split.hit) / looked;
    ps.l2Bytes = transfer.cost.bytes * hitShare;
    ps.hbmBytes = transfer.cost.bytes - ps.l2Bytes;
    ps.throttled = {};
    MemoryStats& mem = m_result.memory;
    if (transfer.gm.write) {
        mem.hbmWriteBytes += static_cast<int64_t>(transfer.cost.bytes);
        return;
    }
    mem.l2HitBytes += split.hit;
    mem.l2MissBytes += split.miss;
    mem.hbmReadBytes += split.miss;
    if (m_trace && m_trace->wantsFull()) m_trace->l2HitRate(m_now, mem.l2HitRate());
}

void Engine::beginStream(int slot, Pipe pipe) {
    const CoreState& core = m_cores[slot];
    PipeState& ps = m_cores[slot].pipes[static_cast<int>(pipe)];
    const TimedInstr& ti = ps.instrs[ps.pos];
    const GmTransferCost& cost = m_program.gmTransfers()[ti.aux + core.transferShift].cost;
    ps.streamAt = m_now;
    if (cost.bytes <= 0) {
        completeInstr(slot, pipe);
        return;
    }
    joinServers(slot, pipe, ps, cost.cap);
}

// The HBM part and the L2 part stream side by side, each capped at its share of the path
// rate, so alone they finish together; the transfer is done when both are.
void Engine::joinServers(int slot, Pipe pipe, PipeState& ps, double cap) {
    const uint32_t target = static_cast<uint32_t>(slot) * kPipes + static_cast<uint32_t>(pipe);
    const double total = ps.hbmBytes + ps.l2Bytes;
    const std::array<double, 2> bytes = {ps.hbmBytes, ps.l2Bytes};
    ps.parts = 0;
    for (int server : {kHbm, kL2}) {
        if (bytes[server] <= 0) continue;
        const double partCap = bytes[server] == total ? cap : cap * bytes[server] / total;
        m_servers[server].join(m_now, target, bytes[server], partCap);
        ++ps.parts;
        scheduleBandwidth(server);
    }
}

void Engine::scheduleBandwidth(int server) {
    const BandwidthServer& s = m_servers[server];
    if (const std::optional<int64_t> next = s.next())
        m_queue.push(*next, EventKind::BandwidthDone, serverTag(s.generation(), server));
    if (m_trace && m_trace->wantsFull())
        m_trace->bandwidth(m_now, m_servers[kHbm].throughput(), m_servers[kL2].throughput());
}

void Engine::bandwidthDone(int server) {
    std::vector<BandwidthServer::Finished>& done = m_finished[server]; // never nested per server
    m_servers[server].collect(m_now, done);
    scheduleBandwidth(server);
    for (const BandwidthServer::Finished& f : done) {
        const int slot = static_cast<int>(f.owner / kPipes);
        const auto pipe = static_cast<Pipe>(f.owner % kPipes);
        PipeState& ps = m_cores[slot].pipes[static_cast<int>(pipe)];
        ps.throttled[server] = f.throttled;
        if (--ps.parts == 0) completeInstr(slot, pipe);
    }
}

void Engine::completeInstr(int slot, Pipe pipe) {
    CoreState& core = m_cores[slot];
    PipeState& ps = core.pipes[static_cast<int>(pipe)];
    const TimedInstr& ti = ps.instrs[ps.pos];
    const uint32_t index = ti.index;
    const Instr& instr = core.source->instrs[index];
    if (m_options.checkHazards) m_hazards.finish(slot, pipe, m_now);
    if (m_sink) {
        try {
            m_sink->execute(core.index, core.type, instr, core.rebases);
        } catch (SimFault& fault) {
            fault.setCycle(m_now);
            throw;
        }
    }
    m_result.cores[slot].busy[static_cast<int>(pipe)] += Cycles(m_now - ps.startedAt);
    int64_t slice = 0;
    if (m_trace) {
        if (m_trace->wantsInstructions() && ti.kind == InstrKind::GmDma &&
            m_program.gmTransfers()[ti.aux + core.transferShift].gather) {
            const GmTransferCost& cost = m_program.gmTransfers()[ti.aux + core.transferShift].cost;
            const bool scatter = instr.opcode == Opcode::MScatter; // rows: its source's
            slice = m_trace->gatherInstr(slot, pipe, instr.opcode, core.kernel->traceId(index),
                                         taskId(core), ps.startedAt, m_now,
                                         instr.operands[scatter ? 1 : 0].rows,
                                         static_cast<int64_t>(cost.bytes), cost.efficiency);
        } else if (m_trace->wantsInstructions()) {
            slice =
                m_trace->instr(slot, pipe, instr.opcode, core.kernel->traceId(index), taskId(core),
                               ps.startedAt, m_now, core.kernel->loopLabel(index));
        }
        if (m_trace->wantsFull()) {
            if (ti.kind == InstrKind::SetFlag) m_trace->flagSet(slot, ti.flag, slice);
            if (ti.kind == InstrKind::WaitFlag) m_trace->flagConsumed(slot, ti.flag, slice);
            if (ti.kind == InstrKind::CrossWait) m_trace->crossFlagConsumed(slot, ti.flag, slice);
            const bool hbmLimited = ps.throttled[kHbm] >= ps.throttled[kL2];
            const int64_t lost =
                toCycles(std::max(ps.throttled[kHbm], ps.throttled[kL2]), CycleRounding::Nearest);
            if (ti.kind == InstrKind::GmDma && lost > 0)
                m_trace->bandwidthStall(
                    slot, pipe, core.kernel->traceId(index), taskId(core), m_now - lost, m_now,
                    hbmLimited ? "HBM" : "L2",
                    m_costs.pathRate(m_program.gmTransfers()[ti.aux + core.transferShift].path));
        }
    }
    if (core.occupancy) applyOccupancy(slot, core.occupancy->atEnd(index));
    if (ti.kind == InstrKind::GmDma) {
        ps.prevStreamAt = ps.streamAt;
        const Region gm =
            rebasedRegion(m_program.gmTransfers()[ti.aux + core.transferShift].gm, core.rebases);
        if (m_options.checkHazards && core.cluster >= 0 && inWorkspace(gm)) {
            checkHandOff(slot, ti, gm); // again: a peer's access may have overlapped this one
            recordHandOff(slot, ti, gm);
        }
    }
    ++ps.pos;
    ++ps.completed;
    ps.readyAt = m_now;
    ps.status = PipeStatus::Busy; // until startNext decides
    const bool setFlag = ti.kind == InstrKind::SetFlag;
    if (setFlag) ++core.flags[ti.flag];
    if (ti.kind == InstrKind::CrossSet) sendCross(slot, ti, slice);
    wakeWaiters(slot, setFlag, pipe);
    if (core.kernel) startNext(slot, pipe);
}

// Restarts pipes of the core blocked on a flag (after a SET_FLAG completed) or on a barrier
// awaiting `finishedPipe`.
void Engine::wakeWaiters(int slot, bool flagChanged, Pipe finishedPipe) {
    CoreState& core = m_cores[slot];
    if (core.waiting == 0) return;
    for (uint32_t p = 0; p < kPipes; ++p) {
        if (!(core.waiting & (1u << p))) continue;
        const PipeState& other = core.pipes[p];
        if (other.status == PipeStatus::WaitFlag && flagChanged) {
            startNext(slot, static_cast<Pipe>(p));
        } else if (other.status == PipeStatus::WaitBarrier) {
            const TimedInstr& ti = other.instrs[other.pos];
            if (ti.awaited == finishedPipe) startNext(slot, static_cast<Pipe>(p));
        }
    }
}

// --- Reporting ---------------------------------------------------------------------------------

void Engine::traceDependencies() {
    const auto& tasks = m_program.tasks();
    for (uint32_t i = 0; i < tasks.size(); ++i)
        for (uint32_t next : tasks[i].successors)
            m_trace->dependency(m_taskSlices[i], m_taskSlices[next]);
}

void Engine::checkLeftoverFlags(int slot) {
    const CoreState& core = m_cores[slot];
    for (int f = 0; f < kFlagSlots; ++f) {
        if (core.flags[f] == 0) continue;
        const int event = f % kEventIds;
        const int pair = f / kEventIds;
        const auto src = static_cast<Pipe>(pair / kPipeCount);
        const auto dst = static_cast<Pipe>(pair % kPipeCount);
        warnAt(core, fmt::format("task {} ended with {} SET_FLAG {}->{}#{} never waited for",
                                 taskId(core), core.flags[f], pipeName(src), pipeName(dst), event));
    }
}

// A warning at `core`'s current task and cycle.
void Engine::warnAt(const CoreState& core, std::string message) {
    SimWarning w;
    w.site.coreType = core.type;
    w.site.core = core.index;
    w.site.cycle = m_now;
    w.site.kernel = m_program.tasks()[core.task].kernel;
    w.message = std::move(message);
    m_result.warnings.push_back(std::move(w));
}

void Engine::throwDeadlock() {
    std::vector<BlockedPipe> blocked;
    std::vector<const TimedInstr*> heads; // the blocked instruction of each entry
    std::vector<int> entryOf(m_cores.size() * kPipes, -1);
    for (int slot = 0; slot < static_cast<int>(m_cores.size()); ++slot) {
        const CoreState& core = m_cores[slot];
        if (!core.kernel) continue;
        for (uint32_t p = 0; p < kPipes; ++p) {
            const PipeState& ps = core.pipes[p];
            if (ps.status != PipeStatus::WaitFlag && ps.status != PipeStatus::WaitBarrier &&
                ps.status != PipeStatus::WaitCross)
                continue;
            const uint32_t index = core.kernel->instrs[ps.pos].index;
            const Instr& in = core.source->instrs[index];
            heads.push_back(&core.kernel->instrs[ps.pos]);
            BlockedPipe b;
            b.coreType = core.type;
            b.core = core.index;
            b.pipe = static_cast<Pipe>(p);
            b.kernel = m_program.tasks()[core.task].kernel;
            b.instrIndex = index;
            b.opcode = in.opcode;
            b.since = ps.readyAt;
            b.tileOp = in.tileOp;
            b.loc = in.loc;
            b.waitsFor = in.opcode == Opcode::WaitFlag
                             ? fmt::format("flag {}->{}#{}", pipeName(in.flagSrc),
                                           pipeName(in.flagDst), in.event)
                             : fmt::format("barrier on {}", pipeName(in.flagSrc));
            entryOf[slot * kPipes + p] = static_cast<int>(blocked.size());
            blocked.push_back(std::move(b));
        }
    }
    // Who would release whom: the pipe holding the next SET_FLAG of the flag, or the awaited
    // pipe of a barrier.
    for (size_t i = 0; i < blocked.size(); ++i) {
        BlockedPipe& b = blocked[i];
        const int slot = b.coreType == CoreType::AIC ? b.core : b.core + m_aicCount;
        const CoreState& core = m_cores[slot];
        const TimedInstr& ti = *heads[i];
        if (ti.kind == InstrKind::Barrier) {
            b.releasedBy = entryOf[slot * kPipes + static_cast<uint32_t>(ti.awaited)];
            continue;
        }
        if (ti.kind == InstrKind::CrossWait) {
            blockedOnCross(slot, ti, b, entryOf);
            continue;
        }
        for (uint32_t p = 0; p < kPipes && b.releasedBy < 0; ++p) {
            const PipeState& ps = core.pipes[p];
            for (uint32_t pos = ps.pos; pos < ps.end; ++pos) {
                const TimedInstr& other = core.kernel->instrs[pos];
                if (other.kind == InstrKind::SetFlag && other.flag == ti.flag) {
                    b.releasedBy = entryOf[slot * kPipes + p];
                    break;
                }
            }
        }
    }
    size_t notStarted = 0;
    for (const TaskRun& run : m_result.tasks) notStarted += run.coreType == CoreType::None;
    for (const CoreState& core : m_cores) notStarted -= core.kernel != nullptr;
    throw DeadlockFault(std::move(blocked), m_now, notStarted, m_options.sourceFile);
}

} // namespace pto::sim
