// assign-memory: the space of every tile, pinned spaces, and capacity errors.
#include "compiler/passes/AssignMemory.h"
#include "tests/unit/passes/PassTestUtil.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

std::string assignError(std::string_view text) {
    Function f = parse(text);
    try {
        assignMemory(f, TargetInfo{}, kFile);
    } catch (const CompileError& e) {
        return e.what();
    }
    return "no error";
}

TEST(AssignMemory, CubeTilesGoToL1L0AL0BAndL0C) {
    const Function f = lowerToTile(parse(R"(
func @f(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
  cube_tile [128, 128], [64, 128], [128, 128]
  %c = matmul %a, %b
  return %c
})"),
                                   TileStage::Assigned);
    for (const Op& op : f.ops()) {
        if (op.result == kNoId) continue;
        const MemSpace s = f.type(op.result).space;
        switch (op.kind) {
        case OpKind::GmTensor:
            EXPECT_EQ(s, MemSpace::GM);
            break;
        case OpKind::TLoad:
            EXPECT_EQ(s, MemSpace::L1);
            break;
        case OpKind::Matmul:
        case OpKind::MatmulAcc:
            EXPECT_EQ(s, MemSpace::L0C);
            EXPECT_EQ(f.type(op.operands[op.operands.size() - 2]).space, MemSpace::L0A);
            EXPECT_EQ(f.type(op.operands.back()).space, MemSpace::L0B);
            break;
        default:
            break;
        }
    }
    for (ValueId a : f.args) EXPECT_EQ(f.type(a).space, MemSpace::GM);
    EXPECT_EQ(countTiles(f, MemSpace::None), 0);
}

TEST(AssignMemory, VectorTilesGoToUB) {
    const Function f = lowerToTile(parse(R"(
func @f(%x: tensor<64x256xf16>) -> tensor<64x256xf16> {
  vec_tile [16, 256]
  %y = softmax %x
  return %y
})"),
                                   TileStage::Assigned);
    EXPECT_EQ(countTiles(f, MemSpace::None), 0);
    EXPECT_EQ(countTiles(f, MemSpace::L1) + countTiles(f, MemSpace::L0C), 0);
    EXPECT_GT(countTiles(f, MemSpace::UB), 0);
}

TEST(AssignMemory, TloadFollowsItsFirstReaderAndPinsAreKept) {
    Function f = parse(R"(
func @f(%a: tensor<64x64xf16>) -> (tensor<64x64xf32>, tensor<64x64xf16>) {
  %c = gm_tensor {role = "output"} : tensor<64x64xf32>
  %d = gm_tensor {role = "output"} : tensor<64x64xf16>
  %t = tload %a {offset = [0, 0]} : tile<64x64xf16>
  %m = tmove %t {offset = [0, 0]} : tile<64x64xf16>
  %n = tmove %t {offset = [0, 0]} : tile<64x64xf16>
  %p = matmul %n, %m
  tstore %p, %c {offset = [0, 0]}
  %u = tload %a {offset = [0, 0]} : tile<64x64xf16>
  %pinned = tload %a {offset = [0, 0]} : tile<64x64xf16, L1>
  %e = exp %u
  %e2 = exp %pinned
  tstore %e, %d {offset = [0, 0]}
  tstore %e2, %d {offset = [0, 0]}
  return %c, %d
})");
    assignMemory(f, TargetInfo{}, kFile);
    auto space = [&](const char* name) {
        for (const Value& v : f.values())
            if (v.name == name) return v.type.space;
        return MemSpace::None;
    };
    EXPECT_EQ(space("t"), MemSpace::L1);
    EXPECT_EQ(space("n"), MemSpace::L0A); // first read as matmul's a
    EXPECT_EQ(space("m"), MemSpace::L0B);
    EXPECT_EQ(space("p"), MemSpace::L0C);
    EXPECT_EQ(space("u"), MemSpace::UB);
    EXPECT_EQ(space("pinned"), MemSpace::L1); // kept; insert-copies gives exp a UB copy
    // The parser placed %e2 with its operand (L1); a vector op only writes UB.
    EXPECT_EQ(space("e2"), MemSpace::UB);
}

TEST(AssignMemory, PinnedSpaceTheProducerCannotWriteIsAnError) {
    EXPECT_EQ(assignError(R"(
func @f(%a: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %d = gm_tensor {role = "output"} : tensor<64x64xf16>
  %t = tload %a {offset = [0, 0]} : tile<64x64xf16, L0A>
  tstore %t, %d {offset = [0, 0]}
  return %d
})"),
              "test.pto:4:8: error: tload %t: cannot place its result in L0A: tload writes UB "
              "(vector core) or L1 (cube core)");
}

TEST(AssignMemory, TileLargerThanItsBufferIsAnError) {
    EXPECT_EQ(assignError(R"(
func @f(%a: tensor<256x256xf16>) -> tensor<256x256xf32> {
  %c = gm_tensor {role = "output"} : tensor<256x256xf32>
  %t = tload %a {offset = [0, 0]} : tile<256x256xf16>
  %m = tmove %t {offset = [0, 0]} : tile<256x256xf16>
  %n = tmove %t {offset = [0, 0]} : tile<256x256xf16>
  %p = matmul %m, %n
  tstore %p, %c {offset = [0, 0]}
  return %c
})"),
              "test.pto:5:8: error: tmove %m: tile 256x256 of f16 in L0A needs 128 KiB but L0A "
              "holds 64 KiB");
}

} // namespace
} // namespace pto::test
