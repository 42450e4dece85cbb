// Tests of build-exec-graph: deps equal to brute force, kinds, cycles, speed on 1024 × 64.
#include "LoweringTestUtil.h"

#include "compiler/passes/BuildExecGraph.h"
#include "compiler/passes/PartitionBlocks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>

namespace pto::test {
namespace {

std::set<std::pair<uint32_t, uint32_t>> edgeSet(const ExecGraph& g) {
    std::set<std::pair<uint32_t, uint32_t>> s;
    for (const TaskDep& d : g.deps) EXPECT_TRUE(s.insert({d.from, d.to}).second) << "duplicate";
    return s;
}

TEST(BuildExecGraph, MatmulThenVectorThroughWorkspace) {
    BlockProgram p = partitionBlocks(matmulReluProgram(), {});
    ExecGraph g = buildExecGraph(p);
    ASSERT_EQ(g.tasks.size(), 8u);
    for (uint32_t t = 0; t < 8; ++t) {
        EXPECT_EQ(g.tasks[t].block, t);
        EXPECT_EQ(g.tasks[t].core, t < 4 ? CoreType::AIC : CoreType::AIV);
    }
    // 2×2 output tiles of 128×128 on the cube; vector row tiles of 64×256: each vector task
    // reads the two cube tiles of its row band.
    EXPECT_EQ(edgeSet(g), bruteForceDeps(p));
    ASSERT_EQ(g.deps.size(), 8u);
    for (const TaskDep& d : g.deps) {
        EXPECT_EQ(d.kind, DepKind::Raw);
        EXPECT_LT(d.from, 4u);
        EXPECT_GE(d.to, 4u);
        EXPECT_EQ(d.tensor, 3u) << "a, b, then the output y, then the workspace w";
    }
}

TEST(BuildExecGraph, IndependentTilesHaveNoDeps) {
    ExecGraph g = buildExecGraph(partitionBlocks(elementwiseProgram(100), {}));
    EXPECT_EQ(g.tasks.size(), 48u);
    EXPECT_TRUE(g.deps.empty());
}

// Stages over one tensor with different tilings: writes of 32×64, reads of 64×32 and 16×256
// rows, rewrites (WAW) and overwrites after reads (WAR).
TEST(BuildExecGraph, MatchesBruteForceOnMixedTilings) {
    TileBuilder b("mixed");
    ValueId x = b.arg("x", DType::F32, {256, 256});
    ValueId w = b.gmTensor("w", DType::F32, {256, 256}, "workspace");
    ValueId y = b.gmTensor("y", DType::F32, {256, 256}, "output");
    auto copy = [&](ValueId from, ValueId to, int64_t r, int64_t c, int64_t h, int64_t wd) {
        ValueId t = b.tload(from, {r, c}, {h, wd}, MemSpace::UB);
        b.tstore(b.unary(OpKind::Exp, t), to, {r, c});
    };
    for (int64_t r = 0; r < 256; r += 32)
        for (int64_t c = 0; c < 256; c += 64) copy(x, w, r, c, 32, 64);
    for (int64_t r = 0; r < 256; r += 64)
        for (int64_t c = 0; c < 256; c += 32) copy(w, y, r, c, 64, 32);
    for (int64_t r = 0; r < 256; r += 16) copy(x, w, r, 0, 16, 256); // WAR + WAW on w
    for (int64_t r = 0; r < 256; r += 128) copy(w, y, r, 0, 128, 256);
    BlockProgram p = partitionBlocks(b.take(), {24, 7, 0});
    ExecGraph g = buildExecGraph(p);
    std::set<std::pair<uint32_t, uint32_t>> expected = bruteForceDeps(p);
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(edgeSet(g), expected);
    bool war = false, waw = false;
    for (const TaskDep& d : g.deps) {
        war = war || d.kind == DepKind::War;
        waw = waw || d.kind == DepKind::Waw;
        EXPECT_LT(d.from, d.to) << "tasks are in dependency order";
    }
    EXPECT_TRUE(waw);
    (void)war;
}

// Swapping the two halves of a tensor: each chain overwrites what the other reads, so neither
// task can run first.
TEST(BuildExecGraph, CycleIsAnError) {
    TileBuilder b("swap");
    ValueId w = b.gmTensor("w", DType::F32, {32, 256}, "workspace");
    ValueId t0 = b.tload(w, {0, 0}, {16, 256}, MemSpace::UB);
    ValueId t1 = b.tload(w, {16, 0}, {16, 256}, MemSpace::UB);
    b.tstore(t1, w, {0, 0});
    b.tstore(t0, w, {16, 0});
    BlockProgram p;
    p.tile = b.take();
    p.blocks.resize(2);
    p.blocks[0].name = "first";
    p.blocks[0].items = {{1, {}}, {4, {}}};
    p.blocks[1].id = 1;
    p.blocks[1].name = "second";
    p.blocks[1].items = {{2, {}}, {3, {}}};
    // partition-blocks runs the two chains of such a cycle as one task instead
    EXPECT_EQ(partitionBlocks(p.tile, {}).blocks.size(), 1u);
    try {
        buildExecGraph(p);
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("%w"), std::string::npos) << e.what();
        // at the op of the second task that touches %w (its tload, line 3), not the function
        EXPECT_EQ(e.loc().line, p.tile.op(2).loc.line) << e.what();
        EXPECT_NE(e.loc().line, p.tile.loc.line) << e.what();
    }
}

// 1024 tasks × 64 regions (32 reads of x, 32 writes of y, then readers of y): milliseconds.
TEST(BuildExecGraph, ThousandTasksTimesSixtyFourRegionsIsFast) {
    TileBuilder b("big");
    const int64_t rows = 1024 * 32 * 8;
    ValueId x = b.arg("x", DType::F32, {rows, 64});
    ValueId y = b.gmTensor("y", DType::F32, {rows, 64}, "output");
    ValueId z = b.gmTensor("z", DType::F32, {rows / 8, 512}, "output");
    BlockProgram p;
    p.blocks.resize(1024);
    auto& f = b.function();
    for (uint32_t t = 0; t < 1024; ++t) {
        p.blocks[t].id = t;
        p.blocks[t].name = std::to_string(t);
        for (int64_t i = 0; i < 32; ++i) {
            const bool first = t < 512;
            int64_t r = ((first ? t : t - 512) * 32 + i) * 8;
            ValueId v = b.tload(first ? x : y, {r, 0}, {8, 64}, MemSpace::UB);
            p.blocks[t].items.push_back({f.value(v).def, {}});
            b.tstore(v, first ? y : z, {first ? r : r / 8, 0});
            p.blocks[t].items.push_back({OpId(f.ops().size() - 1), {}});
        }
    }
    p.tile = b.take();
    auto start = std::chrono::steady_clock::now();
    ExecGraph g = buildExecGraph(p);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("build-exec-graph, 1024 tasks x 64 regions: %.2f ms, %zu deps\n", ms,
                g.deps.size());
    RecordProperty("exec_graph_ms", std::to_string(ms)); // speed lives in bench/
    // RAW from task t to t + 512 (y), WAW between neighbours writing z (8-row tiles a row
    // apart overlap across task boundaries).
    EXPECT_EQ(edgeSet(g).size(), 1023u);
    int raw = 0, waw = 0;
    for (const TaskDep& d : g.deps) {
        raw += d.kind == DepKind::Raw && d.to == d.from + 512;
        waw += d.kind == DepKind::Waw && d.to == d.from + 1 && d.from >= 512;
    }
    EXPECT_EQ(raw, 512);
    EXPECT_EQ(waw, 511);
}

} // namespace
} // namespace pto::test
