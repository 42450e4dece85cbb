// Shared helpers for the trace_db tests: a scratch directory and a small trace using every table.
#include "TestTrace.h"

#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace pto::tracedb::test {

std::string errorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const TraceError& error) {
        return error.what();
    }
    return "";
}

std::string openError(const std::filesystem::path& path) {
    return errorOf([&] { TraceReader::open(path); });
}

std::int64_t staleTrackSummaryRows(const std::filesystem::path& trace) {
    constexpr const char* kFromSlices =
        "SELECT track_id, count(*), min(ts), max(ts + dur), max(dur), max(depth) FROM slice "
        "GROUP BY track_id";
    constexpr const char* kStored = "SELECT track_id, slice_count, min_ts, max_end, max_dur, "
                                    "max_depth FROM track_summary";
    // Compound selects associate to the left, so each difference gets its own sub-select.
    std::string missing = std::string(kFromSlices) + " EXCEPT " + kStored;
    std::string extra = std::string(kStored) + " EXCEPT " + kFromSlices;
    std::string sql =
        "SELECT (SELECT count(*) FROM (" + missing + ")) + (SELECT count(*) FROM (" + extra + "))";
    return std::get<std::int64_t>(TraceReader::open(trace).query(sql).rows.at(0).at(0));
}

std::string readBytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeBytes(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

namespace {

constexpr const char* kProgram = "x = input f16[128,64]\n"
                                 "w = input f16[64,128]\n"
                                 "y = matmul x, w\n"
                                 "z = exp y\n";

std::int64_t addStage(TraceWriter& writer, std::int64_t ord, const char* name, StageLevel level,
                      const char* pass, std::optional<std::int64_t> parent) {
    StageRow stage;
    stage.ord = ord;
    stage.name = name;
    stage.level = level;
    stage.pass = pass;
    stage.parentStageId = parent;
    stage.irText = std::string("// ") + name + "\n";
    stage.passMicros = 12.5;
    return writer.add(stage);
}

NodeRow node(std::int64_t stageId, std::int64_t id, const char* kind, const char* name,
             std::optional<std::int64_t> parentId, std::optional<std::int64_t> line) {
    NodeRow row;
    row.stageId = stageId;
    row.id = id;
    row.kind = kind;
    row.name = name;
    row.dtype = "f16";
    row.shape = "[128,64]";
    row.parentId = parentId;
    row.srcLine = line;
    row.srcCol = line ? std::optional<std::int64_t>(1) : std::nullopt;
    return row;
}

void writeMeta(TraceWriter& writer) {
    writer.setMeta("clock_hz", "1800000000");
    writer.setMeta("arch_name", "910B-like");
    writer.setMeta("arch_config", R"({"aic_cores":1,"aiv_cores":1})");
    writer.setMeta("program_path", "samples/matmul_exp.pto");
    writer.setMeta("program_text", kProgram);
    writer.setMeta("entry", "main");
    writer.setMeta("trace_level", "instructions");
    writer.setMeta("producer", "trace_db tests");
}

/// Tensor → Tile → Block → Exec → PTO, with provenance at every step.
void writeCompilerTables(TraceWriter& writer, SampleIds& ids) {
    ids.tensorStage = addStage(writer, 0, "tensor.input", StageLevel::Tensor, "", std::nullopt);
    writer.addAll(std::vector<NodeRow>{node(ids.tensorStage, 1, "input", "x", std::nullopt, 1),
                                       node(ids.tensorStage, 2, "input", "w", std::nullopt, 2),
                                       node(ids.tensorStage, 3, "matmul", "y", std::nullopt, 3),
                                       node(ids.tensorStage, 4, "exp", "z", std::nullopt, 4)});
    writer.addAll(std::vector<EdgeRow>{{ids.tensorStage, 1, 3, 1, "x"},
                                       {ids.tensorStage, 2, 3, 2, "w"},
                                       {ids.tensorStage, 3, 4, 3, "y"}});

    ids.tileStage =
        addStage(writer, 1, "tile.expand", StageLevel::Tile, "expand_tiles", ids.tensorStage);
    writer.addAll(std::vector<NodeRow>{node(ids.tileStage, 10, "tmatmul", "y.0", 3, 3),
                                       node(ids.tileStage, 11, "tmatmul", "y.1", 3, 3),
                                       node(ids.tileStage, 12, "texp", "z.0", 4, 4),
                                       node(ids.tileStage, 13, "texp", "z.1", 4, 4)});
    writer.addAll(
        std::vector<EdgeRow>{{ids.tileStage, 10, 12, 10, ""}, {ids.tileStage, 11, 13, 11, ""}});

    ids.blockStage =
        addStage(writer, 2, "block.partition", StageLevel::Block, "partition", ids.tileStage);
    NodeRow cube = node(ids.blockStage, 20, "block_fn", "mm_block", std::nullopt, std::nullopt);
    cube.core = "AIC";
    cube.groupId = 0; // isomorphic group
    NodeRow vec = node(ids.blockStage, 21, "block_fn", "exp_block", std::nullopt, std::nullopt);
    vec.core = "AIV";
    vec.groupId = 1;
    writer.addAll(std::vector<NodeRow>{cube, vec});
    writer.add(EdgeRow{ids.blockStage, 20, 21, std::nullopt, "gm"});
    writer.addAll(std::vector<BufferRow>{{ids.blockStage, 1, 20, "L0C", 0, 32768, 0, 3, 10, 0},
                                         {ids.blockStage, 2, 21, "UB", 0, 16384, 0, 3, 12, 1}});

    ids.execStage =
        addStage(writer, 3, "exec.tasks", StageLevel::Exec, "build_tasks", ids.blockStage);
    NodeRow task0 = node(ids.execStage, 40, "task", "mm_block#0", 20, std::nullopt);
    task0.core = "AIC";
    task0.groupId = 20;
    NodeRow task1 = node(ids.execStage, 41, "task", "exp_block#0", 21, std::nullopt);
    task1.core = "AIV";
    task1.groupId = 21;
    writer.addAll(std::vector<NodeRow>{task0, task1});
    writer.add(EdgeRow{ids.execStage, 40, 41, std::nullopt, "dep"});

    ids.ptoStage = addStage(writer, 4, "pto.codegen", StageLevel::Pto, "codegen", ids.blockStage);
    writer.addAll(
        std::vector<NodeRow>{node(ids.ptoStage, 50, "kernel", "mm_block", 20, std::nullopt),
                             node(ids.ptoStage, 51, "kernel", "exp_block", 21, std::nullopt)});
    struct Op {
        std::int64_t block;
        const char* pipe;
        const char* opcode;
        std::int64_t tileOp;
    };
    const Op ops[] = {{50, "MTE2", "TLOAD", 10}, {50, "M", "TMATMUL", 10},
                      {50, "M", "TMATMUL", 11},  {50, "FIX", "TSTORE", 11},
                      {51, "MTE2", "TLOAD", 12}, {51, "V", "TEXP", 12},
                      {51, "V", "TEXP", 13},     {51, "MTE3", "TSTORE", 13}};
    std::int64_t idx = 0;
    for (const Op& op : ops) {
        InstrRow instr;
        instr.stageId = ids.ptoStage;
        instr.blockId = op.block;
        instr.idx = op.block == 50 ? idx : idx - 4;
        instr.pipe = op.pipe;
        instr.opcode = op.opcode;
        instr.operands = "ub[0:16384]";
        instr.tileOpId = op.tileOp;
        instr.tileStageId = ids.tileStage;
        instr.srcLine = op.tileOp < 12 ? 3 : 4;
        std::int64_t id = writer.add(instr);
        if (idx == 0) ids.firstInstr = id;
        ++idx;
    }
}

std::int64_t addTrack(TraceWriter& writer, std::optional<std::int64_t> parent, const char* name,
                      TrackKind kind, std::optional<std::int64_t> core, const char* coreType,
                      const char* pipe) {
    TrackRow track;
    track.parentId = parent;
    track.nameId = writer.intern(name);
    track.kind = kind;
    track.coreId = core;
    track.coreType = coreType;
    track.pipe = pipe;
    return writer.add(track);
}

SliceRow slice(TraceWriter& writer, std::int64_t ts, std::int64_t dur, std::int64_t track,
               const char* name, SliceCategory category) {
    SliceRow row;
    row.ts = ts;
    row.dur = dur;
    row.trackId = track;
    row.nameId = writer.intern(name);
    row.category = category;
    return row;
}

/// The simulator's run: tracks, slices, counters, flows, args.
void writeRunTables(TraceWriter& writer, SampleIds& ids) {
    std::int64_t chip =
        addTrack(writer, std::nullopt, "chip", TrackKind::Chip, std::nullopt, "", "");
    std::int64_t aic = addTrack(writer, chip, "AIC0", TrackKind::Core, 0, "AIC", "");
    std::int64_t aiv = addTrack(writer, chip, "AIV0", TrackKind::Core, 1, "AIV", "");
    std::int64_t aicMte2 = addTrack(writer, aic, "AIC0/MTE2", TrackKind::Pipe, 0, "AIC", "MTE2");
    ids.cubePipeTrack = addTrack(writer, aic, "AIC0/M", TrackKind::Pipe, 0, "AIC", "M");
    std::int64_t aicFix = addTrack(writer, aic, "AIC0/FIX", TrackKind::Pipe, 0, "AIC", "FIX");
    std::int64_t aivMte2 = addTrack(writer, aiv, "AIV0/MTE2", TrackKind::Pipe, 1, "AIV", "MTE2");
    std::int64_t aivV = addTrack(writer, aiv, "AIV0/V", TrackKind::Pipe, 1, "AIV", "V");
    std::int64_t aivMte3 = addTrack(writer, aiv, "AIV0/MTE3", TrackKind::Pipe, 1, "AIV", "MTE3");
    std::int64_t tasks = addTrack(writer, chip, "tasks", TrackKind::Task, std::nullopt, "", "");
    std::int64_t hbm = addTrack(writer, chip, "HBM GB/s", TrackKind::Counter, std::nullopt, "", "");

    SliceRow taskAic = slice(writer, 0, 1300, aic, "mm_block#0", SliceCategory::Task);
    taskAic.taskId = 40;
    SliceRow taskAiv = slice(writer, 1400, 800, aiv, "exp_block#0", SliceCategory::Task);
    taskAiv.taskId = 41;
    std::int64_t taskAicId = writer.add(taskAic);
    std::int64_t taskAivId = writer.add(taskAiv);
    SliceRow taskLane = slice(writer, 0, 2200, tasks, "run", SliceCategory::Task);
    writer.add(taskLane);

    const std::int64_t tracksByInstr[] = {
        aicMte2, ids.cubePipeTrack, ids.cubePipeTrack, aicFix, aivMte2, aivV, aivV, aivMte3};
    const char* names[] = {"TLOAD", "TMATMUL", "TMATMUL", "TSTORE",
                           "TLOAD", "TEXP",    "TEXP",    "TSTORE"};
    const std::int64_t starts[] = {0, 300, 820, 1100, 1400, 1700, 1800, 2000};
    const std::int64_t durs[] = {300, 518, 250, 200, 300, 100, 200, 200};
    std::int64_t lastCubeSlice = 0;
    for (int i = 0; i < 8; ++i) {
        SliceRow row =
            slice(writer, starts[i], durs[i], tracksByInstr[i], names[i], SliceCategory::Instr);
        row.instrId = ids.firstInstr + i;
        std::int64_t id = writer.add(row);
        if (i == 0) ids.firstInstrSlice = id;
        if (i == 3) lastCubeSlice = id;
    }
    SliceRow stall =
        slice(writer, 818, 2, ids.cubePipeTrack, "bank conflict", SliceCategory::Stall);
    stall.argSetId = 1;
    writer.add(stall);
    SliceRow wait = slice(writer, 1400, 300, aivV, "wait_flag MTE2->V", SliceCategory::Wait);
    std::int64_t waitId = writer.add(wait);

    writer.addAll(std::vector<ArgRow>{{1, "reason", std::string("bank conflict")},
                                      {1, "bytes", std::int64_t{4096}},
                                      {1, "efficiency", 0.5}});
    writer.addAll(std::vector<CounterRow>{{0, hbm, 0.0}, {300, hbm, 512.5}, {1400, hbm, 300.0}});
    writer.add(FlowRow{kAutoId, taskAicId, taskAivId, FlowKind::Dep});
    writer.add(FlowRow{kAutoId, lastCubeSlice, waitId, FlowKind::Flag});
}

std::vector<std::byte> bytes(std::initializer_list<int> values) {
    std::vector<std::byte> out;
    for (int v : values) out.push_back(static_cast<std::byte>(v));
    return out;
}

/// validate's and the profiler's tables.
void writeResultTables(TraceWriter& writer, const SampleIds& ids) {
    writer.addAll(std::vector<TensorRow>{
        {kAutoId, "x", TensorRole::Input, "f16", "[2]", std::nullopt, 1, bytes({0, 60, 0, 64})},
        {kAutoId, "z", TensorRole::Output, "f16", "[2]", std::nullopt, 4, bytes({1, 60, 0, 64})},
        {kAutoId, "z", TensorRole::Golden, "f16", "[2]", std::nullopt, 4, bytes({0, 60, 0, 64})},
        {kAutoId, "y.0", TensorRole::Intermediate, "f32", "[1]", ids.tileStage, 10,
         bytes({0, 0, 128, 63})}});
    writer.addAll(std::vector<DiffRow>{
        {kAutoId, DiffKind::Tensor, "z", std::nullopt, std::nullopt, "fail",
         R"({"max_abs":0.0009765625,"cosine":0.99999})", R"({"worst_index":[0]})"},
        {kAutoId, DiffKind::Bisect, "z", ids.tileStage, 12, "first_divergence", "{}", "{}"},
        {kAutoId, DiffKind::Op, "exp", ids.tensorStage, 4, "fail", "{}", "{}"},
        {kAutoId, DiffKind::Tile, "z.0", ids.tileStage, 12, "fail", "{}", R"({"core":1})"}});
    writer.addAll(std::vector<MetricRow>{{"pipe_util", "core", 0, "aic_mac_ratio", 0.59, ""},
                                         {"pipe_util", "core", 1, "aiv_vec_ratio", 0.375, ""},
                                         {"bound", "task", 40, "class", std::nullopt, "memory"}});
    writer.addAll(std::vector<StatRow>{
        {"slices_dropped", std::nullopt, StatSeverity::DataLoss, 0, "slices over the trace limit"},
        {"uninit_reads", 1, StatSeverity::Error, 0, "reads of uninitialised UB on core 1"},
        {"events", std::nullopt, StatSeverity::Info, 12, "simulator events processed"}});
}

} // namespace

SampleIds writeSampleTrace(const std::filesystem::path& path) {
    SampleIds ids;
    TraceWriter writer = TraceWriter::create(path);
    writeMeta(writer);
    writeCompilerTables(writer, ids);
    writeRunTables(writer, ids);
    writeResultTables(writer, ids);
    writer.commit();
    return ids;
}

} // namespace pto::tracedb::test
