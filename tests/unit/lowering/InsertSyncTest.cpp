// Tests of insert-sync: conflicts ordered by flags (brute force), no deadlock, flag counts.
#include "LoweringTestUtil.h"

#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/OrderInstructions.h"
#include "compiler/passes/PartitionBlocks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace pto::test {
namespace {

BlockProgram synced(Function f, PartitionOptions opts, bool doubleBuffer = true) {
    BlockProgram p = partitionBlocks(std::move(f), opts);
    p.doubleBuffer = doubleBuffer;
    orderInstructions(p);
    allocateBuffers(p, TargetInfo{}, "test.pto");
    insertSync(p);
    return p;
}

// (src, dst) → number of set/wait pairs in one block.
std::map<std::pair<Pipe, Pipe>, int> pairCounts(const BlockFunction& b) {
    std::map<std::pair<Pipe, Pipe>, int> counts;
    for (const BlockItem& i : b.items)
        if (i.isSync() && i.sync.kind == SyncKind::WaitFlag) ++counts[{i.sync.src, i.sync.dst}];
    return counts;
}

TEST(InsertSync, SampleProgramsAreCorrectlySynchronised) {
    for (bool db : {true, false}) {
        for (Function f :
             {elementwiseProgram(12), softmaxProgram(8, 8, 1024), softmaxProgram(4, 16, 1024),
              matmulProgram(256, 256, 512), matmulReluProgram()}) {
            BlockProgram p = synced(std::move(f), {1, 2, 0}, db);
            for (const std::string& problem : checkSync(p)) ADD_FAILURE() << problem;
        }
    }
}

TEST(InsertSync, CheckerNoticesAMissingFlag) {
    BlockProgram p = synced(softmaxProgram(2, 8, 1024), {24, 1, 0});
    auto& items = p.blocks[0].items;
    // Drop the first set/wait pair (MTE2 → V after the first load).
    auto isFirst = [&](const BlockItem& i) {
        return i.isSync() && i.sync.src == Pipe::MTE2 && i.sync.dst == Pipe::V && i.sync.event == 0;
    };
    auto set = std::find_if(items.begin(), items.end(), isFirst);
    ASSERT_NE(set, items.end());
    items.erase(set);
    auto wait = std::find_if(items.begin(), items.end(), isFirst);
    ASSERT_NE(wait, items.end());
    items.erase(wait);
    EXPECT_FALSE(checkSync(p).empty());
}

// One softmax tile alone: load → vector (1 pair), vector → store (1 pair).
TEST(InsertSync, OneSoftmaxTileNeedsTwoFlagPairs) {
    BlockProgram p = synced(softmaxProgram(1, 8, 1024), {});
    auto counts = pairCounts(p.blocks[0]);
    EXPECT_EQ(counts.size(), 2u);
    EXPECT_EQ((counts[{Pipe::MTE2, Pipe::V}]), 1);
    EXPECT_EQ((counts[{Pipe::V, Pipe::MTE3}]), 1);
    EXPECT_EQ(p.blocks[0].items.size(), 7u + 4u);
}

// In a loop of tiles with double buffering, the steady state adds the two WAR pairs of buffer
// reuse: V → MTE2 (load into a buffer the vector unit read two tiles ago) and MTE3 → V.
TEST(InsertSync, SoftmaxLoopSteadyState) {
    BlockProgram p = synced(softmaxProgram(10, 8, 1024), {24, 1, 0});
    auto counts = pairCounts(p.blocks[0]);
    EXPECT_EQ((counts[{Pipe::MTE2, Pipe::V}]), 10);
    EXPECT_EQ((counts[{Pipe::V, Pipe::MTE3}]), 10);
    EXPECT_LE((counts[{Pipe::V, Pipe::MTE2}]), 8);
    EXPECT_LE((counts[{Pipe::MTE3, Pipe::V}]), 8);
    for (const std::string& problem : checkSync(p)) ADD_FAILURE() << problem;
}

TEST(InsertSync, MatmulKStepCounts) {
    // One output tile, 4 L1 k-steps of 4 L0 k-steps each.
    BlockProgram p = synced(matmulProgram(128, 128, 1024), {});
    auto counts = pairCounts(p.blocks[0]);
    EXPECT_EQ((counts[{Pipe::MTE2, Pipe::MTE1}]), 8); // one per L1 tile (A and B)
    EXPECT_EQ((counts[{Pipe::MTE1, Pipe::M}]), 16);   // one per L0 k-step
    EXPECT_EQ((counts[{Pipe::M, Pipe::FIX}]), 1);     // the result
    EXPECT_LE((counts[{Pipe::M, Pipe::MTE1}]), 14);   // WAR on L0A/L0B slots
    EXPECT_LE((counts[{Pipe::MTE1, Pipe::MTE2}]), 4); // WAR on L1 slots (A, B of steps 2, 3)
    for (const std::string& problem : checkSync(p)) ADD_FAILURE() << problem;
}

TEST(InsertSync, EventIdsRoundRobin) {
    BlockProgram p = synced(elementwiseProgram(20), {24, 1, 0});
    std::vector<int> events;
    for (const BlockItem& i : p.blocks[0].items)
        if (i.isSync() && i.sync.kind == SyncKind::SetFlag && i.sync.src == Pipe::MTE2 &&
            i.sync.dst == Pipe::V)
            events.push_back(i.sync.event);
    ASSERT_EQ(events.size(), 20u);
    for (size_t k = 0; k < events.size(); ++k) EXPECT_EQ(events[k], int(k % 8));
}

TEST(InsertSync, BufferLiveRangesFollowTheirOps) {
    BlockProgram p = synced(softmaxProgram(3, 8, 1024), {24, 1, 0});
    const BlockFunction& b = p.blocks[0];
    for (const Buffer& buf : b.buffers) {
        ASSERT_FALSE(b.items[buf.firstUse].isSync());
        EXPECT_EQ(p.tile.op(b.items[buf.firstUse].op).result, buf.value);
        ASSERT_FALSE(b.items[buf.lastUse].isSync());
    }
    insertSync(p); // running again replaces the flags
    for (const std::string& problem : checkSync(p)) ADD_FAILURE() << problem;
}

// A chain that stores a tile to GM and loads it back inside one component: MTE3 → MTE2.
TEST(InsertSync, GmRoundTripInsideAChain) {
    TileBuilder b("roundtrip");
    ValueId x = b.arg("x", DType::F32, {16, 256});
    ValueId w = b.gmTensor("w", DType::F32, {16, 256}, "workspace");
    ValueId y = b.gmTensor("y", DType::F32, {16, 256}, "output");
    ValueId t = b.tload(x, {0, 0}, {16, 256}, MemSpace::UB);
    b.tstore(t, w, {0, 0});
    ValueId u = b.tload(w, {0, 0}, {16, 256}, MemSpace::UB);
    b.tstore(b.binary(OpKind::Add, t, u, {16, 256}), y, {0, 0});
    BlockProgram p = synced(b.take(), {});
    ASSERT_EQ(p.blocks.size(), 1u);
    EXPECT_EQ((pairCounts(p.blocks[0])[{Pipe::MTE3, Pipe::MTE2}]), 1);
    for (const std::string& problem : checkSync(p)) ADD_FAILURE() << problem;
}

} // namespace
} // namespace pto::test
