// Hand-made traces with exact answers for the profiler's unit tests.
#include "tests/unit/profiler/SyntheticTrace.h"

#include "trace_db/TraceWriter.h"

#include <fmt/format.h>

#include <map>

namespace pto::test {

using namespace tracedb;

void writeSyntheticTrace(const std::filesystem::path& path, const SynthTrace& t) {
    TraceWriter w = TraceWriter::create(path);
    w.setMeta("clock_hz", "1000000000");
    w.setMeta("entry", "synth");
    w.setMeta("trace_level", "full");
    w.setMeta("sim_total_cycles", std::to_string(t.totalCycles));
    w.setMeta("arch_config",
              fmt::format(
                  R"({{"name":"synthetic","params":{{"core.aic_count":"{}","core.aiv_count":"{}",)"
                  R"("clock.freq":"1 GHz","sched.dispatch_cost":"{} cycles"}}}})",
                  t.aicCores, t.aivCores, t.dispatchCycles));
    std::int64_t root = w.add(StageRow{.name = "tensor.parse", .level = StageLevel::Tensor});
    std::int64_t exec = w.add(
        StageRow{.ord = 1, .name = "exec.build", .level = StageLevel::Exec, .parentStageId = root});
    std::int64_t pto = w.add(
        StageRow{.ord = 2, .name = "pto.emit", .level = StageLevel::Pto, .parentStageId = exec});
    for (const SynthOp& op : t.ops)
        w.add(NodeRow{
            .stageId = root, .id = op.id, .kind = op.kind, .name = op.name, .srcLine = op.line});
    std::int64_t chip =
        w.add(TrackRow{.nameId = w.intern("synthetic chip"), .kind = TrackKind::Chip});
    std::map<std::pair<std::string, std::int64_t>, std::int64_t> cores;
    std::map<std::pair<std::int64_t, std::string>, std::int64_t> pipes;
    auto coreTrack = [&](const std::string& type, std::int64_t index) {
        auto key = std::make_pair(type, index);
        if (!cores.count(key))
            cores[key] = w.add(TrackRow{.parentId = chip,
                                        .nameId = w.intern(fmt::format("{} {}", type, index)),
                                        .kind = TrackKind::Core,
                                        .coreId = index,
                                        .coreType = type});
        return cores[key];
    };
    std::map<std::int64_t, std::int64_t> lineOf;
    for (const SynthOp& op : t.ops) lineOf[op.id] = op.line;
    std::int64_t instrId = 1;
    for (const SynthTask& task : t.tasks) {
        if (task.inExecStage)
            w.add(NodeRow{.stageId = exec,
                          .id = task.id,
                          .kind = "task",
                          .name = fmt::format("task{}", task.id),
                          .core = task.coreType,
                          .parentId = task.id});
        w.add(NodeRow{.stageId = pto,
                      .id = task.id,
                      .kind = "kernel",
                      .name = fmt::format("k{}", task.id),
                      .core = task.coreType,
                      .parentId = task.id});
        for (std::int64_t dep : task.deps)
            w.add(EdgeRow{.stageId = exec, .src = dep, .dst = task.id, .label = "raw"});
        std::int64_t core = coreTrack(task.coreType, task.core);
        w.add(SliceRow{.ts = task.start,
                       .dur = task.end - task.start,
                       .trackId = core,
                       .nameId = w.intern(fmt::format("task{}", task.id)),
                       .category = SliceCategory::Task,
                       .taskId = task.id});
        for (std::size_t i = 0; i < task.instrs.size(); ++i) {
            const SynthInstr& in = task.instrs[i];
            auto key = std::make_pair(core, in.pipe);
            if (!pipes.count(key))
                pipes[key] = w.add(TrackRow{.parentId = core,
                                            .nameId = w.intern(in.pipe),
                                            .kind = TrackKind::Pipe,
                                            .coreId = task.core,
                                            .coreType = task.coreType,
                                            .pipe = in.pipe});
            std::int64_t id = w.add(InstrRow{.id = instrId++,
                                             .stageId = pto,
                                             .blockId = task.id,
                                             .idx = std::int64_t(i),
                                             .pipe = in.pipe,
                                             .opcode = in.opcode,
                                             .operands = in.operands,
                                             .tileOpId = in.tensorOp,
                                             .tileStageId = root,
                                             .srcLine = lineOf[in.tensorOp],
                                             .flops = in.flops,
                                             .gmBytes = in.gmBytes,
                                             .srcDtype = in.srcDtype});
            w.add(SliceRow{.ts = in.ts,
                           .dur = in.dur,
                           .trackId = pipes[key],
                           .nameId = w.intern(in.opcode),
                           .category = SliceCategory::Instr,
                           .instrId = id,
                           .taskId = task.id});
        }
    }
    w.commit();
}

// AIV 0: task 0 [100, 1100). AIV 1: task 1 [100, 600), task 2 [1200, 2200) which depends on
// task 0. The run ends at 2200. Task 0 loads for 400 cycles (16·64 f16 = 2048 GM bytes) and adds
// for 300 (1024 FLOPs); each exp is 1024 FLOPs.
SynthTrace twoCoreTrace() {
    SynthTrace t;
    t.totalCycles = 2200;
    t.ops = {{0, "add", "%c", 3}, {1, "exp", "%e", 4}};
    const std::string load = "MTE2 TLOAD UB[0x0]:f16[16x64/64], GM[0x0]:f16[16x64/64]";
    const std::string add =
        "V TADD UB[0x0]:f16[16x64/64], UB[0x800]:f16[16x64/64], UB[0x1000]:f16[16x64/64]";
    const std::string exp = "V TEXP UB[0x0]:f32[16x64/64], UB[0x800]:f32[16x64/64]";
    t.tasks = {
        {0,
         "AIV",
         0,
         100,
         1100,
         {},
         {{"MTE2", "TLOAD", load, 100, 400, 0, 0, 2048}, {"V", "TADD", add, 600, 300, 0, 1024}}},
        {1, "AIV", 1, 100, 600, {}, {{"V", "TEXP", exp, 150, 200, 1, 1024, 0, "f32"}}},
        {2, "AIV", 1, 1200, 2200, {0}, {{"V", "TEXP", exp, 1300, 500, 1, 1024, 0, "f32"}}},
    };
    return t;
}

} // namespace pto::test
