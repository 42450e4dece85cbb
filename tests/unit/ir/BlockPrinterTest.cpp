// The Block-level and Exec-level printers: block functions with buffers and items (tile ops as
// the Tile printer shows them, sync items), and the task graph.
#include "compiler/ir/BlockPrinter.h"
#include "compiler/ir/Parser.h"

#include <gtest/gtest.h>

namespace pto {
namespace {

BlockProgram sampleBlocks() {
    BlockProgram p;
    p.tile = parseFunctionText(R"(func @softmax(%x: tensor<32x64xf16>, %y: tensor<32x64xf16>) {
  %t = tload %x {offset = [0, 0]} : tile<16x64xf16, UB>
  %e = exp %t
  tstore %e, %y {offset = [0, 0]}
  %t2 = tload %x {offset = [16, 0]} : tile<16x64xf16, UB>
  tstore %t2, %y {offset = [16, 0]}
  return
}
)");
    BlockFunction b0;
    b0.id = 0;
    b0.name = "softmax.v0";
    b0.core = CoreType::AIV;
    b0.group = 0;
    b0.items = {{0, {}},
                {kNoId, Sync{SyncKind::SetFlag, Pipe::MTE2, Pipe::V, 0}},
                {kNoId, Sync{SyncKind::WaitFlag, Pipe::MTE2, Pipe::V, 0}},
                {1, {}},
                {kNoId, Sync{SyncKind::Barrier, Pipe::V, Pipe::S, 0}},
                {2, {}}};
    b0.buffers = {{0, MemSpace::UB, 0x0, 2048, 0, 3, p.tile.op(0).result, 0},
                  {1, MemSpace::UB, 0x800, 2048, 3, 5, p.tile.op(1).result, 1}};
    BlockFunction b1;
    b1.id = 1;
    b1.name = "softmax.v1";
    b1.core = CoreType::AIV;
    b1.group = 0;
    b1.items = {{3, {}}, {4, {}}};
    b1.buffers = {{0, MemSpace::UB, 0x0, 2048, 0, 1, p.tile.op(3).result, 0}};
    p.blocks = {b0, b1};
    p.blockOfOp = {0, 0, 0, 1, 1};
    p.doubleBuffer = true;
    return p;
}

TEST(BlockPrinter, PrintsBuffersAndItems) {
    EXPECT_EQ(printBlockProgram(sampleBlocks()), R"(block_program @softmax double_buffer
block 0 @softmax.v0 aiv group 0 {
  buffers
    buf 0 UB [0x0, 0x800) 2048 B items 0..3 slot 0 %t
    buf 1 UB [0x800, 0x1000) 2048 B items 3..5 slot 1 %e
  items
    0: %t = tload %x {offset = [0, 0]} : tile<16x64xf16, UB>
    1: set_flag MTE2 -> V, 0
    2: wait_flag MTE2 -> V, 0
    3: %e = exp %t
    4: barrier V
    5: tstore %e, %y {offset = [0, 0]}
}
block 1 @softmax.v1 aiv group 0 {
  buffers
    buf 0 UB [0x0, 0x800) 2048 B items 0..1 slot 0 %t2
  items
    0: %t2 = tload %x {offset = [16, 0]} : tile<16x64xf16, UB>
    1: tstore %t2, %y {offset = [16, 0]}
}
)");
}

TEST(BlockPrinter, SurvivesInvalidReferences) {
    BlockProgram p = sampleBlocks();
    p.blocks[0].items.push_back({77, {}});
    p.blocks[0].buffers[0].value = 999;
    std::string text = printBlockProgram(p);
    EXPECT_NE(text.find("6: <invalid tile op #77>"), std::string::npos);
    EXPECT_NE(text.find("<invalid value 999>"), std::string::npos);
}

TEST(BlockPrinter, PrintsTheExecGraph) {
    BlockProgram blocks = sampleBlocks();
    ExecGraph g;
    g.tasks = {{0, 0, CoreType::AIV, "softmax.0"}, {1, 1, CoreType::AIV, ""}};
    g.deps = {{0, 1, DepKind::War, 1}, {0, 1, DepKind::Raw, UINT32_MAX}};
    EXPECT_EQ(printExecGraph(g, blocks), R"(exec
  task 0 @softmax.v0 aiv "softmax.0"
  task 1 @softmax.v1 aiv
  dep 0 -> 1 war gm 1
  dep 0 -> 1 raw
)");
    EXPECT_EQ(printExecGraph(g), R"(exec
  task 0 block 0 aiv "softmax.0"
  task 1 block 1 aiv
  dep 0 -> 1 war gm 1
  dep 0 -> 1 raw
)");
}

} // namespace
} // namespace pto
