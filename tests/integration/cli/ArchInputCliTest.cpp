// Arch inputs and what-if outputs through the real `pto` binary: a directory given as --arch,
// a whatif -o that is its own input, an interrupted whatif's scratch files, and the messages
// of bad arch values (where the value came from, the rule it breaks).
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pto {
namespace {

namespace fs = std::filesystem;
using test::runCommand;
using test::shellQuote;

constexpr const char* kRelu = "func @r(%x: tensor<32x4096xf32>) -> tensor<32x4096xf32> {\n"
                              "  %y = relu %x\n"
                              "  return %y\n"
                              "}\n";

std::string sample(const std::string& name) {
    return shellQuote(fmt::format("{}/samples/{}.pto", PTO_SOURCE_DIR, name));
}

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

class ArchInputCliTest : public ::testing::Test {
protected:
    // `pto ARGS` in the test's directory, killed after 120 s (a hang).
    test::ProcessResult pto(const std::string& args, const std::string& prefix = "") {
        return runCommand(fmt::format("cd {} && {} timeout -s KILL 120 {} {}",
                                      shellQuote(m_dir.path().string()), prefix, PTO_CLI, args));
    }
    // r.db: a timing-only run of relu.pto on the default arch.
    void runRelu() {
        std::ofstream(m_dir / "relu.pto") << kRelu;
        const test::ProcessResult run = pto("run relu.pto --timing-only -o r.db");
        ASSERT_EQ(run.exitCode, 0) << run.err;
    }
    // a.arch: the default arch with `key = value` appended (a later line of the file).
    void writeArch(const std::string& key, const std::string& value) {
        const test::ProcessResult dump = pto("arch");
        ASSERT_EQ(dump.exitCode, 0) << dump.err;
        std::string text = dump.out;
        const size_t at = text.find("\n" + key + " = ");
        ASSERT_NE(at, std::string::npos) << key;
        text.erase(at + 1, text.find('\n', at + 1) - at);
        std::ofstream(m_dir / "a.arch") << text << key << " = " << value << "\n";
    }
    // The line of a.arch that sets `key`.
    int lineOf(const std::string& key) {
        std::ifstream in(m_dir / "a.arch");
        int n = 0;
        for (std::string line; std::getline(in, line);)
            if (++n, line.starts_with(key + " = ")) return n;
        return 0;
    }
    test::TempDir m_dir{"pto-arch-input"};
};

// A directory opens as a stream that reads nothing: it was loaded as the default arch.
TEST_F(ArchInputCliTest, ADirectoryGivenAsArchIsRefusedEverywhere) {
    fs::create_directory(m_dir / "d.arch");
    for (const std::string& args :
         {std::string("arch --arch d.arch"), std::string("arch --arch /tmp"),
          fmt::format("run {} --timing-only --arch d.arch", sample("softmax")),
          fmt::format("tune {} --space {} --threads 1 --arch d.arch -o t.db", sample("softmax"),
                      shellQuote("tiles_per_task = 1"))}) {
        const test::ProcessResult r = pto(args);
        EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find("cannot open the arch config file (a directory)"), std::string::npos)
            << args << "\n"
            << r.err;
    }
    EXPECT_FALSE(fs::exists(m_dir / "t.db"));
}

// `--arch /dev/zero` read without end (out of memory), a FIFO waited for a writer for ever.
TEST_F(ArchInputCliTest, ADeviceOrFifoGivenAsArchIsRefused) {
    ASSERT_EQ(::mkfifo((m_dir / "f.arch").c_str(), 0600), 0);
    for (const auto& [arch, kind] :
         {std::pair<std::string, std::string>{"/dev/zero", "a device"}, {"f.arch", "a FIFO"}}) {
        const test::ProcessResult r = pto("arch --arch " + arch);
        EXPECT_EQ(r.exitCode, 2) << arch << "\n" << r.out << r.err;
        EXPECT_NE(
            r.err.find("cannot open the arch config file (not a regular file (" + kind + "))"),
            std::string::npos)
            << r.err;
    }
}

// whatif -o naming its own input (by another path, or a hard link) replaced the baseline.
TEST_F(ArchInputCliTest, WhatifRefusesToWriteOverTheTraceItReruns) {
    runRelu();
    fs::create_hard_link(m_dir / "r.db", m_dir / "link.db");
    const std::string before = readAll(m_dir / "r.db");
    for (const char* output : {"r.db", "./r.db", "link.db"}) {
        const test::ProcessResult r =
            pto(fmt::format("whatif r.db --set hbm.bandwidth=2x --timing-only -o {}", output));
        EXPECT_EQ(r.exitCode, 2) << output << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find("is the trace being re-simulated"), std::string::npos) << r.err;
    }
    EXPECT_EQ(readAll(m_dir / "r.db"), before);
    EXPECT_EQ(pto("whatif r.db --set hbm.bandwidth=2x --timing-only -o w.db").exitCode, 0);
}

// SIGINT or SIGTERM in the middle of a whatif left /tmp/pto-whatif-<pid>-N/ (the program and
// its inputs as .npy) every time, and once a 0-byte attw.db.tmp-* beside the output.
TEST_F(ArchInputCliTest, AnInterruptedWhatifLeavesNothingBehind) {
    const test::ProcessResult run = pto(fmt::format("run {} -o att.db", sample("attention")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const fs::path scratch = m_dir / "tmp";
    fs::create_directory(scratch);
    const std::string tmpdir = "TMPDIR=" + shellQuote(scratch.string());
    int interrupted = 0;
    for (const char* signal : {"INT", "TERM"})
        for (const char* after : {"0.2", "0.5", "0.8", "1.2"}) {
            const test::ProcessResult r = runCommand(
                fmt::format("cd {} && {} timeout -s {} {} {} whatif att.db --set "
                            "hbm.bandwidth=2x -o attw.db",
                            shellQuote(m_dir.path().string()), tmpdir, signal, after, PTO_CLI));
            interrupted += r.exitCode == 124 ? 1 : 0;
            for (const auto& entry : fs::directory_iterator(scratch))
                ADD_FAILURE() << "SIG" << signal << " after " << after << " s left "
                              << entry.path();
            for (const auto& entry : fs::directory_iterator(m_dir.path()))
                EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos)
                    << "SIG" << signal << " after " << after << " s left " << entry.path();
        }
    EXPECT_GT(interrupted, 0) << "every whatif finished before its signal: nothing was tested";
}

// A compile error of the re-run cited the deleted scratch copy of the program.
TEST_F(ArchInputCliTest, AWhatifCompileErrorNamesTheRecordedProgram) {
    const std::string program = fmt::format("{}/samples/attention.pto", PTO_SOURCE_DIR);
    ASSERT_EQ(pto(fmt::format("run {} --timing-only -o att.db", shellQuote(program))).exitCode, 0);
    const test::ProcessResult r = pto("whatif att.db --set 'mem.l0c.size=4 KiB' --timing-only");
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_EQ(r.err.rfind(program + ":", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("needs 64 KiB of L0C"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("pto-whatif"), std::string::npos) << r.err;
}

// A value set by --set was called "(default)"; a negative factor printed "x-2 = -3.2 TB/s".
TEST_F(ArchInputCliTest, OverrideErrorsSayWhatWasSetAndRefuseANonPositiveFactor) {
    runRelu();
    const test::ProcessResult cores = pto("whatif r.db --set core.aiv_count=1e30 --timing-only");
    EXPECT_EQ(cores.exitCode, 2);
    EXPECT_NE(cores.err.find("core.aiv_count = 1e+30 is above 4096 cores"), std::string::npos)
        << cores.err;
    EXPECT_EQ(cores.err.find("(default)"), std::string::npos) << cores.err;
    // 1e400 is no double: it was "expected a number, got '1e400x'", as if the x were wrong.
    for (const char* factor : {"-2x", "0x", "nanx", "1e400x", "1e-400x"}) {
        const test::ProcessResult r =
            pto(fmt::format("whatif r.db --set hbm.bandwidth={} --timing-only", factor));
        EXPECT_EQ(r.exitCode, 2) << factor;
        EXPECT_NE(
            r.err.find(fmt::format("hbm.bandwidth={}: a factor must be a positive number", factor)),
            std::string::npos)
            << r.err;
        EXPECT_EQ(r.err.find("TB/s"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("expected a number"), std::string::npos) << r.err;
    }
    const test::ProcessResult huge =
        pto("whatif r.db --set 'hbm.bandwidth=1e400 TB/s' --timing-only");
    EXPECT_EQ(huge.exitCode, 2);
    EXPECT_NE(
        huge.err.find("hbm.bandwidth: expected a number, got 1e400 (out of range of a double)"),
        std::string::npos)
        << huge.err;
    // A parameter the override did not touch is not "(default)" either: it came from the file.
    writeArch("mem.ub.reserved", "8 KiB");
    const test::ProcessResult ub = pto("arch --arch a.arch --set 'mem.ub.size=8 KiB'");
    EXPECT_EQ(ub.exitCode, 2);
    EXPECT_NE(ub.err.find("leaves nothing of mem.ub.size = 8 KiB"), std::string::npos) << ub.err;
    EXPECT_EQ(ub.err.find("(default)"), std::string::npos) << ub.err;
}

// mem.buffer_align = 33 B was blamed on mem.l1.size "(default)", with no line and no rule.
TEST_F(ArchInputCliTest, ABadBufferAlignIsBlamedAtItsLineAsNotAPowerOfTwo) {
    writeArch("mem.buffer_align", "33 B");
    const test::ProcessResult r = pto("arch --arch a.arch");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(fmt::format("a.arch:{}: mem.buffer_align = 33 B must be a power of two",
                                     lineOf("mem.buffer_align"))),
              std::string::npos)
        << r.err;
}

// clock.freq = 1e-30 GHz was accepted (a run took 1.02e31 us) while 1e30 GHz was refused.
TEST_F(ArchInputCliTest, TheClockHasAnAllowedRangeOnBothSides) {
    for (const char* clock : {"1e-30 GHz", "0.5 MHz", "1e30 GHz"}) {
        writeArch("clock.freq", clock);
        const test::ProcessResult r = pto("arch --arch a.arch");
        EXPECT_EQ(r.exitCode, 2) << clock << "\n" << r.out;
        EXPECT_NE(r.err.find(fmt::format("a.arch:{}: clock.freq = ", lineOf("clock.freq"))),
                  std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find("(a clock runs at 1 MHz to 100 GHz)"), std::string::npos) << r.err;
    }
    for (const char* clock : {"1 MHz", "100 GHz"}) {
        writeArch("clock.freq", clock);
        EXPECT_EQ(pto("arch --arch a.arch").exitCode, 0) << clock;
    }
}

} // namespace
} // namespace pto
