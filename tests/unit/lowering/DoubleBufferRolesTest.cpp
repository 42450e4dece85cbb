// Double buffering of chains that use one op kind twice (gelu's x·x and x·(…)): each Tensor
// value keeps its own ping-pong pair, so the vector unit never waits for the previous tile's
// store (allocate-buffers' roles include the tile's origin for vector results).
#include "LoweringTestUtil.h"

#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/OrderInstructions.h"
#include "compiler/passes/PartitionBlocks.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

// Per row tile: t = tload x; a = t·t; b = 0.5·a; c = t·b; tstore c. The two muls cover two
// different Tensor values (origins kOriginA, kOriginC), as expand-tiles would record them.
constexpr ValueId kOriginA = 1000, kOriginC = 1001;

Function twoMulChains(int tiles, int64_t rows, int64_t cols) {
    TileBuilder b("two_muls");
    ValueId x = b.arg("x", DType::F32, {tiles * rows, cols});
    ValueId y = b.gmTensor("y", DType::F32, {tiles * rows, cols}, "output");
    for (int i = 0; i < tiles; ++i) {
        ValueId t = b.tload(x, {i * rows, 0}, {rows, cols}, MemSpace::UB);
        ValueId a = b.binary(OpKind::Mul, t, t, {rows, cols});
        ValueId h = b.scalar(OpKind::MulS, a, 0.5);
        ValueId c = b.binary(OpKind::Mul, t, h, {rows, cols});
        b.function().value(a).origin = kOriginA;
        b.function().value(c).origin = kOriginC;
        b.tstore(c, y, {i * rows, 0});
    }
    return b.take();
}

BlockProgram allocatedAndSynced(Function f) {
    BlockProgram p = partitionBlocks(std::move(f), {24, 1, 0}); // one AIV: a loop of tiles
    p.doubleBuffer = true;
    orderInstructions(p);
    allocateBuffers(p, TargetInfo{}, "test.pto");
    insertSync(p);
    return p;
}

int waits(const BlockFunction& b, Pipe src, Pipe dst) {
    int n = 0;
    for (const BlockItem& i : b.items)
        n += i.isSync() && i.sync.kind == SyncKind::WaitFlag && i.sync.src == src &&
             i.sync.dst == dst;
    return n;
}

TEST(DoubleBufferRoles, VectorNeverWaitsForThePreviousTilesStore) {
    BlockProgram p = allocatedAndSynced(twoMulChains(8, 16, 512));
    ASSERT_EQ(p.blocks.size(), 1u);
    EXPECT_TRUE(p.notes.empty()) << p.notes.front(); // double-buffered throughout
    EXPECT_EQ(waits(p.blocks[0], Pipe::MTE3, Pipe::V), 0);
    EXPECT_EQ(waits(p.blocks[0], Pipe::V, Pipe::MTE3), 8);
    for (const std::string& problem : checkBuffers(p, TargetInfo{})) ADD_FAILURE() << problem;
    for (const std::string& problem : checkSync(p)) ADD_FAILURE() << problem;
}

} // namespace
} // namespace pto::test
