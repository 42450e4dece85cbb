// The run of a program: arch, compile, simulate, trace, outputs.
#include "driver/Session.h"

#include "compiler/StageRecorder.h"
#include "compiler/ir/Cost.h"
#include "driver/IndexFaults.h"
#include "driver/InputRoles.h"
#include "profiler/CompileNotes.h"
#include "simulator/numerics/SimFault.h"
#include "trace_db/TraceWriter.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include <unistd.h>

namespace pto {
namespace {

std::string shapeJson(const Shape& s) {
    return fmt::format("[{}]", fmt::join(s.dims(), ","));
}

int64_t gmTraffic(const sim::SimResult& s) {
    using sim::DmaPath;
    return s.bytes(DmaPath::GmToUb) + s.bytes(DmaPath::GmToL1) + s.bytes(DmaPath::UbToGm) +
           s.bytes(DmaPath::L1ToGm) + s.bytes(DmaPath::L0cToGm);
}

// The program of a run: its file, or the text given with it under the name it was given.
CompileState loadRunProgram(const RunOptions& options) {
    if (options.programText.empty())
        return loadProgram(options.program, options.entry, options.binds, options.compile.budget);
    return loadProgramSource(options.programText, options.program, options.entry, options.binds,
                             options.compile.budget);
}

} // namespace

sim::ArchConfig loadArchConfig(const std::string& file, const std::vector<std::string>& overrides) {
    return loadArchConfig(file, {}, overrides);
}

sim::ArchConfig loadArchConfig(const std::string& file, const std::string& text,
                               const std::vector<std::string>& overrides) {
    sim::ArchConfig arch = file.empty()   ? sim::ArchConfig()
                           : text.empty() ? sim::loadArch(file)
                                          : sim::parseArchFile(text, file);
    for (const std::string& o : overrides) sim::applyOverride(arch, o);
    return arch;
}

void checkInputBudget(const CompileState& state, const ResourceBudget& budget) {
    int64_t total = 0, largestBytes = -1;
    std::string largest;
    for (const ProgramInput& in : programInputs(state)) {
        const int64_t bytes = in.type.shape.numel() * dtypeSize(in.type.dtype);
        total += bytes; // at most 2^51 per input (kMaxElements), so no overflow
        if (bytes > largestBytes) {
            largestBytes = bytes;
            largest =
                fmt::format("%{} of @{}, {}, {}", in.name, state.tensor.name,
                            typeString(in.type.dtype, in.type.shape), formatBytes(double(bytes)));
        }
    }
    checkInputBudget(total, largest, budget, state.file);
}

std::vector<TensorData> prepareInputs(const CompileState& state, const RunOptions& options,
                                      int64_t materialiseUpTo) {
    auto wanted = programInputs(state);
    if (!options.inputFiles.empty() && options.inputFiles.size() != wanted.size())
        throw std::invalid_argument(fmt::format("@{} takes {} inputs but {} files were given",
                                                state.tensor.name, wanted.size(),
                                                options.inputFiles.size()));
    for (size_t i = 0; i < options.inputFiles.size(); ++i)
        if (options.inputFiles[i].empty())
            throw std::invalid_argument(fmt::format(
                "--inputs: file {} of {} (input %{} of @{}) is an empty name; give one .npy file "
                "per argument, comma-separated",
                i + 1, options.inputFiles.size(), wanted[i].name, state.tensor.name));
    checkInputBudget(state, options.compile.budget);
    // Every file's header first: a wrong or hostile file is an error before any data is read.
    for (size_t i = 0; i < options.inputFiles.size(); ++i) {
        const Type& type = wanted[i].type;
        const TensorFileType t = readTensorType(options.inputFiles[i]);
        if (t.dtype != type.dtype || t.shape != type.shape)
            throw std::invalid_argument(
                fmt::format("{}: holds {} but input %{} of @{} is {}", options.inputFiles[i],
                            typeString(t.dtype, t.shape), wanted[i].name, state.tensor.name,
                            typeString(type.dtype, type.shape)));
    }
    std::vector<TensorData> inputs;
    std::vector<InputRoleInfo> roles(wanted.size());
    if (options.inputFiles.empty() && state.tensor.args.size() == wanted.size())
        roles = inferInputRoles(state.tensor);
    for (size_t i = 0; i < wanted.size(); ++i) {
        const Type& type = wanted[i].type;
        if (type.shape.numel() * dtypeSize(type.dtype) > materialiseUpTo) {
            TensorData shapeOnly;
            shapeOnly.dtype = type.dtype;
            shapeOnly.shape = type.shape;
            inputs.push_back(std::move(shapeOnly));
            continue;
        }
        if (options.inputFiles.empty()) {
            inputs.push_back(seededInput(type.dtype, type.shape, roles[i], options.seed + i));
            continue;
        }
        TensorData t = readTensor(options.inputFiles[i]);
        if (t.dtype != type.dtype || t.shape != type.shape)
            throw std::invalid_argument(fmt::format(
                "{}: holds {} but input %{} of @{} is {}", options.inputFiles[i], typeString(t),
                wanted[i].name, state.tensor.name, typeString(type.dtype, type.shape)));
        inputs.push_back(std::move(t));
    }
    return inputs;
}

void checkRunBudget(const CompileState& state, const ResourceBudget& budget, bool numerics) {
    checkInstrBudget(state.pto, budget, state.file);
    if (numerics) checkGmBudget(state.pto, budget, state.file);
}

void recordArchMeta(tracedb::TraceWriter& writer, const sim::ArchConfig& arch,
                    const std::string& producer) {
    writer.setMeta("producer", producer);
    writer.setMeta("arch_config", sim::archJson(arch));
    writer.setMeta("arch_name", arch.name());
}

void storeRunTensors(tracedb::TraceWriter& writer, const CompileState& state,
                     std::span<const TensorData> inputs, const sim::SimResult& sim,
                     int64_t maxBytes) {
    auto store = [&](const std::string& name, tracedb::TensorRole role, const TensorData& t,
                     std::optional<int64_t> valueId) {
        tracedb::TensorRow row;
        row.name = name;
        row.role = role;
        row.dtype = std::string(dtypeName(t.dtype));
        row.shape = shapeJson(t.shape);
        row.valueId = valueId;
        // By the shape: a timing-only run's big inputs were never made (no bytes).
        if (t.numel() * t.elementSize() <= maxBytes) row.data = t.bytes;
        writer.add(row);
    };
    const Function& f = state.tensor;
    auto names = programInputs(state);
    for (size_t i = 0; i < inputs.size() && i < names.size(); ++i) {
        std::optional<int64_t> value;
        if (i < f.args.size()) value = f.args[i];
        store(names[i].name, tracedb::TensorRole::Input, inputs[i], value);
    }
    for (size_t i = 0; i < sim.outputs.size(); ++i) {
        std::optional<int64_t> value;
        if (i < f.results.size()) value = f.results[i];
        store(sim.outputs[i].first, tracedb::TensorRole::Output, sim.outputs[i].second, value);
    }
}

void recordCompileNotes(tracedb::TraceWriter& writer, const std::vector<std::string>& notes) {
    if (!notes.empty()) writer.setMeta("compile_notes", prof::notesJson(notes));
}

void recordCompileOptions(tracedb::TraceWriter& writer, const CompileOptions& options) {
    std::string fault =
        options.fault.active()
            ? fmt::format(R"("{}:{}")", injectedFaultName(options.fault.kind), options.fault.index)
            : "null";
    writer.setMeta(
        "compile_options",
        fmt::format(R"({{"tiles_per_task":{},"double_buffer":{},"fault":{}{}{}{}}})",
                    options.tilesPerTask, options.doubleBuffer, fault,
                    options.fuse ? "" : R"(,"fuse":false)",
                    options.target.tileShrink == 0
                        ? ""
                        : fmt::format(R"(,"tile_shrink":{})", options.target.tileShrink),
                    options.shareKernels == ShareKernels::Auto
                        ? ""
                        : fmt::format(R"(,"share_kernels":"{}")",
                                      options.shareKernels == ShareKernels::On ? "on" : "off")));
}

void recordBinds(tracedb::TraceWriter& writer, std::span<const ScalarBind> binds) {
    if (binds.empty()) return;
    std::string text;
    for (const ScalarBind& b : binds)
        text += fmt::format("{}{}={}", text.empty() ? "" : " ", b.name, b.value);
    writer.setMeta("binds", text);
}

namespace {

// What the shared memory system carried, for the profiler's GM roof (docs/TRACE_SCHEMA.md).
void recordMemoryMeta(tracedb::TraceWriter& writer, const sim::MemoryStats& memory) {
    writer.setMeta("sim_memory",
                   fmt::format(R"({{"l2_hit_bytes":{},"l2_miss_bytes":{},"hbm_read_bytes":{},)"
                               R"("hbm_write_bytes":{}}})",
                               memory.l2HitBytes, memory.l2MissBytes, memory.hbmReadBytes,
                               memory.hbmWriteBytes));
}

} // namespace

void checkOutputDirectory(std::string_view option, const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    auto refuse = [&](const std::string& why) {
        throw std::invalid_argument(fmt::format("{} {}: {}", option, dir.string(), why));
    };
    std::error_code ec;
    const fs::file_status status = fs::status(dir, ec);
    if (fs::exists(status)) {
        if (!fs::is_directory(status)) refuse("exists and is not a directory");
        if (::access(dir.c_str(), W_OK | X_OK) != 0)
            refuse("is a directory that cannot be written");
        return;
    }
    fs::path parent = fs::absolute(dir, ec).parent_path();
    while (!parent.empty() && !fs::exists(parent, ec) && parent != parent.parent_path())
        parent = parent.parent_path();
    if (!fs::is_directory(parent, ec))
        refuse(fmt::format("cannot be created: '{}' is not a directory", parent.string()));
    if (::access(parent.c_str(), W_OK | X_OK) != 0)
        refuse(fmt::format("cannot be created: '{}' cannot be written", parent.string()));
}

void createOutputDirectory(std::string_view option, const std::filesystem::path& dir) {
    checkOutputDirectory(option, dir);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw std::invalid_argument(
            fmt::format("{} {}: cannot be created: {}", option, dir.string(), ec.message()));
}

RunResult runProgram(const RunOptions& options) {
    if (!options.outputsDir.empty()) checkOutputDirectory("--outputs", options.outputsDir);
    auto phase = [&](const char* name, int index) {
        if (options.onPhase) options.onPhase(name, index, 3);
    };
    RunResult r;
    r.arch = loadArchConfig(options.archFile, options.archText, options.archOverrides);
    r.state = loadRunProgram(options);
    const bool numerics = !options.sim.timingOnly;
    if (r.state.kind == StageKind::Pto) checkRunBudget(r.state, options.compile.budget, numerics);
    // Timing-only: the simulator reads no data, so only the inputs the trace stores are made.
    const int64_t materialise =
        numerics ? INT64_MAX : (options.tracePath.empty() ? -1 : options.maxStoredTensorBytes);
    r.inputs = prepareInputs(r.state, options, materialise);

    CompileOptions compile = options.compile;
    compile.target = sim::toTargetInfo(r.arch);
    sim::SimOptions simOptions = options.sim;
    // Without recorded stages the run's slices would name instructions the file lacks.
    if (options.record == RecordLevel::None) simOptions.traceLevel = sim::TraceLevel::None;
    simOptions.sourceFile = options.program;
    std::optional<tracedb::TraceWriter> writer;
    if (!options.tracePath.empty()) writer.emplace(tracedb::TraceWriter::create(options.tracePath));
    // An untraced simulation writes nothing while it runs, so the compile's last stages are
    // inserted meanwhile (docs/PERFORMANCE.md, issue 17). Declared after the writer: joined
    // before it is closed.
    const bool overlap = writer && simOptions.traceLevel == sim::TraceLevel::None;
    PendingRecording recording;
    auto recordRunMeta = [&] {
        recordArchMeta(*writer, r.arch, "pto run");
        recordCompileOptions(*writer, compile);
        recordBinds(*writer, options.binds);
        recordCompileNotes(*writer, r.state.block.notes);
    };
    phase("compiling", 0);
    compileWithTileFallback(r.state, compile, writer, options.record, {}, {},
                            overlap ? &recording : nullptr);
    r.tileShrink = compile.target.tileShrink;
    if (writer && !overlap) recordRunMeta();

    checkRunBudget(r.state, compile.budget, numerics); // before the simulator allocates
    const auto indexTiles = indexTileSources(r.state); // a gather fault names its index element
    if (!options.keepLowering) {
        r.state.tile = Function{};
        std::vector<std::string> notes = std::move(r.state.block.notes); // the summary prints them
        r.state.block = BlockProgram{};
        r.state.block.notes = std::move(notes);
    }

    phase(numerics ? "simulating" : "simulating (timing only)", 1);
    try {
        r.sim = sim::simulate(r.state.pto, r.arch, r.inputs, simOptions,
                              writer && !overlap ? &*writer : nullptr);
    } catch (const SimFault& fault) {
        r.faultMessage = fault.what();
        r.faultCycle = fault.site().cycle;
        const auto index = indexTiles.find(fault.site().tileOp);
        if (fault.site().indexElement >= 0 && index != indexTiles.end())
            r.faultMessage +=
                "; it is " + indexElementText(index->second, fault.site().indexElement);
    }
    if (recording) {
        recording->finish(); // an insert's error is thrown here; the writer is ours again
        recording.reset();
    }
    if (overlap) { // what simulate would have written
        recordRunMeta();
        const int64_t cycles =
            r.faultMessage.empty() ? r.sim.totalCycles.count() : std::max<int64_t>(r.faultCycle, 0);
        sim::recordUntracedRun(*writer, r.arch, cycles);
    }
    if (writer && !r.faultMessage.empty()) writer->setMeta("sim_fault", r.faultMessage);
    if (writer && !numerics) writer->setMeta("timing_only", "true"); // no outputs kept
    r.flops = programFlops(r.state); // every iteration of a windowed loop
    r.gmBytes = gmTraffic(r.sim);
    phase(writer ? "writing the trace" : "writing outputs", 2);
    if (writer) {
        recordMemoryMeta(*writer, r.sim.memory);
        storeRunTensors(*writer, r.state, r.inputs, r.sim, options.maxStoredTensorBytes);
    }
    if (!options.outputsDir.empty() && r.faultMessage.empty()) {
        createOutputDirectory("--outputs", options.outputsDir);
        for (const auto& [name, tensor] : r.sim.outputs)
            writeTensor(std::filesystem::path(options.outputsDir) / (name + ".npy"), tensor);
    }
    if (writer) writer->commit();
    return r;
}

} // namespace pto
