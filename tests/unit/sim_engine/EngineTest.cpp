// Tests of the timing engine on hand-built programs: instruction costs, flags, barriers,
// deadlock reports, the device scheduler, static checks, and the functional hook's order.
#include "simulator/engine/Engine.h"
#include "simulator/Simulator.h"

#include "SimTestUtil.h"

#include <gtest/gtest.h>

namespace pto::sim {
namespace {

using test::addScalar;
using test::archWith;
using test::instr;
using test::kKiB;
using test::kMiB;
using test::ProgramBuilder;
using test::setFlag;
using test::tile;
using test::timingOnly;
using test::waitFlag;

Cycles taskTime(const SimResult& r, size_t i) {
    return r.tasks.at(i).end - r.tasks.at(i).start;
}

// A single AIC task: one TMATMUL of m×k×n (f16 inputs unless `dtype`).
PtoProgram matmulProgram(int m, int k, int n, DType dtype = DType::F16) {
    ProgramBuilder b;
    const uint32_t kernel = b.kernel(
        CoreType::AIC,
        {instr(Opcode::TMatmul, Pipe::M,
               {tile(MemSpace::L0C, 0, m, n, DType::F32), tile(MemSpace::L0A, 0, m, k, dtype),
                tile(MemSpace::L0B, 0, k, n, dtype)})});
    b.task(kernel);
    return b.program();
}

TEST(Engine, MatmulCostFollowsTheCubeFormula) {
    const ArchConfig arch;
    SimResult r = simulate(matmulProgram(128, 64, 256), arch, {}, timingOnly());
    // 6 + ceil(128/16) * ceil(64/16) * ceil(256/16) = 6 + 8 * 4 * 16 (REFERENCE.md).
    EXPECT_EQ(taskTime(r, 0), Cycles(518));
    EXPECT_EQ(r.core(CoreType::AIC, 0).busy[static_cast<int>(Pipe::M)], Cycles(518));
    EXPECT_EQ(r.tasks[0].start - r.tasks[0].dispatched, Cycles(1800)); // 1 us dispatch
    EXPECT_EQ(r.totalCycles, Cycles(1800 + 518));
    EXPECT_EQ(r.instructions, 1);

    // f32 inputs take twice the cycles per fractal; int8 fractals are twice as deep in k.
    r = simulate(matmulProgram(64, 64, 64, DType::F32), arch, {}, timingOnly());
    EXPECT_EQ(taskTime(r, 0), Cycles(6 + 4 * 4 * 4 * 2));
    PtoProgram i8 = matmulProgram(64, 64, 64, DType::I8);
    i8.kernels[0].instrs[0].operands[0].dtype = DType::I32;
    r = simulate(i8, arch, {}, timingOnly());
    EXPECT_EQ(taskTime(r, 0), Cycles(6 + 4 * 2 * 4));
}

TEST(Engine, VectorCostIsStartupPlusSlopeTimesRepeats) {
    ProgramBuilder b;
    // 64x128 f16 = 16 KiB = 64 repeats of 256 B; TADDS 5 + 1/repeat, TEXP 14 + 4/repeat.
    const Operand x = tile(MemSpace::UB, 0, 64, 128);
    const Operand y = tile(MemSpace::UB, 16384, 64, 128);
    b.task(b.kernel(CoreType::AIV, {addScalar(y, x, 1.0), instr(Opcode::TExp, Pipe::V, {x, y})}));
    const SimResult r = simulate(b.program(), ArchConfig(), {}, timingOnly());
    EXPECT_EQ(taskTime(r, 0), Cycles((5 + 64) + (14 + 4 * 64)));
}

// TLOAD x -> UB, x + 1 on V, TSTORE -> y; with or without the flags that order them.
PtoProgram loadAddStore(bool withFlags) {
    ProgramBuilder b;
    const int64_t xAddr = b.tensor("x", DType::F32, {16, 64}, GmRole::Input);
    const int64_t yAddr = b.tensor("y", DType::F32, {16, 64}, GmRole::Output);
    const Operand gx = tile(MemSpace::GM, xAddr, 16, 64, DType::F32);
    const Operand gy = tile(MemSpace::GM, yAddr, 16, 64, DType::F32);
    const Operand u0 = tile(MemSpace::UB, 0, 16, 64, DType::F32);
    const Operand u1 = tile(MemSpace::UB, 4096, 16, 64, DType::F32);
    std::vector<Instr> code = {instr(Opcode::TLoad, Pipe::MTE2, {u0, gx})};
    if (withFlags) {
        code.push_back(setFlag(Pipe::MTE2, Pipe::V));
        code.push_back(waitFlag(Pipe::MTE2, Pipe::V));
    }
    code.push_back(addScalar(u1, u0, 1.0));
    if (withFlags) {
        code.push_back(setFlag(Pipe::V, Pipe::MTE3));
        code.push_back(waitFlag(Pipe::V, Pipe::MTE3));
    }
    code.push_back(instr(Opcode::TStore, Pipe::MTE3, {gy, u1}));
    b.task(b.kernel(CoreType::AIV, std::move(code)));
    return b.program();
}

TEST(Engine, FlagOrdersLoadComputeStore) {
    const PtoProgram program = loadAddStore(true);
    const TensorData x = randomTensor(DType::F32, {16, 64}, 7);
    SimOptions options;
    options.traceLevel = TraceLevel::None;
    const SimResult r = simulate(program, ArchConfig(), std::span(&x, 1), options);
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].first, "y");
    for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(r.outputs[0].second.get(i), x.get(i) + 1.0f);
    // The three stages ran one after another: the task takes at least the sum of their costs.
    const CoreStats& core = r.core(CoreType::AIV, 0);
    Cycles sum;
    for (Cycles c : core.busy) sum += c;
    EXPECT_EQ(taskTime(r, 0), sum);
    EXPECT_TRUE(r.warnings.empty());
}

TEST(Engine, MissingSyncChangesTheNumbers) {
    const TensorData x = randomTensor(DType::F32, {16, 64}, 7);
    SimOptions options;
    options.traceLevel = TraceLevel::None;
    // With the hazard check on, the unordered add is an overlap with the load (tested in
    // tests/unit/sim_hazard); without it, the race shows in the numbers.
    EXPECT_THROW(simulate(loadAddStore(false), ArchConfig(), std::span(&x, 1), options),
                 OverlapFault);
    options.checkHazards = false;
    const SimResult r = simulate(loadAddStore(false), ArchConfig(), std::span(&x, 1), options);
    // The add completes long before the load: it reads the zeroed UB, the store writes 1s.
    int64_t wrong = 0;
    for (int64_t i = 0; i < x.numel(); ++i) wrong += r.outputs[0].second.get(i) != x.get(i) + 1;
    EXPECT_EQ(wrong, x.numel());
}

TEST(Engine, MissingSetFlagIsADeadlockNamingTheWait) {
    ProgramBuilder b;
    Instr wait = waitFlag(Pipe::MTE2, Pipe::V, 3);
    wait.tileOp = 41;
    wait.loc = {12, 5};
    const Operand u = tile(MemSpace::UB, 0, 16, 16);
    b.task(
        b.kernel(CoreType::AIV, {instr(Opcode::TMov, Pipe::V, {u, u}), wait, addScalar(u, u, 1)}));
    SimOptions options = timingOnly();
    options.sourceFile = "prog.pto";
    try {
        simulate(b.program(), ArchConfig(), {}, options);
        FAIL() << "no deadlock";
    } catch (const DeadlockFault& f) {
        EXPECT_EQ(f.kind(), FaultKind::Deadlock);
        ASSERT_EQ(f.blocked().size(), 1u);
        const BlockedPipe& bp = f.blocked()[0];
        EXPECT_EQ(bp.pipe, Pipe::V);
        EXPECT_EQ(bp.instrIndex, 1);
        EXPECT_EQ(bp.waitsFor, "flag MTE2->V#3");
        EXPECT_EQ(bp.releasedBy, -1);
        EXPECT_TRUE(f.waitCycle().empty());
        const std::string what = f.what();
        EXPECT_NE(what.find("deadlock WAIT_FLAG on AIV 0 pipe V"), std::string::npos) << what;
        EXPECT_NE(what.find("flag MTE2->V#3"), std::string::npos) << what;
        EXPECT_NE(what.find("missing set_flag"), std::string::npos) << what;
        EXPECT_NE(what.find("tile op #41"), std::string::npos) << what;
        EXPECT_NE(what.find("prog.pto:12:5"), std::string::npos) << what;
    }
}

TEST(Engine, CycleOfWaitsIsReported) {
    ProgramBuilder b;
    // V waits for MTE2 before releasing MTE2, which waits for V first: a cycle.
    b.task(b.kernel(CoreType::AIV,
                    {waitFlag(Pipe::V, Pipe::MTE2, 1), setFlag(Pipe::MTE2, Pipe::V, 0),
                     waitFlag(Pipe::MTE2, Pipe::V, 0), setFlag(Pipe::V, Pipe::MTE2, 1)}));
    b.task(b.kernel(CoreType::AIV, {}));
    b.dep(0, 1);
    try {
        simulate(b.program(), ArchConfig(), {}, timingOnly());
        FAIL() << "no deadlock";
    } catch (const DeadlockFault& f) {
        ASSERT_EQ(f.blocked().size(), 2u);
        EXPECT_EQ(f.waitCycle().size(), 2u);
        const std::string what = f.what();
        EXPECT_NE(what.find("cycle of waits: AIV 0 pipe MTE2"), std::string::npos) << what;
        EXPECT_NE(what.find("1 task(s) never started"), std::string::npos) << what;
    }
}

TEST(Engine, BarrierWaitsForTheAwaitedPipe) {
    ProgramBuilder b;
    const int64_t x = b.tensor("x", DType::F16, {64, 128}, GmRole::Input);
    const Operand u = tile(MemSpace::UB, 0, 64, 128);
    b.task(b.kernel(CoreType::AIV,
                    {instr(Opcode::TLoad, Pipe::MTE2, {u, tile(MemSpace::GM, x, 64, 128)}),
                     test::barrier(Pipe::V, Pipe::MTE2), addScalar(u, u, 1)}));
    const SimResult r = simulate(b.program(), ArchConfig(), {}, timingOnly());
    const CoreStats& c = r.core(CoreType::AIV, 0);
    EXPECT_EQ(taskTime(r, 0),
              c.busy[static_cast<int>(Pipe::MTE2)] + c.busy[static_cast<int>(Pipe::V)]);
    EXPECT_EQ(c.busy[static_cast<int>(Pipe::V)], Cycles(1 + 5 + 64));
}

TEST(Engine, NinetySixVectorTasksOn48CoresTakeTwoWaves) {
    ProgramBuilder b;
    const Operand x = tile(MemSpace::UB, 0, 64, 128);
    for (int t = 0; t < 96; ++t) b.task(b.kernel(CoreType::AIV, {addScalar(x, x, 1)}));
    const SimResult r = simulate(b.program(), ArchConfig(), {}, timingOnly());
    const int64_t work = 5 + 64, dispatch = 1800;
    EXPECT_EQ(r.totalCycles, Cycles(2 * (dispatch + work)));
    for (int t = 0; t < 96; ++t) {
        EXPECT_EQ(r.tasks[t].coreType, CoreType::AIV);
        EXPECT_EQ(r.tasks[t].core, t % 48) << t; // FIFO by id onto the lowest idle core
        EXPECT_EQ(r.tasks[t].start, Cycles(t < 48 ? dispatch : 2 * dispatch + work)) << t;
    }
    for (const CoreStats& c : r.cores) EXPECT_EQ(c.tasks, c.type == CoreType::AIV ? 2 : 0);
}

TEST(Engine, DispatchRespectsDependenciesAndTaskIdOrder) {
    ProgramBuilder b;
    const Operand x = tile(MemSpace::UB, 0, 64, 128);
    const uint32_t vec = b.kernel(CoreType::AIV, {addScalar(x, x, 1)});
    const uint32_t cube = b.kernel(
        CoreType::AIC, {instr(Opcode::TMatmul, Pipe::M,
                              {tile(MemSpace::L0C, 0, 16, 16, DType::F32),
                               tile(MemSpace::L0A, 0, 16, 16), tile(MemSpace::L0B, 0, 16, 16)})});
    // Ids out of table order: 7 (vec) -> 3 (cube) -> 5 (vec); 9 and 8 independent vec.
    b.task(vec, 7);
    b.task(cube, 3);
    b.task(vec, 5);
    b.task(vec, 9);
    b.task(vec, 8);
    b.dep(7, 3);
    b.dep(3, 5);
    const ArchConfig arch = archWith("core.aiv_count = 1\nsched.dispatch_cost = 10 cycles\n");
    const SimResult r = simulate(b.program(), arch, {}, timingOnly());
    const auto& t = r.tasks; // table order: 7, 3, 5, 9, 8
    EXPECT_GE(t[1].dispatched, t[0].end);
    EXPECT_GE(t[2].dispatched, t[1].end);
    EXPECT_EQ(t[1].coreType, CoreType::AIC);
    // One AIV core, lowest ready id first: 7 (of 7, 8, 9), 8 (of 8, 9; the cube runs 3), then
    // 5 (of 5, 9: task 3 finished while 8 ran), then 9.
    EXPECT_LT(t[0].start, t[4].start);
    EXPECT_LT(t[4].start, t[2].start);
    EXPECT_LT(t[2].start, t[3].start);
    for (const TaskRun& run : t) EXPECT_EQ(run.start - run.dispatched, Cycles(10));
}

TEST(Engine, UnmatchedSetFlagIsAWarning) {
    ProgramBuilder b;
    b.task(b.kernel(CoreType::AIV, {setFlag(Pipe::MTE2, Pipe::V, 2)}));
    const SimResult r = simulate(b.program(), ArchConfig(), {}, timingOnly());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].message.find("SET_FLAG MTE2->V#2 never waited for"), std::string::npos);
}

// The SimFault the program faults with at load, or a failure.
SimFault loadFault(const PtoProgram& program) {
    try {
        simulate(program, ArchConfig(), {}, timingOnly());
    } catch (const SimFault& f) {
        return f;
    }
    ADD_FAILURE() << "no fault";
    return SimFault(FaultKind::BadInstruction, {}, "");
}

TEST(Engine, StaticChecksFaultWithProvenance) {
    ProgramBuilder b;
    Instr wrongPipe = waitFlag(Pipe::MTE2, Pipe::V);
    wrongPipe.pipe = Pipe::S;
    wrongPipe.tileOp = 3;
    b.task(b.kernel(CoreType::AIV, {wrongPipe}));
    SimFault f = loadFault(b.program());
    EXPECT_EQ(f.kind(), FaultKind::BadInstruction);
    EXPECT_EQ(f.site().instrIndex, 0);
    EXPECT_EQ(f.site().tileOp, 3u);
    EXPECT_NE(f.detail().find("runs on its destination pipe V, not S"), std::string::npos)
        << f.what();

    b.program().kernels[0].instrs = {setFlag(Pipe::MTE2, Pipe::V, 9)};
    EXPECT_NE(loadFault(b.program()).detail().find("event id 9"), std::string::npos);

    b.program().kernels[0].instrs = {instr(Opcode::TMatmul, Pipe::M, {})};
    EXPECT_NE(loadFault(b.program()).detail().find("no pipe M"), std::string::npos);

    const Operand big = tile(MemSpace::UB, 180 * 1024, 64, 128); // ends past 184 KiB
    b.program().kernels[0].instrs = {addScalar(big, big, 1)};
    f = loadFault(b.program());
    EXPECT_EQ(f.kind(), FaultKind::OutOfBounds);
    EXPECT_NE(f.detail().find("beyond its 188416 bytes"), std::string::npos) << f.what();

    b.program().kernels[0].instrs = {instr(
        Opcode::TLoad, Pipe::MTE2, {tile(MemSpace::UB, 0, 1, 16), tile(MemSpace::UB, 64, 1, 16)})};
    EXPECT_NE(loadFault(b.program()).detail().find("TLOAD cannot move UB->UB"), std::string::npos);
    b.program().kernels[0].instrs = {instr(
        Opcode::TLoad, Pipe::MTE3, {tile(MemSpace::UB, 0, 1, 16), tile(MemSpace::GM, 0, 1, 16)})};
    b.tensor("x", DType::F16, {1, 16}, GmRole::Input);
    EXPECT_NE(loadFault(b.program()).detail().find("a GM->UB move runs on pipe MTE2, not MTE3"),
              std::string::npos);
}

TEST(Engine, TaskGraphChecks) {
    ProgramBuilder b;
    const uint32_t k = b.kernel(CoreType::AIV, {});
    b.task(k, 1);
    b.task(k, 2);
    b.task(k, 3);
    b.dep(1, 2);
    b.dep(2, 3);
    b.dep(3, 2);
    EXPECT_NE(loadFault(b.program()).detail().find("cycle 2 -> 3 -> 2"), std::string::npos)
        << loadFault(b.program()).what();
    b.program().exec.deps = {{1, 4}};
    EXPECT_NE(loadFault(b.program()).detail().find("does not exist"), std::string::npos);
    b.program().exec.deps.clear();
    b.program().exec.tasks[0].core = CoreType::AIC;
    EXPECT_NE(loadFault(b.program()).detail().find("is for core type aic"), std::string::npos);
}

TEST(Engine, MaxCyclesStopsTheRun) {
    SimOptions options = timingOnly();
    options.maxCycles = 1000;
    EXPECT_THROW(simulate(matmulProgram(128, 64, 256), ArchConfig(), {}, options),
                 SimLimitExceeded);
}

// Records the order in which the engine hands instructions to the functional hook.
class RecordingSink : public InstrSink {
public:
    void execute(int coreId, CoreType core, const Instr& in, std::span<const GmRebase>) override {
        order.push_back({coreId, core, in.opcode});
    }
    struct Entry {
        int core;
        CoreType type;
        Opcode op;
    };
    std::vector<Entry> order;
};

TEST(Engine, FunctionalHookSeesCompletionOrder) {
    const PtoProgram program = loadAddStore(true);
    const ArchConfig arch;
    const CostModel costs(arch);
    const TimedProgram timed(program, arch, costs);
    const SimOptions options = timingOnly();
    RecordingSink sink;
    Engine engine(timed, arch, costs, options, &sink, nullptr);
    const SimResult r = engine.run();
    std::vector<Opcode> ops;
    for (const auto& e : sink.order) ops.push_back(e.op);
    const std::vector<Opcode> expected = {Opcode::TLoad, Opcode::SetFlag, Opcode::WaitFlag,
                                          Opcode::TAddS, Opcode::SetFlag, Opcode::WaitFlag,
                                          Opcode::TStore};
    EXPECT_EQ(ops, expected);
    EXPECT_EQ(r.instructions, 7);
    EXPECT_EQ(r.bytes(DmaPath::GmToUb), 16 * 64 * 4);
    EXPECT_EQ(r.bytes(DmaPath::UbToGm), 16 * 64 * 4);
}

} // namespace
} // namespace pto::sim
