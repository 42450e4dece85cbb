// Tests of expand-tiles without cube round trips: flash attention written without vec_tile
// directives (one tile grid for its scores, statistics and output), a gather and a scatter_add
// sharing one index around a matmul, and residual adds after two matmuls (one layer, a stack, a
// value read back at two levels) compile; a cycle left unsplit is reported at the op that closes
// it; programs whose grids already split the chain are expanded exactly as before.
#include "compiler/passes/CubeRoundTrips.h"
#include "compiler/Pipeline.h"
#include "compiler/ir/Printer.h"
#include "compiler/passes/AssignMemory.h"
#include "compiler/passes/EliminateDeadCode.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace pto {
namespace {

// Online-softmax attention over `trips` K/V blocks of 64 keys; `directives` are written before
// the fills, at the top of the body and before the rescale (empty: none).
std::string attention(int trips, const std::string& fills, const std::string& scores,
                      const std::string& rescale) {
    return fmt::format(
        R"(func @fa(%q: tensor<64x32xf16>, %k: tensor<{0}x32xf16>, %v: tensor<{0}x32xf16>)
    -> tensor<64x32xf16> {{
  {2}
  %m0 = fill {{value = -inf}} : tensor<64x1xf32>
  %l0 = fill {{value = 0.0}} : tensor<64x1xf32>
  %o0 = fill {{value = 0.0}} : tensor<64x32xf32>
  %st:3 = for "kv" %j = 0 to {1} step 1 iter_args(%m = %m0, %l = %l0, %o = %o0) {{
    {3}
    %kj = view %k {{offsets = [%j * 64, 0], sizes = [64, 32]}}
    %vj = view %v {{offsets = [%j * 64, 0], sizes = [64, 32]}}
    %s = muls (matmul %q, %kj {{transpose_b}}), 0.17677669529663687
    %mj = max %m, (reduce_max %s {{axis = 1, keepdim}})
    %p = exp (sub %s, %mj)
    %r = reduce_sum %p {{axis = 1, keepdim}}
    %pv = matmul (cast %p : tensor<64x64xf16>), %vj
    {4}
    %a = exp (sub %m, %mj)
    %lj = add (mul %l, %a), %r
    %oj = add (mul %o, %a), %pv
    yield %mj, %lj, %oj
  }}
  %out = cast (div %st#2, %st#1) : tensor<64x32xf16>
  return %out
}}
)",
        64 * trips, trips, fills, scores, rescale);
}

// The Tensor function expand-tiles receives.
Function tensorLevel(const std::string& text) {
    CompileState state = loadProgramText(text, "fa.pto");
    PassManagerOptions stop;
    stop.stopAfter = "tensor";
    compileProgram(state, CompileOptions{}, nullptr, stop);
    return state.tensor;
}

// The first mixed cycle partition-blocks would meet in `tile` (expand-tiles' output).
std::vector<TileChain> cycleOf(Function tile) {
    assignMemory(tile, TargetInfo{}, "fa.pto");
    eliminateDeadCode(tile);
    std::vector<std::vector<TileChain>> cycles = mixedGmCycles(tile);
    return cycles.empty() ? std::vector<TileChain>{} : cycles.front();
}

TEST(CubeRoundTrips, AttentionWithoutDirectivesIsSplitAndCompiles) {
    const Function tensor = tensorLevel(attention(4, "", "", ""));
    ASSERT_TRUE(mayRoundTripThroughCube(tensor));
    const Function plain = expandTiles(tensor, TargetInfo{}, "fa.pto");
    EXPECT_TRUE(mayHaveMixedGmCycle(plain));
    const std::vector<TileChain> cycle = cycleOf(plain);
    ASSERT_FALSE(cycle.empty()) << "one tile grid: the chain feeds the PV matmul and reads it back";
    auto on = [&](CoreType core) {
        return std::any_of(cycle.begin(), cycle.end(),
                           [&](const TileChain& c) { return c.core == core; });
    };
    EXPECT_TRUE(on(CoreType::AIC) && on(CoreType::AIV));

    const Function split = expandTilesAvoidingCubeRoundTrips(tensor, TargetInfo{}, "fa.pto");
    EXPECT_TRUE(cycleOf(split).empty());
    // The whole compile goes through (it was: "… lie on a cycle of GM dependencies").
    CompileState state = loadProgramText(attention(4, "", "", ""), "fa.pto");
    EXPECT_NO_THROW(compileProgram(state, CompileOptions{}));
    EXPECT_FALSE(state.pto.kernels.empty());
}

TEST(CubeRoundTrips, TheFillsSharingTheOutputsGridAreSplitToo) {
    // The fills and the rescale share one grid (and the scores another): the fills' chain hands
    // -inf to the scores through GM and reads the PV result back.
    const std::string text =
        attention(3, "vec_tile [32, 32]", "vec_tile [16, 64]", "vec_tile [32, 32]");
    const Function tensor = tensorLevel(text);
    EXPECT_FALSE(cycleOf(expandTiles(tensor, TargetInfo{}, "fa.pto")).empty());
    EXPECT_TRUE(cycleOf(expandTilesAvoidingCubeRoundTrips(tensor, TargetInfo{}, "fa.pto")).empty());
}

// Rows of x gathered by %tok, through a matmul, scatter-added back by the same %tok of n indices.
std::string gatherMatmulScatter(int n) {
    return fmt::format(
        R"(func @g(%x: tensor<64x256xf16>, %tok: tensor<{0}xi32>, %w: tensor<256x256xf16>)
    -> tensor<64x256xf32> {{
  %y = matmul (gather %x, %tok {{axis = 0}}), %w
  %out = scatter_add (fill {{value = 0.0}} : tensor<64x256xf32>), %tok, %y {{axis = 0}}
  return %out
}}
)",
        n);
}

TEST(CubeRoundTrips, AnIndexSharedByAGatherAndAScatterAroundTheCubeIsSplit) {
    // 16 indices: the gather's and the scatter's index tiles coincide, and one shared load of
    // them put both in one vector chain on both sides of the matmul ("… lie on a cycle of GM
    // dependencies (through %ws)"). 17: different index tiles, no cycle to split.
    for (int n : {8, 16, 17, 100}) {
        SCOPED_TRACE(n);
        const Function tensor = tensorLevel(gatherMatmulScatter(n));
        EXPECT_TRUE(mayRoundTripThroughCube(tensor)) << "the two readers of %tok are linked";
        EXPECT_EQ(cycleOf(expandTiles(tensor, TargetInfo{}, "g.pto")).empty(), n == 17);
        EXPECT_TRUE(
            cycleOf(expandTilesAvoidingCubeRoundTrips(tensor, TargetInfo{}, "g.pto")).empty());
        CompileState state = loadProgramText(gatherMatmulScatter(n), "g.pto");
        EXPECT_NO_THROW(compileProgram(state, CompileOptions{}));
    }
}

// The residual of a projection of a projection: the add reads %x, whose tile loads the exp
// shares, and the product of two matmuls that the exp feeds. `exp` and `add` are the ops'
// attributes (per-op tiles, or nothing).
std::string residual(const std::string& exp = "", const std::string& add = "") {
    return fmt::format(
        R"(func @main(%x: tensor<64x256xf16>, %wg: tensor<256x256xf16>, %wd: tensor<256x256xf16>)
    -> tensor<64x256xf16> {{
  %xn = exp %x{0}
  %a = matmul %xn, %wg : tensor<64x256xf16>
  %y = matmul %a, %wd : tensor<64x256xf16>
  %z = add %y, %x{1}
  return %z
}}
)",
        exp, add);
}

// `layers` pre-norm residual layers, each rms_norm → matmul → matmul → add of its input.
std::string residualStack(int layers) {
    std::string text = "func @main(%x0: tensor<64x256xf16>, %g: tensor<256xf16>, "
                       "%w1: tensor<256x256xf16>, %w2: tensor<256x256xf16>) "
                       "-> tensor<64x256xf16> {\n";
    for (int i = 0; i < layers; ++i)
        text += fmt::format("  %n{0} = rms_norm %x{0}, %g\n"
                            "  %a{0} = matmul %n{0}, %w1 : tensor<64x256xf16>\n"
                            "  %y{0} = matmul %a{0}, %w2 : tensor<64x256xf16>\n"
                            "  %x{1} = add %y{0}, %x{0}\n",
                            i, i + 1);
    return text + fmt::format("  return %x{}\n}}\n", layers);
}

TEST(CubeRoundTrips, AResidualAfterTwoMatmulsIsSplit) {
    // Both matmuls lie between the exp and the add: the filter once looked through one only, so
    // the program was refused ("tasks 'the tile chain of exp at 3:9' and 'the tile chain of
    // matmul at 4:8' lie on a cycle of GM dependencies").
    const Function tensor = tensorLevel(residual());
    EXPECT_TRUE(mayRoundTripThroughCube(tensor));
    EXPECT_FALSE(cycleOf(expandTiles(tensor, TargetInfo{}, "r.pto")).empty());
    EXPECT_TRUE(cycleOf(expandTilesAvoidingCubeRoundTrips(tensor, TargetInfo{}, "r.pto")).empty());
    for (bool fuse : {true, false}) {
        CompileState state = loadProgramText(residual(), "r.pto");
        CompileOptions options;
        options.fuse = fuse;
        EXPECT_NO_THROW(compileProgram(state, options));
    }
}

TEST(CubeRoundTrips, EveryLayerOfAResidualStackIsSplitInOneRound) {
    // Each layer's add reads the previous one's on chip and is one cube above it: the chains of
    // all layers make one cycle, which was once split a layer per round (and refused after 4).
    const Function tensor = tensorLevel(residualStack(6));
    Function probe = expandTiles(tensor, TargetInfo{}, "s.pto");
    assignMemory(probe, TargetInfo{}, "s.pto");
    eliminateDeadCode(probe);
    const GmReads reads = cubeRoundTripReads(probe, mixedGmCycles(probe));
    EXPECT_TRUE(cycleOf(expandTiles(tensor, TargetInfo{}, "s.pto", reads)).empty());
    CompileState state = loadProgramText(residualStack(6), "s.pto");
    EXPECT_NO_THROW(compileProgram(state, CompileOptions{}));
}

TEST(CubeRoundTrips, ReadersSplitAtDifferentLevelsLoadOnTheirOwn) {
    // %m is read from GM by the add one cube up and by the mul two cubes up: one load of %m
    // shared by the two would put them in one chain on both sides of the second matmul.
    const std::string text =
        R"(func @main(%x: tensor<64x128xf16>, %g: tensor<128xf16>, %w: tensor<128x128xf16>)
    -> tensor<64x128xf16> {
  %n = rms_norm %x, %g
  %m = rms_norm %n, %g
  %a = matmul %n, %w : tensor<64x128xf16>
  %b = add %m, %a
  %c = matmul %b, %w : tensor<64x128xf16>
  %d = mul %m, %c
  %z = add %d, %n
  return %z
}
)";
    EXPECT_TRUE(cycleOf(expandTilesAvoidingCubeRoundTrips(tensorLevel(text), TargetInfo{}, "l.pto"))
                    .empty());
    CompileState state = loadProgramText(text, "l.pto");
    EXPECT_NO_THROW(compileProgram(state, CompileOptions{}));
}

TEST(CubeRoundTrips, AnUnsplitCycleNamesTheOpThatClosesItAndItsAdviceWorks) {
    // What partition-blocks says of a cycle left unsplit: at the add (line 6), naming the exp
    // it shares %x's tiles with and the cube between them.
    auto partition = [](const std::string& text) {
        Function tile = expandTiles(tensorLevel(text), TargetInfo{}, "r.pto");
        assignMemory(tile, TargetInfo{}, "r.pto");
        eliminateDeadCode(tile);
        return partitionBlocks(std::move(tile), {});
    };
    try {
        partition(residual());
        ADD_FAILURE() << "the cycle was not reported";
    } catch (const CompileError& e) {
        EXPECT_EQ(e.loc().line, 6);
        EXPECT_EQ(e.loc().col, 8);
        EXPECT_EQ(e.message(),
                  "the op at 6:8 reads on chip the tiles of %x that the op at 3:9 reads too, but "
                  "the tile chain of the op at 3:9 feeds the cube (matmul at 4:8) and the op at "
                  "6:8 reads what the cube made: one vector task would both feed a cube task and "
                  "wait for it (a cycle of GM dependencies); give the ops at 6:8 and 3:9 "
                  "different vec_tiles (a per-op {vec_tile = [...]} on each) so that the one at "
                  "6:8 reads %x from GM");
    }
    // The advice, taken without the split: different tiles on the two, and the cycle is gone.
    EXPECT_NO_THROW(partition(residual(" {vec_tile = [32, 256]}", " {vec_tile = [16, 256]}")));
}

TEST(CubeRoundTrips, GridsThatAlreadySplitTheChainAreExpandedAsBefore) {
    // The samples' kind of directives: fills, scores and rescale on three grids.
    const Function tensor =
        tensorLevel(attention(4, "vec_tile [32, 32]", "vec_tile [16, 64]", "vec_tile [64, 32]"));
    EXPECT_TRUE(mayRoundTripThroughCube(tensor));
    EXPECT_EQ(printFunction(expandTilesAvoidingCubeRoundTrips(tensor, TargetInfo{}, "fa.pto")),
              printFunction(expandTiles(tensor, TargetInfo{}, "fa.pto")));
}

} // namespace
} // namespace pto
