// Hostile programs, listings and .npy files (../shared/repro/reliability, issue 13) through the
// real `pto` binary: each gives a clean error (exit 2, the place, the limit and the flag to
// raise) within 10 s and 1 GiB of address space, never a crash, a hang or std::bad_alloc.
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace pto {
namespace {

namespace fs = std::filesystem;
using test::runCommand;
using test::shellQuote;

const fs::path kRepro = fs::path(PTO_SOURCE_DIR) / "../shared/repro/reliability";

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true; // ASan reserves terabytes of address space: no ulimit -v
#else
constexpr bool kSanitized = false;
#endif

struct Limited {
    test::ProcessResult result;
    double seconds = 0;
};

// Runs `pto ARGS` in `dir` with at most 1 GiB of address space; killed after 60 s (a hang).
Limited runLimited(const fs::path& dir, const std::string& args) {
    const std::string limit = kSanitized ? "" : "ulimit -v 1048576 && ";
    const std::string command = fmt::format("cd {} && {}timeout -s KILL 60 {} {}",
                                            shellQuote(dir.string()), limit, PTO_CLI, args);
    const auto start = std::chrono::steady_clock::now();
    Limited r{runCommand(command)};
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

void expectCleanError(const Limited& r, const std::vector<std::string>& fragments) {
    EXPECT_EQ(r.result.exitCode, 2) << r.result.err;
    for (const std::string& f : fragments) {
        EXPECT_NE(r.result.err.find(f), std::string::npos)
            << "missing '" << f << "' in: " << r.result.err;
    }
    EXPECT_EQ(r.result.err.find("std::bad_alloc"), std::string::npos) << r.result.err;
    if (!kSanitized) {
        EXPECT_LT(r.seconds, 10.0);
    }
}

void expectNoTraceLeft(const fs::path& dir) {
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename().string().find("o.db"), std::string::npos) << e.path();
}

std::string repro(const std::string& name) {
    return shellQuote((kRepro / name).string());
}

class HostileProgramTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(kRepro)) GTEST_SKIP() << "no " << kRepro;
    }
    test::TempDir m_dir{"pto-hostile"};
};

// Program files that are not regular files, or are too big, need no repro directory.
class HostileSourceTest : public ::testing::Test {
protected:
    test::TempDir m_dir{"pto-hostile-source"};
};

// A device or FIFO as the program is refused before a byte is read, as an .npy input is
// (`pto compile /dev/zero` grew to 15 GB in 30 s; a FIFO with no writer blocked forever).
TEST_F(HostileSourceTest, ADeviceOrFifoIsNoProgram) {
    for (const std::string command :
         {"compile /dev/zero -o o.db", "compile /dev/urandom", "run /dev/zero -o o.db",
          "diff --bisect /dev/zero", "tune /dev/zero --space 'vec_tile = [8, 1024]'"}) {
        const Limited r = runLimited(m_dir.path(), command);
        expectCleanError(r, {"/dev/", ": error: not a regular file (a device); a program must be a "
                                      "regular .pto or .ptoasm file"});
    }
    ASSERT_EQ(::mkfifo((m_dir / "ff.pto").c_str(), 0600), 0);
    ASSERT_EQ(::mkfifo((m_dir / "ff.ptoasm").c_str(), 0600), 0);
    expectCleanError(runLimited(m_dir.path(), "run ff.pto --outputs o"),
                     {"ff.pto: error: not a regular file (a FIFO)"});
    expectCleanError(runLimited(m_dir.path(), "compile ff.ptoasm"),
                     {"ff.ptoasm: error: not a regular file (a FIFO)"});
    expectNoTraceLeft(m_dir.path());
    EXPECT_FALSE(fs::exists(m_dir / "o"));
}

// A source file over 256 MiB (kMaxSourceBytes), or over --max-memory when that is less, is
// refused before it is read whole.
TEST_F(HostileSourceTest, AHugeSourceIsRefusedBeforeItIsRead) {
    const fs::path big = m_dir / "big.pto";
    std::ofstream(big) << "// a comment\n";
    fs::resize_file(big, (uint64_t(256) << 20) + 1); // a hole: no disk used
    expectCleanError(runLimited(m_dir.path(), "compile big.pto -o o.db"),
                     {"big.pto: error: the program is larger than the limit of 256 MiB (the most "
                      "a source file may have)"});
    std::ofstream(m_dir / "small.pto") << "func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {\n"
                                       << "  %y = exp %x\n  return %y\n}\n"
                                       << std::string(2000, ' ');
    expectCleanError(runLimited(m_dir.path(), "run small.pto --max-memory 1KiB"),
                     {"small.pto: error: the program is larger than the limit of 1 KiB (the "
                      "--max-memory budget)"});
    expectNoTraceLeft(m_dir.path());
}

TEST_F(HostileProgramTest, DeeplyNestedOpsAreADepthErrorNotAStackOverflow) {
    const Limited r =
        runLimited(m_dir.path(), "compile " + repro("c1_parser_nested_ops_10000.pto"));
    expectCleanError(r, {"c1_parser_nested_ops_10000.pto:2:", "nested more than 256 levels"});
}

// `%y = neg (neg (... (neg %x)))` with `levels` parenthesised ops.
std::string nestedProgram(int levels) {
    std::string expr = "neg %x";
    for (int i = 0; i < levels; ++i) expr = "neg (" + expr + ")";
    return "func @f(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {\n  %y = " + expr +
           "\n  return %y\n}\n";
}

TEST_F(HostileProgramTest, NestingUpToTheLimitCompiles) {
    std::ofstream(m_dir / "deep.pto") << nestedProgram(256);
    const Limited ok = runLimited(m_dir.path(), "compile deep.pto");
    EXPECT_EQ(ok.result.exitCode, 0) << ok.result.err;
    std::ofstream(m_dir / "deeper.pto") << nestedProgram(257);
    expectCleanError(runLimited(m_dir.path(), "compile deeper.pto"),
                     {"deeper.pto:2:", "nested more than 256 levels"});
}

TEST_F(HostileProgramTest, MatmulExpansionIsRefusedBeforeItStarts) {
    const Limited r =
        runLimited(m_dir.path(), "compile " + repro("c1_oom_matmul_expand_tiles.pto") + " -o o.db");
    expectCleanError(
        r, {"c1_oom_matmul_expand_tiles.pto:6:10:", "matmul %acc", "tile ops", "--max-tile-ops"});
    expectNoTraceLeft(m_dir.path());
}

TEST_F(HostileProgramTest, HugeElementwiseTensorIsRefused) {
    const Limited r =
        runLimited(m_dir.path(), "compile " + repro("c1_oom_exp_2pow48.pto") + " -o o.db");
    expectCleanError(r, {"c1_oom_exp_2pow48.pto:2:", "exp %y", "--max-tile-ops"});
    expectNoTraceLeft(m_dir.path());
}

TEST_F(HostileProgramTest, TinyVecTilesAreRefusedAndTheFlagRaisesTheLimit) {
    const Limited r =
        runLimited(m_dir.path(), "compile " + repro("c1_mem_3.8GB_vec_tile_1x8.pto") + " -o o.db");
    expectCleanError(r, {"exp %y: 2048x2048 in 1x8 tiles", "budget of 1000000", "--max-tile-ops"});
    expectNoTraceLeft(m_dir.path());

    // The same shape of program, 64 times smaller: admitted by default, refused below its size.
    std::ofstream(m_dir / "small.pto")
        << "func @f(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {\n  vec_tile [1, 8]\n"
        << "  %y = exp %x\n  return %y\n}\n";
    EXPECT_EQ(runLimited(m_dir.path(), "compile small.pto").result.exitCode, 0);
    expectCleanError(runLimited(m_dir.path(), "compile small.pto --max-tile-ops 10000"),
                     {"small.pto:3:8:", "budget of 10000"});
    expectCleanError(runLimited(m_dir.path(), "run small.pto --max-instrs 100"),
                     {"PTO instructions", "--max-instrs"});
    expectCleanError(runLimited(m_dir.path(), "compile small.pto --max-gm lots"), {"--max-gm"});
}

TEST_F(HostileProgramTest, BadNumbersAndADirectoryAreNamedInTheMessage) {
    std::ofstream(m_dir / "small.pto")
        << "func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {\n  %y = exp %x\n"
        << "  return %y\n}\n";
    expectCleanError(runLimited(m_dir.path(), "compile small.pto --max-instrs -5"),
                     {"--max-instrs: expected a positive integer, found '-5'"});
    expectCleanError(runLimited(m_dir.path(), "run small.pto --max-tile-ops 0"),
                     {"--max-tile-ops: expected a positive integer, found '0'"});
    expectCleanError(runLimited(m_dir.path(), "run small.pto --tiles-per-task many"),
                     {"--tiles-per-task: expected an integer of 0 or more, found 'many'"});
    expectCleanError(runLimited(m_dir.path(), "run small.pto --max-instrs 99999999999999999999"),
                     {"--max-instrs: '99999999999999999999' is too large"});
    fs::create_directory(m_dir / "dir.pto");
    expectCleanError(runLimited(m_dir.path(), "run dir.pto -o o.db"),
                     {"dir.pto: error: is a directory, not a program"});
    expectNoTraceLeft(m_dir.path());
}

TEST_F(HostileProgramTest, HugeInputOfATileProgramIsRefusedBeforeItIsMade) {
    const Limited r =
        runLimited(m_dir.path(), "run " + repro("c1_run_bad_alloc_tile_gm_25GB.pto") + " --seed 1");
    expectCleanError(r, {"%x of @f", "23.8 GiB", "--max-gm"});
}

TEST_F(HostileProgramTest, ListingsWithHugeGmAreRefused) {
    expectCleanError(
        runLimited(m_dir.path(), "run " + repro("c1_asm_gm_4GiB_input.ptoasm") + " --seed 1"),
        {"c1_asm_gm_4GiB_input.ptoasm", "4 GiB", "--max-gm"});
    expectCleanError(
        runLimited(m_dir.path(), "run " + repro("c1_asm_bad_alloc_gm_2pow48.ptoasm") + " --seed 1"),
        {"c1_asm_bad_alloc_gm_2pow48.ptoasm", "1 PiB", "--max-gm"});
}

TEST_F(HostileProgramTest, RunningOutOfMemoryAnywayIsACleanError) {
    if (kSanitized) GTEST_SKIP() << "needs ulimit -v";
    // Every limit lifted: the 24 GB expansion starts and the host refuses the memory.
    const Limited r =
        runLimited(m_dir.path(), "compile " + repro("c1_oom_matmul_expand_tiles.pto") +
                                     " -o o.db --max-tile-ops 9000000000000000000 --max-memory "
                                     "1000000TiB");
    expectCleanError(r, {"error: out of memory while compiling", "c1_oom_matmul_expand_tiles.pto"});
    expectNoTraceLeft(m_dir.path());
}

TEST_F(HostileProgramTest, DiffRefusesTheDecoyHeaderNumpyRejects) {
    const Limited r = runLimited(
        m_dir.path(), "diff " + repro("c3_diff_accepts_invalid_header_decoy_fortran.npy") + " " +
                          repro("c3_good_a.npy"));
    expectCleanError(r, {"c3_diff_accepts_invalid_header_decoy_fortran.npy", "malformed header"});
    EXPECT_EQ(r.result.out.find("PASS"), std::string::npos) << r.result.out;
    // The good file against itself still compares (through the memory-mapped path).
    const Limited ok =
        runLimited(m_dir.path(), "diff " + repro("c3_good_a.npy") + " " + repro("c3_good_a.npy"));
    EXPECT_EQ(ok.result.exitCode, 0) << ok.result.err;
}

TEST_F(HostileProgramTest, FifoGivenAsNpyFailsFast) {
    ASSERT_EQ(::mkfifo((m_dir / "x.npy").c_str(), 0600), 0);
    expectCleanError(runLimited(m_dir.path(), "diff x.npy " + repro("c3_good_a.npy")),
                     {"x.npy", "not a regular file (a FIFO)"});
    std::ofstream(m_dir / "p.pto") << "func @f(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {\n"
                                   << "  %y = exp %x\n  return %y\n}\n";
    expectCleanError(runLimited(m_dir.path(), "run p.pto --inputs x.npy"),
                     {"x.npy", "not a regular file (a FIFO)"});
}

TEST_F(HostileProgramTest, AWrongLargeInputIsRefusedFromItsHeader) {
    // A 4 GiB .npy (a hole in the file) for a 16x32 input: refused from its header alone,
    // within the 1 GiB limit, instead of being read whole first.
    std::ofstream(m_dir / "p.pto") << "func @f(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {\n"
                                   << "  %y = exp %x\n  return %y\n}\n";
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (32768, 32768), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string file = std::string("\x93NUMPY\x01\x00", 8);
    file += char(header.size() & 0xFF);
    file += char(header.size() >> 8);
    file += header;
    std::ofstream(m_dir / "big.npy", std::ios::binary) << file;
    fs::resize_file(m_dir / "big.npy", file.size() + (uint64_t(1) << 32));
    expectCleanError(runLimited(m_dir.path(), "run p.pto --inputs big.npy"),
                     {"big.npy: holds 32768x32768xf32", "%x"});
    expectCleanError(
        runLimited(m_dir.path(), "run p.pto --inputs " +
                                     repro("c3_diff_accepts_invalid_header_decoy_fortran.npy")),
        {"malformed header"});
}

} // namespace
} // namespace pto
