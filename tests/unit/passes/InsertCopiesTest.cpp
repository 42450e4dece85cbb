// insert-copies: legal functions are untouched; terse hand-written Tile IR gets its L1 → L0
// moves, second loads and cube ↔ vector round trips through GM workspaces; impossible
// transfers are errors. The Tile interpreter gives the same numbers before and after.
#include "compiler/passes/InsertCopies.h"
#include "compiler/interp/TileInterpreter.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/Verifier.h"
#include "compiler/passes/AssignMemory.h"
#include "tests/unit/passes/PassTestUtil.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

int countGm(const Function& f, const std::string& role) {
    int n = 0;
    for (const Op& op : f.ops())
        n += op.kind == OpKind::GmTensor && op.attrs.getString("role") == role;
    return n;
}

// Parses, assigns memory, inserts copies (pass-manager style) and checks the result: it
// verifies, every operand sits where its reader reads, and the numbers did not change.
Function placed(std::string_view text) {
    Function f = parse(text);
    runPass(f, [](Function& g) { assignMemory(g, TargetInfo{}, kFile); });
    const std::vector<TensorData> in = randomInputs(f, 5);
    const EvalResult before = evaluateTile(f, in);
    runPass(f, [](Function& g) { insertCopies(g, TargetInfo{}, kFile); });
    verifyFunction(f, kFile);
    const EvalResult after = evaluateTile(f, in);
    for (size_t i = 0; i < before.outputs.size(); ++i)
        EXPECT_EQ(after.outputs[i], before.outputs[i]) << "output " << i;
    return f;
}

TEST(InsertCopies, ExpandedProgramsAreAlreadyLegal) {
    Function f = lowerToTile(parse(R"(
func @f(%a: tensor<128x256xf16>, %b: tensor<256x128xf16>) -> tensor<128x128xf32> {
  cube_tile [64, 64], [64, 128], [128, 128]
  %c = matmul %a, %b
  vec_tile [32, 128]
  %y = relu %c
  return %y
})"),
                             TileStage::Assigned);
    const std::string before = printFunction(f);
    runPass(f, [](Function& g) { insertCopies(g, TargetInfo{}, kFile); });
    EXPECT_EQ(printFunction(f), before);
}

TEST(InsertCopies, TerseMatmulGetsL0MovesAndAVectorRoundTrip) {
    const Function f = placed(R"(
func @f(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = gm_tensor {role = "output"} : tensor<64x64xf32>
  %ta = tload %a {offset = [0, 0]} : tile<64x64xf16>
  %tb = tload %b {offset = [0, 0]} : tile<64x64xf16>
  %p = matmul %ta, %tb
  %r = relu %p
  %e = exp %p
  %s = add %r, %e
  tstore %s, %c {offset = [0, 0]}
  return %c
})");
    // ta, tb: L1 (read by the cube) → tmove into L0A / L0B.
    EXPECT_EQ(countOps(f, OpKind::TMove), 2);
    // p (L0C) read by relu and exp on the vector core: one workspace, one store, one load.
    EXPECT_EQ(countGm(f, "workspace"), 1);
    EXPECT_EQ(countOps(f, OpKind::TStore), 2);
    EXPECT_EQ(countOps(f, OpKind::TLoad), 3);
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::Matmul) {
            EXPECT_EQ(f.type(op.operands[0]).space, MemSpace::L0A);
            EXPECT_EQ(f.type(op.operands[1]).space, MemSpace::L0B);
        }
        if (op.kind == OpKind::Relu) {
            EXPECT_EQ(f.type(op.operands[0]).space, MemSpace::UB);
            // The copy keeps what the tile covers and where it came from.
            EXPECT_EQ(f.producer(op.operands[0])->kind, OpKind::TLoad);
        }
    }
}

TEST(InsertCopies, TileNeededOnBothCoresIsLoadedTwice) {
    const Function f = placed(R"(
func @f(%a: tensor<64x64xf16>) -> (tensor<64x64xf32>, tensor<64x64xf16>) {
  %c = gm_tensor {role = "output"} : tensor<64x64xf32>
  %d = gm_tensor {role = "output"} : tensor<64x64xf16>
  %t = tload %a {offset = [0, 0]} : tile<64x64xf16>
  %m = tmove %t {offset = [0, 0]} : tile<64x64xf16>
  %n = tmove %t {offset = [0, 0]} : tile<64x64xf16>
  %p = matmul %m, %n
  tstore %p, %c {offset = [0, 0]}
  %e = exp %t
  tstore %e, %d {offset = [0, 0]}
  return %c, %d
})");
    // %t went to L1 (first read by tmove); exp reads a second tload of the same region.
    EXPECT_EQ(countOps(f, OpKind::TLoad), 2);
    EXPECT_EQ(countGm(f, "workspace"), 0);
}

TEST(InsertCopies, VectorResultFeedingTheCubeGoesThroughGm) {
    const Function f = placed(R"(
func @f(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = gm_tensor {role = "output"} : tensor<64x64xf32>
  %u = tload %a {offset = [0, 0]} : tile<64x64xf16, UB>
  %e = exp %u
  %l = tload %b {offset = [0, 0]} : tile<64x64xf16, L1>
  %m = tmove %e {offset = [0, 0]} : tile<64x64xf16, L0A>
  %n = tmove %l {offset = [0, 0]} : tile<64x64xf16, L0B>
  %p = matmul %m, %n
  tstore %p, %c {offset = [0, 0]}
  return %c
})");
    EXPECT_EQ(countGm(f, "workspace"), 1);
    for (const Op& op : f.ops())
        if (op.kind == OpKind::TMove) {
            EXPECT_EQ(f.type(op.operands[0]).space, MemSpace::L1);
        }
}

TEST(InsertCopies, UnplacedTilesAndImpossibleTransfersAreErrors) {
    Function unplaced = lowerToTile(parse(R"(
func @f(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %y = exp %x
  return %y
})"),
                                    TileStage::Expanded);
    try {
        insertCopies(unplaced, TargetInfo{}, kFile);
        FAIL();
    } catch (const CompileError& e) {
        EXPECT_NE(e.message().find("run assign-memory first"), std::string::npos) << e.message();
    }
    Function f = parse(R"(
func @f(%a: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %d = gm_tensor {role = "output"} : tensor<64x64xf16>
  %t = tload %a {offset = [0, 0]} : tile<64x64xf16, L1>
  %m = tmove %t {offset = [0, 0]} : tile<64x64xf16, L0A>
  %e = exp %m
  tstore %e, %d {offset = [0, 0]}
  return %d
})");
    assignMemory(f, TargetInfo{}, kFile);
    try {
        insertCopies(f, TargetInfo{}, kFile);
        FAIL();
    } catch (const CompileError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "test.pto:6:8: error: exp %e: operand %m is in L0A, but exp reads UB and there "
                  "is no data path from L0A to UB");
    }
}

} // namespace
} // namespace pto::test
