// Tests of emit-pto: tiny kernels by hand, broadcast forms, GM layout and provenance.
#include "LoweringTestUtil.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

Operand onChip(MemSpace s, DType d, int64_t addr, int rows, int cols, int64_t stride) {
    return Operand{s, d, addr, rows, cols, stride};
}

void expectInstr(const Instr& in, Opcode code, Pipe pipe, std::vector<Operand> ops, OpId tileOp) {
    EXPECT_EQ(opcodeName(in.opcode), opcodeName(code));
    EXPECT_EQ(pipeName(in.pipe), pipeName(pipe)) << opcodeName(in.opcode);
    ASSERT_EQ(in.operandCount, ops.size()) << opcodeName(in.opcode);
    for (size_t i = 0; i < ops.size(); ++i) {
        const Operand &a = in.operands[i], &e = ops[i];
        EXPECT_EQ(a.space, e.space) << opcodeName(code) << " operand " << i;
        EXPECT_EQ(a.dtype, e.dtype) << opcodeName(code) << " operand " << i;
        EXPECT_EQ(a.addr, e.addr) << opcodeName(code) << " operand " << i;
        EXPECT_EQ(a.rows, e.rows) << opcodeName(code) << " operand " << i;
        EXPECT_EQ(a.cols, e.cols) << opcodeName(code) << " operand " << i;
        EXPECT_EQ(a.stride, e.stride) << opcodeName(code) << " operand " << i;
    }
    EXPECT_EQ(in.tileOp, tileOp) << opcodeName(code);
}

void expectFlag(const Instr& in, Opcode code, Pipe src, Pipe dst, int event, OpId tileOp) {
    EXPECT_EQ(opcodeName(in.opcode), opcodeName(code));
    EXPECT_EQ(in.pipe, code == Opcode::SetFlag ? src : dst) << "flags run on their own pipe";
    EXPECT_EQ(in.flagSrc, src);
    EXPECT_EQ(in.flagDst, dst);
    EXPECT_EQ(in.event, event);
    EXPECT_EQ(in.operandCount, 0);
    EXPECT_EQ(in.tileOp, tileOp);
}

// y = exp(x) + 1 on one 32×64 f32 tile: load, exp, adds, store and two flag pairs.
TEST(EmitPto, TinyElementwiseByHand) {
    Lowered l = lowerAll(elementwiseProgram(1, 32, 64));
    const PtoProgram& p = l.pto;
    ASSERT_EQ(p.gm.size(), 2u);
    EXPECT_EQ(p.gm[0].name, "x");
    EXPECT_EQ(p.gm[0].addr, 0);
    EXPECT_EQ(p.gm[0].role, GmRole::Input);
    EXPECT_EQ(p.gm[1].name, "y");
    EXPECT_EQ(p.gm[1].addr, 8192);
    EXPECT_EQ(p.gm[1].role, GmRole::Output);
    ASSERT_EQ(p.kernels.size(), 1u);
    const Kernel& k = p.kernels[0];
    EXPECT_EQ(k.name, "ew_aiv_0");
    EXPECT_EQ(k.core, CoreType::AIV);
    ASSERT_EQ(k.instrs.size(), 8u);
    const auto f32 = DType::F32;
    // ops: 0 gm_tensor y, 1 tload, 2 exp, 3 adds, 4 tstore
    expectInstr(
        k.instrs[0], Opcode::TLoad, Pipe::MTE2,
        {onChip(MemSpace::UB, f32, 0, 32, 64, 64), onChip(MemSpace::GM, f32, 0, 32, 64, 64)}, 1);
    expectFlag(k.instrs[1], Opcode::SetFlag, Pipe::MTE2, Pipe::V, 0, 1);
    expectFlag(k.instrs[2], Opcode::WaitFlag, Pipe::MTE2, Pipe::V, 0, 2);
    expectInstr(
        k.instrs[3], Opcode::TExp, Pipe::V,
        {onChip(MemSpace::UB, f32, 8192, 32, 64, 64), onChip(MemSpace::UB, f32, 0, 32, 64, 64)}, 2);
    expectInstr(
        k.instrs[4], Opcode::TAddS, Pipe::V,
        {onChip(MemSpace::UB, f32, 0, 32, 64, 64), onChip(MemSpace::UB, f32, 8192, 32, 64, 64)}, 3);
    EXPECT_EQ(k.instrs[4].scalar, 1.0);
    expectFlag(k.instrs[5], Opcode::SetFlag, Pipe::V, Pipe::MTE3, 0, 3);
    expectFlag(k.instrs[6], Opcode::WaitFlag, Pipe::V, Pipe::MTE3, 0, 4);
    expectInstr(
        k.instrs[7], Opcode::TStore, Pipe::MTE3,
        {onChip(MemSpace::GM, f32, 8192, 32, 64, 64), onChip(MemSpace::UB, f32, 0, 32, 64, 64)}, 4);
    EXPECT_EQ(k.instrs[7].loc, (SourceLoc{5, 3}));
    ASSERT_EQ(p.exec.tasks.size(), 1u);
    EXPECT_EQ(p.exec.tasks[0].block, 0u);
}

TEST(EmitPto, GmAddressOfASecondTile) {
    Lowered l = lowerAll(elementwiseProgram(2, 16, 256), {24, 1, 0});
    const Kernel& k = l.pto.kernels.at(0);
    std::vector<const Instr*> loads, stores;
    for (const Instr& in : k.instrs) {
        if (in.opcode == Opcode::TLoad) loads.push_back(&in);
        if (in.opcode == Opcode::TStore) stores.push_back(&in);
    }
    ASSERT_EQ(loads.size(), 2u);
    EXPECT_EQ(loads[1]->operands[1].addr, 16 * 256 * 4);
    EXPECT_EQ(stores[1]->operands[0].addr, 32 * 256 * 4 + 16 * 256 * 4);
    EXPECT_EQ(stores[1]->operands[0].stride, 256);
}

// One 128×128 output tile, K = 128 as one L1 step of two L0 steps of 64.
TEST(EmitPto, TinyMatmulByHand) {
    Lowered l = lowerAll(matmulProgram(128, 128, 128, 128, 128, 128, 64));
    const Kernel& k = l.pto.kernels.at(0);
    EXPECT_EQ(k.core, CoreType::AIC);
    std::vector<const Instr*> ops;
    for (const Instr& in : k.instrs)
        if (in.opcode != Opcode::SetFlag && in.opcode != Opcode::WaitFlag) ops.push_back(&in);
    ASSERT_EQ(ops.size(), 9u);
    const auto f16 = DType::F16, f32 = DType::F32;
    // GM: a at 0 (32 KiB), b at 32768, c at 65536.
    expectInstr(
        *ops[0], Opcode::TLoad, Pipe::MTE2,
        {onChip(MemSpace::L1, f16, 0, 128, 128, 128), onChip(MemSpace::GM, f16, 0, 128, 128, 128)},
        1);
    expectInstr(
        *ops[1], Opcode::TExtract, Pipe::MTE1,
        {onChip(MemSpace::L0A, f16, 0, 128, 64, 64), onChip(MemSpace::L1, f16, 0, 128, 64, 128)},
        3);
    expectInstr(*ops[2], Opcode::TLoad, Pipe::MTE2,
                {onChip(MemSpace::L1, f16, 32768, 128, 128, 128),
                 onChip(MemSpace::GM, f16, 32768, 128, 128, 128)},
                2);
    expectInstr(*ops[3], Opcode::TExtract, Pipe::MTE1,
                {onChip(MemSpace::L0B, f16, 0, 64, 128, 128),
                 onChip(MemSpace::L1, f16, 32768, 64, 128, 128)},
                4);
    expectInstr(*ops[4], Opcode::TMatmul, Pipe::M,
                {onChip(MemSpace::L0C, f32, 0, 128, 128, 128),
                 onChip(MemSpace::L0A, f16, 0, 128, 64, 64),
                 onChip(MemSpace::L0B, f16, 0, 64, 128, 128)},
                5);
    // The second k-step uses the other L0 slots and the sub-tiles at column/row 64.
    expectInstr(*ops[5], Opcode::TExtract, Pipe::MTE1,
                {onChip(MemSpace::L0A, f16, 16384, 128, 64, 64),
                 onChip(MemSpace::L1, f16, 128, 128, 64, 128)},
                6);
    expectInstr(*ops[6], Opcode::TExtract, Pipe::MTE1,
                {onChip(MemSpace::L0B, f16, 16384, 64, 128, 128),
                 onChip(MemSpace::L1, f16, 32768 + 64 * 128 * 2, 64, 128, 128)},
                7);
    expectInstr(*ops[7], Opcode::TMatmulAcc, Pipe::M,
                {onChip(MemSpace::L0C, f32, 0, 128, 128, 128),
                 onChip(MemSpace::L0C, f32, 0, 128, 128, 128),
                 onChip(MemSpace::L0A, f16, 16384, 128, 64, 64),
                 onChip(MemSpace::L0B, f16, 16384, 64, 128, 128)},
                8);
    expectInstr(*ops[8], Opcode::TStore, Pipe::FIX,
                {onChip(MemSpace::GM, f32, 65536, 128, 128, 128),
                 onChip(MemSpace::L0C, f32, 0, 128, 128, 128)},
                9);
    // Flags: MTE2→MTE1 ×2, MTE1→M ×2, M→FIX ×1, each a set and a wait.
    EXPECT_EQ(k.instrs.size(), 9u + 2 * 5);
}

// A tile of a rank-3 tensor spanning two leading indices, and a rank-1 tensor: 2-D views.
TEST(EmitPto, GmOperandsOfOtherRanks) {
    TileBuilder b("ranks");
    ValueId x = b.arg("x", DType::F32, {4, 32, 64});
    ValueId w = b.arg("w", DType::F16, {4096});
    ValueId tx = b.tload(x, {1, 16, 0}, {32, 64}, MemSpace::UB); // rows 48..79 of 128
    ValueId tw = b.tload(w, {0}, {1, 4096}, MemSpace::UB);
    b.unary(OpKind::Exp, tx);
    b.unary(OpKind::Exp, tw);
    Lowered l = lowerAll(b.take());
    const auto& gm = l.pto.gm;
    ASSERT_EQ(gm.size(), 2u);
    EXPECT_EQ(gm[1].addr, 4 * 32 * 64 * 4);
    std::vector<const Instr*> loads;
    for (const Kernel& k : l.pto.kernels)
        for (const Instr& in : k.instrs)
            if (in.opcode == Opcode::TLoad) loads.push_back(&in);
    ASSERT_EQ(loads.size(), 2u);
    EXPECT_EQ(loads[0]->operands[1].addr, 48 * 64 * 4);
    EXPECT_EQ(loads[0]->operands[1].rows, 32);
    EXPECT_EQ(loads[0]->operands[1].stride, 64);
    EXPECT_EQ(loads[1]->operands[1].addr, gm[1].addr);
    EXPECT_EQ(loads[1]->operands[1].cols, 4096);
    EXPECT_EQ(loads[1]->operands[1].dtype, DType::F16);
}

TEST(EmitPto, TileOutsideItsTensorIsAnError) {
    TileBuilder b("oob");
    ValueId x = b.arg("x", DType::F32, {32, 64});
    b.unary(OpKind::Exp, b.tload(x, {16, 32}, {32, 64}, MemSpace::UB));
    try {
        lowerAll(b.take());
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("tload: tile 32x64 at offset [16, 32] does not lie "
                                             "inside GM tensor %x of shape 32x64"),
                  std::string::npos)
            << e.what();
    }
}

// Opcodes emitted for one tile op.
std::vector<Opcode> opcodesOf(const Kernel& k, OpId op) {
    std::vector<Opcode> out;
    for (const Instr& in : k.instrs)
        if (in.tileOp == op && in.opcode != Opcode::SetFlag && in.opcode != Opcode::WaitFlag)
            out.push_back(in.opcode);
    return out;
}

TEST(EmitPto, BroadcastForms) {
    TileBuilder b("bcast");
    ValueId x = b.arg("x", DType::F32, {16, 256});
    ValueId t = b.tload(x, {0, 0}, {16, 256}, MemSpace::UB);
    ValueId r = b.reduce(OpKind::ReduceMax, t, 1); // 16×1
    ValueId c = b.reduce(OpKind::ReduceSum, t, 0); // 1×256
    ValueId s = b.reduce(OpKind::ReduceMax, c, 1); // 1×1
    const Shape full{16, 256};
    ValueId v[] = {
        b.binary(OpKind::Sub, t, r, full),
        b.binary(OpKind::Sub, r, t, full),
        b.binary(OpKind::Add, r, t, full),
        b.binary(OpKind::Min, t, r, full),
        b.binary(OpKind::Mul, t, c, full),
        b.binary(OpKind::Add, t, s, full),
        b.op(OpKind::Broadcast, {c}, Type{DType::F32, full, MemSpace::UB}),
        b.op(OpKind::Broadcast, {r}, Type{DType::F32, full, MemSpace::UB}),
    };
    Function f = b.take();
    auto opOf = [&](ValueId val) { return f.value(val).def; };
    std::vector<OpId> ids;
    for (ValueId val : v) ids.push_back(opOf(val));
    OpId reduceCol = opOf(c);
    Lowered l = lowerAll(std::move(f));
    const Kernel& k = l.pto.kernels.at(0);
    using O = std::vector<Opcode>;
    EXPECT_EQ(opcodesOf(k, reduceCol), (O{Opcode::TColSum}));
    EXPECT_EQ(opcodesOf(k, ids[0]), (O{Opcode::TRowExpandSub}));
    EXPECT_EQ(opcodesOf(k, ids[1]), (O{Opcode::TRowExpand, Opcode::TSub}));
    EXPECT_EQ(opcodesOf(k, ids[2]), (O{Opcode::TRowExpandAdd}));
    EXPECT_EQ(opcodesOf(k, ids[3]), (O{Opcode::TRowExpand, Opcode::TMin}));
    EXPECT_EQ(opcodesOf(k, ids[4]), (O{Opcode::TMul}));
    EXPECT_EQ(opcodesOf(k, ids[5]), (O{Opcode::TRowExpandAdd}));
    EXPECT_EQ(opcodesOf(k, ids[6]), (O{Opcode::TMulS}));
    EXPECT_EQ(opcodesOf(k, ids[7]), (O{Opcode::TRowExpand}));
    for (const Instr& in : k.instrs) {
        if (in.tileOp == ids[4] && in.opcode == Opcode::TMul) {
            EXPECT_EQ(in.operands[2].stride, 0) << "column broadcast reads one row";
            EXPECT_EQ(in.operands[2].rows, 16);
        }
        if (in.tileOp == ids[5]) {
            EXPECT_EQ(in.operands[2].stride, 0) << "[1x1] read once per row";
            EXPECT_EQ(in.operands[2].cols, 1);
        }
        if (in.tileOp == ids[1] && in.opcode == Opcode::TSub) {
            EXPECT_EQ(in.operands[0].addr, in.operands[1].addr) << "expanded in place";
        }
    }
}

TEST(EmitPto, UnsupportedBroadcastIsAClearError) {
    TileBuilder b("cmp");
    ValueId x = b.arg("x", DType::F32, {16, 256});
    ValueId t = b.tload(x, {0, 0}, {16, 256}, MemSpace::UB);
    ValueId r = b.reduce(OpKind::ReduceMax, t, 1);
    Attrs a;
    a.set("pred", std::string("lt"));
    b.op(OpKind::Cmp, {t, r}, Type{DType::Bool, {16, 256}, MemSpace::UB}, a);
    try {
        lowerAll(b.take());
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("cmp %2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("broadcast it first"), std::string::npos) << e.what();
    }
}

TEST(EmitPto, GmLayoutRolesAndAlignment) {
    Lowered l = lowerAll(matmulReluProgram());
    const auto& gm = l.pto.gm;
    ASSERT_EQ(gm.size(), 4u);
    EXPECT_EQ(gm[0].name, "a");
    EXPECT_EQ(gm[1].name, "b");
    EXPECT_EQ(gm[2].name, "y");
    EXPECT_EQ(gm[2].role, GmRole::Output);
    EXPECT_EQ(gm[3].name, "w");
    EXPECT_EQ(gm[3].role, GmRole::Workspace);
    for (size_t i = 0; i < gm.size(); ++i) {
        EXPECT_EQ(gm[i].addr % 512, 0);
        if (i) {
            EXPECT_GE(gm[i].addr, gm[i - 1].addr + gm[i - 1].bytes());
        }
    }
    EXPECT_EQ(gm[0].tensorValue, 0u);
    EXPECT_EQ(l.pto.exec.deps.size(), l.exec.deps.size());
}

TEST(EmitPto, EveryInstructionHasProvenance) {
    for (Function f : {elementwiseProgram(100), softmaxProgram(8, 8, 1024),
                       matmulProgram(512, 512, 1024), matmulReluProgram()}) {
        Lowered l = lowerAll(std::move(f));
        size_t instrs = 0;
        for (const Kernel& k : l.pto.kernels)
            for (const Instr& in : k.instrs) {
                ++instrs;
                ASSERT_NE(in.tileOp, kNoId) << k.name;
                EXPECT_EQ(l.block.blockOfOp[in.tileOp], k.id);
                ASSERT_TRUE(in.loc.known()) << k.name;
                EXPECT_EQ(in.loc, l.block.tile.op(in.tileOp).loc);
                EXPECT_TRUE(coreHasPipe(k.core, in.pipe)) << k.name;
            }
        size_t items = 0;
        for (const BlockFunction& b : l.block.blocks) items += b.items.size();
        EXPECT_EQ(instrs, items) << "one instruction per item here";
    }
}

} // namespace
} // namespace pto::test
