// Tests of allocate-buffers: alignment, capacity, overlap, in-place, slots, fallback, errors.
#include "LoweringTestUtil.h"

#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/OrderInstructions.h"
#include "compiler/passes/PartitionBlocks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace pto::test {
namespace {

BlockProgram allocated(Function f, PartitionOptions opts, bool doubleBuffer = true) {
    BlockProgram p = partitionBlocks(std::move(f), opts);
    p.doubleBuffer = doubleBuffer;
    orderInstructions(p);
    allocateBuffers(p, TargetInfo{}, "test.pto");
    return p;
}

// Buffers of the values defined by ops of `kind`, in item order.
std::vector<const Buffer*> buffersOf(const BlockProgram& p, const BlockFunction& b, OpKind kind) {
    std::vector<const Buffer*> out;
    for (const BlockItem& i : b.items)
        if (!i.isSync() && p.tile.op(i.op).kind == kind)
            out.push_back(&b.buffers[p.bufferOf[p.tile.op(i.op).result]]);
    return out;
}

TEST(AllocateBuffers, SampleProgramsAreValid) {
    for (bool db : {true, false}) {
        for (Function f : {elementwiseProgram(100), softmaxProgram(8, 8, 1024),
                           matmulProgram(512, 512, 1024), matmulReluProgram()}) {
            BlockProgram p = allocated(std::move(f), {2, 3, 0}, db);
            for (const std::string& problem : checkBuffers(p, TargetInfo{}))
                ADD_FAILURE() << problem;
        }
    }
}

TEST(AllocateBuffers, DoubleBufferSlotsAlternate) {
    BlockProgram p = allocated(elementwiseProgram(10), {24, 1, 0});
    ASSERT_EQ(p.blocks.size(), 1u);
    auto loads = buffersOf(p, p.blocks[0], OpKind::TLoad);
    ASSERT_EQ(loads.size(), 10u);
    std::set<int64_t> addrs;
    for (size_t i = 0; i < loads.size(); ++i) {
        EXPECT_EQ(loads[i]->slot, int(i % 2));
        addrs.insert(loads[i]->addr);
        if (i > 0) {
            EXPECT_NE(loads[i]->addr, loads[i - 1]->addr) << "tile " << i;
        }
    }
    EXPECT_EQ(addrs.size(), 2u) << "two copies of the load buffer, used in turn";
    EXPECT_TRUE(p.notes.empty());
}

TEST(AllocateBuffers, SingleBufferReusesTheSameMemory) {
    BlockProgram p = allocated(elementwiseProgram(10), {24, 1, 0}, false);
    auto loads = buffersOf(p, p.blocks[0], OpKind::TLoad);
    for (const Buffer* b : loads) {
        EXPECT_EQ(b->addr, loads[0]->addr);
        EXPECT_EQ(b->slot, 0);
    }
    // exp result is live together with its input; adds reuses the freed input.
    auto exps = buffersOf(p, p.blocks[0], OpKind::Exp);
    auto adds = buffersOf(p, p.blocks[0], OpKind::AddS);
    EXPECT_NE(exps[0]->addr, loads[0]->addr);
    EXPECT_EQ(adds[0]->addr, loads[0]->addr);
}

TEST(AllocateBuffers, MatmulAccumulatesInPlaceAndAlternatesL0C) {
    BlockProgram p = allocated(matmulProgram(256, 256, 512), {1, 48, 0});
    ASSERT_EQ(p.blocks.size(), 1u);
    const BlockFunction& b = p.blocks[0];
    std::vector<uint32_t> chainBuffer; // per output tile
    for (const BlockItem& i : b.items) {
        const Op& op = p.tile.op(i.op);
        if (op.kind == OpKind::Matmul) chainBuffer.push_back(p.bufferOf[op.result]);
        if (op.kind == OpKind::MatmulAcc) {
            EXPECT_EQ(p.bufferOf[op.result], chainBuffer.back());
            EXPECT_EQ(p.bufferOf[op.operands[0]], chainBuffer.back());
        }
    }
    ASSERT_EQ(chainBuffer.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
        const Buffer& buf = b.buffers[chainBuffer[i]];
        EXPECT_EQ(buf.space, MemSpace::L0C);
        EXPECT_EQ(buf.size, 128 * 128 * 4);
        EXPECT_EQ(buf.slot, int(i % 2));
        EXPECT_EQ(buf.addr, i % 2 ? 65536 : 0);
    }
    for (const std::string& problem : checkBuffers(p, TargetInfo{})) ADD_FAILURE() << problem;
}

// 64 KiB tiles: softmax needs ~128 KiB per tile, so two tiles do not fit 184 KiB of UB.
TEST(AllocateBuffers, FallsBackToSingleBuffering) {
    BlockProgram p = allocated(softmaxProgram(4, 16, 1024), {24, 1, 0});
    ASSERT_EQ(p.notes.size(), 1u);
    EXPECT_NE(p.notes[0].find("UB does not fit double-buffered"), std::string::npos) << p.notes[0];
    for (const Buffer& b : p.blocks[0].buffers) EXPECT_EQ(b.slot, 0);
    for (const std::string& problem : checkBuffers(p, TargetInfo{})) ADD_FAILURE() << problem;
}

// Two chains read every loaded tile (an unrolled loop's block feeding two carried values). In
// depth-first order the first chain loads all 16 tiles (16 KiB each) and they stay live until the
// second chain's turn: 256 KiB of a 184 KiB UB. Program order frees each tile in its own
// iteration, so the block is retried in it, with a note.
TEST(AllocateBuffers, ABlockThatOnlyFitsInProgramOrderIsAllocatedInIt) {
    TileBuilder b("two_chains");
    ValueId x = b.arg("x", DType::F32, {64, 64 * 16});
    ValueId a = b.tload(x, {0, 0}, {64, 64}, MemSpace::UB);
    ValueId s = a;
    for (int64_t i = 1; i < 16; ++i) {
        ValueId t = b.tload(x, {0, 64 * i}, {64, 64}, MemSpace::UB);
        a = b.binary(OpKind::Add, a, t, {64, 64});
        s = b.binary(OpKind::Mul, s, t, {64, 64});
    }
    BlockProgram p = allocated(b.take(), {});
    ASSERT_EQ(p.blocks.size(), 1u);
    ASSERT_FALSE(p.notes.empty());
    EXPECT_NE(p.notes.back().find("block 'two_chains"), std::string::npos) << p.notes.back();
    EXPECT_NE(p.notes.back().find("allocated in program order"), std::string::npos);
    const auto& items = p.blocks[0].items;
    EXPECT_TRUE(std::is_sorted(items.begin(), items.end(),
                               [](const BlockItem& l, const BlockItem& r) { return l.op < r.op; }));
    for (const std::string& problem : checkBuffers(p, TargetInfo{})) ADD_FAILURE() << problem;
}

TEST(AllocateBuffers, TileLargerThanUbIsAnError) {
    TileBuilder b("big");
    ValueId x = b.arg("x", DType::F32, {256, 256});
    b.unary(OpKind::Exp, b.tload(x, {0, 0}, {256, 256}, MemSpace::UB));
    try {
        allocated(b.take(), {});
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("test.pto:1:3: error: tload %0: tile 256x256xf32 (256 KiB) does not "
                         "fit UB"),
                  std::string::npos)
            << m;
        EXPECT_NE(m.find("capacity 184 KiB, 0 KiB live"), std::string::npos) << m;
    }
}

TEST(AllocateBuffers, WorkingSetTooLargeNamesTheOpAndLiveBytes) {
    TileBuilder b("wide");
    ValueId x = b.arg("x", DType::F32, {128, 128});
    ValueId y = b.arg("y", DType::F32, {128, 128});
    ValueId tx = b.tload(x, {0, 0}, {128, 128}, MemSpace::UB); // 64 KiB each
    ValueId ty = b.tload(y, {0, 0}, {128, 128}, MemSpace::UB);
    b.binary(OpKind::Add, tx, ty, {128, 128});
    try {
        allocated(b.take(), {});
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        std::string m = e.what();
        EXPECT_EQ(e.loc().line, 3u);
        EXPECT_NE(m.find("add %2: tile 128x128xf32 (64 KiB) does not fit UB"), std::string::npos)
            << m;
        EXPECT_NE(m.find("128 KiB live at this point"), std::string::npos) << m;
    }
}

} // namespace
} // namespace pto::test
