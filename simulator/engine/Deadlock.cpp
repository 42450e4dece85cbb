// Describes a deadlock: each blocked pipe with its instruction, wait and provenance, and the
// cycle of waits found by following who would release whom.
#include "simulator/engine/Deadlock.h"

#include <fmt/format.h>

namespace pto::sim {
namespace {

// The first cycle reached by following releasedBy from each pipe in turn.
std::vector<int> findCycle(const std::vector<BlockedPipe>& blocked) {
    const int n = static_cast<int>(blocked.size());
    for (int start = 0; start < n; ++start) {
        std::vector<int> stepOf(n, -1);
        std::vector<int> path;
        for (int at = start; at >= 0 && at < n; at = blocked[at].releasedBy) {
            if (stepOf[at] >= 0) return {path.begin() + stepOf[at], path.end()};
            stepOf[at] = static_cast<int>(path.size());
            path.push_back(at);
        }
    }
    return {};
}

std::string describe(const BlockedPipe& b, const std::string& sourceFile) {
    std::string text = fmt::format("{} at instruction {} ({}) of kernel {}, waiting for {} since "
                                   "cycle {}",
                                   pipeLabel(b.coreType, b.core, b.pipe), b.instrIndex,
                                   opcodeName(b.opcode), b.kernel, b.waitsFor, b.since);
    if (b.tileOp != kNoId) text += fmt::format(", tile op #{}", b.tileOp);
    if (b.loc.known())
        text += fmt::format(", {}{}:{}", sourceFile.empty() ? "line " : sourceFile + ":",
                            b.loc.line, b.loc.col);
    if (b.releasedBy < 0 && !b.unreleased.empty())
        text += b.unreleased;
    else if (b.releasedBy < 0)
        text += b.opcode == Opcode::WaitFlag
                    ? ": no SET_FLAG of this flag remains on the core (missing set_flag)"
                    : ": nothing remains that could release it";
    return text;
}

FaultSite siteOf(const std::vector<BlockedPipe>& blocked, int64_t cycle) {
    FaultSite site;
    site.cycle = cycle;
    if (blocked.empty()) return site;
    const BlockedPipe& b = blocked.front();
    site.coreType = b.coreType;
    site.core = b.core;
    site.pipe = b.pipe;
    site.kernel = b.kernel;
    site.instrIndex = b.instrIndex;
    site.opcode = b.opcode;
    site.tileOp = b.tileOp;
    site.loc = b.loc;
    return site;
}

std::string detailOf(const std::vector<BlockedPipe>& blocked, const std::vector<int>& cycle,
                     size_t tasksNotStarted, const std::string& sourceFile) {
    std::string text = fmt::format("no progress possible; {} pipe(s) blocked", blocked.size());
    if (tasksNotStarted > 0) text += fmt::format(", {} task(s) never started", tasksNotStarted);
    for (const BlockedPipe& b : blocked) text += "\n  " + describe(b, sourceFile);
    if (!cycle.empty()) {
        text += "\n  cycle of waits: ";
        for (int i : cycle)
            text += fmt::format("{} ({} {}) -> ",
                                pipeLabel(blocked[i].coreType, blocked[i].core, blocked[i].pipe),
                                opcodeName(blocked[i].opcode), blocked[i].waitsFor);
        const BlockedPipe& first = blocked[cycle.front()];
        text += pipeLabel(first.coreType, first.core, first.pipe);
    }
    return text;
}

} // namespace

std::string pipeLabel(CoreType coreType, int core, Pipe pipe) {
    return fmt::format("{} {} pipe {}", coreDisplayName(coreType), core, pipeName(pipe));
}

DeadlockFault::DeadlockFault(std::vector<BlockedPipe> blocked, int64_t cycle,
                             size_t tasksNotStarted, const std::string& sourceFile)
    : SimFault(FaultKind::Deadlock, siteOf(blocked, cycle),
               detailOf(blocked, findCycle(blocked), tasksNotStarted, sourceFile)),
      m_blocked(std::move(blocked)), m_cycle(findCycle(m_blocked)) {
    if (!sourceFile.empty()) setFile(sourceFile);
}

} // namespace pto::sim
