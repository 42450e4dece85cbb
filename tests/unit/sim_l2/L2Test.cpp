// Tests of the L2 model: the LRU line set (hits, misses, eviction order, strided regions,
// coarse granules), the engine's use of it (hit latency and bandwidth, write allocation, a
// working set larger than L2), and the compute-bound GEMM and HBM-bound elementwise programs.
#include "compiler/Pipeline.h"
#include "simulator/Simulator.h"
#include "simulator/engine/L2Cache.h"

#include "../sim_engine/SimTestUtil.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace pto::sim {
namespace {

using test::archWith;
using test::instr;
using test::kKiB;
using test::kMiB;
using test::ProgramBuilder;
using test::tile;
using test::timingOnly;

Region gmRun(int64_t lo, int64_t bytes) {
    Region r;
    r.space = MemSpace::GM;
    r.lo = lo;
    r.hi = lo + bytes;
    r.rowBytes = bytes;
    return r;
}

TEST(L2Cache, HitsMissesAndLruEviction) {
    L2Cache l2(16 * 512, 4 * 512, 512); // 16 lines of GM, room for 4
    EXPECT_EQ(l2.capacityLines(), 4);
    L2Cache::Split s = l2.access(gmRun(0, 4 * 512)); // lines 0-3: cold misses
    EXPECT_EQ(s.hit, 0);
    EXPECT_EQ(s.miss, 2048);
    s = l2.access(gmRun(100, 200)); // inside line 0: a hit, and line 0 is now the newest
    EXPECT_EQ(s.hit, 200);
    EXPECT_EQ(s.miss, 0);
    s = l2.access(gmRun(4 * 512, 512)); // line 4 evicts the least recently used: line 1
    EXPECT_EQ(s.miss, 512);
    EXPECT_EQ(l2.evictions(), 1);
    EXPECT_TRUE(l2.resident(0));
    EXPECT_FALSE(l2.resident(512));
    EXPECT_TRUE(l2.resident(2 * 512));
    EXPECT_EQ(l2.residentLines(), 4);
    // A run across a hit and a miss splits its bytes by line.
    s = l2.access(gmRun(4 * 512 + 256, 512)); // half of line 4 (hit), half of line 5 (miss)
    EXPECT_EQ(s.hit, 256);
    EXPECT_EQ(s.miss, 256);
}

TEST(L2Cache, StridedRegionsTouchOnlyTheirRows) {
    L2Cache l2(64 * kKiB, 64 * kKiB, 512);
    // 8 rows of 256 B every 2 KiB: 8 lines, each half used.
    Operand o = tile(MemSpace::GM, 0, 8, 128, DType::F16, 1024);
    L2Cache::Split s = l2.access(regionOf(o, false));
    EXPECT_EQ(s.miss, 8 * 256);
    EXPECT_EQ(l2.residentLines(), 8);
    EXPECT_FALSE(l2.resident(1024)); // between rows
    // The neighbouring 256 B of each row share the lines but not the sectors: misses, with no
    // new line; read again, they hit.
    o.addr = 256;
    s = l2.access(regionOf(o, false));
    EXPECT_EQ(s.miss, 8 * 256);
    EXPECT_EQ(l2.residentLines(), 8);
    s = l2.access(regionOf(o, false));
    EXPECT_EQ(s.hit, 8 * 256);
    // A run over part valid, part invalid sectors of one line splits exactly: bytes [0, 96)
    // of line 100 are valid (sectors 0-2), [64, 160) asks for sectors 2-4.
    l2.access(gmRun(100 * 512, 96));
    s = l2.access(gmRun(100 * 512 + 64, 96));
    EXPECT_EQ(s.hit, 32);
    EXPECT_EQ(s.miss, 64);
}

TEST(L2Cache, HugeImagesUseCoarserGranules) {
    const L2Cache l2(64 * int64_t(1) << 30, 192 * kMiB, 512); // 64 GiB image
    EXPECT_EQ(l2.granule(), 16 * kKiB);                       // 2^22 granules
    EXPECT_EQ(l2.capacityLines(), 192 * kMiB / (16 * kKiB));
}

// One AIV task loading the same 32 KiB twice (and, with `store`, writing it to y and a second
// task reading y back).
PtoProgram reload(bool store) {
    ProgramBuilder b;
    const int64_t x = b.tensor("x", DType::F16, {16, 1024}, GmRole::Input);
    const int64_t y = b.tensor("y", DType::F16, {16, 1024}, GmRole::Output);
    const Operand u = tile(MemSpace::UB, 0, 16, 1024);
    std::vector<Instr> code = {
        instr(Opcode::TLoad, Pipe::MTE2, {u, tile(MemSpace::GM, x, 16, 1024)}),
        instr(Opcode::TLoad, Pipe::MTE2, {u, tile(MemSpace::GM, x, 16, 1024)})};
    if (store) {
        code.push_back(test::setFlag(Pipe::MTE2, Pipe::MTE3));
        code.push_back(test::waitFlag(Pipe::MTE2, Pipe::MTE3));
        code.push_back(instr(Opcode::TStore, Pipe::MTE3, {tile(MemSpace::GM, y, 16, 1024), u}));
    }
    const uint32_t first = b.task(b.kernel(CoreType::AIV, std::move(code)));
    if (store) {
        const uint32_t second = b.task(
            b.kernel(CoreType::AIV,
                     {instr(Opcode::TLoad, Pipe::MTE2, {u, tile(MemSpace::GM, y, 16, 1024)})}));
        b.dep(first, second);
    }
    return b.program();
}

// Every transfer pays its whole latency on the pipe (no overlap with the previous stream).
const char* const kNoLatencyOverlap = "dma.latency_overlap = 0\n";

TEST(L2Engine, ASecondReadHitsWithL2Latency) {
    const SimResult r = simulate(reload(false), archWith(kNoLatencyOverlap), {}, timingOnly());
    // 500 + ceil(32768 / 58.6) for the miss, then 200 + the same streaming for the hit.
    EXPECT_EQ((r.tasks[0].end - r.tasks[0].start).count(), (500 + 560) + (200 + 560));
    EXPECT_EQ(r.memory.l2MissBytes, 32 * kKiB);
    EXPECT_EQ(r.memory.l2HitBytes, 32 * kKiB);
    EXPECT_DOUBLE_EQ(r.memory.l2HitRate(), 0.5);
    EXPECT_EQ(r.memory.l2Granule, 512);
}

TEST(L2Engine, BackToBackTransfersOverlapTheLatencyWithThePreviousStream) {
    const SimResult r = simulate(reload(false), ArchConfig(), {}, timingOnly());
    // The hit's 200-cycle latency runs while the miss streams its 560 cycles: only the
    // streaming of the second load is added.
    EXPECT_EQ((r.tasks[0].end - r.tasks[0].start).count(), (500 + 560) + 560);
    const SimResult half =
        simulate(reload(false), archWith("dma.latency_overlap = 0.5\n"), {}, timingOnly());
    EXPECT_EQ((half.tasks[0].end - half.tasks[0].start).count(), (500 + 560) + (100 + 560));
}

TEST(L2Engine, WritesGoThroughToHbmAndAllocate) {
    const SimResult r = simulate(reload(true), ArchConfig(), {}, timingOnly());
    EXPECT_EQ(r.memory.hbmWriteBytes, 32 * kKiB);
    // The second task reads what the first wrote: resident, so it hits.
    EXPECT_EQ(r.memory.l2HitBytes, 2 * 32 * kKiB);
    EXPECT_EQ((r.tasks[1].end - r.tasks[1].start).count(), 200 + 560);
}

// One AIV task reading `bytes` of GM twice in 32 KiB loads.
PtoProgram twoPasses(int64_t bytes) {
    ProgramBuilder b;
    const int64_t x = b.tensor("x", DType::F16, {bytes / 2048, 1024}, GmRole::Input);
    const Operand u = tile(MemSpace::UB, 0, 16, 1024);
    std::vector<Instr> code;
    for (int pass = 0; pass < 2; ++pass)
        for (int64_t off = 0; off < bytes; off += 32 * kKiB)
            code.push_back(
                instr(Opcode::TLoad, Pipe::MTE2, {u, tile(MemSpace::GM, x + off, 16, 1024)}));
    b.task(b.kernel(CoreType::AIV, std::move(code)));
    return b.program();
}

TEST(L2Engine, AWorkingSetLargerThanL2ThrashesUnderLru) {
    const PtoProgram program = twoPasses(256 * kKiB);
    // Fits: the second pass hits. 128 KiB of L2: LRU evicts each line before its reuse.
    // Without latency overlap, so the misses' longer latency shows in the time.
    const std::string noOverlap = kNoLatencyOverlap;
    const SimResult fits =
        simulate(program, archWith("l2.size = 1 MiB\n" + noOverlap), {}, timingOnly());
    EXPECT_EQ(fits.memory.l2HitBytes, 256 * kKiB);
    EXPECT_EQ(fits.memory.l2Evictions, 0);
    const SimResult thrash =
        simulate(program, archWith("l2.size = 128 KiB\n" + noOverlap), {}, timingOnly());
    EXPECT_EQ(thrash.memory.l2HitBytes, 0);
    EXPECT_EQ(thrash.memory.l2MissBytes, 512 * kKiB);
    EXPECT_EQ(thrash.memory.l2Evictions, (512 - 128) * kKiB / 512);
    EXPECT_GT(thrash.totalCycles, fits.totalCycles);
}

SimResult compileAndRun(CompileState state, const ArchConfig& arch = ArchConfig()) {
    CompileOptions options;
    options.target = toTargetInfo(arch);
    PassManager pm(state, options);
    pm.start();
    lowerToPto(pm);
    return simulate(state.pto, arch, {}, timingOnly());
}

// Share of the run a pipe of the AIC cores that ran tasks was busy, averaged over them.
double aicBusy(const SimResult& r, Pipe pipe) {
    double busy = 0;
    int cores = 0;
    for (const CoreStats& c : r.cores)
        if (c.type == CoreType::AIC && c.tasks > 0) {
            busy += static_cast<double>(c.busy[static_cast<int>(pipe)].count());
            ++cores;
        }
    return cores ? busy / cores / static_cast<double>(r.totalCycles.count()) : 0.0;
}

const std::string kGemm = std::string(PTO_SOURCE_DIR) + "/samples/gemm_4096.pto";

// The 4096^3 f16 GEMM re-reads every A and B tile 32 times. Its 64 MiB of operands (and the
// 64 MiB result) fit the 192 MiB L2: only the compulsory misses reach HBM, and HBM no longer
// limits it. What does is each core's own GM->L1 DMA (dma.gm_to_l1.rate = 78.4 B/cycle): a
// 128x256 output block loads (128 + 256) x 256 x 2 B per 2048 cube cycles of a k-step, 96 B per
// cycle, so MTE2 is busy nearly all the time and the cube at most 78.4 / 96 = 82 %.
TEST(L2Programs, Gemm4096ReadsHbmOnceAndIsBoundByTheCoreDma) {
    const SimResult r = compileAndRun(loadProgram(kGemm));
    EXPECT_EQ(r.memory.hbmReadBytes, 2 * 4096 * 4096 * 2);
    EXPECT_GT(r.memory.l2HitRate(), 0.95);
    EXPECT_GT(aicBusy(r, Pipe::MTE2), 0.9);
    EXPECT_GT(aicBusy(r, Pipe::M), 0.7);
    EXPECT_LT(aicBusy(r, Pipe::M), 0.82);
    // 3.16 M cycles when every read went to HBM, 1.60 M with 128x128 tiles and the whole
    // latency of every transfer on the pipe.
    EXPECT_LT(r.totalCycles.count(), 1'000'000);
}

// With a per-core DMA that keeps up (4x the path rate), the same GEMM is compute bound.
TEST(L2Programs, Gemm4096IsComputeBoundWhenTheCoreDmaKeepsUp) {
    ArchConfig arch;
    applyOverride(arch, "dma.gm_to_l1.rate=4x");
    const SimResult r = compileAndRun(loadProgram(kGemm), arch);
    EXPECT_GT(aicBusy(r, Pipe::M), 0.75) << r.totalCycles.count() << " cycles";
}

// An L1 block that feeds two accumulators (mL1 = 2 mL0) shares each loaded B tile between
// them: with K = 2048 it used to fail to allocate (the first accumulator's whole k-chain was
// ordered first, loading all of K into L1); now it compiles and keeps the cube busier than
// one accumulator per L1 block does.
TEST(L2Programs, AnL1BlockFeedingTwoAccumulatorsReusesItsTiles) {
    auto program = [](const char* tiles) {
        return fmt::format(
            R"(func @mm(%a: tensor<512x2048xf16>, %b: tensor<2048x512xf16>) -> tensor<512x512xf32> {{
  cube_tile {}
  %c = matmul %a, %b
  return %c
}}
)",
            tiles);
    };
    const SimResult one =
        compileAndRun(loadProgramText(program("[128, 128], [64, 256], [128, 128]"), "one.pto"));
    const SimResult two =
        compileAndRun(loadProgramText(program("[128, 256], [64, 256], [128, 128]"), "two.pto"));
    EXPECT_GT(aicBusy(two, Pipe::M), aicBusy(one, Pipe::M) + 0.1)
        << aicBusy(two, Pipe::M) << " vs " << aicBusy(one, Pipe::M);
}

// A 64 MiB + 64 MiB -> 64 MiB f16 add reads every byte once: no reuse, HBM bound.
TEST(L2Programs, LargeElementwiseStaysHbmBound) {
    const std::string text =
        R"(func @add(%a: tensor<8192x4096xf16>, %b: tensor<8192x4096xf16>) -> tensor<8192x4096xf16> {
  vec_tile [4, 4096]
  %c = add %a, %b
  return %c
}
)";
    const SimResult r = compileAndRun(loadProgramText(text, "add.pto"));
    EXPECT_EQ(r.memory.l2HitBytes, 0);
    EXPECT_EQ(r.memory.hbmReadBytes, 2 * 64 * kMiB);
    EXPECT_EQ(r.memory.hbmWriteBytes, 64 * kMiB);
    // From the first task start (after the dispatch cost) to the last task end. The gap to
    // the ideal (~14 %) is the HBM latency the lockstep cores wait out together.
    int64_t first = INT64_MAX, last = 0;
    for (const TaskRun& t : r.tasks) {
        first = std::min(first, t.start.count());
        last = std::max(last, t.end.count());
    }
    const double ideal = 3.0 * 64 * kMiB / ArchConfig().bytesPerCycle(Param::HbmBandwidth);
    EXPECT_NEAR(static_cast<double>(last - first), ideal, 0.15 * ideal);
}

} // namespace
} // namespace pto::sim
