// The whole lowering, Tensor → Tile → Block → Exec → PTO, in the order of the pass registry
// (compiler/PassRegistry.cpp, the one place the order is written), and loading programs.
#include "compiler/Pipeline.h"

#include "base/RegularFile.h"
#include "compiler/Concurrently.h"
#include "compiler/PassRegistry.h"
#include "compiler/ResourceBudget.h"

#include "compiler/StageRecorder.h"
#include "compiler/ir/Cost.h"
#include "compiler/ir/Parser.h"
#include "compiler/ir/PtoParser.h"
#include "compiler/ir/Verifier.h"
#include "compiler/passes/RowParallel.h"
#include "compiler/passes/UnrollLoops.h"

#include <fmt/format.h>

#include <atomic>
#include <functional>
#include <optional>

namespace pto {

namespace {

// Compiles three copies of `state` without a trace, the q-th after prepare(copy, q), at once on
// the machine's cores (probes are independent and deterministic, so the order they run in
// changes nothing). Returns the first q whose copy does not compile, or -1 with the three PTO
// programs in `probes`. A probe after one that failed is not started: its program is not used.
int64_t compileProbes(const CompileState& state, const CompileOptions& quick,
                      const std::function<void(CompileState&, int64_t)>& prepare,
                      std::vector<PtoProgram>& probes) {
    constexpr int64_t kProbes = 3;
    probes.assign(kProbes, PtoProgram{});
    std::atomic<int64_t> firstFailed{kProbes};
    forEachConcurrently(kProbes, probeThreads(kProbes), [&](int64_t q) {
        if (q > firstFailed.load()) return;
        CompileState probe = state;
        prepare(probe, q);
        try {
            PassManager pm(probe, quick);
            lowerToPto(pm);
        } catch (const std::exception&) {
            for (int64_t seen = firstFailed.load(); q < seen;)
                firstFailed.compare_exchange_weak(seen, q);
            return;
        }
        probes[size_t(q)] = std::move(probe.pto);
    });
    return firstFailed.load() < kProbes ? firstFailed.load() : -1;
}

// Whether `state` may be compiled through a window of its loop's iterations: a Tensor program
// with one long loop of a kind whose lowering repeats, compiled in full (no stop point, no
// planted fault, no observer) with counted loops. IR printed after a pass is what the passes see:
// the window.
const Op* windowCandidate(const CompileState& state, const CompileOptions& options,
                          const PassManagerOptions& pm, bool observed) {
    if (state.kind != StageKind::Tensor || !options.loopWindow || !options.rerollLoops ||
        options.fault.active() || !pm.stopAfter.empty() || observed)
        return nullptr;
    return windowableLoop(state.tensor);
}

// Compiles the program through windows of three sizes one period apart (no trace, no
// observers) and keeps the window when the three PTO programs extend linearly and the stretched
// program passes the static sync check (linear agreement of three probes is evidence, the
// check is the proof that every on-chip hazard stays ordered); nullopt otherwise (or when a
// probe fails: the full compile then reports it), with the reason in state.windowNote.
std::optional<LoopWindow> probeLoopWindow(CompileState& state, const CompileOptions& options,
                                          const Op& loop) {
    LoopWindow w = loopWindowFor(loop);
    CompileOptions quick = options;
    quick.verify = VerifyStages::Off; // the traced compile verifies the window it extends
    std::vector<PtoProgram> probes;
    auto refuse = [&](const std::string& why) {
        state.windowNote = fmt::format("loop \"{}\" ({} iterations) lowered in full: {}",
                                       w.loopName, w.trips, why);
        return std::nullopt;
    };
    const int64_t failed = compileProbes(
        state, quick,
        [&](CompileState& probe, int64_t q) {
            probe.window = w;
            probe.window->windowTrips += q * w.period;
        },
        probes);
    if (failed >= 0)
        return refuse(fmt::format("the window of {} iterations does not compile",
                                  w.windowTrips + failed * w.period));
    const int64_t k = (w.trips - w.windowTrips) / w.period;
    // Over the instruction budget the stretched program is refused now, with the message the
    // traced compile would give: the sync check below walks every round it executes (a loop of
    // 2·10⁹ trips took minutes there before failing the budget).
    if (std::optional<PtoProgram> stretched =
            extrapolateLoopWindow(probes[0], probes[1], probes[2], k))
        checkInstrBudget(*stretched, options.budget, state.file);
    std::string why;
    if (!stretchCheckedLoopWindow(probes[0], probes[1], probes[2], k, why, state.file,
                                  options.target))
        return refuse(fmt::format("{} (windows of {}, {} and {} iterations)", why, w.windowTrips,
                                  w.windowTrips + w.period, w.windowTrips + 2 * w.period));
    state.windowNote = fmt::format("loop \"{}\" ({} iterations) lowered through {} and "
                                   "stretched (sync check passed)",
                                   w.loopName, w.trips, w.windowTrips);
    w.later = {std::move(probes[1]), std::move(probes[2])};
    return w;
}

// Whether the Tensor program may be compiled through a few of its fused clusters: a loop whose
// body has a matmul (fuse-cube-vector's alternating chains), compiled in full with fusion on,
// no loop window, no stop point, fault or observer.
bool clusterCandidate(const CompileState& state, const CompileOptions& options,
                      const PassManagerOptions& pm, bool observed) {
    if (state.kind != StageKind::Tensor || !options.clusterProbe || !options.fuse || state.window ||
        options.fault.active() || !pm.stopAfter.empty() || observed)
        return false;
    for (const Op& op : state.tensor.ops())
        if (op.kind == OpKind::For && op.body.size() == 1)
            for (const Op& inner : op.body.front().ops())
                if (inner.kind == OpKind::Matmul) return true;
    return false;
}

// The probe plan of a row-parallel program with at least options.minProbeClusters clusters:
// its rows, the rows of one cluster (the cube tile's mL1 at the full shapes) and the count;
// nullopt (with the reason in state.clusterNote when the program mixes rows) otherwise.
std::optional<ClusterProbe> planClusterProbe(CompileState& state, const CompileOptions& options) {
    CompileState pre = state;
    CompileOptions quick = options;
    quick.verify = VerifyStages::Off;
    PassManagerOptions upToTiles;
    upToTiles.stopAfter = "dead-code";
    try {
        PassManager pm(pre, quick, upToTiles);
        lowerToPto(pm);
    } catch (const std::exception&) {
        return std::nullopt; // the full compile reports it
    }
    const RowParallel rp = analyzeRowParallel(pre.tensor);
    if (!rp.refusal.empty()) {
        state.clusterNote = "fused clusters compiled in full: " + rp.refusal;
        return std::nullopt;
    }
    pinDefaultTiles(pre.tensor, options.target);
    ClusterProbe plan;
    plan.rows = rp.rows;
    plan.clusterRows = clusterRowsOf(pre.tensor, rp);
    if (plan.clusterRows <= 0 || rp.rows % plan.clusterRows != 0) return std::nullopt;
    plan.clusters = rp.rows / plan.clusterRows;
    if (plan.clusters < std::max(options.minProbeClusters, kProbeClusters + 3)) return std::nullopt;
    return plan;
}

// Compiles the program through kProbeClusters, one and two clusters more (no trace, no
// observers) and keeps the probe when the three replicate to the full program with its checks
// (compiler/passes/ClusterProbe.h); nullopt otherwise, with the reason in state.clusterNote.
std::optional<ClusterProbe> probeClusters(CompileState& state, const CompileOptions& options) {
    std::optional<ClusterProbe> plan = planClusterProbe(state, options);
    if (!plan) return std::nullopt;
    CompileOptions quick = options;
    quick.verify = VerifyStages::Off; // the traced compile verifies the probe it replicates
    auto refuse = [&](const std::string& why) {
        state.clusterNote =
            fmt::format("{} fused clusters compiled in full: {}", plan->clusters, why);
        return std::nullopt;
    };
    std::vector<PtoProgram> probes;
    const int64_t failed = compileProbes(
        state, quick,
        [&](CompileState& probe, int64_t q) {
            probe.clusters = *plan;
            probe.clusters->probeClusters += q;
        },
        probes);
    if (failed >= 0)
        return refuse(
            fmt::format("the probe of {} clusters does not compile", plan->probeClusters + failed));
    std::string why;
    std::optional<PtoProgram> full =
        checkedReplicatedClusters(probes[0], probes[1], probes[2], plan->probeClusters,
                                  plan->clusters, why, state.file, options.target);
    if (!full)
        return refuse(fmt::format("{} (probes of {}, {} and {} clusters)", why, plan->probeClusters,
                                  plan->probeClusters + 1, plan->probeClusters + 2));
    checkInstrBudget(*full, options.budget, state.file);
    state.clusterNote = fmt::format("{} fused clusters compiled through {} and replicated ({} "
                                    "kernels launched by {} tasks; sync check passed)",
                                    plan->clusters, plan->probeClusters, full->kernels.size(),
                                    full->exec.tasks.size());
    plan->later = {std::move(probes[1]), std::move(probes[2])};
    return plan;
}

// A fault whose pass this program skips (a Tile-level program starts after the Tensor→Tile
// passes) is an input error, said before anything is compiled, not a silent clean compile. A
// PTO listing skips every pass; its emit-pto faults are planted into it as loaded.
void checkFaultPassRuns(const CompileState& state, const FaultSpec& fault) {
    if (!fault.active()) return;
    const std::string_view pass = faultPass(fault.kind);
    const PassInfo* info = findPass(pass);
    if (!info || info->from >= state.kind) return;
    if (state.kind == StageKind::Pto && pass == "emit-pto") return;
    throw std::invalid_argument(fmt::format(
        "--fault {}: its pass {} does not run for this program (a Tile-level program or a "
        "PTO listing starts after it)",
        injectedFaultName(fault.kind), pass));
}

} // namespace

bool lowerToPto(PassManager& pm) {
    for (const PassInfo& pass : passRegistry())
        if (!pm.run(pass.name)) return false;
    return true;
}

std::vector<PassTiming> compileProgram(CompileState& state, const CompileOptions& options,
                                       tracedb::TraceWriter* trace,
                                       const PassManagerOptions& pmOptions,
                                       std::span<StageObserver* const> observers,
                                       const RecordLimits& limits, PendingRecording* pending) {
    checkFaultPassRuns(state, options.fault);
    // Observers (bisection) interpret every stage: they need every iteration.
    if (const Op* loop = windowCandidate(state, options, pmOptions, !observers.empty()))
        state.window = probeLoopWindow(state, options, *loop);
    if (clusterCandidate(state, options, pmOptions, !observers.empty()))
        state.clusters = probeClusters(state, options);
    PassManager pm(state, options, pmOptions);
    for (StageObserver* o : observers) pm.addObserver(o);
    PendingRecording recorder;
    if (trace) {
        recordProgramMeta(*trace, state, options);
        // The passes go on while the stages before are inserted (docs/PERFORMANCE.md, issue 17).
        recorder =
            std::make_unique<StageRecorder>(*trace, options.target, limits, RecordThread::Writer);
        pm.addObserver(recorder.get());
    }
    pm.start();
    lowerToPto(pm);
    if (recorder) {
        recorder->stagesDone();
        if (pending)
            *pending = std::move(recorder); // the caller finishes it
        else
            recorder->finish(); // an insert's error is thrown here; the writer is ours again
    }
    // A PTO listing skips every pass; a PTO-level fault is planted into it as loaded.
    if (state.kind == StageKind::Pto && !state.planted && options.fault.active() &&
        faultPass(options.fault.kind) == "emit-pto")
        state.planted = injectFault(state, options.fault);
    return pm.timings();
}

double programFlops(const CompileState& state) {
    // A PTO listing has no Tensor program: the work of the instructions it runs.
    if (state.kind == StageKind::Pto && state.tensor.ops().empty()) return countFlops(state.pto);
    // A probe's Tensor function holds probeClusters of the clusters' rows; the work of the
    // row-parallel program grows with its rows.
    if (state.clusters && !state.clusters->later.empty())
        return countFlops(state.tensor) * double(state.clusters->clusters) /
               double(state.clusters->probeClusters);
    if (!state.window || state.window->later.empty()) return countFlops(state.tensor);
    const LoopWindow& w = *state.window;
    // Every iteration has the same ops (no clipped tail): the window's share is exact.
    const double outside = countFlops(state.tensor, w.loopName, 0.0);
    const double window = countFlops(state.tensor) - outside;
    return outside + window * double(w.trips) / double(w.windowTrips);
}

CompileState loadProgramText(const std::string& text, const std::string& file,
                             const std::string& entry, std::span<const ScalarBind> binds,
                             const ResourceBudget& budget) {
    return loadModule(parseModule(text, file), entry, binds, budget);
}

CompileState loadModule(Module module, const std::string& entry, std::span<const ScalarBind> binds,
                        const ResourceBudget& budget) {
    const std::string& file = module.file;
    const Function* fn = nullptr;
    if (entry.empty()) {
        fn = module.entry();
    } else {
        for (const Function& f : module.functions)
            if (f.name == entry) fn = &f;
    }
    if (!fn) {
        std::string msg = entry.empty() ? std::string("the program defines no function")
                                        : fmt::format("no function named @{}", entry);
        throw CompileError(file, {}, msg);
    }
    CompileState state;
    state.file = module.file;
    state.source = module.source;
    state.tensor = *fn;
    bindScalars(state.tensor, binds, file);
    state.functions = module.functions;
    if (fn->level == Level::Tile) { // hand-written Tile IR: lowering starts at the Tile passes
        // A bound trip count makes the loop checkable for every iteration (the parser could
        // not): its errors name the program's values and the iteration, not unrolled copies.
        if (!binds.empty()) verifyFunction(state.tensor, file);
        state.tile = state.tensor;
        // Its loops are unrolled as it is loaded (the Tile passes see straight-line IR, like
        // a Tensor program's after unroll-loops); state.tensor keeps them as written.
        checkUnrollBudget(state.tile, budget, file); // before anything is copied
        unrollLoops(state.tile, file);
        state.kind = StageKind::Tile;
    }
    return state;
}

CompileState loadPtoListing(const std::string& text, const std::string& file) {
    CompileState state;
    state.file = file;
    state.source = text;
    state.pto = parsePtoProgram(text, file);
    state.kind = StageKind::Pto;
    state.tensor.name = state.pto.name;
    return state;
}

bool isPtoListingPath(const std::string& path) {
    return path.size() > 7 && path.compare(path.size() - 7, 7, ".ptoasm") == 0;
}

std::vector<ProgramInput> programInputs(const CompileState& state) {
    std::vector<ProgramInput> inputs;
    if (state.kind == StageKind::Pto && state.tensor.args.empty()) {
        for (const GmTensor& g : state.pto.gm)
            if (startsAsInput(g.role)) inputs.push_back({g.name, Type{g.dtype, g.shape}});
        return inputs;
    }
    for (ValueId a : state.tensor.args)
        inputs.push_back({state.tensor.value(a).name, state.tensor.type(a)});
    return inputs;
}

std::string readProgramFile(const std::string& path, const ResourceBudget& budget) {
    using Kind = RegularFileError::Kind;
    const bool budgetLimits = budget.maxMemoryBytes < kMaxSourceBytes;
    const int64_t limit = budgetLimits ? budget.maxMemoryBytes : kMaxSourceBytes;
    try {
        return RegularFile(path).readAll(uint64_t(std::max<int64_t>(limit, 0)));
    } catch (const RegularFileError& e) {
        if (e.kind() == Kind::Missing)
            throw CompileError(path, {}, "cannot open: No such file or directory");
        if (e.kind() == Kind::Directory)
            throw CompileError(path, {}, "is a directory, not a program (give a .pto file)");
        if (e.kind() == Kind::NotRegular)
            throw CompileError(
                path, {},
                fmt::format("{}; a program must be a regular .pto or .ptoasm file", e.what()));
        if (e.kind() == Kind::TooLarge)
            throw CompileError(path, {},
                               fmt::format("the program is {} ({})", e.what(),
                                           budgetLimits ? "the --max-memory budget"
                                                        : "the most a source file may have"));
        throw CompileError(path, {}, e.what());
    }
}

CompileState loadProgram(const std::string& path, const std::string& entry,
                         std::span<const ScalarBind> binds, const ResourceBudget& budget) {
    return loadProgramSource(readProgramFile(path, budget), path, entry, binds, budget);
}

CompileState loadProgramSource(const std::string& text, const std::string& path,
                               const std::string& entry, std::span<const ScalarBind> binds,
                               const ResourceBudget& budget) {
    if (isPtoListingPath(path)) {
        if (!binds.empty())
            throw CompileError(path, {},
                               "--bind gives numbers to a .pto program's index "
                               "arguments; a PTO listing has none");
        return loadPtoListing(text, path);
    }
    return loadProgramText(text, path, entry, binds, budget);
}

} // namespace pto
