// Tests of the shared-bandwidth model: the fluid server's max-min sharing, DMA efficiency,
// 48 cores contending for HBM, L2 hits, and what-if changes of hbm.bandwidth on memory- and
// cube-bound programs.
#include "simulator/Simulator.h"
#include "simulator/engine/BandwidthServer.h"

#include "SimTestUtil.h"

#include <gtest/gtest.h>

namespace pto::sim {
namespace {

using test::archWith;
using test::instr;
using test::kKiB;
using test::kMiB;
using test::ProgramBuilder;
using test::setFlag;
using test::tile;
using test::timingOnly;
using test::waitFlag;

// Cycles from the first task start to the last task end (dispatch excluded).
int64_t busySpan(const SimResult& r) {
    int64_t first = INT64_MAX, last = 0;
    for (const TaskRun& t : r.tasks) {
        first = std::min(first, t.start.count());
        last = std::max(last, t.end.count());
    }
    return last - first;
}

TEST(BandwidthServer, SingleTransferRunsAtItsCap) {
    BandwidthServer s(1000);
    s.join(0, 7, 1000, 100);
    EXPECT_EQ(s.next(), 10);
    EXPECT_TRUE(s.collect(9).empty());
    const auto done = s.collect(10);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].owner, 7u);
    EXPECT_DOUBLE_EQ(done[0].throttled, 0);
    EXPECT_FALSE(s.next());
}

TEST(BandwidthServer, EqualShareAndThrottledTime) {
    BandwidthServer s(100);
    s.join(0, 1, 1000, 100);
    s.join(0, 2, 1000, 100);
    EXPECT_DOUBLE_EQ(s.throughput(), 100);
    EXPECT_EQ(s.next(), 20);
    const auto done = s.collect(20);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_NEAR(done[0].throttled, 10, 1e-9); // 20 cycles instead of 10
}

TEST(BandwidthServer, CapsBelowTheShareAreWaterFilled) {
    BandwidthServer s(100);
    s.join(0, 1, 200, 20);   // capped at 20
    s.join(0, 2, 1600, 100); // gets the remaining 80
    EXPECT_DOUBLE_EQ(s.throughput(), 100);
    EXPECT_EQ(s.next(), 10);
    EXPECT_EQ(s.collect(10).size(), 1u);
    EXPECT_EQ(s.next(), 10 + 8); // 800 bytes left, now alone at its cap of 100
}

TEST(BandwidthServer, JoiningReschedulesEveryone) {
    BandwidthServer s(100);
    s.join(0, 1, 1000, 100);
    const uint32_t gen = s.generation();
    EXPECT_EQ(s.next(), 10);
    s.join(5, 2, 1000, 100); // A has 500 left, both at 50 now
    EXPECT_NE(s.generation(), gen);
    EXPECT_EQ(s.next(), 15);
    EXPECT_EQ(s.collect(15).size(), 1u);
    EXPECT_EQ(s.next(), 20); // B moved 500 at 50, the other 500 at 100
}

// One AIV task loading `bytes` of f16 from GM address `addr`.
SimResult singleLoad(int64_t bytes, int64_t addr) {
    ProgramBuilder b;
    b.tensor("x", DType::F16, {1, 64 * 1024}, GmRole::Input);
    const auto cols = static_cast<int32_t>(bytes / 2);
    b.task(b.kernel(CoreType::AIV,
                    {instr(Opcode::TLoad, Pipe::MTE2,
                           {tile(MemSpace::UB, 0, 1, cols), tile(MemSpace::GM, addr, 1, cols)})}));
    return simulate(b.program(), ArchConfig(), {}, timingOnly());
}

TEST(Bandwidth, SmallAndMisalignedTransfersLoseEfficiency) {
    // 16 KiB aligned: full path rate 58.6 B/cycle after the 500-cycle HBM latency.
    EXPECT_EQ(busySpan(singleLoad(16 * kKiB, 0)), 500 + 280); // ceil(16384 / 58.6)
    // 4 KiB: efficiency 0.5 + 0.5 * 4/16 = 0.625.
    EXPECT_EQ(busySpan(singleLoad(4 * kKiB, 0)), 500 + 112); // ceil(4096 / 36.625)
    // Not 512 B aligned: x 0.7 more.
    EXPECT_EQ(busySpan(singleLoad(4 * kKiB, 32)), 500 + 160); // ceil(4096 / 25.6375)
}

// `cores` AIV tasks, each loading `perCore` bytes in 128 KiB TLOADs.
PtoProgram concurrentLoads(int cores, int64_t perCore) {
    ProgramBuilder b;
    const int64_t x = b.tensor("x", DType::F16, {cores, perCore / 2}, GmRole::Input);
    const int64_t chunk = 128 * kKiB;
    for (int c = 0; c < cores; ++c) {
        std::vector<Instr> code;
        for (int64_t off = 0; off < perCore; off += chunk)
            code.push_back(instr(Opcode::TLoad, Pipe::MTE2,
                                 {tile(MemSpace::UB, 0, 64, 1024),
                                  tile(MemSpace::GM, x + c * perCore + off, 64, 1024)}));
        b.task(b.kernel(CoreType::AIV, std::move(code)));
    }
    return b.program();
}

TEST(Bandwidth, FortyEightCoresShareHbm) {
    const ArchConfig arch;
    const SimResult r = simulate(concurrentLoads(48, kMiB), arch, {}, timingOnly());
    const double ideal = 48.0 * kMiB / arch.bytesPerCycle(Param::HbmBandwidth); // 56,623
    EXPECT_NEAR(static_cast<double>(busySpan(r)), ideal, 0.15 * ideal);
    EXPECT_EQ(r.bytes(DmaPath::GmToUb), 48 * kMiB);
    // Alone, a core streams at its own path rate (58.6 B/cycle, ~22k cycles); 48 of them would
    // need 2813 B/cycle, so HBM is what limits here.
    const SimResult alone = simulate(concurrentLoads(1, kMiB), arch, {}, timingOnly());
    EXPECT_GT(busySpan(r), 2 * busySpan(alone));
}

TEST(Bandwidth, DoublingHbmHalvesAMemoryBoundProgram) {
    ArchConfig fast;
    applyOverride(fast, "hbm.bandwidth=2x");
    const PtoProgram program = concurrentLoads(48, kMiB);
    const auto slow =
        static_cast<double>(busySpan(simulate(program, ArchConfig(), {}, timingOnly())));
    const auto quick = static_cast<double>(busySpan(simulate(program, fast, {}, timingOnly())));
    EXPECT_NEAR(quick / slow, 0.5, 0.05);
}

TEST(Bandwidth, DoublingHbmLeavesACubeBoundProgramAlone) {
    ProgramBuilder b;
    const int64_t a = b.tensor("a", DType::F16, {24 * 128, 64}, GmRole::Input);
    for (int c = 0; c < 24; ++c) {
        std::vector<Instr> code = {
            instr(Opcode::TLoad, Pipe::MTE2,
                  {tile(MemSpace::L1, 0, 128, 64), tile(MemSpace::GM, a + c * 16 * kKiB, 128, 64)}),
            setFlag(Pipe::MTE2, Pipe::MTE1),
            waitFlag(Pipe::MTE2, Pipe::MTE1),
            instr(Opcode::TExtract, Pipe::MTE1,
                  {tile(MemSpace::L0A, 0, 128, 64), tile(MemSpace::L1, 0, 128, 64)}),
            setFlag(Pipe::MTE1, Pipe::M),
            waitFlag(Pipe::MTE1, Pipe::M)};
        for (int i = 0; i < 50; ++i)
            code.push_back(
                instr(Opcode::TMatmulAcc, Pipe::M,
                      {tile(MemSpace::L0C, 0, 128, 256, DType::F32),
                       tile(MemSpace::L0A, 0, 128, 64), tile(MemSpace::L0B, 0, 64, 256)}));
        b.task(b.kernel(CoreType::AIC, std::move(code)));
    }
    ArchConfig fast;
    applyOverride(fast, "hbm.bandwidth=2x");
    const auto slow =
        static_cast<double>(busySpan(simulate(b.program(), ArchConfig(), {}, timingOnly())));
    const auto quick = static_cast<double>(busySpan(simulate(b.program(), fast, {}, timingOnly())));
    EXPECT_GT(slow, 50 * 518);
    EXPECT_NEAR(quick / slow, 1.0, 0.02);
}

TEST(Bandwidth, L2HitsRelieveHbm) {
    // The same 48 loads twice: the second round finds every line resident and streams from
    // L2 (5 TB/s = 2778 B/cycle, about what 48 x 58.6 B/cycle ask for) after l2.latency, about
    // 3x faster than the first round through HBM.
    ProgramBuilder b;
    const int64_t x = b.tensor("x", DType::F16, {48, kMiB / 2}, GmRole::Input);
    for (int c = 0; c < 48; ++c) {
        std::vector<Instr> code;
        for (int round = 0; round < 2; ++round)
            for (int64_t off = 0; off < kMiB; off += 128 * kKiB)
                code.push_back(instr(Opcode::TLoad, Pipe::MTE2,
                                     {tile(MemSpace::UB, 0, 64, 1024),
                                      tile(MemSpace::GM, x + c * kMiB + off, 64, 1024)}));
        b.task(b.kernel(CoreType::AIV, std::move(code)));
    }
    const ArchConfig arch;
    const SimResult r = simulate(b.program(), arch, {}, timingOnly());
    EXPECT_EQ(r.memory.l2MissBytes, 48 * kMiB);
    EXPECT_EQ(r.memory.l2HitBytes, 48 * kMiB);
    EXPECT_EQ(r.memory.hbmReadBytes, 48 * kMiB);
    const auto once =
        static_cast<double>(busySpan(simulate(concurrentLoads(48, kMiB), arch, {}, timingOnly())));
    const double l2Round = 8 * 200 + 48.0 * kMiB /
                                         std::min(48 * arch.bytesPerCycle(Param::DmaGmToUb),
                                                  arch.bytesPerCycle(Param::L2Bandwidth));
    EXPECT_NEAR(static_cast<double>(busySpan(r)) - once, l2Round, 0.15 * l2Round);
}

} // namespace
} // namespace pto::sim
