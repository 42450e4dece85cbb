// Pairs simulated Tensor ops with measured device kernels and compares time and pipe ratios.
#include "profiler/SimVsReal.h"

#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace pto::prof {
namespace {

// A device kernel of the measured trace, with what pairing needs.
struct MeasuredKernel {
    std::int64_t task = 0;
    std::string name, type, outputShape, inputShapes;
    double us = 0;
};

// A simulated op's result shape and operand shapes in the profiler files' spelling:
// "32,4096" and "32,4096;4096,4096".
struct OpShapes {
    std::string output, inputs;
};

std::string lower(std::string_view s) {
    std::string out;
    for (char c : s)
        if (c != '_' && c != ' ') out += char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// A shapes list without quotes and spaces: "\"32,4096;4096\"" → "32,4096;4096".
std::string shapeList(std::string_view text) {
    std::string s;
    for (char c : text)
        if (c != '"' && c != ' ' && c != '[' && c != ']') s += c;
    return s;
}

std::string firstShape(std::string_view text) {
    std::string s = shapeList(text);
    return s.substr(0, s.find(';'));
}

// The shapes of every op of the simulated program's root stage, by node id.
std::map<std::int64_t, OpShapes> loadOpShapes(const std::string& path, std::int64_t rootStage) {
    auto reader = tracedb::TraceReader::open(path);
    std::map<std::int64_t, OpShapes> shapes;
    const std::string stage = std::to_string(rootStage);
    forEachRow(reader, "SELECT id, shape FROM node WHERE stage_id = " + stage,
               [&](auto row) { shapes[cellInt(row[0])].output = shapeList(cellText(row[1])); });
    forEachRow(reader,
               "SELECT e.dst, n.shape FROM edge e JOIN node n ON n.stage_id = e.stage_id AND "
               "n.id = e.src WHERE e.stage_id = " +
                   stage + " ORDER BY e.rowid",
               [&](auto row) {
                   std::string& inputs = shapes[cellInt(row[0])].inputs;
                   inputs += (inputs.empty() ? "" : ";") + shapeList(cellText(row[1]));
               });
    return shapes;
}

std::vector<MeasuredKernel> loadMeasured(const std::string& path, double clockHz) {
    auto reader = tracedb::TraceReader::open(path);
    std::map<std::int64_t, MeasuredKernel> byTask;
    forEachRow(reader,
               "SELECT s.task_id, st.str, s.dur, a.key, a.string_value FROM slice s "
               "JOIN string st ON st.id = s.name_id "
               "LEFT JOIN args a ON a.arg_set_id = s.arg_set_id "
               "AND a.key IN ('op_type', 'output_shapes', 'input_shapes') "
               "WHERE s.category = 'task' AND s.task_id IS NOT NULL",
               [&](auto row) {
                   MeasuredKernel& k = byTask[cellInt(row[0])];
                   k.task = cellInt(row[0]);
                   k.name = cellText(row[1]);
                   k.us = double(cellInt(row[2])) / clockHz * 1e6;
                   const std::string key = cellText(row[3]);
                   if (key == "op_type") k.type = cellText(row[4]);
                   if (key == "output_shapes") k.outputShape = firstShape(cellText(row[4]));
                   if (key == "input_shapes") k.inputShapes = shapeList(cellText(row[4]));
               });
    std::vector<MeasuredKernel> kernels;
    for (auto& [task, k] : byTask) kernels.push_back(std::move(k));
    return kernels;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Duration-weighted busy fraction per pipe of the measured kernels (busy = ratio × duration).
PipeFractions measuredPipes(const RunModel& real, const std::vector<const MeasuredKernel*>& ks) {
    PipeCycles busy{};
    std::int64_t time = 0;
    for (const MeasuredKernel* k : ks) {
        const TaskRun* t = real.task(k->task);
        if (!t) continue;
        for (std::size_t p = 0; p < kPipeCount; ++p) busy[p] += t->busy[p];
        time += t->duration();
    }
    PipeFractions out{};
    for (std::size_t p = 0; p < kPipeCount; ++p)
        if (busy[p] > 0 && time > 0) out[p] = double(busy[p]) / double(time);
    return out;
}

// Busy fraction per pipe of simulated tasks over `span` cycles, averaged over the cores (of a
// type that has the pipe) that ran them.
// The pair's simOnAic / simOnAiv are set from the tasks.
PipeFractions simulatedPipes(const RunModel& sim, const std::vector<std::int64_t>& taskIds,
                             const PipeCycles& busy, std::int64_t span, KernelPair& pair) {
    std::set<int> aic, aiv;
    for (std::int64_t id : taskIds)
        if (const TaskRun* t = sim.task(id); t && t->ran())
            (t->coreType == "AIC" ? aic : aiv).insert(t->core);
    pair.simOnAic = !aic.empty();
    pair.simOnAiv = !aiv.empty();
    PipeFractions out{};
    for (std::size_t p = 0; p < kPipeCount; ++p) {
        std::size_t cores = 0;
        if (coreHasPipe("AIC", PipeId(p))) cores += aic.size();
        if (coreHasPipe("AIV", PipeId(p))) cores += aiv.size();
        if (cores > 0 && span > 0 && busy[p] > 0)
            out[p] = double(busy[p]) / (double(span) * double(cores));
    }
    return out;
}

void describeMeasured(KernelPair& pair, const RunModel& real,
                      const std::vector<const MeasuredKernel*>& ks) {
    pair.realCount = int(ks.size());
    if (ks.empty()) return;
    std::map<std::string, int> names;
    std::set<std::string> shapes;
    std::vector<double> us;
    for (const MeasuredKernel* k : ks) {
        ++names[k->name];
        shapes.insert(k->outputShape);
        us.push_back(k->us);
    }
    pair.realName = std::max_element(names.begin(), names.end(), [](auto& a, auto& b) {
                        return a.second < b.second;
                    })->first;
    if (names.size() > 1) // the median kernel may be one of the others
        pair.realName +=
            fmt::format(" and {} other name{}", names.size() - 1, names.size() > 2 ? "s" : "");
    std::set<std::string> types; // a type key pools versions: MatMulV2 with MatMulV3
    for (const MeasuredKernel* k : ks) types.insert(k->type);
    pair.realType.clear();
    for (const std::string& t : types) pair.realType += (pair.realType.empty() ? "" : "+") + t;
    if (shapes.size() == 1) pair.outputShape = *shapes.begin();
    pair.realUs = median(std::move(us));
    pair.realPipes = measuredPipes(real, ks);
}

using Kernels = std::vector<const MeasuredKernel*>;

Kernels selectByName(const std::vector<MeasuredKernel>& kernels, const MatchSpec& spec) {
    Kernels out;
    const std::string wanted = lower(spec.kernel);
    for (const MeasuredKernel& k : kernels)
        if ((lower(k.name) == wanted || lower(k.type) == wanted) &&
            (spec.outputShape.empty() || k.outputShape == spec.outputShape))
            out.push_back(&k);
    return out;
}

// The kernels of the op's type, narrowed to the best shape agreement that has any.
Kernels selectByType(const std::vector<MeasuredKernel>& kernels, const MatchSpec& spec,
                     const TensorOpCost& op, const OpShapes& shapes, std::string& matchedOn) {
    Kernels ofType, sameInputs, sameOutput;
    for (const MeasuredKernel& k : kernels) {
        if (opTypeKey(k.type) != opTypeKey(op.kind)) continue;
        if (!spec.outputShape.empty() && k.outputShape != spec.outputShape) continue;
        ofType.push_back(&k);
        if (!shapes.inputs.empty() && k.inputShapes == shapes.inputs) sameInputs.push_back(&k);
        if (!shapes.output.empty() && k.outputShape == shapes.output) sameOutput.push_back(&k);
    }
    if (!sameInputs.empty()) return matchedOn = "type, input shapes", sameInputs;
    if (!sameOutput.empty()) return matchedOn = "type, output shape", sameOutput;
    matchedOn = "type";
    return ofType;
}

double toUs(std::int64_t cycles, const RunModel& m) {
    return double(cycles) / m.peaks.clockHz * 1e6;
}

KernelPair wholeRun(const Profile& sim) {
    KernelPair pair;
    pair.simOp = "run @" + sim.model.program;
    pair.simUs = toUs(sim.model.totalCycles, sim.model);
    PipeCycles busy{};
    std::vector<std::int64_t> ids;
    for (const TaskRun& t : sim.model.tasks) {
        for (std::size_t p = 0; p < kPipeCount; ++p) busy[p] += t.busy[p];
        ids.push_back(t.id);
    }
    pair.simPipes = simulatedPipes(sim.model, ids, busy, sim.model.totalCycles, pair);
    return pair;
}

KernelPair opPair(const Profile& sim, const TensorOpCost& op) {
    KernelPair pair;
    pair.simOp = op.kind + (op.name.empty() ? "" : " " + op.name);
    pair.simOpId = op.id;
    pair.line = op.srcLine;
    const std::int64_t span = op.last > op.first ? op.last - op.first : 0;
    pair.simUs = toUs(span, sim.model);
    pair.simPipes = simulatedPipes(sim.model, op.tasks, op.busy, span, pair);
    return pair;
}

std::string fraction(const std::optional<double>& v) {
    return v ? fmt::format("{:.2f}", *v) : "-";
}

} // namespace

std::optional<std::string> parseShapeFilter(std::string_view text) {
    std::string out, dim;
    auto endDim = [&] {
        if (dim.empty()) return false;
        out += (out.empty() ? "" : ",") + dim;
        dim.clear();
        return true;
    };
    std::string_view body = text;
    if (body.starts_with('[') && body.ends_with(']')) body = body.substr(1, body.size() - 2);
    bool afterSeparator = true;
    for (char c : body) {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            if (dim.size() >= 18) return std::nullopt;
            dim += c;
            afterSeparator = false;
        } else if (c == ',' || c == 'x' || c == 'X') {
            if (afterSeparator || !endDim()) return std::nullopt;
            afterSeparator = true;
        } else if (c != ' ') {
            return std::nullopt;
        }
    }
    if (afterSeparator || !endDim()) return std::nullopt;
    return out;
}

std::string opTypeKey(std::string_view type) {
    std::string key = lower(type);
    // A trailing version ("matmulv2", "layernormv3"), then the aliases of torch_npu's names.
    std::size_t end = key.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(key[end - 1]))) --end;
    if (end < key.size() && end > 1 && key[end - 1] == 'v') key.resize(end - 1);
    static const std::map<std::string, std::string> kAliases{
        {"realdiv", "div"}, {"batchmatmul", "matmul"}, {"matmulacc", "matmul"},
        {"maximum", "max"}, {"minimum", "min"},        {"swish", "silu"}};
    auto it = kAliases.find(key);
    return it == kAliases.end() ? key : it->second;
}

SimRealComparison compareSimToReal(const Profile& sim, const std::string& simPath,
                                   const Profile& real, const std::string& realPath,
                                   const MatchSpec& spec) {
    const std::vector<MeasuredKernel> kernels = loadMeasured(realPath, real.model.peaks.clockHz);
    SimRealComparison c;
    c.measuredKernels = int(kernels.size());
    if (!spec.kernel.empty()) {
        c.mode = "kernel " + spec.kernel;
        KernelPair pair = wholeRun(sim);
        const Kernels ks = selectByName(kernels, spec);
        const bool byName = std::any_of(ks.begin(), ks.end(), [&](const MeasuredKernel* k) {
            return lower(k->name) == lower(spec.kernel);
        });
        pair.matchedOn = ks.empty() || byName ? "name" : "type";
        describeMeasured(pair, real.model, ks);
        c.pairs.push_back(std::move(pair));
        return c;
    }
    c.mode = "type";
    if (!sim.model.hasInstrSlices)
        throw std::runtime_error(fmt::format(
            "'{}' was traced at --trace tasks: it has no instruction slices, so no op's time or "
            "pipes; run it with --trace instructions, or pair the whole run with --match KERNEL",
            simPath));
    // Shapes per stage: the root stage's ops, and loop body ops in the stage of their copies.
    std::map<std::int64_t, std::map<std::int64_t, OpShapes>> shapes;
    for (const TensorOpCost& op : sim.model.tensorOps) {
        if ((op.cycles() == 0 && op.flops == 0) || op.isLoopTotal()) continue;
        KernelPair pair = opPair(sim, op);
        auto stage = shapes.find(op.stageId);
        if (stage == shapes.end())
            stage = shapes.emplace(op.stageId, loadOpShapes(simPath, op.stageId)).first;
        auto it = stage->second.find(op.id);
        const Kernels ks = selectByType(
            kernels, spec, op, it == stage->second.end() ? OpShapes{} : it->second, pair.matchedOn);
        describeMeasured(pair, real.model, ks);
        c.pairs.push_back(std::move(pair));
    }
    return c;
}

nlohmann::json simRealJson(const SimRealComparison& c, const std::string& simPath,
                           const std::string& realPath) {
    auto pipes = [](const PipeFractions& f) {
        nlohmann::json j = nlohmann::json::object();
        for (std::size_t p = 0; p < kPipeCount; ++p)
            if (f[p]) j[std::string(pipeIdName(PipeId(p)))] = *f[p];
        return j;
    };
    nlohmann::json j = {{"simulated", simPath},
                        {"measured", realPath},
                        {"match", c.mode},
                        {"measured_kernels", c.measuredKernels},
                        {"pairs", nlohmann::json::array()}};
    for (const KernelPair& p : c.pairs)
        j["pairs"].push_back({{"sim_op", p.simOp},
                              {"line", p.line},
                              {"real_name", p.realName},
                              {"real_type", p.realType},
                              {"output_shape", p.outputShape},
                              {"matched_on", p.matchedOn},
                              {"real_count", p.realCount},
                              {"real_us", p.realUs},
                              {"sim_us", p.simUs},
                              {"sim_over_real", p.ratio()},
                              {"real_pipes", pipes(p.realPipes)},
                              {"sim_pipes", pipes(p.simPipes)}});
    return j;
}

std::string simRealText(const SimRealComparison& c, const std::string& simPath,
                        const std::string& realPath) {
    std::string out = fmt::format("simulated = {}\nmeasured  = {} ({} device kernels)\n", simPath,
                                  realPath, c.measuredKernels);
    out += fmt::format("matched by {}; real = median of the paired kernels; pipes: busy fraction "
                       "per core, measured / simulated\n\n",
                       c.mode);
    for (const KernelPair& p : c.pairs) {
        out += fmt::format("{}{}\n", p.simOp, p.line ? fmt::format(" (line {})", p.line) : "");
        if (p.realCount == 0) {
            out += fmt::format("  simulated {:.2f} us; no measured kernel matches\n\n", p.simUs);
            continue;
        }
        out += fmt::format("  measured  {} ({}, {} kernel{}{}; matched on {})\n", p.realName,
                           p.realType, p.realCount, p.realCount == 1 ? "" : "s",
                           p.outputShape.empty() ? "" : ", output " + p.outputShape, p.matchedOn);
        out += fmt::format("  time      measured {:.2f} us, simulated {:.2f} us, sim/real {:.3f}\n",
                           p.realUs, p.simUs, p.ratio());
        std::string row;
        for (std::size_t i = 0; i < kPipeCount; ++i)
            if (p.realPipes[i] || p.simPipes[i])
                row += fmt::format("  {} {}/{}", pipeIdName(PipeId(i)), fraction(p.realPipes[i]),
                                   fraction(p.simPipes[i]));
        out += fmt::format("  pipes   {}\n\n", row);
    }
    return out;
}

} // namespace pto::prof
