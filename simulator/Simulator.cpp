// simulate(): wires the program preparation, functional executor, timing engine and trace
// emitter together for one run.
#include "simulator/Simulator.h"

#include "simulator/engine/Engine.h"
#include "simulator/numerics/Executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace pto::sim {
namespace {

// Hands each completed instruction to the functional executor.
class ExecutorSink final : public InstrSink {
public:
    explicit ExecutorSink(FunctionalExecutor& executor) : m_executor(executor) {}
    void execute(int coreId, CoreType core, const Instr& instr,
                 std::span<const GmRebase> rebases) override {
        m_executor.execute(coreId, core, instr, rebases);
    }

private:
    FunctionalExecutor& m_executor;
};

TraceSetup traceSetup(const PtoProgram& program, const ArchConfig& arch,
                      const SimOptions& options) {
    TraceSetup setup;
    setup.level = options.traceLevel;
    setup.clockHz = arch.clockHz();
    setup.aicCores = static_cast<int>(arch.count(Param::AicCount));
    setup.aivCores = static_cast<int>(arch.count(Param::AivCount));
    setup.archName = arch.name();
    setup.archJson = archJson(arch);
    setup.programName = program.name;
    for (const Task& t : program.exec.tasks)
        setup.clusters = setup.clusters || t.cluster != kNoCluster;
    return setup;
}

std::vector<std::string> warningTexts(const SimResult& result) {
    std::vector<std::string> texts;
    for (const SimWarning& w : result.warnings)
        texts.push_back(fmt::format("{} {} (kernel {}, cycle {}): {}",
                                    coreDisplayName(w.site.coreType), w.site.core, w.site.kernel,
                                    w.site.cycle, w.message));
    return texts;
}

} // namespace

// --trace none records no rows, but how long the run took still belongs in meta.
void recordUntracedRun(tracedb::TraceWriter& trace, const ArchConfig& arch,
                       std::int64_t totalCycles) {
    trace.setMeta("trace_level", traceLevelName(TraceLevel::None));
    trace.setMeta("sim_total_cycles", std::to_string(totalCycles));
    trace.setMeta("clock_hz", fmt::format("{}", arch.clockHz()));
}

const CoreStats& SimResult::core(CoreType type, int index) const {
    for (const CoreStats& c : cores)
        if (c.type == type && c.core == index) return c;
    throw std::out_of_range("SimResult::core: no such core");
}

SimResult simulate(const PtoProgram& program, const ArchConfig& arch,
                   std::span<const TensorData> inputs, const SimOptions& options,
                   tracedb::TraceWriter* trace) {
    validateArch(arch);
    const CostModel costs(arch);
    // Counted loops run written out; the trace keeps the program's own instruction ids.
    std::optional<LoopExpansion> loops;
    if (hasInstrLoops(program)) loops = expandInstrLoops(program, int64_t(UINT32_MAX));
    const PtoProgram& flat = loops ? loops->flat : program;
    const TimedProgram timed(flat, arch, costs, &program, loops ? &*loops : nullptr);
    const TargetInfo target = toTargetInfo(arch);

    std::optional<GlobalMemory> gm;
    std::optional<FunctionalExecutor> executor;
    std::optional<ExecutorSink> sink;
    if (!options.timingOnly) {
        gm.emplace(flat, inputs);
        executor.emplace(flat, target, *gm,
                         ExecOptions{options.checkUninitialized, options.sourceFile});
        sink.emplace(*executor);
    }
    std::optional<TraceEmitter> emitter;
    if (trace && options.traceLevel != TraceLevel::None)
        emitter.emplace(*trace, traceSetup(program, arch, options));

    Engine engine(timed, arch, costs, options, sink ? &*sink : nullptr,
                  emitter ? &*emitter : nullptr);
    SimResult result;
    try {
        result = engine.run();
    } catch (const SimFault& fault) {
        if (emitter)
            emitter->finishAfterFault(fault.site().cycle, fault.what());
        else if (trace)
            try {
                recordUntracedRun(*trace, arch, std::max<std::int64_t>(fault.site().cycle, 0));
            } catch (...) {
                // The writer is unusable; the fault itself is still thrown below.
            }
        throw;
    }
    if (emitter) {
        emitter->finish(result.totalCycles.count(), warningTexts(result));
        result.traceRows = emitter->rows();
    } else if (trace) {
        recordUntracedRun(*trace, arch, result.totalCycles.count());
    }
    if (gm) result.outputs = gm->outputs();
    return result;
}

} // namespace pto::sim
