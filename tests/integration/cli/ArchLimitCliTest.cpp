// Absurd arch values through the real `pto` binary (run, whatif, tune): a rate however small or
// a cost however large stops at the simulator's safety bound with a clear error (exit 2) naming
// what to check — never a hang and never an internal error of the event queue.
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace pto {
namespace {

using test::runCommand;
using test::shellQuote;

constexpr const char* kRelu = "func @r(%x: tensor<32x4096xf32>) -> tensor<32x4096xf32> {\n"
                              "  %y = relu %x\n"
                              "  return %y\n"
                              "}\n";

std::string sample(const std::string& name) {
    return shellQuote(fmt::format("{}/samples/{}.pto", PTO_SOURCE_DIR, name));
}

class ArchLimitCliTest : public ::testing::Test {
protected:
    // `pto ARGS` in the test's directory, killed after 60 s (a hang).
    test::ProcessResult pto(const std::string& args) {
        return runCommand(fmt::format("cd {} && timeout -s KILL 60 {} {}",
                                      shellQuote(m_dir.path().string()), PTO_CLI, args));
    }
    // relu.pto, and a.arch: the default arch with `key` set to `value`.
    void writeReluAndArch(const std::string& key, const std::string& value) {
        std::ofstream(m_dir / "relu.pto") << kRelu;
        const test::ProcessResult dump = pto("arch");
        ASSERT_EQ(dump.exitCode, 0) << dump.err;
        std::string text = dump.out;
        const size_t at = text.find("\n" + key + " = ");
        ASSERT_NE(at, std::string::npos) << key;
        const size_t end = text.find('\n', at + 1);
        text.replace(at + 1, end - at - 1, key + " = " + value);
        std::ofstream(m_dir / "a.arch") << text;
    }
    static void expectSafetyBound(const test::ProcessResult& r, const std::string& hint) {
        EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
        EXPECT_NE(r.err.find("past the safety bound maxCycles = 4398046511104"), std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find(hint), std::string::npos) << "no '" << hint << "' in: " << r.err;
        EXPECT_EQ(r.err.find("EventQueue"), std::string::npos) << r.err;
    }
    test::TempDir m_dir{"pto-arch-limit"};
};

TEST_F(ArchLimitCliTest, RunWithATinyHbmBandwidthStopsAtTheSafetyBound) {
    for (const char* set : {"hbm.bandwidth=1e-17x", "hbm.bandwidth=1e-17 TB/s"}) {
        const test::ProcessResult r = pto(fmt::format("run {} --timing-only --set {} -o h.db",
                                                      sample("softmax"), shellQuote(set)));
        expectSafetyBound(r, "check hbm.bandwidth");
    }
}

TEST_F(ArchLimitCliTest, RunWithATinyDmaRateInAnArchFileStopsAtTheSafetyBound) {
    writeReluAndArch("dma.ub_to_gm.rate", "1e-300 B/cycle");
    const test::ProcessResult r = pto("run relu.pto --timing-only --arch a.arch");
    expectSafetyBound(r, "the GM transfers streaming through HBM still need");
}

TEST_F(ArchLimitCliTest, RunWithAHugeSlopeNamesTheInstructionAndTheParameter) {
    writeReluAndArch("cost.trelu.slope", "1e300 cycles");
    const test::ProcessResult r = pto("run relu.pto --timing-only --arch a.arch");
    expectSafetyBound(r, "check cost.trelu.startup and cost.trelu.slope");
    EXPECT_NE(r.err.find("TRELU on AIV 0 pipe V"), std::string::npos) << r.err;
}

// whatif re-simulates the recorded run with the change: the same error.
TEST_F(ArchLimitCliTest, WhatifOfATinyBandwidthOrAHugeSlopeGivesTheSameError) {
    const test::ProcessResult run =
        pto(fmt::format("run {} --timing-only -o s.db", sample("softmax")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    expectSafetyBound(pto("whatif s.db --set hbm.bandwidth=1e-17x --timing-only"),
                      "check hbm.bandwidth");
    expectSafetyBound(pto("whatif s.db --set cost.texp.slope=1e300x --timing-only"),
                      "check cost.texp.startup and cost.texp.slope");
}

// tune simulates every candidate: each one records the error, and the sweep ends.
TEST_F(ArchLimitCliTest, TuneRecordsTheSameErrorForEveryCandidate) {
    writeReluAndArch("cost.trelu.slope", "1e300 cycles");
    const std::string space = shellQuote("tiles_per_task = 1 | 2");
    for (const char* arch : {"--arch a.arch", "--set hbm.bandwidth=1e-17x"}) {
        const test::ProcessResult r = pto(fmt::format(
            "tune relu.pto --space {} {} --threads 1 --no-prune -o t.db --json", space, arch));
        EXPECT_NE(r.exitCode, 137) << "killed: a hang";
        EXPECT_NE(r.out.find("past the safety bound maxCycles = 4398046511104"), std::string::npos)
            << r.out << r.err;
        EXPECT_EQ(r.out.find("EventQueue"), std::string::npos) << r.out;
        std::filesystem::remove(m_dir / "t.db");
    }
    // The text summary says why (it only counted "3 faulted").
    const test::ProcessResult text = pto(fmt::format(
        "tune relu.pto --space {} --set hbm.bandwidth=1e-17x --threads 1 --no-prune -o t.db",
        space));
    EXPECT_NE(text.out.find("faulted #0 (as written): simulation stopped"), std::string::npos)
        << text.out;
}

} // namespace
} // namespace pto
