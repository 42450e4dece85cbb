// Tests of build-exec-graph: deps that order the tasks as every conflicting pair does (the pairs
// themselves in GmDeps::EveryPair mode, equal to brute force), kinds, cycles, speed on 1024 × 64
// and on 8000 stores to one tile.
#include "LoweringTestUtil.h"

#include "compiler/passes/BuildExecGraph.h"
#include "compiler/passes/PartitionBlocks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>

namespace pto::test {
namespace {

std::set<std::pair<uint32_t, uint32_t>> edgeSet(const ExecGraph& g) {
    std::set<std::pair<uint32_t, uint32_t>> s;
    for (const TaskDep& d : g.deps) EXPECT_TRUE(s.insert({d.from, d.to}).second) << "duplicate";
    return s;
}

using EdgeSet = std::set<std::pair<uint32_t, uint32_t>>;

// Every (from, to) such that `to` is reachable from `from` through `edges`.
EdgeSet closure(const EdgeSet& edges, uint32_t tasks) {
    std::vector<std::vector<uint32_t>> succ(tasks);
    for (auto [from, to] : edges) succ[from].push_back(to);
    EdgeSet reach;
    for (uint32_t from = 0; from < tasks; ++from) {
        std::vector<uint32_t> stack(succ[from]);
        while (!stack.empty()) {
            const uint32_t t = stack.back();
            stack.pop_back();
            if (!reach.insert({from, t}).second) continue;
            stack.insert(stack.end(), succ[t].begin(), succ[t].end());
        }
    }
    return reach;
}

// The exec graph orders the tasks as every conflicting pair would, with a subset of the pairs;
// in EveryPair mode it is the pairs.
void expectSameOrderAsBruteForce(const BlockProgram& p) {
    const EdgeSet all = bruteForceDeps(p);
    const EdgeSet kept = edgeSet(buildExecGraph(p));
    EXPECT_EQ(edgeSet(buildExecGraph(p, GmDeps::EveryPair)), all);
    EXPECT_TRUE(std::includes(all.begin(), all.end(), kept.begin(), kept.end()));
    const auto n = uint32_t(p.blocks.size());
    EXPECT_EQ(closure(kept, n), closure(all, n));
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
    EXPECT_FALSE(bruteForceDeps(p).empty());
    expectSameOrderAsBruteForce(p);
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

// `tasks` tasks, task t running `ops(t)`: 16x64 tiles of y read, or stored (loaded from x), at
// the given rows, in program order.
struct Access16 {
    bool store = false;
    int64_t row = 0;
};
BlockProgram oneTilePerAccess(uint32_t tasks,
                              const std::function<std::vector<Access16>(uint32_t)>& ops) {
    TileBuilder b("tiles");
    ValueId x = b.arg("x", DType::F32, {1024, 64});
    ValueId y = b.gmTensor("y", DType::F32, {1024, 64}, "output");
    BlockProgram p;
    p.blocks.resize(tasks);
    auto& f = b.function();
    for (uint32_t t = 0; t < tasks; ++t) {
        p.blocks[t].id = t;
        p.blocks[t].name = std::to_string(t);
        for (const Access16& a : ops(t)) {
            ValueId v = b.tload(a.store ? x : y, {a.store ? 0 : a.row, 0}, {16, 64}, MemSpace::UB);
            p.blocks[t].items.push_back({f.value(v).def, {}});
            if (!a.store) continue;
            b.tstore(v, y, {a.row, 0});
            p.blocks[t].items.push_back({OpId(f.ops().size() - 1), {}});
        }
    }
    p.tile = b.take();
    return p;
}

// Every iteration of a loop storing one GM tile is a task: each store follows the one before
// (a chain of n - 1 dependencies), not every earlier one (n² / 2, which took 15 s and 1.2 GB
// for n = 8000).
TEST(BuildExecGraph, StoresToOneTileFormAChain) {
    const BlockProgram small = oneTilePerAccess(40, [](uint32_t) {
        return std::vector<Access16>{{true, 0}};
    });
    expectSameOrderAsBruteForce(small);
    EXPECT_EQ(buildExecGraph(small, GmDeps::EveryPair).deps.size(), 40u * 39u / 2u);
    const BlockProgram p = oneTilePerAccess(8000, [](uint32_t) {
        return std::vector<Access16>{{true, 0}};
    });
    auto start = std::chrono::steady_clock::now();
    const ExecGraph g = buildExecGraph(p);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("build-exec-graph, 8000 stores to one tile: %.2f ms, %zu deps\n", ms,
                g.deps.size());
    ASSERT_EQ(g.deps.size(), 7999u);
    for (uint32_t i = 0; i < 7999; ++i) {
        EXPECT_EQ(g.deps[i].from, i);
        EXPECT_EQ(g.deps[i].to, i + 1);
        EXPECT_EQ(g.deps[i].kind, DepKind::Waw);
    }
}

// Readers between two writes of a tile: each reads after the first write (RAW), the second
// write waits for every reader (WAR) and the first write (WAW), which covers it: nothing before
// that one. A write covering part of a later access (rows 8..23) does not end its scan: the
// reader of rows 16..31 depends on it and on the write of those rows before it.
TEST(BuildExecGraph, ReadsBetweenWritesKeepTheirOrder) {
    const BlockProgram p = oneTilePerAccess(7, [](uint32_t t) {
        switch (t) {
        case 0:
            return std::vector<Access16>{{true, 0}, {true, 16}}; // writes rows 0..31
        case 1:
        case 2:
        case 3:
            return std::vector<Access16>{{false, 0}}; // read rows 0..15
        case 4:
            return std::vector<Access16>{{true, 0}}; // overwrite rows 0..15
        case 5:
            return std::vector<Access16>{{true, 8}}; // rows 8..23, across both tiles
        default:
            return std::vector<Access16>{{false, 0}, {false, 16}};
        }
    });
    expectSameOrderAsBruteForce(p);
    const EdgeSet kept = edgeSet(buildExecGraph(p));
    const EdgeSet expected = {{0, 1}, {0, 2}, {0, 3}, {1, 4}, {2, 4}, {3, 4}, {0, 4}, {4, 5},
                              {3, 5}, {2, 5}, {1, 5}, {0, 5}, {5, 6}, {4, 6}, {0, 6}};
    EXPECT_EQ(kept, expected);
}

} // namespace
} // namespace pto::test
