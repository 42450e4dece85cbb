// The lower bound of a compiled program's simulated cycles (driver/TuneBound.h).
#include "driver/TuneBound.h"

#include "compiler/ir/PtoLoops.h"
#include "simulator/engine/CostModel.h"
#include "simulator/engine/TimedProgram.h"

#include <algorithm>
#include <array>
#include <optional>

namespace pto {
namespace {

// Cycles the busiest pipe of `kernel` needs at the least.
double kernelBound(const sim::TimedKernel& kernel, const sim::TimedProgram& timed) {
    std::array<double, kPipeCount> work{};
    for (const sim::TimedInstr& ti : kernel.instrs) {
        if (ti.kind == sim::InstrKind::Fixed) {
            work[static_cast<size_t>(ti.pipe)] += double(ti.cycles);
        } else if (ti.kind == sim::InstrKind::GmDma) {
            const sim::GmTransferCost& cost = timed.gmTransfers()[ti.aux].cost;
            if (cost.cap > 0) work[static_cast<size_t>(ti.pipe)] += cost.bytes / cost.cap;
        }
    }
    return *std::max_element(work.begin(), work.end());
}

} // namespace

int64_t cycleLowerBound(const PtoProgram& program, const sim::ArchConfig& arch) {
    const sim::CostModel costs(arch);
    std::optional<LoopExpansion> loops;
    if (hasInstrLoops(program)) loops = expandInstrLoops(program, int64_t(UINT32_MAX));
    const PtoProgram& flat = loops ? loops->flat : program;
    const sim::TimedProgram timed(flat, arch, costs, &program, loops ? &*loops : nullptr);

    std::vector<double> perKernel;
    for (const sim::TimedKernel& k : timed.kernels()) perKernel.push_back(kernelBound(k, timed));
    double longest = 0, aicWork = 0, aivWork = 0;
    for (const sim::TimedTask& t : timed.tasks()) {
        const double w = perKernel[t.kernel];
        longest = std::max(longest, w);
        (t.core == CoreType::AIC ? aicWork : aivWork) += w;
    }
    const double spread = std::max(aicWork / double(arch.count(sim::Param::AicCount)),
                                   aivWork / double(arch.count(sim::Param::AivCount)));
    return sim::toCycles(std::max(longest, spread), sim::CycleRounding::Down);
}

} // namespace pto
