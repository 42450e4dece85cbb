// Prepares a PtoProgram for the engine: checks each instruction against the chip once and
// reduces it to a TimedInstr; builds per-pipe queues and the task graph.
#include "simulator/engine/TimedProgram.h"

#include "compiler/ir/PtoShare.h"
#include "simulator/arch/OpcodeClass.h"
#include "simulator/numerics/SimFault.h"

#include <fmt/format.h>

#include <unordered_map>

namespace pto::sim {
namespace {

// Source instructions (≈ 200 bytes each, cold) are fetched this many ahead of the check.
constexpr size_t kPrefetchAhead = 6;

FaultSite siteOf(const Kernel& kernel, uint32_t kernelIndex, size_t instrIndex) {
    const Instr& instr = kernel.instrs[instrIndex];
    FaultSite site;
    site.coreType = kernel.core;
    site.pipe = instr.pipe;
    site.kernel = kernelIndex;
    site.instrIndex = static_cast<int64_t>(instrIndex);
    site.opcode = instr.opcode;
    site.tileOp = instr.tileOp;
    site.loc = instr.loc;
    return site;
}

// Checks of one instruction; each returns the problem or "".
class InstrChecker {
public:
    InstrChecker(const Kernel& kernel, const Instr& instr, const TargetInfo& target,
                 int64_t gmBytes)
        : m_core(kernel.core), m_instr(instr), m_target(target), m_gmBytes(gmBytes) {}

    std::string badInstruction() const {
        if (m_instr.operandCount > m_instr.operands.size())
            return fmt::format("{} operands (at most 4)", m_instr.operandCount);
        if (!coreHasPipe(m_core, m_instr.pipe))
            return fmt::format("an {} core has no pipe {}", coreDisplayName(m_core),
                               pipeName(m_instr.pipe));
        switch (opcodeClass(m_instr.opcode)) {
        case OpcodeClass::Sync:
            return syncProblem();
        case OpcodeClass::Dma:
            return needOperands(2);
        case OpcodeClass::Cube:
            return needOperands(3);
        case OpcodeClass::Vector:
            return needOperands(1);
        }
        return {};
    }

    std::string outOfBounds() const {
        for (size_t i = 0; i < m_instr.operandCount; ++i)
            if (std::string p = operandProblem(i, m_instr.operands[i]); !p.empty()) return p;
        return {};
    }

private:
    std::string needOperands(int n) const {
        if (m_instr.operandCount >= n) return {};
        return fmt::format("needs {} operands, has {}", n, m_instr.operandCount);
    }

    std::string syncProblem() const {
        const Instr& in = m_instr;
        if (isCrossFlag(in.opcode)) {
            if (in.event >= kCrossFlagIds)
                return fmt::format("cross-core flag id {} is out of range 0..{}", in.event,
                                   kCrossFlagIds - 1);
            if (static_cast<int>(in.peer) >= kClusterRoles) return "invalid peer core";
            return {};
        }
        if (in.event >= kEventIds)
            return fmt::format("event id {} is out of range 0..{}", in.event, kEventIds - 1);
        for (Pipe p : {in.flagSrc, in.flagDst})
            if (!coreHasPipe(m_core, p) && (in.opcode != Opcode::Barrier || p == in.flagSrc))
                return fmt::format("an {} core has no pipe {}", coreDisplayName(m_core),
                                   pipeName(p));
        if (in.opcode == Opcode::SetFlag && in.pipe != in.flagSrc)
            return fmt::format("SET_FLAG {}->{}#{} runs on its source pipe {}, not {}",
                               pipeName(in.flagSrc), pipeName(in.flagDst), in.event,
                               pipeName(in.flagSrc), pipeName(in.pipe));
        if (in.opcode == Opcode::WaitFlag && in.pipe != in.flagDst)
            return fmt::format("WAIT_FLAG {}->{}#{} runs on its destination pipe {}, not {}",
                               pipeName(in.flagSrc), pipeName(in.flagDst), in.event,
                               pipeName(in.flagDst), pipeName(in.pipe));
        return {};
    }

    std::string operandProblem(size_t i, const Operand& o) const {
        const int64_t limit = o.space == MemSpace::GM ? m_gmBytes : m_target.capacity(o.space);
        for (const std::string& problem :
             {operandShapeProblem(m_instr, i), operandSpaceProblem(o, m_core),
              operandBoundsProblem(o, limit)})
            if (!problem.empty()) return fmt::format("operand {} {}", i, problem);
        return {};
    }

    CoreType m_core;
    const Instr& m_instr;
    const TargetInfo& m_target;
    int64_t m_gmBytes;
};

// The cost of a GM transfer (a DMA instruction along a GM path).
GmTransferCost transferCost(const CostModel& costs, const Instr& in, DmaPath path) {
    const Operand& dst = in.operands[0];
    const Operand& src = in.operands[1];
    const Operand& gm = src.space == MemSpace::GM ? src : dst;
    if (in.opcode == Opcode::MGather) return costs.gatherTransfer(dst, gm);
    if (in.opcode == Opcode::MScatter) return costs.scatterTransfer(src, gm);
    return costs.gmTransfer(path, gm);
}

// Notes which on-chip spaces `in` writes (operand 0) and reads (the others), for the
// overlapping-buffer check.
void noteSpaces(const Instr& in, TimedInstr& t) {
    for (size_t i = 0; i < in.operandCount; ++i) {
        const Operand& o = in.operands[i];
        if (o.space == MemSpace::GM || o.space == MemSpace::None) continue;
        (i == 0 ? t.writeSpaces : t.readSpaces) |=
            static_cast<uint8_t>(1u << static_cast<int>(o.space));
        ++t.regionCount;
    }
}

[[noreturn]] void taskFault(const std::string& detail) {
    throw SimFault(FaultKind::BadInstruction, FaultSite{}, "task graph: " + detail);
}

// Kahn's algorithm; when some tasks are never freed, follows predecessors among them to
// name one cycle ("3 -> 5 -> 3").
void checkAcyclic(const std::vector<TimedTask>& tasks) {
    std::vector<uint32_t> pending(tasks.size());
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < tasks.size(); ++i)
        if ((pending[i] = tasks[i].predecessors) == 0) ready.push_back(i);
    size_t freed = 0;
    while (!ready.empty()) {
        const uint32_t t = ready.back();
        ready.pop_back();
        ++freed;
        for (uint32_t s : tasks[t].successors)
            if (--pending[s] == 0) ready.push_back(s);
    }
    if (freed == tasks.size()) return;
    // Every stuck task has a stuck predecessor: walk backwards until a task repeats.
    std::vector<uint32_t> stuckPred(tasks.size(), UINT32_MAX);
    for (uint32_t t = 0; t < tasks.size(); ++t)
        for (uint32_t s : tasks[t].successors)
            if (pending[t] > 0 && pending[s] > 0) stuckPred[s] = t;
    uint32_t start = 0;
    while (pending[start] == 0) ++start;
    std::vector<int> seenAt(tasks.size(), -1);
    std::vector<uint32_t> walk;
    uint32_t t = start;
    while (seenAt[t] < 0 && walk.size() <= tasks.size()) {
        seenAt[t] = static_cast<int>(walk.size());
        walk.push_back(t);
        t = stuckPred[t];
    }
    std::string cycle = std::to_string(tasks[t].id);
    for (size_t i = walk.size(); i-- > static_cast<size_t>(seenAt[t]);)
        cycle += " -> " + std::to_string(tasks[walk[i]].id);
    taskFault(fmt::format("{} tasks can never start: the dependencies form a cycle {}",
                          tasks.size() - freed, cycle));
}

} // namespace

TimedProgram::TimedProgram(const PtoProgram& program, const ArchConfig& arch,
                           const CostModel& costs, const PtoProgram* compact,
                           const LoopExpansion* loops)
    : m_source(&program), m_target(toTargetInfo(arch)), m_gmBytes(program.gmBytes()) {
    if (m_gmBytes > arch.bytes(Param::HbmSize))
        throw SimFault(FaultKind::OutOfBounds, FaultSite{},
                       fmt::format("the GM image of {} bytes exceeds hbm.size {} bytes", m_gmBytes,
                                   arch.bytes(Param::HbmSize)));
    size_t total = 0;
    for (const Kernel& k : program.kernels) total += k.instrs.size();
    m_instrs = BigArray<TimedInstr>(total);
    m_transfers = BigArray<GmTransfer>(total / 4 + 16); // grows when more
    m_kernels.resize(program.kernels.size());
    int64_t traceIds = 0; // instruction ids of the trace: over the program as written
    for (uint32_t k = 0; k < program.kernels.size(); ++k) {
        m_kernels[k].firstInstrId = traceIds + 1;
        buildKernel(k, costs);
        m_instructionCount += static_cast<int64_t>(program.kernels[k].instrs.size());
        if (compact && loops && !compact->kernels[k].loops.empty()) {
            m_kernels[k].expansion = &loops->kernels[k];
            m_kernels[k].compact = &compact->kernels[k];
        }
        traceIds += static_cast<int64_t>(compact ? compact->kernels[k].instrs.size()
                                                 : program.kernels[k].instrs.size());
    }
    buildTasks(arch, costs);
}

void TimedProgram::buildKernel(uint32_t index, const CostModel& costs) {
    const Kernel& kernel = m_source->kernels[index];
    TimedKernel& out = m_kernels[index];
    out.core = kernel.core;
    if (kernel.core == CoreType::None && !kernel.instrs.empty()) {
        FaultSite site;
        site.kernel = index;
        throw SimFault(FaultKind::BadInstruction, site,
                       fmt::format("kernel '{}' has no core type", kernel.name));
    }
    // One pass over the (large, cold) source instructions into a scratch array in program
    // order, then the records are grouped by pipe (the scratch stays in cache).
    std::array<uint32_t, kPipeCount> perPipe{}; // instructions seen per pipe so far
    std::vector<TimedInstr>& inOrder = m_scratch;
    inOrder.clear();
    inOrder.reserve(kernel.instrs.size());
    out.firstTransfer = static_cast<uint32_t>(m_transfers.size());
    for (size_t i = 0; i < kernel.instrs.size(); ++i) {
        const Instr& in = kernel.instrs[i];
        if (i + kPrefetchAhead < kernel.instrs.size()) { // the fields read: opcode to event
            const auto* soon = reinterpret_cast<const char*>(&in + kPrefetchAhead);
            __builtin_prefetch(soon);
            __builtin_prefetch(soon + 64);
            __builtin_prefetch(soon + 128);
        }
        const InstrChecker check(kernel, in, m_target, m_gmBytes);
        if (std::string p = check.badInstruction(); !p.empty())
            throw SimFault(FaultKind::BadInstruction, siteOf(kernel, index, i), p);
        if (std::string p = check.outOfBounds(); !p.empty())
            throw SimFault(FaultKind::OutOfBounds, siteOf(kernel, index, i), p);
        TimedInstr t;
        t.index = static_cast<uint32_t>(i);
        t.pipe = in.pipe;
        switch (opcodeClass(in.opcode)) {
        case OpcodeClass::Cube:
            t.cycles = costs.cubeCycles(in);
            break;
        case OpcodeClass::Vector:
            t.cycles = costs.vectorCycles(in);
            break;
        case OpcodeClass::Sync:
            t.cycles = costs.syncCycles(in.opcode);
            if (isCrossFlag(in.opcode)) {
                t.flag = static_cast<uint16_t>(crossSlot(in.peer, in.event));
                t.kind =
                    in.opcode == Opcode::CrossSetFlag ? InstrKind::CrossSet : InstrKind::CrossWait;
                break;
            }
            t.flag = static_cast<uint16_t>(flagSlot(in.flagSrc, in.flagDst, in.event));
            t.kind = in.opcode == Opcode::SetFlag    ? InstrKind::SetFlag
                     : in.opcode == Opcode::WaitFlag ? InstrKind::WaitFlag
                                                     : InstrKind::Barrier;
            t.awaited = in.flagSrc;
            t.aux = perPipe[static_cast<int>(in.flagSrc)];
            break;
        case OpcodeClass::Dma: {
            const Operand& dst = in.operands[0];
            const Operand& src = in.operands[1];
            const std::optional<DmaPath> path = dmaPathOf(src.space, dst.space);
            std::string problem;
            if (!path || !opcodeMovesAlong(in.opcode, *path))
                problem = fmt::format("{} cannot move {}->{}", opcodeName(in.opcode),
                                      memSpaceName(src.space), memSpaceName(dst.space));
            else if (const std::optional<Pipe> pipe = movePipe(in); pipe != in.pipe)
                problem = fmt::format("a {} move runs on pipe {}, not {}", dmaPathName(*path),
                                      pipe ? pipeName(*pipe) : "none", pipeName(in.pipe));
            if (!problem.empty())
                throw SimFault(FaultKind::BadInstruction, siteOf(kernel, index, i), problem);
            if (isGmPath(*path)) {
                const Operand& gm = src.space == MemSpace::GM ? src : dst;
                const bool gather = in.opcode == Opcode::MGather;
                const bool indexed = gather || in.opcode == Opcode::MScatter;
                GmTransfer transfer{transferCost(costs, in, *path),
                                    regionOf(gm, dst.space == MemSpace::GM), *path, indexed};
                t.kind = InstrKind::GmDma;
                t.aux = static_cast<uint32_t>(m_transfers.size());
                t.cycles = transfer.cost.latency +
                           toCycles(transfer.cost.bytes / transfer.cost.cap, CycleRounding::Down);
                out.bytes[static_cast<int>(*path)] += static_cast<int64_t>(transfer.cost.bytes);
                m_transfers.push_back(transfer);
            } else {
                const int64_t bytes = std::max(src.bytes(), dst.bytes());
                t.cycles = costs.onchipCycles(*path, bytes);
                out.bytes[static_cast<int>(*path)] += bytes;
            }
            break;
        }
        }
        noteSpaces(in, t);
        ++perPipe[static_cast<int>(in.pipe)];
        inOrder.push_back(t);
    }
    out.endTransfer = static_cast<uint32_t>(m_transfers.size());
    out.pipeBegin[0] = 0;
    for (int p = 0; p < kPipeCount; ++p) out.pipeBegin[p + 1] = out.pipeBegin[p] + perPipe[p];
    TimedInstr* grouped = m_instrs.extend(inOrder.size());
    std::array<uint32_t, kPipeCount> fill{};
    for (const TimedInstr& t : inOrder) {
        const int p = static_cast<int>(t.pipe);
        grouped[out.pipeBegin[p] + fill[p]++] = t;
    }
    out.instrs = {grouped, inOrder.size()};
}

Region rebasedRegion(const Region& r, std::span<const GmRebase> rebases) {
    const GmRebase* holder = rebaseHolding(rebases, r.lo);
    if (!holder) return r;
    Region moved = r;
    moved.lo += holder->delta;
    moved.hi += holder->delta;
    return moved;
}

// A task whose rebases move a GM transfer of its kernel by other than a multiple of the GM
// alignment may see another efficiency (CostModel::efficiency): it gets its own copy of the
// kernel's transfer records with the costs of its addresses. Returns the shift of its records
// (0: the kernel's are its own).
int64_t TimedProgram::rebasedTransfers(const Task& task, const CostModel& costs) {
    const int64_t align = costs.gmAlign();
    if (std::ranges::all_of(task.rebases, [&](const GmRebase& r) { return r.delta % align == 0; }))
        return 0;
    const Kernel& source = m_source->kernels[task.block];
    const TimedKernel& kernel = m_kernels[task.block];
    std::vector<std::pair<uint32_t, GmTransferCost>> changed;
    for (const TimedInstr& t : kernel.instrs) {
        if (t.kind != InstrKind::GmDma) continue;
        const GmTransfer& shared = m_transfers[t.aux];
        const GmTransferCost moved =
            transferCost(costs, rebasedInstr(source.instrs[t.index], task.rebases), shared.path);
        if (moved.efficiency != shared.cost.efficiency || moved.cap != shared.cost.cap)
            changed.emplace_back(t.aux, moved);
    }
    if (changed.empty()) return 0;
    const int64_t shift = static_cast<int64_t>(m_transfers.size()) - kernel.firstTransfer;
    for (uint32_t i = kernel.firstTransfer; i < kernel.endTransfer; ++i) {
        const GmTransfer copy = m_transfers[i];
        m_transfers.push_back(copy);
    }
    for (const auto& [index, cost] : changed) m_transfers[size_t(index + shift)].cost = cost;
    return shift;
}

// A task that moves its kernel's GM transfers: each stays in one rebase (or none) and, moved,
// inside the GM image.
void TimedProgram::checkRebasedBounds(const Task& task, uint32_t kernel) const {
    const Kernel& source = m_source->kernels[kernel];
    for (const TimedInstr& t : m_kernels[kernel].instrs) {
        if (t.kind != InstrKind::GmDma) continue;
        const Region& gm = m_transfers[t.aux].gm;
        const GmRebase* first = rebaseHolding(task.rebases, gm.lo);
        const GmRebase* last = rebaseHolding(task.rebases, gm.hi - 1);
        std::string problem;
        if (first != last)
            problem = fmt::format("task {} moves the GM bytes [0x{:x}, 0x{:x}) by two rebases "
                                  "(a region lies inside one rebase or none)",
                                  task.id, gm.lo, gm.hi);
        const Region moved = rebasedRegion(gm, task.rebases);
        if (problem.empty() && (moved.lo < 0 || moved.hi > m_gmBytes))
            problem = fmt::format("task {} moves the GM bytes [0x{:x}, 0x{:x}) to [0x{:x}, "
                                  "0x{:x}), outside the GM image of {} bytes",
                                  task.id, gm.lo, gm.hi, moved.lo, moved.hi, m_gmBytes);
        if (!problem.empty())
            throw SimFault(FaultKind::OutOfBounds, siteOf(source, kernel, t.index), problem);
    }
}

void TimedProgram::buildTasks(const ArchConfig& arch, const CostModel& costs) {
    const ExecGraph& exec = m_source->exec;
    std::unordered_map<uint32_t, uint32_t> indexOf;
    m_tasks.resize(exec.tasks.size());
    for (uint32_t i = 0; i < exec.tasks.size(); ++i) {
        const Task& task = exec.tasks[i];
        if (!indexOf.emplace(task.id, i).second)
            taskFault(fmt::format("task id {} appears twice", task.id));
        if (task.block >= m_kernels.size())
            taskFault(fmt::format("task {} ('{}') runs kernel {}, but the program has {} kernels",
                                  task.id, task.name, task.block, m_kernels.size()));
        const Kernel& kernel = m_source->kernels[task.block];
        if (task.core != kernel.core || task.core == CoreType::None)
            taskFault(fmt::format("task {} ('{}') is for core type {} but its kernel '{}' is {}",
                                  task.id, task.name, coreTypeName(task.core), kernel.name,
                                  coreTypeName(kernel.core)));
        const Param count = task.core == CoreType::AIC ? Param::AicCount : Param::AivCount;
        if (arch.count(count) < 1)
            taskFault(fmt::format("task {} needs an {} core; the chip has none", task.id,
                                  coreDisplayName(task.core)));
        m_tasks[i] =
            TimedTask{task.id, task.block, task.core, 0, {}, -1, task.role(), task.rebases};
        if (!task.rebases.empty()) {
            checkRebasedBounds(task, task.block);
            m_tasks[i].transferShift = rebasedTransfers(task, costs);
        }
    }
    for (const TaskDep& dep : exec.deps) {
        const auto from = indexOf.find(dep.from);
        const auto to = indexOf.find(dep.to);
        if (from == indexOf.end() || to == indexOf.end())
            taskFault(fmt::format("dependency {} -> {} names a task that does not exist", dep.from,
                                  dep.to));
        if (dep.from == dep.to) taskFault(fmt::format("task {} depends on itself", dep.from));
        m_tasks[from->second].successors.push_back(to->second);
        ++m_tasks[to->second].predecessors;
    }
    checkAcyclic(m_tasks);
    buildClusters(arch);
}

// Groups the tasks of each cluster id; a kernel with cross-core flags must run in a cluster
// whose roles include every peer it names (the verifier says the same when it runs).
void TimedProgram::buildClusters(const ArchConfig& arch) {
    const ExecGraph& exec = m_source->exec;
    std::unordered_map<uint32_t, int32_t> indexOf;
    for (uint32_t i = 0; i < exec.tasks.size(); ++i) {
        const Task& task = exec.tasks[i];
        const Kernel& kernel = m_source->kernels[task.block];
        const bool cross = std::ranges::any_of(
            kernel.instrs, [](const Instr& in) { return isCrossFlag(in.opcode); });
        if (task.cluster == kNoCluster) {
            if (cross)
                taskFault(fmt::format("task {} runs kernel '{}', which uses cross-core flags, "
                                      "outside a cluster",
                                      task.id, kernel.name));
            continue;
        }
        if (task.sub > 1 || (task.core == CoreType::AIC && task.sub != 0))
            taskFault(fmt::format("task {} is AIV {} of cluster {} (a cluster has AIVs 0 and 1)",
                                  task.id, task.sub, task.cluster));
        auto [it, fresh] =
            indexOf.try_emplace(task.cluster, static_cast<int32_t>(m_clusters.size()));
        if (fresh) m_clusters.push_back(TimedCluster{task.cluster, {-1, -1, -1}, UINT32_MAX});
        TimedCluster& c = m_clusters[static_cast<size_t>(it->second)];
        int32_t& member = c.members[static_cast<int>(task.role())];
        if (member >= 0)
            taskFault(fmt::format("tasks {} and {} are both {} of cluster {}",
                                  m_tasks[static_cast<size_t>(member)].id, task.id,
                                  clusterRoleName(task.role()), task.cluster));
        member = static_cast<int32_t>(i);
        c.firstTaskId = std::min(c.firstTaskId, task.id);
        m_tasks[i].cluster = it->second;
    }
    if (m_clusters.empty()) return;
    if (std::min(arch.count(Param::AicCount), arch.count(Param::AivCount) / 2) < 1)
        taskFault(fmt::format("cluster {} needs an AIC and two AIVs; the chip has {} AIC and {} "
                              "AIV cores",
                              m_clusters.front().id, arch.count(Param::AicCount),
                              arch.count(Param::AivCount)));
    for (const TimedCluster& c : m_clusters) checkCrossPeers(c);
}

void TimedProgram::checkCrossPeers(const TimedCluster& cluster) const {
    for (int32_t member : cluster.members) {
        if (member < 0) continue;
        const TimedTask& task = m_tasks[static_cast<size_t>(member)];
        const Kernel& kernel = m_source->kernels[task.kernel];
        for (size_t i = 0; i < kernel.instrs.size(); ++i) {
            const Instr& in = kernel.instrs[i];
            if (!isCrossFlag(in.opcode)) continue;
            std::string problem;
            if (in.peer == task.role)
                problem = fmt::format("task {} is {} of cluster {} and cannot signal itself",
                                      task.id, clusterRoleName(task.role), cluster.id);
            else if (cluster.members[static_cast<int>(in.peer)] < 0)
                problem =
                    fmt::format("task {} names {}, but cluster {} has no {} task", task.id,
                                clusterRoleName(in.peer), cluster.id, clusterRoleName(in.peer));
            if (!problem.empty())
                throw SimFault(FaultKind::BadInstruction, siteOf(kernel, task.kernel, i), problem);
        }
    }
}

} // namespace pto::sim
