// Tests of loop-window extrapolation with per-iteration GM workspaces, and of partition-blocks'
// packing by iteration ranges (compiler/passes/LoopWindow.h, PartitionBlocks.h).
#include "compiler/passes/LoopWindow.h"
#include "compiler/PassManager.h"
#include "compiler/PassRegistry.h"
#include "compiler/Pipeline.h"
#include "compiler/ir/PtoParser.h"
#include "compiler/ir/PtoSyncCheck.h"
#include "compiler/passes/PartitionBlocks.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

namespace pto::test {
namespace {

// The PTO program of a window whose loop wrote `n` workspaces before the loop's end: input
// `x`, workspaces ws, ws1 … ws{n-1} (0x100 bytes each from 0x1000), then `fin`, a tensor
// declared after the loop. One kernel stores to the last workspace and to `fin`; a task
// dependency is carried by the last workspace.
PtoProgram windowProgram(int n) {
    PtoProgram p;
    p.name = "w";
    p.gm.push_back({"x", DType::F32, Shape{64}, 0, GmRole::Input, 0});
    for (int i = 0; i < n; ++i) {
        std::string name = i == 0 ? "ws" : fmt::format("ws{}", i);
        p.gm.push_back(
            {name, DType::F32, Shape{64}, 0x1000 + 0x100 * i, GmRole::Workspace, ValueId(10 + i)});
    }
    p.gm.push_back(
        {"fin", DType::F32, Shape{64}, 0x1000 + 0x100 * n, GmRole::Output, ValueId(10 + n)});
    Kernel k;
    k.name = "w_aiv_0";
    Instr st;
    st.opcode = Opcode::TStore;
    st.pipe = Pipe::MTE3;
    st.operandCount = 2;
    st.operands[0] = {MemSpace::GM, DType::F32, 0x1000 + 0x100 * (n - 1), 1, 64, 64};
    st.operands[1] = {MemSpace::UB, DType::F32, 0, 1, 64, 64};
    k.instrs.push_back(st);
    st.operands[0].addr = 0x1000 + 0x100 * n;
    k.instrs.push_back(st);
    p.kernels.push_back(k);
    p.exec.tasks.push_back({0, 0, CoreType::AIV, "w_aiv_0"});
    p.exec.tasks.push_back({1, 0, CoreType::AIV, "w_aiv_1"});
    p.exec.deps.push_back({0, 1, DepKind::Raw, uint32_t(n)}); // index of ws{n-1}
    return p;
}

TEST(LoopWindowExtrapolation, PerIterationWorkspacesAreAddedOnePeriodAfterAnother) {
    // Windows of 4, 6 and 8 workspaces (2 per period), stretched by 3 periods: 10 workspaces.
    std::optional<PtoProgram> full =
        extrapolateLoopWindow(windowProgram(4), windowProgram(6), windowProgram(8), 3);
    ASSERT_TRUE(full.has_value());
    const PtoProgram want = windowProgram(10);
    ASSERT_EQ(full->gm.size(), want.gm.size());
    for (size_t i = 0; i < want.gm.size(); ++i) {
        EXPECT_EQ(full->gm[i].name, want.gm[i].name) << i;
        EXPECT_EQ(full->gm[i].addr, want.gm[i].addr) << i;
        EXPECT_EQ(full->gm[i].role, want.gm[i].role) << i;
    }
    // The window's Tensor function has no value for the added workspaces.
    EXPECT_EQ(full->gm[5].tensorValue, kNoId);
    EXPECT_EQ(full->gm[1].tensorValue, 10u);
    EXPECT_EQ(full->exec.deps[0].tensor, 10u);
    EXPECT_EQ(full->kernels[0].instrs[0].operands[0].addr, 0x1000 + 0x100 * 9);
    EXPECT_EQ(full->kernels[0].instrs[1].operands[0].addr, 0x1000 + 0x100 * 10);
}

TEST(LoopWindowExtrapolation, TablesThatDoNotGrowByWholePeriodsAreRefused) {
    // 4, 6, 9 workspaces: the third window grew by 3, not 2.
    EXPECT_FALSE(extrapolateLoopWindow(windowProgram(4), windowProgram(6), windowProgram(9), 3));
    // Names that do not move by the same number each period.
    PtoProgram c = windowProgram(8);
    c.gm[7].name = "other7";
    EXPECT_FALSE(extrapolateLoopWindow(windowProgram(4), windowProgram(6), c, 3));
    // A workspace whose shape changes.
    PtoProgram b = windowProgram(6);
    b.gm[6].shape = Shape{32};
    EXPECT_FALSE(extrapolateLoopWindow(windowProgram(4), b, windowProgram(8), 3));
}

// A window probe with `rounds` rounds of a counted loop that loads row i into UB slot i (1 KiB
// apart) and exponentiates it, then an epilogue that loads into UB 0x2000 (slot 8) and
// exponentiates that. Each probe is correctly synchronised, and the three extend linearly.
PtoProgram slotProbe(int rounds) {
    return parsePtoProgram(fmt::format(R"(pto @w
gm %x : f32[64x256] @0x0 input
kernel @k0 aiv {{
  loop "blk" {} iter 0 {{
    MTE2 TLOAD     UB[0x0 + 0x400*i]:f32[1x256/256], GM[0x0 + 0x400*i]:f32[1x256/256]
    MTE2 SET_FLAG  MTE2->V 0
    V    WAIT_FLAG MTE2->V 0
    V    TEXP      UB[0x10000 + 0x400*i]:f32[1x256/256], UB[0x0 + 0x400*i]:f32[1x256/256]
  }}
  MTE2 TLOAD     UB[0x2000]:f32[1x256/256], GM[0xf000]:f32[1x256/256]
  MTE2 SET_FLAG  MTE2->V 0
  V    WAIT_FLAG MTE2->V 0
  V    TEXP      UB[0x20000]:f32[1x256/256], UB[0x2000]:f32[1x256/256]
}}
task 0 @k0 aiv
)",
                                       rounds),
                           "probe.ptoasm");
}

// Linear agreement of three windows is evidence, not proof: stretched to 13 rounds, the loop's
// slots reach the epilogue's buffer, which the epilogue's load then overwrites while round 8's
// TEXP may still read it (nothing orders MTE2 after that read). The guard refuses the stretch.
TEST(LoopWindowGuard, AStretchedProgramThatFailsTheSyncCheckIsRefused) {
    const PtoProgram a = slotProbe(3), b = slotProbe(4), c = slotProbe(5);
    for (const PtoProgram* probe : {&a, &b, &c}) EXPECT_FALSE(checkPtoSync(*probe));
    const std::optional<PtoProgram> linear = extrapolateLoopWindow(a, b, c, 10);
    ASSERT_TRUE(linear.has_value()) << "the probes agree linearly";
    EXPECT_EQ(linear->kernels[0].loops[0].count, 13);
    std::string why;
    EXPECT_FALSE(stretchCheckedLoopWindow(a, b, c, 10, why, "w.pto"));
    EXPECT_NE(why.find("the stretched program fails the sync check: kernel @k0: TEXP (pipe V, "
                       "instr 3, blk, iter 8) reads UB [0x2000, 0x2400) and TLOAD (pipe MTE2, "
                       "instr 4) writes UB [0x2000, 0x2400) are not ordered (WAR)"),
              std::string::npos)
        << why;
    // Stretched by 5 periods (8 rounds, slots 0-7) the slots stay clear of the epilogue's.
    EXPECT_TRUE(stretchCheckedLoopWindow(a, b, c, 5, why, "w.pto"));
}

// A window probe of the unfused attention loop (loop_attention.pto at 256 trips) lowered the way
// session 10's throwaway build did (docs/ARCHITECTURE.md, "Loop windows for matmul bodies"):
// `windowTrips` iterations, the loop's per-iteration components packed by iteration ranges with
// one cube task per head (partition-blocks given 2 AICs for the 2 heads).
PtoProgram attentionProbe(int64_t windowTrips) {
    std::ifstream in(PTO_SOURCE_DIR "/tests/integration/run/programs/loop_attention.pto");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto [from, to] : {std::pair<std::string, std::string>{"2x512x64xf16", "2x32768x64xf16"},
                            {"to 4 step", "to 256 step"}})
        for (size_t at; (at = text.find(from)) != std::string::npos;)
            text.replace(at, from.size(), to);
    CompileState state = loadProgramText(text, "loop_attention.pto");
    state.window = LoopWindow{256, windowTrips, 8, "kv", {}};
    const CompileOptions options;
    PassManager pm(state, options);
    pm.start();
    for (const PassInfo& pass : passRegistry()) {
        if (pass.name != "partition-blocks") {
            pm.run(pass.name);
            continue;
        }
        PartitionOptions p;
        p.aicCores = 2;
        state.block = partitionBlocks(state.tile, p, IterationPacking{"kv", windowTrips, 8});
        state.block.doubleBuffer = options.doubleBuffer;
        state.kind = StageKind::Block;
    }
    return std::move(state.pto);
}

// Session 10's failing stretch, reproduced: the three probes of the attention loop agree
// linearly and each is correctly synchronised, but stretched to 256 iterations a vector kernel
// lacks an order the full lowering has — the guard refuses it.
TEST(LoopWindowGuard, TheAttentionLoopsStretchWithMatmulBodiesIsRefused) {
    const PtoProgram a = attentionProbe(40), b = attentionProbe(48), c = attentionProbe(56);
    for (const PtoProgram* probe : {&a, &b, &c}) {
        const std::optional<SyncProblem> p = checkPtoSync(*probe);
        EXPECT_FALSE(p) << p->message;
    }
    ASSERT_TRUE(extrapolateLoopWindow(a, b, c, (256 - 40) / 8).has_value())
        << "the probes agree linearly";
    std::string why;
    EXPECT_FALSE(stretchCheckedLoopWindow(a, b, c, (256 - 40) / 8, why));
    // The rescale chain's V reads an accumulator while the next round's load overwrites part of
    // it: the WAIT_FLAG V->MTE2 session 10 found missing in the run.
    EXPECT_NE(why.find("the stretched program fails the sync check: kernel @loop_attention_aiv_14: "
                       "TADD (pipe V, instr 94, kv, iter 63, tile op #1301, line 21:11) reads UB "
                       "[0xc300, 0x10300) and TLOAD (pipe MTE2, instr 108, kv, iter 64, tile op "
                       "#1581, line 19:15) writes UB [0xc300, 0xc400) are not ordered (WAR)"),
              std::string::npos)
        << why;
}

// Two heads of QKᵀ per iteration (two cube components per iteration), accumulated by a vector
// chain across iterations, lowered to the Tile level.
Function headsLoopTile(int trips) {
    const std::string text = fmt::format(
        R"(func @heads(%q: tensor<2x128x64xf16>, %k: tensor<2x{0}x64xf16>)
    -> tensor<2x128x128xf32> {{
  %a0 = fill {{value = 0.0}} : tensor<2x128x128xf32>
  %r:1 = for "kv" %j = 0 to {1} step 1 iter_args(%a = %a0) {{
    %kj = view %k {{offsets = [0, %j * 128, 0], sizes = [2, 128, 64]}}
    %a1 = add %a, (matmul %q, %kj {{transpose_b}})
    yield %a1
  }}
  return %r#0
}}
)",
        128 * trips, trips);
    CompileState state = loadProgramText(text, "heads.pto");
    PassManagerOptions stop;
    stop.stopAfter = "tile-dead-code";
    PassManager pm(state, CompileOptions{}, stop);
    pm.start();
    lowerToPto(pm);
    return std::move(state.tile);
}

// Per AIC block: the iterations of loop "kv" its matmuls belong to.
std::vector<std::vector<int64_t>> cubeIterations(const BlockProgram& p) {
    std::vector<std::vector<int64_t>> out;
    for (const BlockFunction& b : p.blocks) {
        if (b.core != CoreType::AIC) continue;
        std::vector<int64_t> iters;
        for (const BlockItem& item : b.items) {
            if (item.isSync()) continue;
            const Op& op = p.tile.op(item.op);
            if (op.kind == OpKind::Matmul && op.attrs.getString("loop") == "kv")
                iters.push_back(op.attrs.getInts("iter")->front());
        }
        out.push_back(std::move(iters));
    }
    return out;
}

std::optional<IterationPacking> packedBy(int64_t trips) {
    return IterationPacking{"kv", trips, 8};
}

TEST(IterationPacking, EachCubeTaskRunsOneHeadOverAContiguousRangeOfIterations) {
    const BlockProgram p = partitionBlocks(headsLoopTile(27), {}, packedBy(27));
    const std::vector<std::vector<int64_t>> blocks = cubeIterations(p);
    // 2 heads, 24 AICs: 8 tasks per head (the period), 27 = 3·8 + 3 iterations: 4,4,4,3,3,3,3,3.
    ASSERT_EQ(blocks.size(), 16u);
    std::map<int64_t, int> sizes;
    std::multiset<int64_t> all;
    for (const std::vector<int64_t>& it : blocks) {
        ASSERT_FALSE(it.empty());
        for (size_t i = 1; i < it.size(); ++i) EXPECT_EQ(it[i], it[i - 1] + 1) << "contiguous";
        ++sizes[int64_t(it.size())];
        all.insert(it.begin(), it.end());
    }
    EXPECT_EQ(sizes[4], 6);
    EXPECT_EQ(sizes[3], 10);
    for (int64_t j = 0; j < 27; ++j) EXPECT_EQ(all.count(j), 2u) << "both heads of iteration " << j;
}

TEST(IterationPacking, TaskRangesGrowLinearlyWithWholePeriodsOfIterations) {
    // 24, 32 and 40 iterations: the same 16 tasks, each one iteration longer per period.
    std::vector<std::vector<std::vector<int64_t>>> windows;
    for (int trips : {24, 32, 40})
        windows.push_back(
            cubeIterations(partitionBlocks(headsLoopTile(trips), {}, packedBy(trips))));
    ASSERT_EQ(windows[0].size(), 16u);
    ASSERT_EQ(windows[1].size(), 16u);
    ASSERT_EQ(windows[2].size(), 16u);
    for (size_t b = 0; b < 16; ++b) {
        EXPECT_EQ(windows[0][b].size(), 3u);
        EXPECT_EQ(windows[1][b].size(), 4u);
        EXPECT_EQ(windows[2][b].size(), 5u);
        const int64_t f0 = windows[0][b].front(), f1 = windows[1][b].front();
        EXPECT_EQ(windows[2][b].front() - f1, f1 - f0) << "first iteration moves linearly";
    }
    // Without the option the same bucket is spread over all 24 AICs (48 matmuls, 2 each).
    EXPECT_EQ(cubeIterations(partitionBlocks(headsLoopTile(24), {})).size(), 24u);
}

} // namespace
} // namespace pto::test
