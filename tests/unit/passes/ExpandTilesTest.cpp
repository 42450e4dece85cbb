// expand-tiles: tile grids, fusion and workspaces, defaults and directives, reductions,
// matmul structure, provenance, capacity/alignment errors, and scaling to 4096³.
#include "compiler/passes/ExpandTiles.h"
#include "compiler/ir/Parser.h"
#include "compiler/passes/DecomposeComposites.h"
#include "compiler/passes/EliminateDeadCode.h"
#include "compiler/passes/FoldConstants.h"
#include "tests/unit/passes/PassTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>

namespace pto::test {
namespace {

using Ints = std::vector<int64_t>;

Function expanded(std::string_view text, bool verify = true) {
    return lowerToTile(parse(text), TileStage::Expanded, TargetInfo{}, verify);
}

// The GM tensors declared by gm_tensor with the given role.
int countGm(const Function& f, const std::string& role) {
    int n = 0;
    for (const Op& op : f.ops())
        n += op.kind == OpKind::GmTensor && op.attrs.getString("role") == role;
    return n;
}

// The tile shapes of every op of one kind, as rows x cols strings.
std::set<std::string> tileShapes(const Function& f, OpKind kind) {
    std::set<std::string> out;
    for (const Op& op : f.ops())
        if (op.kind == kind && op.result != kNoId) out.insert(f.type(op.result).shape.str());
    return out;
}

std::string expandError(std::string_view text, const TargetInfo& target = {}) {
    Function f = runTensorPasses(parse(text));
    try {
        expandTiles(f, target, kFile);
    } catch (const CompileError& e) {
        return e.what();
    }
    return "no error";
}

TEST(ExpandTiles, ElementwiseGridLoadsComputesAndStores) {
    const Function f = expanded(R"(
func @f(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  vec_tile [16, 128]
  %y = exp %x
  return %y
})");
    EXPECT_EQ(f.level, Level::Tile);
    EXPECT_EQ(countOps(f, OpKind::TLoad), 8);
    EXPECT_EQ(countOps(f, OpKind::Exp), 8);
    EXPECT_EQ(countOps(f, OpKind::TStore), 8);
    ASSERT_EQ(f.results.size(), 1u);
    const Op* out = f.producer(f.results[0]);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->kind, OpKind::GmTensor);
    EXPECT_EQ(out->attrs.getString("role"), "output");
    EXPECT_EQ(f.value(f.results[0]).name, "y");
    EXPECT_EQ(f.type(f.results[0]).space, MemSpace::GM);
    // Tiles are 16x128, unplaced, and know what they cover.
    std::set<std::pair<int64_t, int64_t>> corners;
    for (const Op& op : f.ops()) {
        if (op.kind != OpKind::Exp) continue;
        const Value& v = f.value(op.result);
        EXPECT_EQ(v.type.shape, (Shape{16, 128}));
        EXPECT_EQ(v.type.space, MemSpace::None);
        corners.insert({v.offset[0], v.offset[1]});
        const Value& in = f.value(op.operands[0]);
        EXPECT_EQ(f.producer(op.operands[0])->attrs.getInts("offset"),
                  (Ints{in.offset[0], in.offset[1]}));
    }
    EXPECT_EQ(corners.size(), 8u);
    EXPECT_TRUE(corners.count({48, 128}));
}

TEST(ExpandTiles, SameGridChainsStayOnChip) {
    const Function f = expanded(R"(
func @f(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  vec_tile [16, 256]
  %a = exp %x
  %b = muls %a, 2.0
  %c = add %b, %x
  return %c
})");
    // %x is loaded once per tile and shared by exp and add; nothing goes through a workspace.
    EXPECT_EQ(countOps(f, OpKind::TLoad), 4);
    EXPECT_EQ(countGm(f, "workspace"), 0);
    EXPECT_EQ(countOps(f, OpKind::TStore), 4);
}

TEST(ExpandTiles, GridChangeGoesThroughAWorkspace) {
    const Function f = expanded(R"(
func @f(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  vec_tile [16, 256]
  %a = exp %x
  vec_tile [64, 64]
  %b = neg %a
  return %b
})");
    EXPECT_EQ(countGm(f, "workspace"), 1);
    // 4 loads of %x, 4 stores of %a into the workspace, 4 loads back, 4 output stores.
    EXPECT_EQ(countOps(f, OpKind::TLoad), 8);
    EXPECT_EQ(countOps(f, OpKind::TStore), 8);
}

TEST(ExpandTiles, DefaultTilesWholeTensorOrRowsOfAtMost16KiB) {
    const Function small = expanded(R"(
func @f(%x: tensor<32x64xf16>) -> tensor<32x64xf16> {
  %y = exp %x
  return %y
})");
    ASSERT_EQ(countOps(small, OpKind::Exp), 1);
    const Function big = expanded(R"(
func @f(%x: tensor<256x1024xf16>) -> tensor<256x1024xf16> {
  %y = exp %x
  return %y
})");
    // 1024 columns of (assumed) f32 = 4 KiB per row: 4 rows per 16 KiB tile, 64 tiles.
    ASSERT_EQ(countOps(big, OpKind::Exp), 64);
    for (const Op& op : big.ops())
        if (op.kind == OpKind::Exp) {
            EXPECT_EQ(big.type(op.result).shape, (Shape{4, 1024}));
        }
}

TEST(ExpandTiles, PerOpOverrideBeatsTheScopedDirective) {
    const Function f = expanded(R"(
func @f(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  vec_tile [16, 256]
  %a = exp %x {vec_tile = [32, 128]}
  %b = neg %a
  return %b
})");
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::Exp) {
            EXPECT_EQ(f.type(op.result).shape, (Shape{32, 128}));
        }
        if (op.kind == OpKind::Neg) {
            EXPECT_EQ(f.type(op.result).shape, (Shape{16, 256}));
        }
    }
}

TEST(ExpandTiles, BroadcastOperandsBecomeRowAndColumnTiles) {
    const Function f = expanded(R"(
func @f(%x: tensor<64x256xf32>, %r: tensor<64x1xf32>, %c: tensor<256xf32>) -> tensor<64x256xf32> {
  vec_tile [16, 128]
  %a = sub %x, %r
  %b = div %c, %a
  return %b
})",
                                kVerifierAcceptsContract);
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::Sub) {
            EXPECT_EQ(f.type(op.operands[1]).shape, (Shape{16, 1}));
        }
        // div's broadcast operand comes first: not commutative, so it is expanded explicitly.
        if (op.kind == OpKind::Div) {
            EXPECT_EQ(f.producer(op.operands[0])->kind, OpKind::Broadcast);
            EXPECT_EQ(f.type(op.operands[0]).shape, (Shape{16, 128}));
        }
    }
    EXPECT_EQ(countOps(f, OpKind::Broadcast), 8);
}

// Row chains share no on-chip tile (partition-blocks puts chains that share one on a single
// core): the rms_norm weight is loaded — and widened to f32 — once per row tile.
TEST(ExpandTiles, BroadcastOperandsAreCopiedPerResultTile) {
    const Function f = lowerToTile(parse(R"(
func @f(%x: tensor<32x256xf16>, %w: tensor<256xf16>) -> tensor<32x256xf16> {
  vec_tile [8, 256]
  %y = rms_norm %x, %w
  return %y
})"),
                                   TileStage::Copied, TargetInfo{}, kVerifierAcceptsContract);
    int weightLoads = 0;
    for (const Op& op : f.ops())
        weightLoads += op.kind == OpKind::TLoad && op.operands[0] == f.args[1];
    EXPECT_EQ(weightLoads, 4);
    // Every on-chip value is read by ops of one row block only.
    for (const Op& op : f.ops()) {
        if (op.result == kNoId || !f.type(op.result).isTile()) continue;
        std::set<int64_t> rowBlocks;
        for (const Op& reader : f.ops())
            for (ValueId v : reader.operands)
                if (v == op.result && reader.result != kNoId)
                    rowBlocks.insert(f.value(reader.result).offset.rank() == 2
                                         ? f.value(reader.result).offset[0] / 8
                                         : -1);
        EXPECT_LE(rowBlocks.size(), 1u) << opName(op.kind);
    }
}

TEST(ExpandTiles, RowReductionSpanningTilesCombinesPartialsInF32) {
    const Function f = expanded(R"(
func @f(%x: tensor<32x512xf16>) -> tensor<32x1xf16> {
  vec_tile [16, 128]
  %s = reduce_sum %x {axis = 1, keepdim}
  return %s
})");
    // Per 16-row block: 4 tiles widened to f32, 4 partial row sums [16x1], 3 adds, 1 cast.
    EXPECT_EQ(countOps(f, OpKind::ReduceSum), 8);
    EXPECT_EQ(countOps(f, OpKind::Add), 6);
    EXPECT_EQ(countOps(f, OpKind::Cast), 8 + 2);
    for (const Op& op : f.ops())
        if (op.kind == OpKind::ReduceSum) {
            EXPECT_EQ(f.type(op.result).shape, (Shape{16, 1}));
            EXPECT_EQ(f.type(op.result).dtype, DType::F32);
            EXPECT_EQ(op.attrs.getInt("axis"), 1);
            EXPECT_TRUE(op.attrs.getBool("keepdim"));
        }
}

TEST(ExpandTiles, MatmulUnrollsTheL1AndL0Hierarchy) {
    const Function f = expanded(R"(
func @matmul(%a: tensor<512x256xf16>, %b: tensor<256x512xf16>) -> tensor<512x512xf32> {
  cube_tile [128, 128], [64, 128], [128, 128]
  %c = matmul %a, %b
  return %c
})");
    // 16 output tiles × 2 k L1 blocks × (tload A, tload B, 2 × (2 tmoves + 1 matmul)).
    EXPECT_EQ(countOps(f, OpKind::Matmul), 16);
    EXPECT_EQ(countOps(f, OpKind::MatmulAcc), 16 * 3);
    EXPECT_EQ(countOps(f, OpKind::TLoad), 16 * 2 * 2);
    EXPECT_EQ(countOps(f, OpKind::TMove), 16 * 4 * 2);
    EXPECT_EQ(countOps(f, OpKind::TStore), 16);
    EXPECT_EQ(countGm(f, "workspace"), 0); // stored straight into the output
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::TLoad) {
            EXPECT_EQ(f.type(op.result).shape.cols(), 128);
        }
        if (op.kind == OpKind::MatmulAcc) {
            EXPECT_EQ(f.type(op.result).dtype, DType::F32);
            EXPECT_EQ(f.type(op.result).shape, (Shape{128, 128}));
            EXPECT_EQ(f.type(op.operands[1]).shape, (Shape{128, 64}));
            EXPECT_EQ(f.type(op.operands[2]).shape, (Shape{64, 128}));
        }
    }
}

TEST(ExpandTiles, TransposedMatmulOperandsLoadTheTransposedRegion) {
    const Function f = expanded(R"(
func @f(%a: tensor<64x128xf16>, %b: tensor<256x64xf16>) -> tensor<128x256xf32> {
  cube_tile [128, 128], [64, 64], [128, 128]
  %c = matmul %a, %b {transpose_a, transpose_b}
  return %c
})");
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::Matmul) {
            EXPECT_TRUE(op.attrs.getBool("transpose_a"));
            EXPECT_TRUE(op.attrs.getBool("transpose_b"));
            EXPECT_EQ(f.type(op.operands[0]).shape, (Shape{64, 128})); // [k × m]
            EXPECT_EQ(f.type(op.operands[1]).shape, (Shape{128, 64})); // [n × k]
        }
    }
    EXPECT_EQ(countOps(f, OpKind::Matmul), 2);
}

TEST(ExpandTiles, MatmulFeedingVectorOpsGoesThroughGm) {
    const Function f = expanded(R"(
func @f(%a: tensor<128x128xf16>, %b: tensor<128x128xf16>) -> tensor<128x128xf16> {
  cube_tile [128, 128], [64, 128], [128, 128]
  %c = matmul %a, %b : tensor<128x128xf16>
  %y = relu %c
  return %y
})",
                                kVerifierAcceptsContract);
    EXPECT_EQ(countGm(f, "workspace"), 1);
    for (const Op& op : f.ops())
        if (op.kind == OpKind::Relu) {
            EXPECT_EQ(f.producer(op.operands[0])->kind, OpKind::TLoad);
        }
}

TEST(ExpandTiles, EveryTileOpLeadsBackToItsSourceOp) {
    const Function src = parse(R"(
func @f(%x: tensor<64x256xf16>, %w: tensor<256x128xf16>) -> tensor<64x128xf16> {
  vec_tile [16, 256]
  %g = gelu %x
  %m = matmul %g, %w : tensor<64x128xf16>
  return %m
})");
    // The Tensor passes one by one, as the pass manager runs them, keeping every stage.
    Function s1 = src, s2, s3;
    runPass(s1, decomposeComposites);
    s2 = s1;
    runPass(s2, foldConstants);
    s3 = s2;
    runPass(s3, eliminateDeadCode);
    Function linked = s3;
    linked.linkToPreviousStage();
    Function tile = expandTiles(linked, TargetInfo{}, kFile);
    std::set<OpKind> roots;
    for (const Op& op : tile.ops()) {
        const OpId root = rootOf(op.parent, {&s3, &s2, &s1});
        ASSERT_LT(root, src.ops().size()) << opName(op.kind);
        const Op& source = src.op(root);
        roots.insert(source.kind);
        EXPECT_EQ(op.loc, source.loc) << opName(op.kind);
        if (op.result == kNoId || !tile.type(op.result).isTile()) continue;
        // A tile covers a region of a value of the Tensor stage it was expanded from.
        const Value& v = tile.value(op.result);
        ASSERT_LT(v.origin, s3.valueCount()) << opName(op.kind);
        const Shape& whole = s3.type(v.origin).shape;
        ASSERT_EQ(v.offset.rank(), whole.rank());
        for (int d = 0; d < whole.rank(); ++d) EXPECT_LT(v.offset[d], whole[d]);
    }
    EXPECT_EQ(roots, (std::set<OpKind>{OpKind::Gelu, OpKind::Matmul}));
}

// --- errors -------------------------------------------------------------------------------

TEST(ExpandTiles, L0CCapacityErrorNamesTheOpTheBufferAndTheNumbers) {
    EXPECT_EQ(expandError(R"(
func @f(%a: tensor<512x512xf16>, %b: tensor<512x512xf16>) -> tensor<512x512xf32> {
  %c = matmul %a, %b {cube_tile = [256, 256, 64, 64, 256, 256]}
  return %c
})"),
              "test.pto:3:8: error: matmul %c: cube tile m=256 n=256 needs 256 KiB of L0C (f32 "
              "accumulator) but L0C holds 128 KiB; reduce cube_tile m or n");
}

TEST(ExpandTiles, L0AAndL1CapacityErrors) {
    EXPECT_NE(expandError(R"(
func @f(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  cube_tile [128, 128], [256, 256], [64, 64]
  %c = matmul %a, %b
  return %c
})")
                  .find("matmul %c: cube tile m=128 k=256 needs 128 KiB of L0A (f32) but L0A "
                        "holds 64 KiB; reduce cube_tile m or k"),
              std::string::npos);
    EXPECT_NE(expandError(R"(
func @f(%a: tensor<512x2048xf32>, %b: tensor<2048x512xf32>) -> tensor<512x512xf32> {
  cube_tile [128, 128], [64, 1024], [128, 128]
  %c = matmul %a, %b
  return %c
})")
                  .find("cube tile L1 blocks A 128x1024 and B 1024x128 need 1 MiB of L1 but L1 "
                        "holds 512 KiB"),
              std::string::npos);
}

TEST(ExpandTiles, VecTileTooLargeForUB) {
    EXPECT_EQ(expandError(R"(
func @f(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  vec_tile [128, 1024]
  %y = exp %x
  return %y
})"),
              "test.pto:4:8: error: exp %y: vec tile 128x1024 of f32 needs 512 KiB but a UB tile "
              "may use at most 92 KiB (half of the 184 KiB UB, the other half double-buffers); "
              "reduce vec_tile");
}

TEST(ExpandTiles, MisalignedVecTileRows) {
    EXPECT_EQ(expandError(R"(
func @f(%x: tensor<64x100xf16>) -> tensor<64x100xf16> {
  vec_tile [16, 20]
  %y = exp %x
  return %y
})"),
              "test.pto:4:8: error: exp %y: vec tile last dim 20 makes tile rows of 40 B (f16); "
              "rows must be a multiple of 32 B (16 elements of f16) unless the tile spans the "
              "whole last dim (100)");
}

// A topk or cumsum line, and a topk's result line, may take 64 KiB of its own dtype: a row of
// 32 768 f16 lowers as one tile row; one element more, or more than 16 384 i32 positions, is
// refused with the sizes that do not fit.
TEST(ExpandTiles, TopKAndCumSumLinesTake64KiBOfTheirOwnDtype) {
    const Function f = expanded(R"(
func @f(%x: tensor<2x32768xf16>, %c: tensor<2x32768xf16>)
    -> (tensor<2x5xi32>, tensor<2x32768xf16>) {
  %t = topk %x {k = 5, indices}
  %s = cumsum %c {axis = 1}
  return %t, %s
})");
    EXPECT_EQ(tileShapes(f, OpKind::TopK), std::set<std::string>{"1x5"});
    EXPECT_EQ(tileShapes(f, OpKind::CumSum), std::set<std::string>{"1x32768"});
    EXPECT_EQ(expandError(R"(
func @f(%x: tensor<2x32769xf16>) -> tensor<2x5xf16> {
  %t = topk %x {k = 5}
  return %t
})"),
              "test.pto:3:8: error: topk %t: a row of 32769 elements of tensor<2x32769xf16> "
              "(65538 B) exceeds the 64 KiB a topk line may take in UB");
    EXPECT_EQ(expandError(R"(
func @f(%x: tensor<2x20000xf16>) -> tensor<2x16385xi32> {
  %t = topk %x {k = 16385, indices}
  return %t
})"),
              "test.pto:3:8: error: topk %t: the 16385 i32 positions of the top k of each row "
              "(65540 B) exceed the 64 KiB a topk result line may take in UB");
    EXPECT_EQ(expandError(R"(
func @f(%x: tensor<40000x4xf16>) -> tensor<2x4xf16> {
  %t = topk %x {k = 2, axis = 0}
  return %t
})"),
              "test.pto:3:8: error: topk %t: a column of 40000 elements of tensor<40000x4xf16> "
              "(78.1 KiB) exceeds the 64 KiB a topk line may take in UB");
    EXPECT_EQ(expandError(R"(
func @f(%x: tensor<2x16385xi32>) -> tensor<2x16385xi32> {
  %s = cumsum %x {axis = 1}
  return %s
})"),
              "test.pto:3:8: error: cumsum %s: a line of 16385 elements of tensor<2x16385xi32> "
              "along axis 1 (65540 B) exceeds the 64 KiB a cumsum line may take in UB");
}

// Columns too tall for a strip of whole columns (4096 f32 × 8 columns = 128 KiB) are sorted and
// scanned as rows of the transpose: the row topk and cumsum take one 16 KiB row per tile.
TEST(ExpandTiles, TopKAndCumSumDownTallColumnsGoThroughTheTranspose) {
    const Function f = expanded(R"(
func @f(%x: tensor<4096x64xf32>, %c: tensor<3072x8xi32>)
    -> (tensor<8x64xi32>, tensor<3072x8xi32>) {
  %t = topk %x {k = 8, axis = 0, indices}
  %s = cumsum %c {axis = 0}
  return %t, %s
})");
    EXPECT_EQ(tileShapes(f, OpKind::TopK), std::set<std::string>{"1x8"});
    EXPECT_EQ(countOps(f, OpKind::TopK), 64);
    EXPECT_EQ(tileShapes(f, OpKind::CumSum), std::set<std::string>{"1x3072"});
    EXPECT_EQ(countOps(f, OpKind::CumSum), 8);
}

TEST(ExpandTiles, UnsupportedCasesAreClearErrors) {
    // expand-tiles on a function still holding a composite.
    Function f = parse(R"(
func @f(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %y = softmax %x
  return %y
})");
    try {
        expandTiles(f, TargetInfo{}, kFile);
        FAIL();
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("softmax %y: composite ops must be decomposed"),
                  std::string::npos);
    }
}

TEST(ExpandTiles, ADirectiveTakesLeadingSizesOfOneWhereTheOpNeedsThem) {
    // A leading size of 2 would read %b as a 2x64 block of a 64x64 tile, and would make the
    // reduction over axis 0 span two of its indices in one tile: both take [1, 32, 64].
    const Function f = expanded(R"(
func @f(%x: tensor<4x32x64xf32>, %b: tensor<4x1x64xf32>) -> (tensor<4x32x64xf32>, tensor<32x64xf32>) {
  vec_tile [2, 32, 64]
  %y = add %x, %b
  %s = reduce_sum %x {axis = 0}
  return %y, %s
})");
    EXPECT_EQ(tileShapes(f, OpKind::Add), std::set<std::string>{"32x64"});
    EXPECT_EQ(countOps(f, OpKind::Add), 4 + 3);
}

// --- default tiles per fused chain ----------------------------------------------------------

TEST(ExpandTiles, DefaultTilesOfANormShareTheRowsOfItsReduction) {
    // 48 KiB of f32 is above UB/4: the rows split 4 by 4, and the [12x1] mean, rsqrt and
    // scale follow the same 4 rows, so nothing goes through a workspace.
    const Function f = expanded(R"(
func @f(%x: tensor<12x1024xf32>) -> tensor<12x1024xf32> {
  %y = rms_norm %x
  return %y
})");
    EXPECT_EQ(countGm(f, "workspace"), 0);
    EXPECT_EQ(tileShapes(f, OpKind::Rsqrt), std::set<std::string>{"4x1"});
    EXPECT_EQ(tileShapes(f, OpKind::Mul), std::set<std::string>{"4x1024"});
}

// The users of each tload of %x in f (ops reading its tile).
std::vector<int> usersOfLoads(const Function& f) {
    std::vector<int> users;
    for (const Op& load : f.ops()) {
        if (load.kind != OpKind::TLoad) continue;
        int n = 0;
        for (const Op& op : f.ops())
            n += int(std::count(op.operands.begin(), op.operands.end(), load.result));
        users.push_back(n);
    }
    return users;
}

TEST(ExpandTiles, ARowLongerThanUBIsReadAgainAfterItsReduction) {
    // 238 tiles of 1 KiB along the reduced axis would all wait for the norm: the scale reads
    // %x again (fresh loads, the f16 → f32 cast recomputed) instead of keeping the tiles.
    const Function f = expanded(R"(
func @f(%x: tensor<60928xf16>) -> tensor<60928xf16> {
  vec_tile [256]
  %y = rms_norm %x
  return %y
})");
    EXPECT_EQ(countOps(f, OpKind::TLoad), 2 * 238);
    for (int users : usersOfLoads(f)) EXPECT_EQ(users, 1);
    EXPECT_EQ(countGm(f, "workspace"), 0);
    // A row that fits keeps its tiles: one load per tile, read by the square and the scale.
    const Function g = expanded(R"(
func @f(%x: tensor<4096xf16>) -> tensor<4096xf16> {
  vec_tile [256]
  %y = rms_norm %x
  return %y
})");
    EXPECT_EQ(countOps(g, OpKind::TLoad), 16);
}

TEST(ExpandTiles, AValueTheCubeReadsIsReadFromGmWhenItsProductComesBack) {
    // %a goes to the matmul through a workspace; the sub reads it from there too, not from
    // the exp tiles, or the vector chain and the cube task would wait for each other.
    const Function f = expanded(R"(
func @f(%x: tensor<128x128xf16>, %w: tensor<128x128xf16>) -> tensor<128x128xf16> {
  vec_tile [32, 128]
  %a = exp %x
  %m = matmul %a, %w : tensor<128x128xf16>
  %c = sub %a, %m
  return %c
})");
    EXPECT_EQ(countGm(f, "workspace"), 2); // %a for the cube, %m for the vector ops
    for (const Op& op : f.ops())
        if (op.kind == OpKind::Sub) {
            for (ValueId v : op.operands) EXPECT_EQ(f.producer(v)->kind, OpKind::TLoad);
        }
}

TEST(ExpandTiles, DefaultTilesOfAColumnSoftmaxAreWholeColumnStrips) {
    const Function f = expanded(R"(
func @f(%x: tensor<704x64xf32>) -> tensor<704x64xf32> {
  %y = softmax %x {axis = 0}
  return %y
})");
    EXPECT_EQ(countGm(f, "workspace"), 0);
    EXPECT_EQ(tileShapes(f, OpKind::Exp), std::set<std::string>{"704x8"});
    EXPECT_EQ(countOps(f, OpKind::Exp), 8);
}

TEST(ExpandTiles, DefaultTransposeTilesKeep32BytesOnBothSides) {
    const Function f = expanded(R"(
func @f(%x: tensor<1024x16xf32>) -> tensor<16x1024xf32> {
  %y = transpose %x {perm = [1, 0]}
  return %y
})");
    EXPECT_EQ(tileShapes(f, OpKind::Transpose), std::set<std::string>{"16x256"});
}

TEST(ExpandTiles, DefaultTilesOfRank3OpsTakeLeadingSizesOfOne) {
    const Function f = expanded(R"(
func @f(%x: tensor<2x3x16xf32>, %b: tensor<3x16xf32>) -> tensor<2x3x16xf32> {
  %y = add %x, %b
  return %y
})");
    EXPECT_EQ(tileShapes(f, OpKind::Add), std::set<std::string>{"3x16"});
    EXPECT_EQ(countOps(f, OpKind::Add), 2);
}

TEST(ExpandTiles, AReductionOverALeadingAxisCombinesWholeTiles) {
    const Function f = expanded(R"(
func @f(%x: tensor<3x4x16xf32>) -> tensor<4x16xf32> {
  %y = reduce_max %x {axis = 0}
  return %y
})");
    EXPECT_EQ(countOps(f, OpKind::ReduceMax), 0);
    EXPECT_EQ(countOps(f, OpKind::Max), 2);
    EXPECT_EQ(tileShapes(f, OpKind::Max), std::set<std::string>{"4x16"});
}

TEST(ExpandTiles, CmpBroadcastsARowOperandExplicitly) {
    const Function f = expanded(R"(
func @f(%x: tensor<4x16xf32>, %m: tensor<4x1xf32>) -> tensor<4x16xi1> {
  %y = cmp %x, %m {pred = "lt"}
  return %y
})");
    EXPECT_EQ(countOps(f, OpKind::Broadcast), 1);
    for (const Op& op : f.ops()) {
        if (op.kind != OpKind::Cmp) continue;
        for (ValueId v : op.operands) EXPECT_EQ(f.type(v).shape.str(), "4x16");
    }
}

TEST(ExpandTiles, AMatmulWithADeclaredF16ResultStoresTheAccumulatorIntoF16) {
    const Function f = expanded(R"(
func @f(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>) -> tensor<16x16xf16> {
  %y = matmul %a, %b : tensor<16x16xf16>
  return %y
})");
    EXPECT_EQ(f.type(f.results[0]).dtype, DType::F16);
    EXPECT_EQ(countOps(f, OpKind::TStore), 1);
}

// --- scale --------------------------------------------------------------------------------

TEST(ExpandTiles, Matmul4096CubedUnrollsTo65kMatmulsQuickly) {
    Function f = parse(R"(
func @mm(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf32> {
  cube_tile [128, 128], [64, 256], [128, 128]
  %c = matmul %a, %b
  return %c
})");
    f.linkToPreviousStage();
    const auto start = std::chrono::steady_clock::now();
    Function tile = expandTiles(f, TargetInfo{}, kFile);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(countOps(tile, OpKind::Matmul) + countOps(tile, OpKind::MatmulAcc), 65536);
    EXPECT_EQ(countOps(tile, OpKind::TMove), 131072);
    EXPECT_EQ(countOps(tile, OpKind::TLoad), 32768);
    EXPECT_EQ(countOps(tile, OpKind::TStore), 1024);
    RecordProperty("expand_seconds", std::to_string(seconds));
    RecordProperty("seconds", std::to_string(seconds)); // speed lives in bench/
}

} // namespace
} // namespace pto::test
