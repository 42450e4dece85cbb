// Re-simulation of a traced run with a changed arch, through the same session as `pto run`.
#include "driver/WhatIf.h"

#include "base/ScratchDir.h"
#include "driver/Session.h"
#include "trace_db/ReplaceGuard.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <stdexcept>

namespace pto::prof {
namespace {

namespace fs = std::filesystem;

// The arch of the recorded run as overrides of the embedded default, one per parameter of meta
// arch_config; parameters this build does not know (or rejects) are skipped with a note.
std::vector<std::string> recordedArch(const std::string& json, std::vector<std::string>& notes) {
    auto j = nlohmann::json::parse(json, nullptr, false);
    if (!j.is_object() || !j.contains("params") || !j["params"].is_object()) {
        notes.push_back("the trace has no arch_config: the embedded default arch was used");
        return {};
    }
    std::vector<std::string> overrides;
    sim::ArchConfig probe;
    for (auto& [key, value] : j["params"].items()) {
        if (!value.is_string()) continue;
        std::string assignment = key + " = " + value.get<std::string>();
        try {
            sim::applyOverride(probe, assignment);
            overrides.push_back(assignment);
        } catch (const std::exception& e) {
            notes.push_back(
                fmt::format("recorded arch parameter '{}' ignored: {}", assignment, e.what()));
        }
    }
    return overrides;
}

std::vector<std::int64_t> parseShape(const std::string& json) {
    auto j = nlohmann::json::parse(json, nullptr, false);
    std::vector<std::int64_t> dims;
    if (j.is_array())
        for (auto& d : j) dims.push_back(d.get<std::int64_t>());
    return dims;
}

// Writes the stored inputs as .npy files, in argument order; empty when any is missing.
std::vector<std::string> storedInputs(const tracedb::TraceReader& reader, const fs::path& dir) {
    std::vector<tracedb::TensorRow> inputs;
    for (auto& t : reader.tensors(tracedb::TensorData::Load))
        if (t.role == tracedb::TensorRole::Input) inputs.push_back(std::move(t));
    // `pto run` stores the inputs in argument order (tensor ids ascending).
    std::vector<std::string> files;
    for (const auto& t : inputs) {
        auto dtype = parseDType(t.dtype);
        if (!dtype || t.data.empty()) return {};
        TensorData data(*dtype, Shape(parseShape(t.shape)));
        if (std::int64_t(t.data.size()) != data.byteSize()) return {};
        data.bytes = t.data;
        auto file = dir / fmt::format("input{}.npy", files.size());
        writeTensor(file, data);
        files.push_back(file.string());
    }
    return files;
}

// The compile options of the recorded run: meta compile_options (written by `pto run`), else
// the double-buffer flag of meta target (traces from before compile_options).
void recordedCompileOptions(const tracedb::TraceReader& reader, CompileOptions& compile,
                            std::vector<std::string>& notes) {
    auto target = nlohmann::json::parse(reader.meta("target").value_or(""), nullptr, false);
    if (target.is_object() && target.contains("double_buffer") &&
        target["double_buffer"].is_boolean())
        compile.doubleBuffer = target["double_buffer"].get<bool>();
    auto recorded = reader.meta("compile_options");
    if (!recorded) {
        notes.push_back("no meta compile_options (a trace from an older `pto run`): compiled "
                        "with the default tiles per task");
        return;
    }
    auto j = nlohmann::json::parse(*recorded, nullptr, false);
    if (!j.is_object())
        throw std::invalid_argument(
            fmt::format("'{}': meta compile_options is not a JSON object: {}",
                        reader.path().string(), recorded->substr(0, 200)));
    if (auto it = j.find("tiles_per_task"); it != j.end() && it->is_number_integer())
        compile.tilesPerTask = it->get<int>();
    if (auto it = j.find("double_buffer"); it != j.end() && it->is_boolean())
        compile.doubleBuffer = it->get<bool>();
    if (auto it = j.find("fault"); it != j.end() && it->is_string())
        compile.fault = parseFaultSpec(it->get<std::string>());
    if (auto it = j.find("fuse"); it != j.end() && it->is_boolean()) compile.fuse = it->get<bool>();
    if (auto it = j.find("share_kernels"); it != j.end() && it->is_string())
        compile.shareKernels =
            parseShareKernels(it->get<std::string>()).value_or(ShareKernels::Auto);
}

RunOptions rerunOptions(const tracedb::TraceReader& reader, const fs::path& dir,
                        const WhatIfOptions& options, std::vector<std::string>& notes) {
    auto text = reader.meta("program_text");
    if (!text || text->empty())
        throw std::invalid_argument(fmt::format(
            "'{}' holds no program text (meta program_text): what-if needs a trace made by "
            "`pto run`",
            reader.path().string()));
    RunOptions o;
    // Compiled from the recorded text under the recorded name: errors cite the program the
    // user ran (attention.pto:9:14), not a scratch copy.
    o.program = reader.meta("program_path").value_or("");
    if (o.program.empty()) o.program = "program.pto";
    o.programText = *text;
    o.entry = reader.meta("entry").value_or("");
    std::istringstream binds(reader.meta("binds").value_or(""));
    for (std::string bind; binds >> bind;) o.binds.push_back(parseScalarBind(bind));
    if (options.archFile.empty())
        o.archOverrides = recordedArch(reader.meta("arch_config").value_or(""), notes);
    o.archFile = options.archFile;
    o.archOverrides.insert(o.archOverrides.end(), options.overrides.begin(),
                           options.overrides.end());
    recordedCompileOptions(reader, o.compile, notes);
    o.compile.budget = options.budget;
    o.sim.traceLevel = sim::parseTraceLevel(reader.meta("trace_level").value_or("instructions"))
                           .value_or(sim::TraceLevel::Instructions);
    if (o.sim.traceLevel == sim::TraceLevel::None) o.sim.traceLevel = sim::TraceLevel::Tasks;
    o.sim.timingOnly = options.timingOnly;
    if (!o.sim.timingOnly) {
        o.inputFiles = storedInputs(reader, dir);
        if (o.inputFiles.empty()) {
            o.sim.timingOnly = true;
            notes.push_back("inputs not stored in the trace: re-simulated timing only");
        }
    }
    o.maxStoredTensorBytes = 0;
    return o;
}

} // namespace

std::optional<sim::ArchConfig> recordedArchConfig(const tracedb::TraceReader& reader,
                                                  std::vector<std::string>& notes) {
    auto j = nlohmann::json::parse(reader.meta("arch_config").value_or(""), nullptr, false);
    if (!j.is_object() || !j.contains("params") || !j["params"].is_object()) return std::nullopt;
    std::string text;
    for (auto& [key, value] : j["params"].items()) {
        if (!value.is_string()) continue;
        if (sim::ParamTable::get().find(key))
            text += fmt::format("{} = {}\n", key, value.get<std::string>());
        else
            notes.push_back(fmt::format("recorded arch parameter '{}' is unknown to this build "
                                        "and was ignored",
                                        key));
    }
    sim::ArchConfig arch =
        sim::parseArch(text, fmt::format("meta arch_config of '{}'", reader.path().string()));
    arch.setName(reader.meta("arch_name").value_or(arch.name()));
    return arch;
}

WhatIfResult runWhatIf(const fs::path& trace, const WhatIfOptions& options) {
    // The re-run's trace must not replace the recorded one (by any path to the same file).
    tracedb::requireNotInput(options.outputPath, trace, "the trace being re-simulated");
    WhatIfResult result;
    ScratchDir scratch("pto-whatif");
    RunOptions o;
    {
        auto reader = tracedb::TraceReader::open(trace);
        if (options.onPhase) options.onPhase("analyzing the recorded run");
        result.base = analyze(loadRunModel(reader));
        o = rerunOptions(reader, scratch.path(), options, result.notes);
    }
    o.tracePath =
        options.outputPath.empty() ? (scratch.path() / "whatif.db").string() : options.outputPath;
    if (options.onPhase)
        options.onPhase(o.sim.timingOnly ? "simulating (timing only)" : "compiling + simulating");
    RunResult run = runProgram(o);
    if (!run.faultMessage.empty())
        throw std::runtime_error("the changed run faulted: " + run.faultMessage);
    if (options.onPhase) options.onPhase("analyzing the changed run");
    result.changed = analyzeTrace(o.tracePath);
    if (result.changed.model.tasks.size() != result.base.model.tasks.size())
        result.notes.push_back(fmt::format(
            "the re-compiled program has {} tasks, the recorded one {} (the change altered the "
            "target's core counts or capacities)",
            result.changed.model.tasks.size(), result.base.model.tasks.size()));
    result.comparison = compareRuns(result.base, result.changed);
    return result;
}

} // namespace pto::prof
