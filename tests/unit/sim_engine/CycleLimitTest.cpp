// Tests of costs and rates whose durations do not fit in int64 cycles: toCycles saturates, and
// such a run stops at the safety bound naming the instruction and the parameters to check,
// never an internal error or an endless loop.
#include "simulator/Simulator.h"
#include "simulator/engine/BandwidthServer.h"
#include "simulator/engine/Cycles.h"

#include "SimTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pto::sim {
namespace {

using test::addScalar;
using test::archWith;
using test::instr;
using test::ProgramBuilder;
using test::tile;
using test::timingOnly;

// The message of the SimLimitExceeded a run on `arch` throws ("" when it throws none).
std::string limitMessage(const PtoProgram& program, const ArchConfig& arch,
                         SimOptions options = timingOnly()) {
    try {
        simulate(program, arch, {}, options);
    } catch (const SimLimitExceeded& e) {
        return e.what();
    }
    return "";
}

void expectHas(const std::string& text, const std::string& part) {
    EXPECT_NE(text.find(part), std::string::npos) << "no '" << part << "' in: " << text;
}

// One AIV task of `count` TADDS over a 64x128 f16 tile (5 + 64 cycles each by default).
PtoProgram addsProgram(int count = 1) {
    ProgramBuilder b;
    const Operand x = tile(MemSpace::UB, 0, 64, 128);
    std::vector<Instr> code(static_cast<size_t>(count), addScalar(x, x, 1.0));
    b.task(b.kernel(CoreType::AIV, code));
    return b.program();
}

// One AIV task loading 64 KiB of GM into UB.
PtoProgram loadProgram() {
    ProgramBuilder b;
    const int64_t x = b.tensor("x", DType::F16, {64, 512}, GmRole::Input);
    b.task(b.kernel(CoreType::AIV,
                    {instr(Opcode::TLoad, Pipe::MTE2,
                           {tile(MemSpace::UB, 0, 64, 512), tile(MemSpace::GM, x, 64, 512)})}));
    return b.program();
}

TEST(SimCycleLimit, ToCyclesRoundsAsTheCostModelDidAndSaturates) {
    EXPECT_EQ(toCycles(518.0), 518);
    EXPECT_EQ(toCycles(518.0 + 1e-12), 518); // unit conversion noise is no extra cycle
    EXPECT_EQ(toCycles(518.2), 519);
    EXPECT_EQ(toCycles(2.5, CycleRounding::Nearest), 3);
    EXPECT_EQ(toCycles(2.9, CycleRounding::Down), 2);
    EXPECT_EQ(toCycles(-4.0), 0);
    for (double huge : {1e19, 1e300, double(INFINITY), double(NAN)}) {
        EXPECT_EQ(toCycles(huge), kCyclesCeiling) << huge;
        EXPECT_EQ(toCycles(huge, CycleRounding::Down), kCyclesCeiling) << huge;
    }
    EXPECT_EQ(toCycles(double(kCyclesCeiling) / 2), kCyclesCeiling / 2);
}

// 16 KiB at 1e-20 B/cycle: 1.6e24 cycles, which wrapped to a completion one cycle ahead, again
// and again (pto run spun forever).
TEST(SimCycleLimit, AShareTooSmallToFinishSaturatesInsteadOfWrappingAround) {
    BandwidthServer s(1e-20);
    s.join(0, 7, 16384, 50);
    ASSERT_TRUE(s.next().has_value());
    EXPECT_EQ(*s.next(), kCyclesCeiling);
}

TEST(SimCycleLimit, AHugeSlopeStopsTheRunNamingTheInstructionAndItsCost) {
    const std::string m =
        limitMessage(addsProgram(), archWith("cost.tadds.slope = 1e300 cycles\n"));
    expectHas(m, "past the safety bound maxCycles = 4398046511104 with 0 of 1 tasks done");
    expectHas(m, "TADDS on AIV 0 pipe V (kernel 0 instr 0) lasts 2^61 cycles or more");
    expectHas(m, "check cost.tadds.startup and cost.tadds.slope");
}

TEST(SimCycleLimit, ACostOverMaxCyclesThatStillFitsIsNamedToo) {
    const std::string m = limitMessage(addsProgram(), archWith("cost.tadds.slope = 1e12 cycles\n"));
    expectHas(m, "simulation stopped at cycle 64000000001805: past the safety bound");
    expectHas(m, "lasts 64000000000005 cycles, more than maxCycles: check cost.tadds.");
}

TEST(SimCycleLimit, AHugeLatencyOrDispatchCostNamesItsParameter) {
    expectHas(limitMessage(loadProgram(), archWith("hbm.latency = 1e300 cycles\n")),
              "TLOAD on AIV 0 pipe MTE2 (kernel 0 instr 0) waits its latency for");
    expectHas(limitMessage(loadProgram(), archWith("hbm.latency = 1e300 cycles\n")),
              "check hbm.latency and l2.latency");
    expectHas(limitMessage(addsProgram(), archWith("sched.dispatch_cost = 1e300 us\n")),
              "check sched.dispatch_cost");
}

TEST(SimCycleLimit, ATinyBandwidthOrPathRateStopsAtTheSafetyBound) {
    for (const char* text :
         {"hbm.bandwidth = 1e-30 B/cycle\n", "dma.gm_to_ub.rate = 1e-300 B/cycle\n"}) {
        const std::string m = limitMessage(loadProgram(), archWith(text));
        expectHas(m, "simulation stopped at cycle 2305843009213693952 or later: past the safety "
                     "bound maxCycles = 4398046511104");
        expectHas(m, "the GM transfers streaming through HBM still need 2^61 cycles or more, more "
                     "than maxCycles");
        expectHas(m, "check hbm.bandwidth and the dma.*.rate of their paths");
    }
}

TEST(SimCycleLimit, ATinyOnChipRateNamesThePath) {
    ProgramBuilder b;
    b.task(b.kernel(CoreType::AIC,
                    {instr(Opcode::TExtract, Pipe::MTE1,
                           {tile(MemSpace::L0A, 0, 64, 64), tile(MemSpace::L1, 0, 64, 64)})}));
    const std::string m =
        limitMessage(b.program(), archWith("dma.l1_to_l0a.rate = 1e-300 B/cycle\n"));
    expectHas(m, "TEXTRACT on AIC 0 pipe MTE1");
    expectHas(m, "check dma.onchip_latency and dma.l1_to_l0a.rate");
}

// A run that is merely long stops as before, blaming no single instruction.
TEST(SimCycleLimit, ALongRunOfOrdinaryInstructionsBlamesNone) {
    SimOptions options = timingOnly();
    options.maxCycles = 5000;
    const std::string m = limitMessage(addsProgram(100), ArchConfig(), options);
    expectHas(m, "past the safety bound maxCycles = 5000 with 0 of 1 tasks done");
    EXPECT_EQ(m.find("check"), std::string::npos) << m;
}

} // namespace
} // namespace pto::sim
