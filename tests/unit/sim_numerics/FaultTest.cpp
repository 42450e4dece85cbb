// Every fault kind of the functional simulator with its full message: out-of-bounds (on-chip,
// stride extent, GM image, GM tensor crossing), uninitialised reads, bad instructions, and the
// message builder of the engine's kinds (deadlock, overlap).
#include <gtest/gtest.h>

#include "tests/unit/sim_numerics/SimTestSupport.h"

namespace pto::simtest {
namespace {

// Runs kernel 0 of `b` on core `core`; returns the fault (fails the test when none is thrown).
SimFault faultOf(ProgramBuilder& b, std::span<const TensorData> inputs, ExecOptions options = {},
                 int core = 0) {
    const TargetInfo target;
    GlobalMemory gm(b.program(), inputs);
    FunctionalExecutor exec(b.program(), target, gm, std::move(options));
    const Kernel& k = b.kernel();
    try {
        for (const Instr& in : k.instrs) exec.execute(core, k.core, in);
    } catch (const SimFault& fault) {
        return fault;
    }
    ADD_FAILURE() << "no fault";
    return SimFault(FaultKind::BadInstruction, {}, "none");
}

TEST(SimFaults, OutOfBoundsOnChipNamesEverything) {
    ProgramBuilder b(CoreType::AIV);
    const size_t g = b.addGm("x", DType::F16, Shape{128, 128}, GmRole::Input);
    for (int i = 0; i < 12; ++i) b.emit(Opcode::SetFlag, Pipe::MTE2, {});
    Operand ub{MemSpace::UB, DType::F16, 196608, 128, 128, 128};
    Instr& load = b.emit(Opcode::TLoad, Pipe::MTE2, {ub, b.gmAll(g)});
    load.tileOp = 41;
    load.loc = SourceLoc{7, 3};
    const std::vector<TensorData> inputs{TensorData(DType::F16, Shape{128, 128})};
    SimFault fault = faultOf(b, inputs, ExecOptions{false, "samples/softmax.pto"}, 3);
    EXPECT_EQ(fault.kind(), FaultKind::OutOfBounds);
    EXPECT_EQ(fault.site().instrIndex, 12);
    EXPECT_STREQ(fault.what(),
                 "out-of-bounds TLOAD on AIV 3 pipe MTE2 (kernel 0 instr 12, from tile op #41, "
                 "samples/softmax.pto:7:3): UB write: operand 0 = UB f16 [128x128] @196608 "
                 "stride 128 covers UB [0x30000, 0x38000), beyond its 188416 bytes");
    fault.setCycle(5120); // the engine adds the cycle
    EXPECT_STREQ(fault.what(),
                 "out-of-bounds TLOAD on AIV 3 pipe MTE2 (kernel 0 instr 12, cycle 5120, from tile "
                 "op #41, samples/softmax.pto:7:3): UB write: operand 0 = UB f16 [128x128] "
                 "@196608 stride 128 covers UB [0x30000, 0x38000), beyond its 188416 bytes");
}

TEST(SimFaults, OutOfBoundsCountsTheStrideExtent) {
    // 8 rows of 16 f32: at stride 6000 the last row ends at 7·24000 + 64 = 168064 (fits); at
    // stride 7000 it ends at 196064, past the 188416 usable bytes of UB.
    ProgramBuilder fits(CoreType::AIV);
    fits.emit(Opcode::TExpandS, Pipe::V, {Operand{MemSpace::UB, DType::F32, 0, 8, 16, 6000}});
    EXPECT_NO_THROW(runProgram(fits.program(), {}));
    ProgramBuilder b(CoreType::AIV);
    b.emit(Opcode::TExpandS, Pipe::V, {Operand{MemSpace::UB, DType::F32, 0, 8, 16, 7000}});
    const SimFault fault = faultOf(b, {});
    EXPECT_EQ(fault.kind(), FaultKind::OutOfBounds);
    EXPECT_EQ(fault.detail(), "UB write: operand 0 = UB f32 [8x16] @0 stride 7000 covers UB "
                              "[0x0, 0x2fde0), beyond its 188416 bytes");
}

TEST(SimFaults, GmWriteCrossingIntoTheNextTensor) {
    ProgramBuilder b(CoreType::AIV);
    const size_t gx = b.addGm("x", DType::F32, Shape{128}, GmRole::Output); // [0, 512)
    b.addGm("y", DType::F32, Shape{128}, GmRole::Output);                   // [512, 1024)
    const Operand ub = b.alloc(MemSpace::UB, DType::F32, 1, 64);
    b.emit(Opcode::TExpandS, Pipe::V, {ub});
    Operand dst = b.gmBox(gx, 0, 100, 1, 64); // [400, 656)
    b.emit(Opcode::TStore, Pipe::MTE3, {dst, ub});
    const SimFault fault = faultOf(b, {});
    EXPECT_EQ(fault.kind(), FaultKind::OutOfBounds);
    EXPECT_STREQ(fault.what(),
                 "out-of-bounds TSTORE on AIV 0 pipe MTE3 (kernel 0 instr 1): GM write [400, 656) "
                 "crosses from tensor 'x' [0, 512) into tensor 'y' [512, 1024) (operand 0 = GM "
                 "f32 [1x64] @400 stride 128)");
}

TEST(SimFaults, GmReadPastTheImageAndPastATensor) {
    ProgramBuilder b(CoreType::AIV);
    const size_t gx = b.addGm("x", DType::F32, Shape{100}, GmRole::Input); // [0, 400), pad to 512
    b.addGm("y", DType::F32, Shape{16}, GmRole::Input);                    // [512, 576)
    const Operand ub = b.alloc(MemSpace::UB, DType::F32, 1, 64);
    b.emit(Opcode::TLoad, Pipe::MTE2, {ub, b.gmBox(gx, 0, 50, 1, 64)}); // [200, 456): gap
    const std::vector<TensorData> inputs{TensorData(DType::F32, Shape{100}),
                                         TensorData(DType::F32, Shape{16})};
    EXPECT_EQ(faultOf(b, inputs).detail(),
              "GM read [200, 456) runs 56 bytes past the end of tensor 'x' [0, 400) (operand 1 = "
              "GM f32 [1x64] @200 stride 100)");
    b.kernel().instrs.clear();
    Operand far{MemSpace::GM, DType::F32, 540, 1, 64, 64};
    b.emit(Opcode::TLoad, Pipe::MTE2, {ub, far});
    EXPECT_EQ(faultOf(b, inputs).detail(),
              "GM read [540, 796) exceeds the GM image [0, 576) (operand 1 = GM f32 [1x64] @540 "
              "stride 64)");
    b.kernel().instrs.clear();
    Operand gap{MemSpace::GM, DType::F32, 420, 1, 4, 4};
    b.emit(Opcode::TLoad, Pipe::MTE2, {b.alloc(MemSpace::UB, DType::F32, 1, 4), gap});
    EXPECT_EQ(faultOf(b, inputs).detail(),
              "GM read [420, 436) starts outside every GM tensor (operand 1 = GM f32 [1x4] @420 "
              "stride 4)");
}

TEST(SimFaults, UninitializedReadWhenEnabled) {
    ProgramBuilder b(CoreType::AIV);
    const size_t g = b.addGm("y", DType::F16, Shape{4, 16}, GmRole::Output);
    const Operand t = b.alloc(MemSpace::UB, DType::F16, 4, 16);
    Operand firstRows = t;
    firstRows.rows = 2; // only rows 0-1 are written
    b.emit(Opcode::TExpandS, Pipe::V, {firstRows});
    b.emit(Opcode::TExp, Pipe::V, {t, t});
    b.emit(Opcode::TStore, Pipe::MTE3, {b.gmAll(g), t});
    const SimFault fault = faultOf(b, {}, ExecOptions{true, {}});
    EXPECT_EQ(fault.kind(), FaultKind::UninitializedRead);
    EXPECT_STREQ(fault.what(),
                 "uninitialized read TEXP on AIV 0 pipe V (kernel 0 instr 1): UB read [0, 128) of "
                 "operand 1 = UB f16 [4x16] @0 stride 16 reaches byte 64 (row 2), which no "
                 "instruction wrote");
    // Without the check the program runs (the unwritten bytes are zero).
    EXPECT_NO_THROW(runProgram(b.program(), {}, ExecOptions{false, {}}));
}

TEST(SimFaults, BadInstructions) {
    struct Case {
        CoreType core;
        Instr instr;
        std::string message;
    };
    const Operand ub{MemSpace::UB, DType::F16, 0, 16, 16, 16};
    const Operand l0a{MemSpace::L0A, DType::F16, 0, 16, 16, 16};
    const Operand l0b{MemSpace::L0B, DType::F16, 0, 16, 16, 16};
    const Operand l0c{MemSpace::L0C, DType::F32, 0, 16, 16, 16};
    auto make = [](Opcode op, Pipe pipe, std::initializer_list<Operand> ops) {
        Instr in;
        in.opcode = op;
        in.pipe = pipe;
        for (const Operand& o : ops) in.operands[in.operandCount++] = o;
        return in;
    };
    Operand l0bBf16 = l0b;
    l0bBf16.dtype = DType::BF16;
    Operand ubNarrow = ub;
    ubNarrow.cols = 8;
    Instr badPred = make(Opcode::TCmp, Pipe::V, {ub, ub, ub});
    badPred.mode = "less";
    Instr badMode = make(Opcode::TCvt, Pipe::V, {ub, ub});
    badMode.mode = "nearest";
    Operand ubStride0 = ub;
    ubStride0.stride = 0;
    const std::vector<Case> cases = {
        {CoreType::AIV, make(Opcode::TAdd, Pipe::V, {ubStride0, ub, ub}),
         "bad instruction TADD on AIV 0 pipe V: operand 0 = UB f16 [16x16] @0 stride 0 has shape "
         "16x16 with row stride 0 (need rows, cols >= 1 and a row stride >= cols, or 0 for a "
         "vector source's row broadcast)"},
        {CoreType::AIV,
         make(Opcode::TColSum, Pipe::V,
              {Operand{MemSpace::UB, DType::F32, 0, 1, 16, 16}, ubStride0}),
         "bad instruction TCOLSUM on AIV 0 pipe V: operand 1 = UB f16 [16x16] @0 stride 0 repeats "
         "one row (stride 0) more often than the destination's 1 rows"},
        {CoreType::AIC,
         make(Opcode::TMatmul, Pipe::M,
              {l0c, Operand{MemSpace::L0A, DType::F16, 0, 16, 16, 0}, l0b}),
         "bad instruction TMATMUL on AIC 0 pipe M: operand 1 = L0A f16 [16x16] @0 stride 0 has "
         "shape 16x16 with row stride 0 (need rows, cols >= 1 and a row stride >= cols, or 0 for "
         "a vector source's row broadcast)"},
        {CoreType::AIC, make(Opcode::TMatmul, Pipe::M, {l0c, ub, l0b}),
         "bad instruction TMATMUL on AIC 0 pipe M: operand 1 = UB f16 [16x16] @0 stride 16 must "
         "be in L0A"},
        {CoreType::AIC, make(Opcode::TMatmul, Pipe::M, {l0c, l0a, l0bBf16}),
         "bad instruction TMATMUL on AIC 0 pipe M: operand 1 = L0A f16 [16x16] @0 stride 16 and "
         "operand 2 = L0B bf16 [16x16] @0 stride 16 must have the same dtype"},
        {CoreType::AIC, make(Opcode::TMatmul, Pipe::M, {l0c, l0a}),
         "bad instruction TMATMUL on AIC 0 pipe M: TMATMUL takes 3 operands, got 2"},
        {CoreType::AIC,
         make(Opcode::TStore, Pipe::MTE3, {Operand{MemSpace::GM, DType::F32, 0, 16, 16, 16}, l0c}),
         "bad instruction TSTORE on AIC 0 pipe MTE3: TSTORE with these operands runs on pipe "
         "FIX, not MTE3"},
        {CoreType::AIC, make(Opcode::TAdd, Pipe::V, {ub, ub, ub}),
         "bad instruction TADD on AIC 0 pipe V: an AIC core has no pipe V"},
        {CoreType::AIV, make(Opcode::TAdd, Pipe::V, {ub, ubNarrow, ub}),
         "bad instruction TADD on AIV 0 pipe V: operand 1 = UB f16 [16x8] @0 stride 16 does not "
         "broadcast to [16x16] (rows must be 1 or 16, cols 1 or 16)"},
        {CoreType::AIV, badPred,
         "bad instruction TCMP on AIV 0 pipe V: unknown comparison predicate 'less' (want eq, "
         "ne, lt, le, gt or ge)"},
        {CoreType::AIV, badMode,
         "bad instruction TCVT on AIV 0 pipe V: unknown rounding mode 'nearest' (want rne, "
         "trunc, floor, ceil or rna)"},
        {CoreType::AIV, make(Opcode::TRowSum, Pipe::V, {ub, ub}),
         "bad instruction TROWSUM on AIV 0 pipe V: operand 0 = UB f16 [16x16] @0 stride 16 must "
         "be [16x1]"},
        {CoreType::AIV,
         make(Opcode::TMov, Pipe::V, {ub, Operand{MemSpace::GM, DType::F16, 0, 16, 16, 16}}),
         "bad instruction TMOV on AIV 0 pipe V: TMOV moves L1->L0A/L0B, L0C->L1 or UB->UB, not "
         "GM->UB"},
    };
    const PtoProgram program; // the instructions are not part of it: no kernel/instr index
    const TargetInfo target;
    GlobalMemory gm(program);
    for (const Case& c : cases) {
        FunctionalExecutor exec(program, target, gm);
        try {
            exec.execute(0, c.core, c.instr);
            ADD_FAILURE() << "no fault for: " << c.message;
        } catch (const SimFault& f) {
            EXPECT_EQ(f.kind(), FaultKind::BadInstruction);
            EXPECT_EQ(std::string(f.what()), c.message);
        }
    }
}

TEST(SimFaults, CoreOutOfRangeIsAnUsageError) {
    const PtoProgram program;
    const TargetInfo target;
    GlobalMemory gm(program);
    FunctionalExecutor exec(program, target, gm);
    Instr flag;
    flag.opcode = Opcode::Barrier;
    EXPECT_THROW(exec.execute(48, CoreType::AIV, flag), std::out_of_range);
    EXPECT_THROW(exec.execute(-1, CoreType::AIC, flag), std::out_of_range);
    EXPECT_NO_THROW(exec.execute(47, CoreType::AIV, flag));
    Instr garbage;
    garbage.opcode = static_cast<Opcode>(200);
    try {
        exec.execute(0, CoreType::AIV, garbage);
        ADD_FAILURE() << "no fault";
    } catch (const SimFault& f) {
        EXPECT_STREQ(f.what(), "bad instruction on AIV 0 pipe V: opcode 200 does not exist");
    }
}

TEST(SimFaults, EngineKindsFormatTheirSite) {
    FaultSite site;
    site.coreType = CoreType::AIC;
    site.core = 2;
    site.pipe = Pipe::MTE1;
    site.cycle = 900;
    site.kernel = 1;
    site.instrIndex = 4;
    site.opcode = Opcode::WaitFlag;
    EXPECT_STREQ(
        SimFault(FaultKind::Deadlock, site, "waits for MTE2->MTE1 event 3, never set").what(),
        "deadlock WAIT_FLAG on AIC 2 pipe MTE1 (kernel 1 instr 4, cycle 900): waits for "
        "MTE2->MTE1 event 3, never set");
    EXPECT_STREQ(SimFault(FaultKind::Overlap, FaultSite{}, "buffers a and b share [0, 64)").what(),
                 "overlap: buffers a and b share [0, 64)");
    SimFault late(FaultKind::Deadlock, FaultSite{}, "cycle of waits: ...");
    late.setCore(CoreType::AIV, 5);
    late.setPipe(Pipe::V);
    late.setInstr(0, 7);
    late.setFile("x.pto");
    EXPECT_STREQ(late.what(),
                 "deadlock on AIV 5 pipe V (kernel 0 instr 7, x.pto): cycle of waits: ...");
}

} // namespace
} // namespace pto::simtest
