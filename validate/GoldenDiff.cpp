// A run's stored outputs against golden .npy files; diff rows for the trace.
#include "validate/GoldenDiff.h"

#include "compiler/ir/Parser.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"
#include "validate/ProducedTolerance.h"
#include "validate/TensorIo.h"
#include "validate/TraceTiles.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

namespace pto {
namespace {

namespace fs = std::filesystem;

// The Tensor function recorded in the trace (meta program_text and entry), if any.
std::optional<Function> recordedProgram(const tracedb::TraceReader& reader) {
    auto text = reader.meta("program_text");
    if (!text) return std::nullopt;
    try {
        Module m = parseModule(*text, reader.meta("program_path").value_or(""));
        const std::string entry = reader.meta("entry").value_or("");
        for (const Function& f : m.functions)
            if (f.name == entry) return f;
        if (const Function* f = m.entry()) return *f;
    } catch (const CompileError&) {
        // A trace of a program this build no longer parses: compare with dtype defaults.
    }
    return std::nullopt;
}

// The tolerance of the `output`-th output, named `name`, from the program as the user wrote
// it. Outputs are stored in the order of the function's results (driver/Session.cpp); the
// value id a row carries is one of the decomposed function the run simulated (a softmax's
// result is a cast there), so the result is taken by position in the program as parsed. A
// Tile-level kernel returns nothing: its outputs are the arguments it stores into, by name.
std::optional<ProducedTolerance> writtenTolerance(const Function& program, size_t output,
                                                  const std::string& name) {
    if (output < program.results.size()) {
        ProducedTolerance t = producedTolerance(program, program.results[output]);
        if (t.op.empty()) return std::nullopt; // an argument returned as it is
        return t;
    }
    if (!program.results.empty()) return std::nullopt;
    for (ValueId a : program.args)
        if (program.value(a).name == name) {
            ProducedTolerance t = storedTolerance(program, a);
            if (!t.op.empty()) return t;
        }
    return std::nullopt;
}

// The op the tolerance names as the output's producer (its node in the trace).
std::optional<int64_t> producerNode(const Function& program, size_t output) {
    if (output >= program.results.size()) return std::nullopt;
    const Op* op = program.producer(program.results[output]);
    return op ? std::optional<int64_t>(op->id) : std::nullopt;
}

std::optional<int64_t> rootStage(const tracedb::TraceReader& reader) {
    for (const tracedb::StageRow& s : reader.stages())
        if (s.ord == 0) return s.id;
    return std::nullopt;
}

TensorData tensorOfRow(const tracedb::TensorRow& row, const fs::path& trace) {
    auto dtype = parseDType(row.dtype);
    if (!dtype)
        throw std::invalid_argument(fmt::format("{}: output '{}' has dtype '{}' which PTO does "
                                                "not compute in",
                                                trace.string(), row.name, row.dtype));
    Shape shape;
    for (int64_t d : nlohmann::json::parse(row.shape.empty() ? "[]" : row.shape))
        if (!shape.push(d))
            throw std::invalid_argument(fmt::format("{}: output '{}' has rank above {}",
                                                    trace.string(), row.name, Shape::kMaxRank));
    TensorData t;
    t.dtype = *dtype;
    t.shape = shape;
    t.bytes = row.data;
    if (int64_t(t.bytes.size()) != t.byteSize())
        throw std::invalid_argument(fmt::format(
            "{}: output '{}' ({}) was not stored in the trace ({} of {} bytes; tensors above "
            "the run's size limit are not stored): diff its .npy from `pto run --outputs` instead",
            trace.string(), row.name, typeString(t), t.bytes.size(), t.byteSize()));
    return t;
}

/// Why a trace has no outputs to compare: a --timing-only run keeps none, a faulted run
/// stops before them.
std::string noOutputs(const tracedb::TraceReader& reader, const fs::path& trace) {
    if (reader.meta("timing_only").value_or("") == "true")
        return fmt::format("{}: the run was made with pto run --timing-only, which keeps no "
                           "outputs (no numerics); run it again without --timing-only",
                           trace.string());
    if (auto fault = reader.meta("sim_fault"))
        return fmt::format("{}: the simulated run faulted ({}) and kept no outputs", trace.string(),
                           *fault);
    return fmt::format(
        "{}: the trace holds no outputs (tensor rows of role 'output'); make it with pto run",
        trace.string());
}

/// compareTensors, its input errors (a shape mismatch) naming the trace's output and the
/// golden file.
TensorComparison compareWithGolden(const std::string& name, const TensorData& actual,
                                   const TensorData& golden, const fs::path& goldenFile,
                                   const fs::path& trace, const ComparePolicy& p) {
    try {
        return compareTensors(name, actual, golden, p);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("{} (output '{}') vs {}: {}", trace.string(), name,
                                                goldenFile.string(), e.what()));
    }
}

} // namespace

TensorData loadTensorFile(const fs::path& path) {
    NpyArray a = readNpy(path);
    // fromNpy on a copy without data gives the dtype mapping and its error messages.
    NpyArray header{a.descr, {0}, {}, a.trueDType};
    TensorData t = fromNpy(header, path);
    if (a.shape.size() > size_t(Shape::kMaxRank))
        throw NpyError(path, fmt::format("rank {} exceeds the maximum of {}", a.shape.size(),
                                         Shape::kMaxRank));
    t.shape = Shape(std::span<const int64_t>(a.shape));
    t.bytes = std::move(a.data);
    if (int64_t(t.bytes.size()) != t.byteSize())
        throw NpyError(
            path, fmt::format("expected {} bytes of data, found {}", t.byteSize(), t.bytes.size()));
    return t;
}

Diagnosis diagnoseComparison(const TensorComparison& c, const TensorView& actual,
                             const TensorView& golden, const ComparePolicy& policy,
                             const TileLayout* layout) {
    DiagnoseOptions o;
    o.rtol = c.tolerance.rtol;
    o.atol = c.tolerance.atol;
    o.cls = policy.cls;
    o.k = policy.k;
    o.sumDTypes = policy.programDTypes;
    o.layout = layout;
    for (const auto* index : {&c.metrics.maxAbsIndex, &c.metrics.maxRelIndex})
        if (!index->empty()) {
            int64_t row = 0;
            for (size_t i = 0; i + 1 < index->size(); ++i)
                row = row * c.shape[int(i)] + (*index)[i];
            o.hintRows.push_back(row);
        }
    return diagnose(actual, golden, o);
}

std::vector<OutputComparison> diffTraceOutputs(const fs::path& trace, const fs::path& goldenDir,
                                               const ComparePolicy& policy, bool diagnose) {
    if (!fs::is_directory(goldenDir))
        throw std::invalid_argument(
            fmt::format("--golden {}: not a directory of <output>.npy files", goldenDir.string()));
    tracedb::TraceReader reader = tracedb::TraceReader::open(trace);
    const std::optional<Function> program = recordedProgram(reader);
    const std::optional<int64_t> stage = rootStage(reader);
    std::vector<OutputComparison> out;
    size_t output = 0; // the index among the output rows
    for (const tracedb::TensorRow& row : reader.tensors(tracedb::TensorData::Load)) {
        if (row.role != tracedb::TensorRole::Output) continue;
        OutputComparison oc;
        oc.golden = goldenDir / (row.name + ".npy");
        if (!fs::exists(oc.golden))
            throw std::invalid_argument(fmt::format("no golden for output '{}': {} does not exist",
                                                    row.name, oc.golden.string()));
        ComparePolicy p = policy;
        oc.stageId = stage;
        if (program) {
            if (const auto t = writtenTolerance(*program, output, row.name)) {
                p.cls = t->cls;
                p.k = t->k;
                oc.producer = t->op;
            }
            oc.nodeId = producerNode(*program, output++);
        }
        const TensorData actual = tensorOfRow(row, trace);
        const TensorData golden = loadTensorFile(oc.golden);
        oc.comparison = compareWithGolden(row.name, actual, golden, oc.golden, trace, p);
        if (diagnose && !oc.comparison.verdict.passed) {
            const TileLayout layout = traceTileLayout(reader, row.name, actual.shape);
            oc.diagnosis = diagnoseComparison(oc.comparison, actual, golden, p, &layout);
        }
        out.push_back(std::move(oc));
    }
    if (out.empty()) throw std::invalid_argument(noOutputs(reader, trace));
    return out;
}

tracedb::DiffRow tensorDiffRow(const TensorComparison& c, std::optional<int64_t> stageId,
                               std::optional<int64_t> nodeId, const nlohmann::json& extraDetail) {
    tracedb::DiffRow row;
    row.kind = tracedb::DiffKind::Tensor;
    row.name = c.name;
    row.stageId = stageId;
    row.nodeId = nodeId;
    row.verdict = c.verdict.passed ? "pass" : "fail";
    row.metrics = metricsJson(c.metrics).dump();
    nlohmann::json detail = extraDetail.is_object() ? extraDetail : nlohmann::json::object();
    detail["tolerance"] = {
        {"rtol", c.tolerance.rtol}, {"atol", c.tolerance.atol}, {"source", c.tolerance.source}};
    detail["verdict"] = verdictJson(c.verdict);
    detail["worst_index"] = c.metrics.maxAbsIndex;
    row.detail = detail.dump();
    return row;
}

void storeDiffRows(const fs::path& trace, std::span<const tracedb::DiffRow> rows) {
    tracedb::TraceWriter writer = tracedb::TraceWriter::append(trace);
    for (const tracedb::DiffRow& row : rows) writer.removeDiffs(row.kind, row.name);
    writer.addAll(rows);
    writer.commit();
}

} // namespace pto
