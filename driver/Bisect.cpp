// Bisection driver: compile with per-pass snapshots, evaluate every stage and the simulator,
// compare (StageCompare.h), write the trace and the report.
#include "driver/Bisect.h"

#include "compiler/StageRecorder.h"
#include "compiler/interp/TileInterpreter.h"
#include "compiler/ir/PtoLoops.h"
#include "driver/KernelCompare.h"
#include "driver/Session.h"
#include "driver/StageCompare.h"
#include "simulator/Simulator.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"
#include "validate/DriftChain.h"
#include "validate/GoldenDiff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <regex>
#include <tuple>
#include <unordered_map>

namespace pto {
namespace {

struct Snapshot {
    int ordinal = 0;
    std::string pass;
    StageKind kind = StageKind::Tensor;
    std::optional<Function> fn; // Tensor and Tile stages
    // The module's functions, for the calls of a Tensor stage before inline-calls.
    std::shared_ptr<const std::vector<Function>> functions;
};

class SnapshotRecorder : public StageObserver {
public:
    void onStage(const StageEvent& e) override {
        Snapshot s{e.ordinal, std::string(e.pass), e.kind, std::nullopt, nullptr};
        if (e.kind == StageKind::Tensor) s.fn = e.state.tensor;
        if (!m_functions) m_functions = std::make_shared<std::vector<Function>>(e.state.functions);
        s.functions = m_functions;
        if (e.kind == StageKind::Tile) s.fn = e.state.tile;
        snapshots.push_back(std::move(s));
    }
    std::vector<Snapshot> snapshots;

private:
    std::shared_ptr<const std::vector<Function>> m_functions;
};

std::string levelOf(StageKind k) {
    return std::string(stageKindName(k));
}

// Evaluates `fn` (Tensor or Tile) or records why it could not be.
std::optional<EvalResult> evaluate(const Snapshot& s, std::span<const TensorData> inputs,
                                   StageResult& out) {
    try {
        EvalResult r = s.kind == StageKind::Tensor
                           ? evaluateTensor(*s.fn, inputs, true,
                                            s.functions ? std::span<const Function>(*s.functions)
                                                        : std::span<const Function>())
                           : evaluateTile(*s.fn, inputs, true);
        out.evaluated = true;
        return r;
    } catch (const CompileError& e) {
        out.note =
            fmt::format("the {} interpreter rejects this stage: {}", levelOf(s.kind), e.message());
        out.failed = 1;
        return std::nullopt;
    }
}

// The simulated program with its workspaces returned as outputs (they start zeroed either way).
PtoProgram withWorkspacesAsOutputs(const PtoProgram& p) {
    PtoProgram q = p;
    for (GmTensor& t : q.gm)
        if (t.role == GmRole::Workspace) t.role = GmRole::Output;
    return q;
}

// GM contents by GM index: the inputs, then whatever the run returned by name.
std::vector<TensorData> gmContents(const PtoProgram& p, std::span<const TensorData> inputs,
                                   const sim::SimResult& sim) {
    std::vector<TensorData> gm(p.gm.size());
    std::unordered_map<std::string, const TensorData*> byName;
    for (const auto& [name, t] : sim.outputs) byName[name] = &t;
    size_t nextInput = 0;
    for (size_t i = 0; i < p.gm.size(); ++i) {
        // An inout tensor's data was given, but what the stage is judged by is its final state.
        const bool given = startsAsInput(p.gm[i].role) && nextInput < inputs.size();
        if (given) ++nextInput;
        if (auto it = byName.find(p.gm[i].name); endsAsOutput(p.gm[i].role) && it != byName.end())
            gm[i] = *it->second;
        else if (given)
            gm[i] = inputs[nextInput - 1];
    }
    return gm;
}

struct SimRun {
    sim::SimResult result;
    std::vector<TensorData> gm;
    std::string fault;
    FaultSite site;
};

SimRun simulateProgram(const CompileState& state, const sim::ArchConfig& arch,
                       std::span<const TensorData> inputs, const BisectOptions& o,
                       tracedb::TraceWriter* writer) {
    SimRun run;
    sim::SimOptions so;
    so.sourceFile = o.program;
    so.traceLevel = writer ? sim::TraceLevel::Instructions : sim::TraceLevel::None;
    const PtoProgram program = withWorkspacesAsOutputs(state.pto);
    try {
        run.result = sim::simulate(program, arch, inputs, so, writer);
        run.gm = gmContents(program, inputs, run.result);
    } catch (const SimFault& f) {
        run.fault = f.what();
        run.site = f.site();
        if (writer) writer->setMeta("sim_fault", run.fault);
    }
    return run;
}

// The tile op a fault concerns: its site's, that of the instruction it names, or — for a race
// between two accesses — the one that reads (the consumer that ran too early).
OpId faultTileOp(const CompileState& state, const SimRun& run) {
    const FaultSite& site = run.site;
    if (site.tileOp != kNoId) return site.tileOp;
    if (site.kernel >= 0 && size_t(site.kernel) < state.pto.kernels.size() &&
        site.instrIndex >= 0) {
        // The site counts executed instructions: a counted loop's rounds are written out.
        const Kernel& k = state.pto.kernels[size_t(site.kernel)];
        const int64_t index = writtenIndexOf(k, site.instrIndex);
        if (index >= 0) return k.instrs[size_t(index)].tileOp;
    }
    static const std::regex reader(R"(tile op #(\d+)[^()]*\) reads)");
    static const std::regex any(R"(tile op #(\d+))");
    std::smatch m;
    if (std::regex_search(run.fault, m, reader) || std::regex_search(run.fault, m, any))
        return OpId(std::stoul(m[1].str()));
    return kNoId;
}

void simFaultDivergence(const CompileState& state, const SimRun& run, StageResult& out) {
    Divergence d;
    d.reason = "the simulator faulted: " + run.fault;
    d.coreType = run.site.coreType;
    d.core = run.site.core;
    d.loc = run.site.loc;
    const Function& tile = state.block.tile;
    const OpId faultOp = faultTileOp(state, run);
    if (faultOp != kNoId && faultOp < tile.ops().size()) {
        const Op& op = tile.op(faultOp);
        d.op = op.id;
        d.mnemonic = std::string(opName(op.kind));
        if (op.result != kNoId) {
            d.value = "%" + std::string(NameTable(tile)[op.result]);
            const Value& v = tile.value(op.result);
            d.offset.assign(v.offset.begin(), v.offset.end());
        }
        d.loc = op.loc;
        if (op.id < state.block.blockOfOp.size()) d.block = state.block.blockOfOp[op.id];
        for (const Task& t : state.exec.tasks)
            if (t.block == d.block && d.task < 0) d.task = int(t.id);
        if (op.result != kNoId) {
            const Value& v = tile.value(op.result);
            const Op* p =
                v.origin < state.tensor.valueCount() ? state.tensor.producer(v.origin) : nullptr;
            if (p)
                d.tensorOp = fmt::format("%{} = {} (line {}:{})", NameTable(state.tensor)[v.origin],
                                         opName(p->kind), p->loc.line, p->loc.col);
        }
    }
    out.failed = 1;
    out.note = run.fault;
    out.first = d;
    out.tiles = {d};
    out.tilesFailed = 1;
}

// A function with the values it evaluated to (by ValueId; empty when not at hand).
struct Evaluated {
    const Function& fn;
    std::span<const TensorData> values;
};

// Outputs by the names `ref` (the program as written) returns them under; the tolerance of each
// from `lowered` (loops unrolled, calls inlined), whose chains show every accumulation an output
// derives from — a loop's result has only the loop as its producer in `ref` — and whose values
// show where an exp or a softmax amplifies an inherited drift (DriftChain.h).
// The float dtypes `f` holds values in (its loops' bodies too): the precisions a sum of the
// program may have been kept in, which the diagnosis weighs an output's error against.
std::vector<DType> floatDTypesOf(const Function& f) {
    std::vector<DType> out;
    auto add = [&](DType d) {
        if (isFloatType(d) && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    };
    for (size_t v = 0; v < f.valueCount(); ++v) add(f.type(ValueId(v)).dtype);
    for (const Op& op : f.ops())
        for (const Function& body : op.body)
            for (DType d : floatDTypesOf(body)) add(d);
    return out;
}

void compareOutputs(const Function& ref, Evaluated lowered, const EvalResult& refValues,
                    const sim::SimResult& sim, const ComparePolicy& pol, BisectReport& report) {
    std::vector<TensorComparison>& out = report.outputs;
    // An output may carry the order drift of every accumulation it derives from (DriftChain.h):
    // no status says whether it did, so one whose inputs may drift is judged as drifted.
    const bool sameResults = lowered.fn.results.size() == ref.results.size();
    const Evaluated tol = sameResults ? lowered : Evaluated{ref, refValues.values};
    // Values of another function (a stage whose evaluation failed) would amplify by the wrong ops.
    const bool valuesFit = tol.values.size() == tol.fn.valueCount();
    const std::vector<int64_t> chain =
        propagatedAccumulation(tol.fn, valuesFit ? tol.values : std::span<const TensorData>());
    const NameTable names(ref);
    const std::vector<DType> dtypes = floatDTypesOf(ref);
    for (size_t i = 0; i < ref.results.size() && i < refValues.outputs.size(); ++i) {
        std::string name(names[ref.results[i]]);
        const TensorData* got = nullptr;
        for (const auto& [n, t] : sim.outputs)
            if (n == name) got = &t;
        // Outputs are declared in the order they are returned: a name the lowering made unique
        // differently (a returned input is out<i>) still finds its output, and is reported by
        // the name `pto run --outputs` gives its file.
        if (!got && sim.outputs.size() == ref.results.size()) {
            name = sim.outputs[i].first;
            got = &sim.outputs[i].second;
        }
        if (!got) continue;
        const ValueId v = tol.fn.results[i];
        ComparePolicy p = pol;
        p.programDTypes = dtypes;
        if (const Op* op = tol.fn.producer(v)) {
            p.cls = toleranceClassOf(op->kind);
            p.k = accumulationLength(tol.fn, *op);
        }
        if (inputsMayDrift(tol.fn, v, chain))
            std::tie(p.cls, p.k) = driftedTolerance(tol.fn, v, chain);
        out.push_back(compareTensors(name, *got, refValues.outputs[i], p));
        report.diagnoses.push_back(
            diagnoseComparison(out.back(), *got, refValues.outputs[i], p, nullptr));
    }
}

// --- trace ---------------------------------------------------------------------------------

nlohmann::json divergenceJson(const Divergence& d) {
    nlohmann::json j{
        {"op", d.op == UINT32_MAX ? nlohmann::json() : nlohmann::json(d.op)},
        {"mnemonic", d.mnemonic},
        {"value", d.value},
        {"line", d.loc.line},
        {"col", d.loc.col},
        {"tensor_op", d.tensorOp},
        {"offset", d.offset},
        {"shape", d.shape},
        {"reason", d.reason},
        {"introduced", d.introduced},
        {"tolerance",
         {{"rtol", d.tolerance.rtol}, {"atol", d.tolerance.atol}, {"source", d.tolerance.source}}}};
    if (d.block != UINT32_MAX) j["block"] = d.block;
    if (d.task >= 0) j["task"] = d.task;
    if (d.core >= 0) j["core"] = fmt::format("{}{}", coreTypeName(d.coreType), d.core);
    return j;
}

std::vector<tracedb::DiffRow> diffRows(const BisectReport& r, int64_t lastTileStage) {
    std::vector<tracedb::DiffRow> rows;
    for (size_t i = 0; i < r.outputs.size(); ++i) {
        nlohmann::json detail = {{"stage", "simulator"}};
        if (i < r.diagnoses.size()) detail["diagnosis"] = diagnosisJson(r.diagnoses[i]);
        rows.push_back(tensorDiffRow(r.outputs[i], std::nullopt, std::nullopt, detail));
    }
    for (const StageResult& s : r.stages) {
        if (!s.first) continue;
        const bool sim = s.pass == "simulator";
        const std::optional<int64_t> stage =
            sim ? std::optional<int64_t>(lastTileStage) : s.traceStageId;
        auto row = [&](tracedb::DiffKind kind, const Divergence& d, std::string verdict) {
            tracedb::DiffRow x;
            x.kind = kind;
            x.name = d.value.empty() ? d.mnemonic : d.value;
            x.stageId = stage;
            if (d.op != UINT32_MAX) x.nodeId = d.op;
            x.verdict = std::move(verdict);
            x.metrics = metricsJson(d.metrics).dump();
            nlohmann::json detail = divergenceJson(d);
            detail["stage"] = s.pass;
            detail["stage_ordinal"] = s.ordinal;
            x.detail = detail.dump();
            rows.push_back(x);
        };
        const bool firstStage = r.firstDiverging && &r.stages[*r.firstDiverging] == &s;
        row(firstStage ? tracedb::DiffKind::Bisect : tracedb::DiffKind::Op, *s.first,
            firstStage ? "first_divergence" : "fail");
        if (firstStage)
            for (const Divergence& d : s.tiles) row(tracedb::DiffKind::Tile, d, "fail");
    }
    return rows;
}

void attachStageIds(BisectReport& r, const std::string& trace, int64_t& lastTileStage) {
    tracedb::TraceReader reader = tracedb::TraceReader::open(trace);
    std::unordered_map<int64_t, int64_t> idOfOrd;
    for (const tracedb::StageRow& s : reader.stages()) {
        idOfOrd[s.ord] = s.id;
        if (s.level == tracedb::StageLevel::Tile) lastTileStage = s.id;
    }
    for (StageResult& s : r.stages)
        if (auto it = idOfOrd.find(s.ordinal); it != idOfOrd.end() && s.pass != "simulator")
            s.traceStageId = it->second;
}

// --- evaluation of the stages --------------------------------------------------------------

// The values the simulator stage and the outputs are judged against.
struct StageValues {
    EvalResult reference;  // the program as written (the first Tensor stage, or the parsed kernel)
    EvalResult lastTensor; // the last Tensor stage
    EvalResult unrolled;   // the stage after unroll-loops, by the ValueIds of its snapshot
};

void evaluateStages(const std::vector<Snapshot>& snaps, std::span<const TensorData> inputs,
                    const BisectOptions& o, BisectReport& report, StageValues& values) {
    EvalResult& reference = values.reference;
    EvalResult& lastTensorValues = values.lastTensor;
    const Function* ref = nullptr;
    const Function* lastTensor = nullptr;
    std::vector<OpId> roots;
    for (const Snapshot& s : snaps) {
        StageResult out;
        out.ordinal = s.ordinal;
        out.pass = s.pass;
        out.level = levelOf(s.kind);
        if (!s.fn) {
            out.note = "nothing to evaluate at this level (the simulator checks it)";
            report.stages.push_back(std::move(out));
            continue;
        }
        std::optional<EvalResult> got = evaluate(s, inputs, out);
        if (s.kind == StageKind::Tensor) {
            if (!ref) {
                if (!got) throw CompileError(o.program, {}, out.note);
                ref = &*s.fn;
                reference = *got;
                roots.resize(ref->ops().size());
                for (OpId i = 0; i < roots.size(); ++i) roots[i] = i;
                out.note = "the reference";
            } else {
                roots = chainRoots(*s.fn, roots);
                if (got)
                    compareTensorStage(*s.fn, roots, *got, *ref, reference, o.policy,
                                       o.maxTilesListed, out);
            }
            lastTensor = &*s.fn;
            if (got && s.pass == "unroll-loops") values.unrolled = *got;
            if (got) lastTensorValues = std::move(*got);
        } else if (got && lastTensor) {
            compareTileStage(*s.fn, *got, *lastTensor, lastTensorValues, o.policy, o.maxTilesListed,
                             out);
        } else if (!ref && !lastTensor) {
            // A Tile-level program: the parsed kernel is the reference, judged by what it stores.
            if (!got) throw CompileError(o.program, {}, out.note);
            ref = &*s.fn;
            reference = *got;
            out.note = "the reference";
        } else if (got && !lastTensor) {
            compareKernelStage(*s.fn, *got, *ref, reference, o.policy, out);
        }
        report.stages.push_back(std::move(out));
    }
}

void findFirstDivergence(BisectReport& r) {
    for (size_t i = 0; i < r.stages.size(); ++i)
        if (r.stages[i].failed > 0) {
            r.firstDiverging = i;
            return;
        }
}

std::string coreText(const Divergence& d) {
    if (d.core < 0) return "-";
    return fmt::format("{}{}", coreTypeName(d.coreType), d.core);
}

} // namespace

BisectReport bisectProgram(const BisectOptions& o) {
    const sim::ArchConfig arch = loadArchConfig(o.archFile, o.archOverrides);
    CompileState state = loadProgram(o.program, o.entry, o.binds, o.budget);
    RunOptions ro;
    ro.inputFiles = o.inputFiles;
    ro.seed = o.seed;
    ro.compile.budget = o.budget;
    const std::vector<TensorData> inputs = prepareInputs(state, ro);

    CompileOptions compile;
    compile.target = sim::toTargetInfo(arch);
    compile.fault = o.fault;
    compile.budget = o.budget;
    std::optional<tracedb::TraceWriter> writer;
    if (!o.tracePath.empty()) writer.emplace(tracedb::TraceWriter::create(o.tracePath));
    SnapshotRecorder snaps;
    StageObserver* observers[] = {&snaps};
    compileProgram(state, compile, writer ? &*writer : nullptr, {}, observers);
    if (writer) recordArchMeta(*writer, arch, "pto diff --bisect");
    checkRunBudget(state, o.budget, true); // the stages' values and the GM image

    BisectReport report;
    report.program = o.program;
    report.planted = state.planted;
    StageValues values;
    evaluateStages(snaps.snapshots, inputs, o, report, values);
    const EvalResult& reference = values.reference;

    StageResult simStage;
    simStage.ordinal = int(snaps.snapshots.size());
    simStage.pass = "simulator";
    simStage.level = "simulator";
    SimRun run = simulateProgram(state, arch, inputs, o, writer ? &*writer : nullptr);
    if (!run.fault.empty()) {
        simFaultDivergence(state, run, simStage);
    } else {
        simStage.evaluated = true;
        compareSimulatorStage(state, run.gm, run.result, values.lastTensor, o.policy,
                              o.maxTilesListed, simStage);
        // Outputs' chains from the stage after unroll-loops: loops unrolled and calls inlined, the
        // composites not yet decomposed (their own rounding is in DriftChain's rules).
        const Function* lowered = &state.tensor;
        const EvalResult* loweredValues = &values.lastTensor;
        for (const Snapshot& snap : snaps.snapshots)
            if (snap.pass == "unroll-loops" && snap.fn) {
                lowered = &*snap.fn;
                loweredValues = &values.unrolled;
            }
        compareOutputs(*snaps.snapshots.front().fn, {*lowered, loweredValues->values}, reference,
                       run.result, o.policy, report);
        if (snaps.snapshots.front().kind == StageKind::Tile)
            compareKernelOutputs(*snaps.snapshots.front().fn, reference, run.result, o.policy,
                                 simStage, report);
    }
    report.stages.push_back(std::move(simStage));
    findFirstDivergence(report);

    if (writer) {
        storeRunTensors(*writer, state, inputs, run.result);
        writer->commit();
        int64_t lastTileStage = 0;
        attachStageIds(report, o.tracePath, lastTileStage);
        const std::vector<tracedb::DiffRow> rows = diffRows(report, lastTileStage);
        storeDiffRows(o.tracePath, rows);
        report.tracePath = o.tracePath;
    }
    return report;
}

nlohmann::json bisectJson(const BisectReport& r) {
    nlohmann::json stages = nlohmann::json::array();
    for (const StageResult& s : r.stages) {
        nlohmann::json j{{"ordinal", s.ordinal},     {"pass", s.pass},
                         {"level", s.level},         {"evaluated", s.evaluated},
                         {"compared", s.compared},   {"exact", s.exact},
                         {"drift", s.drift},         {"failed", s.failed},
                         {"inherited", s.inherited}, {"note", s.note}};
        if (s.first) j["first"] = divergenceJson(*s.first);
        nlohmann::json tiles = nlohmann::json::array();
        for (const Divergence& d : s.tiles) tiles.push_back(divergenceJson(d));
        j["tiles"] = tiles;
        j["tiles_failed"] = s.tilesFailed;
        if (s.traceStageId) j["stage_id"] = *s.traceStageId;
        stages.push_back(j);
    }
    nlohmann::json j{{"program", r.program}, {"passed", r.passed()}, {"stages", stages}};
    if (r.firstDiverging) {
        const StageResult& s = r.stages[*r.firstDiverging];
        j["first_divergence"] = {{"stage", s.pass},
                                 {"level", s.level},
                                 {"ordinal", s.ordinal},
                                 {"after", s.pass == "simulator" && *r.firstDiverging > 0
                                               ? r.stages[*r.firstDiverging - 1].pass
                                               : s.pass}};
    }
    if (r.planted)
        j["planted"] = {{"kind", std::string(injectedFaultName(r.planted->spec.kind))},
                        {"index", r.planted->spec.index},
                        {"pass", r.planted->pass},
                        {"tile_op", r.planted->tileOp},
                        {"description", r.planted->description}};
    nlohmann::json outs = nlohmann::json::array();
    for (size_t i = 0; i < r.outputs.size(); ++i) {
        outs.push_back(comparisonJson(r.outputs[i]));
        if (i < r.diagnoses.size()) outs.back()["diagnosis"] = diagnosisJson(r.diagnoses[i]);
    }
    j["outputs"] = outs;
    if (!r.tracePath.empty()) j["trace"] = r.tracePath;
    return j;
}

std::string formatBisect(const BisectReport& r) {
    std::string s = fmt::format("bisect {}\n", r.program);
    if (r.planted)
        s += fmt::format("planted fault: {}:{} after {}: {}\n",
                         injectedFaultName(r.planted->spec.kind), r.planted->spec.index,
                         r.planted->pass, r.planted->description);
    s += fmt::format("  {:>3}  {:<22} {:<9} {:>8} {:>7} {:>7} {:>6} {:>6}  {}\n", "#", "stage",
                     "level", "compared", "exact", "drift", "fail", "inh.", "first divergence");
    for (const StageResult& st : r.stages) {
        std::string first = st.first
                                ? fmt::format("{} {} ({}:{})", st.first->mnemonic, st.first->value,
                                              st.first->loc.line, st.first->loc.col)
                            : st.evaluated ? std::string("-")
                                           : st.note;
        s += fmt::format("  {:>3}  {:<22} {:<9} {:>8} {:>7} {:>7} {:>6} {:>6}  {}\n", st.ordinal,
                         st.pass, st.level, st.compared, st.exact, st.drift, st.failed,
                         st.inherited, first);
    }
    if (!r.firstDiverging) {
        s += "PASS: every stage agrees with the reference within tolerance\n";
    } else {
        const size_t i = *r.firstDiverging;
        const StageResult& st = r.stages[i];
        const bool sim = st.pass == "simulator";
        s += sim ? fmt::format("first diverges in: simulator (after {})\n",
                               i > 0 ? r.stages[i - 1].pass : "emit-pto")
                 : fmt::format("first diverges in: {} ({} level, stage {})\n", st.pass, st.level,
                               st.ordinal);
        if (sim && r.stages.size() > 1)
            s += "  (the Tile interpreter agrees after every Tile pass: the defect is in a Block, "
                 "Exec or PTO pass, or the simulator)\n";
        if (st.first) {
            const Divergence& d = *st.first;
            if (d.op == UINT32_MAX)
                s += "  op: unknown (the fault names no instruction)\n";
            else
                s += fmt::format("  op: {} = {} (tile op #{}, line {}:{}), from {}\n", d.value,
                                 d.mnemonic, d.op, d.loc.line, d.loc.col,
                                 d.tensorOp.empty() ? "?" : d.tensorOp);
            s += fmt::format("  {} error: {}\n", d.introduced ? "introduced" : "inherited",
                             d.reason);
        }
        if (!st.tiles.empty()) {
            s += fmt::format("  diverging tiles of that op: {} (listing {})\n", st.tilesFailed,
                             st.tiles.size());
            s += fmt::format("    {:<18} {:<12} {:>12} {:>10} {:>9} {:>6} {:>6} {:>7}\n", "offset",
                             "shape", "max_abs", "differ", "block", "task", "core", "origin");
            for (const Divergence& d : st.tiles)
                s += fmt::format("    {:<18} {:<12} {:>12.6g} {:>10} {:>9} {:>6} {:>6} {:>7}\n",
                                 fmt::format("[{}]", fmt::join(d.offset, ", ")),
                                 fmt::format("{}", fmt::join(d.shape, "x")), d.metrics.maxAbs,
                                 d.metrics.unequal,
                                 d.block == UINT32_MAX ? std::string("-") : std::to_string(d.block),
                                 d.task < 0 ? std::string("-") : std::to_string(d.task),
                                 coreText(d), d.introduced ? "new" : "inherited");
        }
    }
    for (size_t i = 0; i < r.outputs.size(); ++i) {
        s += fmt::format("output {}: {}\n", r.outputs[i].name, r.outputs[i].verdict.summary());
        if (i < r.diagnoses.size() && !r.diagnoses[i].findings.empty())
            s += formatDiagnosis(r.diagnoses[i]);
    }
    if (!r.tracePath.empty()) s += fmt::format("trace: {}\n", r.tracePath);
    return s;
}

} // namespace pto
