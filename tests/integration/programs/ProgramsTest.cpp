// Golden regression programs (tests/integration/programs/cases/*.pto: one per class of valid
// program the compiler once rejected) run with `pto run --inputs` and checked against a
// PyTorch float64 reference with `pto diff --golden` (the tolerance policy per output), the
// outputs named after the returned values; and every sample run with `--seed 1` gives finite
// outputs (checked with NumPy).
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace pto {
namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(PTO_SOURCE_DIR) + "/tests/integration/programs";

std::vector<std::string> filesIn(const std::string& dir, const std::string& ext) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ext) names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::set<std::string> lines(const fs::path& p) {
    std::ifstream in(p);
    std::set<std::string> out;
    for (std::string l; std::getline(in, l);)
        if (!l.empty()) out.insert(l);
    return out;
}

std::set<std::string> npyStems(const fs::path& dir) {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".npy") out.insert(e.path().stem().string());
    return out;
}

class Program : public ::testing::TestWithParam<std::string> {};

TEST_P(Program, CompilesWithDefaultTilesAndMatchesPyTorch) {
    if (!test::pythonHas("numpy torch")) GTEST_SKIP() << "/usr/bin/python3 with numpy and torch";
    const std::string pto = kDir + "/cases/" + GetParam() + ".pto";
    test::TempDir tmp("pto-program");
    const fs::path& dir = tmp.path();
    auto py = test::runCommand(fmt::format("/usr/bin/python3 {}/reference.py {} {} 7", kDir,
                                           test::shellQuote(pto), test::shellQuote(dir.string())));
    ASSERT_EQ(py.exitCode, 0) << py.out << py.err;
    std::string inputs;
    for (int i = 0; fs::exists(dir / fmt::format("in{}.npy", i)); ++i)
        inputs += (i ? "," : "") + (dir / fmt::format("in{}.npy", i)).string();
    const fs::path db = dir / "run.db", outs = dir / "out";
    auto run = test::runCommand(fmt::format("{} run {} -o {} --outputs {}{}", PTO_CLI,
                                            test::shellQuote(pto), test::shellQuote(db.string()),
                                            test::shellQuote(outs.string()),
                                            inputs.empty() ? "" : " --inputs " + inputs));
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
    EXPECT_EQ(npyStems(outs), lines(dir / "outputs")) << "outputs are named after the returned "
                                                         "values";
    auto diff = test::runCommand(fmt::format("{} diff {} --golden {} --no-store", PTO_CLI,
                                             test::shellQuote(db.string()),
                                             test::shellQuote((dir / "golden").string())));
    EXPECT_EQ(diff.exitCode, 0) << diff.out << diff.err;
}

INSTANTIATE_TEST_SUITE_P(Cases, Program, ::testing::ValuesIn(filesIn(kDir + "/cases", ".pto")),
                         [](const auto& p) { return p.param; });

// Every output .npy of a directory is finite (bf16 files are <u2 bits with a .dtype sidecar).
constexpr const char* kFiniteCheck = R"(
import glob, os, sys
import numpy as np
bad = []
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.npy"))):
    a = np.load(p)
    if os.path.exists(p + ".dtype"):
        a = (a.astype(np.uint32) << 16).view(np.float32)
    if a.dtype.kind == "f" and not np.isfinite(a).all():
        bad.append(f"{os.path.basename(p)}: {int((~np.isfinite(a)).sum())} of {a.size} not finite")
print("\n".join(bad))
sys.exit(1 if bad else 0)
)";

class SeededSample : public ::testing::TestWithParam<std::string> {};

TEST_P(SeededSample, RunsWithSeedOneAndGivesFiniteOutputs) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "/usr/bin/python3 with numpy";
    if (GetParam() == "flash_attention_long") // unrolled, S = 32768 is over the default budget
        GTEST_SKIP() << "timing-only sample: its S = 2048 twin is checked by "
                        "sample_validation_test";
    test::TempDir tmp("pto-seeded");
    const fs::path outs = tmp.path() / "out", check = tmp.path() / "finite.py";
    std::ofstream(check) << kFiniteCheck;
    const std::string sample = std::string(PTO_SOURCE_DIR) + "/samples/" + GetParam() + ".pto";
    auto run =
        test::runCommand(fmt::format("{} run {} --seed 1 --trace none --outputs {}", PTO_CLI,
                                     test::shellQuote(sample), test::shellQuote(outs.string())));
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
    auto py = test::runCommand(fmt::format("/usr/bin/python3 {} {}", test::shellQuote(check),
                                           test::shellQuote(outs.string())));
    EXPECT_EQ(py.exitCode, 0) << py.out << py.err;
}

INSTANTIATE_TEST_SUITE_P(Samples, SeededSample,
                         ::testing::ValuesIn(filesIn(std::string(PTO_SOURCE_DIR) + "/samples",
                                                     ".pto")),
                         [](const auto& p) { return p.param; });

} // namespace
} // namespace pto
