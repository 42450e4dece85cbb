// Tests of expand-tiles without cube round trips: flash attention written without vec_tile
// directives (one tile grid for its scores, statistics and output) and a gather and a
// scatter_add sharing one index around a matmul compile, and programs whose grids already split
// the chain are expanded exactly as before.
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

// The mixed cycle partition-blocks would meet in `tile` (expand-tiles' output).
std::vector<TileChain> cycleOf(Function tile) {
    assignMemory(tile, TargetInfo{}, "fa.pto");
    eliminateDeadCode(tile);
    return mixedGmCycle(tile);
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
