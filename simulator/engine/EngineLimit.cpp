// The safety bound of a run (SimOptions::maxCycles): SimLimitExceeded, naming the instruction
// and the arch parameters when one event alone lies past the bound (a cost or rate too large).
#include "simulator/engine/Engine.h"

#include <fmt/format.h>

namespace pto::sim {
namespace {

// "1234 cycles", or "2^61 cycles or more" for a duration that saturated (toCycles).
std::string cyclesText(int64_t cycles) {
    return cycles >= kCyclesCeiling ? std::string("2^61 cycles or more")
                                    : fmt::format("{} cycles", cycles);
}

} // namespace

void Engine::throwLimit(const Event& e) const {
    const std::string when = e.time >= kCyclesCeiling
                                 ? fmt::format("at cycle {} or later", kCyclesCeiling)
                                 : fmt::format("at cycle {}", e.time);
    std::string message = fmt::format(
        "simulation stopped {}: past the safety bound maxCycles = {} with {} of {} tasks done",
        when, m_options.maxCycles, m_tasksDone, m_program.tasks().size());
    if (std::string cause = limitCause(e); !cause.empty()) message += "; " + cause;
    throw SimLimitExceeded(message);
}

// What alone takes longer than the bound, or "" when the run simply went on too long.
std::string Engine::limitCause(const Event& e) const {
    const uint32_t target = e.target();
    switch (e.kind()) {
    case EventKind::PipeDone:
    case EventKind::DmaStream: {
        const CoreState& core = m_cores[target / kPipeCount];
        const auto pipe = static_cast<Pipe>(target % kPipeCount);
        const PipeState& ps = core.pipes[static_cast<int>(pipe)];
        if (!core.kernel || e.time - ps.startedAt <= m_bound) return {};
        const uint32_t index = ps.instrs[ps.pos].index;
        const Instr& in = core.source->instrs[index];
        const bool latency = e.kind() == EventKind::DmaStream;
        return fmt::format("{} on {} {} pipe {} (kernel {} instr {}) {} {}, more than "
                           "maxCycles: check {}",
                           opcodeName(in.opcode), coreDisplayName(core.type), core.index,
                           pipeName(pipe), m_program.tasks()[core.task].kernel, index,
                           latency ? "waits its latency for" : "lasts",
                           cyclesText(e.time - ps.startedAt),
                           latency ? "hbm.latency and l2.latency" : durationParams(in));
    }
    case EventKind::TaskStart:
        if (m_dispatchCost <= m_bound) return {};
        return fmt::format("dispatching a task takes {}, more than maxCycles: check "
                           "sched.dispatch_cost",
                           cyclesText(m_dispatchCost));
    case EventKind::BandwidthDone:
        if (e.time - m_now <= m_bound) return {};
        return fmt::format("the GM transfers streaming through {} still need {}, more than "
                           "maxCycles: check {} and the dma.*.rate of their paths",
                           (target & 1u) ? "L2" : "HBM", cyclesText(e.time - m_now),
                           (target & 1u) ? "l2.bandwidth" : "hbm.bandwidth");
    }
    return {};
}

} // namespace pto::sim
