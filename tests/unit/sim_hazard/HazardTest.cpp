// Tests of the overlapping-live-buffer check: exact region intersection, a PTO listing that
// reuses a buffer while it is live (OverlapFault naming both instructions), a correctly
// double-buffered listing and every sample program (clean), and the option that turns it off.
#include "compiler/Pipeline.h"
#include "compiler/ir/PtoParser.h"
#include "simulator/Simulator.h"
#include "simulator/engine/HazardChecker.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace pto::sim {
namespace {

SimOptions timingOnly(const std::string& file = "") {
    SimOptions o;
    o.timingOnly = true;
    o.traceLevel = TraceLevel::None;
    o.sourceFile = file;
    return o;
}

Operand ub(int64_t addr, int32_t rows, int32_t cols, int64_t stride) {
    Operand o;
    o.space = MemSpace::UB;
    o.dtype = DType::F16;
    o.addr = addr;
    o.rows = rows;
    o.cols = cols;
    o.stride = stride;
    return o;
}

TEST(Region, StridedRowsIntersectExactly) {
    // The left and right halves of a 64x128 f16 tile do not share a byte...
    const Region left = regionOf(ub(0, 64, 64, 128), true);
    const Region right = regionOf(ub(128, 64, 64, 128), false);
    EXPECT_EQ(left.rows, 64);
    EXPECT_EQ(left.hi, 63 * 256 + 128);
    EXPECT_FALSE(intersects(left, right));
    // ...but the whole tile meets both, and a half shifted by one element meets the left one.
    const Region whole = regionOf(ub(0, 64, 128, 128), false);
    EXPECT_EQ(whole.rows, 1); // contiguous rows are one run
    EXPECT_TRUE(intersects(whole, left));
    EXPECT_TRUE(intersects(whole, right));
    EXPECT_TRUE(intersects(left, regionOf(ub(126, 64, 64, 128), false)));
    // Another space never intersects; a row broadcast covers one row.
    Region l1 = left;
    l1.space = MemSpace::L1;
    EXPECT_FALSE(intersects(l1, left));
    EXPECT_EQ(regionOf(ub(0, 16, 32, 0), false).hi, 64);
}

// TLOAD x -> UB[0x0, 0x8000), TEXP into UB[0x8000, 0x10000); then a second TLOAD into
// UB[0x4000, 0xC000) — the upper half of x's buffer and the lower half of the TEXP result —
// with no flag after the TEXP: it starts before the TEXP, which comes first in the program.
// `afterExpStarts`: the second TLOAD waits for a flag V sets just before its TEXP, so the TEXP
// is running when the load starts and the two overlap in time.
std::string reusedBuffer(bool afterExpStarts) {
    return fmt::format(R"(pto @reuse
gm %x : f16[16x1024] @0x0 input
gm %y : f16[16x1024] @0x8000 output
kernel @k0 aiv {{
  MTE2 TLOAD         UB[0x0]:f16[16x1024/1024], GM[0x0]:f16[16x1024/1024] !op 1 !loc 3:5
  MTE2 SET_FLAG      MTE2->V 0
  V    WAIT_FLAG     MTE2->V 0
{}  V    TEXP          UB[0x8000]:f16[16x1024/1024], UB[0x0]:f16[16x1024/1024] !op 2 !loc 4:7
{}  MTE2 TLOAD         UB[0x4000]:f16[16x1024/1024], GM[0x0]:f16[16x1024/1024] !op 3 !loc 5:3
  V    SET_FLAG      V->MTE3 0
  MTE3 WAIT_FLAG     V->MTE3 0
  MTE3 TSTORE        GM[0x8000]:f16[16x1024/1024], UB[0x8000]:f16[16x1024/1024]
}}
task 0 @k0 aiv
)",
                       afterExpStarts ? "  V    SET_FLAG      V->MTE2 1\n" : "",
                       afterExpStarts ? "  MTE2 WAIT_FLAG     V->MTE2 1\n" : "");
}

TEST(Hazard, ReusedLiveBufferIsAnOverlapFault) {
    const PtoProgram program = parsePtoProgram(reusedBuffer(false), "reuse.ptoasm");
    try {
        // No latency overlap: the second load pays its whole l2.latency on the pipe.
        simulate(program, parseArch("dma.latency_overlap = 0\n", "test.arch"), {},
                 timingOnly("reuse.ptoasm"));
        FAIL() << "expected an OverlapFault";
    } catch (const OverlapFault& fault) {
        EXPECT_EQ(fault.kind(), FaultKind::Overlap);
        EXPECT_EQ(fault.site().coreType, CoreType::AIV);
        EXPECT_EQ(fault.site().core, 0);
        const HazardAccess& load = fault.first();
        const HazardAccess& exp = fault.second();
        // The second TLOAD starts right after its SET_FLAG, while the TEXP still waits for that
        // flag: the load overwrites what the TEXP, first in the program, has yet to write.
        EXPECT_EQ(load.opcode, Opcode::TLoad);
        EXPECT_EQ(load.pipe, Pipe::MTE2);
        EXPECT_EQ(load.instrIndex, 4);
        EXPECT_EQ(load.region.lo, 0x4000);
        EXPECT_EQ(load.region.hi, 0xC000);
        EXPECT_TRUE(load.region.write);
        EXPECT_EQ(exp.opcode, Opcode::TExp);
        EXPECT_EQ(exp.pipe, Pipe::V);
        EXPECT_EQ(exp.instrIndex, 3);
        EXPECT_EQ(exp.region.lo, 0x8000);
        EXPECT_EQ(exp.start, -1); // not started
        EXPECT_EQ(fault.site().cycle, load.start);
        const std::string text = fault.what();
        const std::string expected = fmt::format(
            "overlap on AIV 0 (kernel 0, cycle {0}, reuse.ptoasm): out of program order: TLOAD "
            "(pipe MTE2, instr 4, tile op #3, from reuse.ptoasm:5:3) writes UB [0x4000, 0xc000) "
            "from cycle {0}, before TEXP (pipe V, instr 3, tile op #2, from reuse.ptoasm:4:7) — "
            "which comes first in the program and writes UB [0x8000, 0x10000) — has started; no "
            "flag or barrier orders them",
            load.start);
        EXPECT_EQ(text, expected);
    }
    // Off: the run completes (and the race is the program's problem).
    SimOptions off = timingOnly();
    off.checkHazards = false;
    EXPECT_NO_THROW(simulate(program, ArchConfig(), {}, off));
}

// A listing written pipe by pipe: the V pipe's TADD comes first on the page but waits for the
// flag MTE2 sets after its TLOAD, so the load runs first — ordered by the flag, the other way
// round from the listing. The pipes follow their own queues and flags, so this is a correct
// program (and the static sync check says so); `withFlag` false drops the flag: a real race.
std::string consumerListedFirst(bool withFlag) {
    return fmt::format(R"(pto @listed
gm %x : f32[16x64] @0x0 input
gm %y : f32[16x64] @0x1000 output
kernel @k0 aiv {{
{}  V    TADDS         UB[0x1000]:f32[16x64/64], UB[0x0]:f32[16x64/64] {{scalar = 1}}
  V    SET_FLAG      V->MTE3 0
  MTE2 TLOAD         UB[0x0]:f32[16x64/64], GM[0x0]:f32[16x64/64]
{}  MTE3 WAIT_FLAG     V->MTE3 0
  MTE3 TSTORE        GM[0x1000]:f32[16x64/64], UB[0x1000]:f32[16x64/64]
}}
task 0 @k0 aiv
)",
                       withFlag ? "  V    WAIT_FLAG     MTE2->V 0\n" : "",
                       withFlag ? "  MTE2 SET_FLAG      MTE2->V 0\n" : "");
}

TEST(Hazard, AConsumerListedAboveItsProducerButHeldByItsFlagIsNoFault) {
    const PtoProgram program = parsePtoProgram(consumerListedFirst(true), "listed.ptoasm");
    EXPECT_NO_THROW(simulate(program, ArchConfig(), {}, timingOnly("listed.ptoasm")));
    // The numbers as well: y = x + 1 (the TADDS read what the TLOAD brought).
    SimOptions full;
    full.traceLevel = TraceLevel::None;
    TensorData x(DType::F32, {16, 64});
    for (int64_t i = 0; i < x.numel(); ++i) x.set(i, double(i % 7));
    const std::vector<TensorData> inputs{x};
    const SimResult r = simulate(program, ArchConfig(), inputs, full);
    ASSERT_EQ(r.outputs.size(), 1u);
    for (int64_t i = 0; i < x.numel(); ++i)
        ASSERT_EQ(r.outputs[0].second.get(i), double(i % 7) + 1);
}

// The GM part of the same: a workspace round trip whose TLOAD is listed above the TSTORE it
// reads back, held by the MTE3->MTE2 flag set after the store.
TEST(Hazard, AGmReloadListedAboveItsStoreButHeldByItsFlagIsNoFault) {
    const PtoProgram program = parsePtoProgram(R"(pto @trip
gm %x : f32[16x64] @0x0 input
gm %ws : f32[16x64] @0x1000 workspace
gm %y : f32[16x64] @0x2000 output
kernel @k0 aiv {
  MTE2 TLOAD         UB[0x0]:f32[16x64/64], GM[0x0]:f32[16x64/64]
  MTE2 SET_FLAG      MTE2->MTE3 0
  MTE2 WAIT_FLAG     MTE3->MTE2 0
  MTE2 TLOAD         UB[0x1000]:f32[16x64/64], GM[0x1000]:f32[16x64/64]
  MTE2 SET_FLAG      MTE2->MTE3 1
  MTE3 WAIT_FLAG     MTE2->MTE3 0
  MTE3 TSTORE        GM[0x1000]:f32[16x64/64], UB[0x0]:f32[16x64/64]
  MTE3 SET_FLAG      MTE3->MTE2 0
  MTE3 WAIT_FLAG     MTE2->MTE3 1
  MTE3 TSTORE        GM[0x2000]:f32[16x64/64], UB[0x1000]:f32[16x64/64]
}
task 0 @k0 aiv
)",
                                               "trip.ptoasm");
    EXPECT_NO_THROW(simulate(program, ArchConfig(), {}, timingOnly("trip.ptoasm")));
}

TEST(Hazard, TheSameListingWithoutTheFlagIsARace) {
    const PtoProgram program = parsePtoProgram(consumerListedFirst(false), "listed.ptoasm");
    try {
        simulate(program, ArchConfig(), {}, timingOnly("listed.ptoasm"));
        FAIL() << "expected an OverlapFault";
    } catch (const OverlapFault& fault) {
        EXPECT_EQ(fault.first().opcode, Opcode::TLoad) << fault.what();
        EXPECT_EQ(fault.second().opcode, Opcode::TAddS) << fault.what();
    }
}

TEST(Hazard, ALoadIntoABufferARunningExpWritesOverlapsIt) {
    const PtoProgram program = parsePtoProgram(reusedBuffer(true), "overlap.ptoasm");
    try {
        simulate(program, ArchConfig(), {}, timingOnly("overlap.ptoasm"));
        FAIL() << "expected an OverlapFault";
    } catch (const OverlapFault& fault) {
        const HazardAccess& exp = fault.first();
        const HazardAccess& load = fault.second();
        EXPECT_EQ(exp.opcode, Opcode::TExp);
        EXPECT_EQ(load.opcode, Opcode::TLoad);
        EXPECT_LT(exp.start, load.start); // both ran, at overlapping cycles
        EXPECT_GT(exp.end, load.start);
        EXPECT_NE(std::string(fault.what()).find("overlapping live buffers: TEXP (pipe V, instr 4"),
                  std::string::npos)
            << fault.what();
    }
}

// A workspace round trip on one core: TSTORE a tile to GM, TLOAD it back. With the
// MTE3 -> MTE2 flag the load waits for the store; without it the load reads GM the store has not
// written yet (a GM race the on-chip check cannot see).
std::string roundTrip(bool withWait) {
    return fmt::format(R"(pto @trip
gm %x : f32[16x256] @0x0 input
gm %ws : f32[16x256] @0x4000 workspace
gm %y : f32[16x256] @0x8000 output
kernel @k0 aiv {{
  MTE2 TLOAD         UB[0x0]:f32[16x256/256], GM[0x0]:f32[16x256/256] !op 1 !loc 2:5
  MTE2 SET_FLAG      MTE2->V 0
  V    WAIT_FLAG     MTE2->V 0
  V    TEXP          UB[0x4000]:f32[16x256/256], UB[0x0]:f32[16x256/256] !op 2 !loc 3:5
  V    SET_FLAG      V->MTE3 0
  MTE3 WAIT_FLAG     V->MTE3 0
  MTE3 TSTORE        GM[0x4000]:f32[16x256/256], UB[0x4000]:f32[16x256/256] !op 3 !loc 4:5
  MTE3 SET_FLAG      MTE3->MTE2 0
{}  MTE2 TLOAD         UB[0x8000]:f32[16x256/256], GM[0x4000]:f32[16x256/256] !op 4 !loc 5:5
  MTE2 SET_FLAG      MTE2->MTE3 1
  MTE3 WAIT_FLAG     MTE2->MTE3 1
  MTE3 TSTORE        GM[0x8000]:f32[16x256/256], UB[0x8000]:f32[16x256/256] !op 5 !loc 6:5
}}
task 0 @k0 aiv
)",
                       withWait ? "  MTE2 WAIT_FLAG     MTE3->MTE2 0\n" : "");
}

TEST(Hazard, ALoadOfWhatAnEarlierStoreWritesToGmMustWaitForIt) {
    EXPECT_NO_THROW(
        simulate(parsePtoProgram(roundTrip(true), "trip.ptoasm"), ArchConfig(), {}, timingOnly()));
    try {
        simulate(parsePtoProgram(roundTrip(false), "trip.ptoasm"), ArchConfig(), {},
                 timingOnly("trip.ptoasm"));
        FAIL() << "expected an OverlapFault";
    } catch (const OverlapFault& fault) {
        EXPECT_EQ(fault.first().opcode, Opcode::TLoad);
        EXPECT_EQ(fault.first().instrIndex, 8);
        EXPECT_EQ(fault.first().region.space, MemSpace::GM);
        EXPECT_EQ(fault.second().opcode, Opcode::TStore);
        EXPECT_TRUE(fault.second().region.write);
        EXPECT_NE(std::string(fault.what()).find("out of program order: TLOAD (pipe MTE2, instr 8"),
                  std::string::npos)
            << fault.what();
        EXPECT_NE(std::string(fault.what()).find("writes GM [0x4000, 0x8000)"), std::string::npos)
            << fault.what();
    }
}

// A double-buffered load / exp / store pipeline over `tiles` tiles of 16x1024 f16 (`exps`
// TEXPs per tile): the usual flags, with `dropWait` >= 0 leaving out the WAIT_FLAG that lets
// the load of that tile reuse its buffer.
std::string doubleBuffered(int tiles, int exps = 1, int dropWait = -1) {
    constexpr int64_t kTile = 16 * 1024 * 2;
    std::string text = fmt::format("pto @pipeline\ngm %x : f16[{}x1024] @0x0 input\n"
                                   "gm %y : f16[{}x1024] @{:#x} output\nkernel @k0 aiv {{\n",
                                   16 * tiles, 16 * tiles, kTile * tiles);
    auto line = [&](const std::string& s) { text += "  " + s + "\n"; };
    for (int s = 0; s < 2; ++s) {
        line(fmt::format("V    SET_FLAG V->MTE2 {}", s));
        line(fmt::format("MTE3 SET_FLAG MTE3->V {}", s));
    }
    for (int t = 0; t < tiles; ++t) {
        const int s = t % 2;
        const std::string in = fmt::format("UB[{:#x}]:f16[16x1024/1024]", s * kTile);
        const std::string out = fmt::format("UB[{:#x}]:f16[16x1024/1024]", (2 + s) * kTile);
        if (t != dropWait) line(fmt::format("MTE2 WAIT_FLAG V->MTE2 {}", s));
        line(fmt::format("MTE2 TLOAD {}, GM[{:#x}]:f16[16x1024/1024]", in, t * kTile));
        line(fmt::format("MTE2 SET_FLAG MTE2->V {}", s));
        line(fmt::format("V    WAIT_FLAG MTE2->V {}", s));
        line(fmt::format("V    WAIT_FLAG MTE3->V {}", s));
        for (int e = 0; e < exps; ++e) line(fmt::format("V    TEXP {}, {}", out, in));
        line(fmt::format("V    SET_FLAG V->MTE2 {}", s));
        line(fmt::format("V    SET_FLAG V->MTE3 {}", s));
        line(fmt::format("MTE3 WAIT_FLAG V->MTE3 {}", s));
        line(fmt::format("MTE3 TSTORE GM[{:#x}]:f16[16x1024/1024], {}", (tiles + t) * kTile, out));
        line(fmt::format("MTE3 SET_FLAG MTE3->V {}", s));
    }
    for (int s = 0; s < 2; ++s) {
        line(fmt::format("MTE2 WAIT_FLAG V->MTE2 {}", s));
        line(fmt::format("V    WAIT_FLAG MTE3->V {}", s));
    }
    return text + "}\ntask 0 @k0 aiv\n";
}

TEST(Hazard, DoubleBufferedPipelineIsClean) {
    const PtoProgram program = parsePtoProgram(doubleBuffered(8), "pipeline.ptoasm");
    const SimResult r = simulate(program, ArchConfig(), {}, timingOnly());
    EXPECT_TRUE(r.warnings.empty());
    // Functional too: y = exp(x) with the buffers reused every other tile.
    const TensorData x = randomTensor(DType::F16, {128, 1024}, 3);
    SimOptions functional;
    functional.traceLevel = TraceLevel::None;
    const SimResult f = simulate(program, ArchConfig(), std::span(&x, 1), functional);
    ASSERT_EQ(f.outputs.size(), 1u);
}

TEST(Hazard, DroppingOneWaitOfTheDoubleBufferFaults) {
    // Three TEXPs per tile make V the bottleneck; without the wait, tile 2's load overwrites
    // buffer 0 while tile 0's last TEXP still reads it.
    const PtoProgram program = parsePtoProgram(doubleBuffered(8, 3, 2), "pipeline.ptoasm");
    EXPECT_NO_THROW(simulate(parsePtoProgram(doubleBuffered(8, 3), "pipeline.ptoasm"), ArchConfig(),
                             {}, timingOnly()));
    try {
        simulate(program, ArchConfig(), {}, timingOnly());
        FAIL() << "expected an OverlapFault";
    } catch (const OverlapFault& fault) {
        // Tile 2's load starts before tile 0's last TEXP, first in the program, has started.
        EXPECT_EQ(fault.first().opcode, Opcode::TLoad);
        EXPECT_EQ(fault.second().opcode, Opcode::TExp);
        EXPECT_TRUE(fault.first().region.write); // a write after read
        EXPECT_FALSE(fault.second().region.write);
        EXPECT_EQ(fault.first().region.lo, 0);
        EXPECT_EQ(fault.second().start, -1);
    }
}

// Every sample compiles and runs timing-only with the check on and no warning (the S = 32768
// flash attention as its S = 2048 twin: unrolled, the full size is over the default budget).
TEST(Hazard, EverySampleRunsClean) {
    int samples = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(PTO_SOURCE_DIR) / "samples")) {
        if (entry.path().extension() != ".pto") continue;
        SCOPED_TRACE(entry.path().string());
        CompileState state = loadProgram(entry.path().string());
        if (entry.path().stem() == "flash_attention_long") { // unrolled: over the default budget
            std::ifstream in(entry.path());
            std::ostringstream text;
            text << in.rdbuf();
            std::string twin = std::regex_replace(text.str(), std::regex("32768x"), "2048x");
            twin = std::regex_replace(twin, std::regex("to 128 step"), "to 8 step");
            state = loadProgramText(twin, entry.path().string());
        }
        CompileOptions options;
        options.target = toTargetInfo(ArchConfig());
        PassManager pm(state, options);
        pm.start();
        lowerToPto(pm);
        const SimResult r =
            simulate(state.pto, ArchConfig(), {}, timingOnly(entry.path().string()));
        EXPECT_TRUE(r.warnings.empty());
        ++samples;
    }
    EXPECT_GE(samples, 5);
}

} // namespace
} // namespace pto::sim
