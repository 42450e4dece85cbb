// `pto run --dump` of hand-written kernels and `pto diff` of dump trees and loop results: what a
// kernel stores is in its tree, sums made by loops and kernels are judged as the whole sum,
// manifests that list a value twice or values the other tree lacks are said so.
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace pto {
namespace {

using test::runCommand;
using test::shellQuote;

test::ProcessResult pto(const std::string& args) {
    return runCommand(fmt::format("{} {}", PTO_CLI, args));
}

std::string q(const std::filesystem::path& p) {
    return shellQuote(p.string());
}

std::string tileLoop() {
    return std::string(PTO_SOURCE_DIR) + "/tests/integration/run/programs/tile_loop.pto";
}

class DumpTreeCli : public ::testing::Test {
protected:
    std::string numpy(const std::string& script) {
        std::ofstream(dir / "check.py") << script;
        auto r = runCommand("/usr/bin/python3 " + q(dir / "check.py"));
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return r.out;
    }
    void manifest(const std::string& tree, const std::string& values) {
        std::filesystem::create_directories(dir / tree);
        std::ofstream(dir / tree / "manifest.json") << R"({"values": )" << values << "}";
    }
    test::TempDir dir{"pto-dump-tree-cli"};
};

// A hand-written kernel returns nothing: its tree held only its arguments' starting contents, so
// a planted reuse-live-buffer that breaks %z compared "ok" and the diff said PASS. Now the tree
// holds what the kernel stored (stage simulator, labelled with the loosest op stored into the
// argument and its K), checked against NumPy; the starting contents are `%z@input`.
TEST_F(DumpTreeCli, AKernelsTreeHoldsWhatItStoresIntoItsArguments) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
    const std::string clean = q(dir / "dT"), bad = q(dir / "dTf");
    auto run = pto(fmt::format("run {} --seed 1 --dump {}", q(tileLoop()), clean));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    run =
        pto(fmt::format("run {} --seed 1 --fault reuse-live-buffer --dump {}", q(tileLoop()), bad));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    // z = row sums of x over 1024 terms (the K rule: rtol 1.3e-6 + K·u, atol 1e-5 + K·u·rms),
    // y = 2x exactly.
    const std::string facts = numpy(fmt::format(R"PY(
import json, numpy as np
d = '{0}/dT'
m = json.load(open(d + '/manifest.json'))
e = {{v['value']: v for v in m['values']}}
load = lambda n: np.load(d + '/' + e[n]['file']).astype(np.float64)
x, y, z = load('%x'), load('%y'), load('%z')
g = x.sum(axis=1, keepdims=True); K = 1024; u = 2.0 ** -24
ok = np.isclose(z, g, 1.3e-6 + K * u, 1e-5 + K * u * np.sqrt(np.mean(g * g))).all()
print(sorted(e), e['%z']['stage'], e['%z']['op'], e['%z']['reduction_length'], e['%y']['op'],
      e['%z@input']['stage'], bool(ok), bool((y == 2 * x).all()))
)PY",
                                                dir.path().string()));
    EXPECT_EQ(facts, "['%x', '%y', '%y@input', '%z', '%z@input'] simulator for 1024 muls input "
                     "True True\n");
    auto same = pto(fmt::format("diff {} {}", clean, clean));
    EXPECT_EQ(same.exitCode, 0) << same.out << same.err;
    auto broken = pto(fmt::format("diff {} {}", bad, clean));
    EXPECT_EQ(broken.exitCode, 1) << broken.out << broken.err;
    EXPECT_NE(broken.out.find("first value outside tolerance: %z = for"), std::string::npos)
        << broken.out;
}

// Trees that share only arguments checked nothing the program computed: an input error, not a
// PASS (what two trees of a kernel gave before they held its outputs).
TEST_F(DumpTreeCli, OnlyArgumentsComparedIsAnInputError) {
    auto run = pto(fmt::format("run {} --seed 1 --dump {}", q(tileLoop()), q(dir / "t")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::filesystem::create_directories(dir / "args");
    std::filesystem::copy_file(dir / "t" / "0000_x.npy", dir / "args" / "x.npy");
    manifest("args", R"([{"value": "%x", "file": "x.npy", "op": "arg"}])");
    auto r = pto(fmt::format("diff {} {}", q(dir / "args"), q(dir / "t")));
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_EQ(r.out.find("PASS"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("only arguments compared"), std::string::npos) << r.err;
}

// A value listed twice in one manifest is refused (exit 2, naming the manifest and the value);
// values one tree has and the other lacks are counted in the verdict: a golden value missing
// from the actual tree fails (exit 1), an actual value the golden lacks is not compared (0).
TEST_F(DumpTreeCli, DuplicateAndUnmatchedValuesAreSaidSo) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
    numpy(fmt::format(R"PY(
import os, numpy as np
d = '{0}'
for t in ('t', 'dup', 'more', 'less'):
    os.makedirs(d + '/' + t, exist_ok=True)
    np.save(d + '/' + t + '/0000_x.npy', np.arange(8, dtype=np.float32))
    np.save(d + '/' + t + '/0003_y.npy', 2 * np.arange(8, dtype=np.float32))
)PY",
                      dir.path().string()));
    manifest("t", R"([{"value": "%y", "file": "0003_y.npy", "op": "muls"}])");
    manifest("dup", R"([{"value": "%y", "file": "0003_y.npy", "op": "muls"},
                        {"value": "%y", "file": "0000_x.npy", "op": "muls"}])");
    manifest("more", R"([{"value": "%y", "file": "0003_y.npy", "op": "muls"},
                         {"value": "%q", "file": "0000_x.npy", "op": "exp"}])");
    manifest("less", R"([{"value": "%y", "file": "0003_y.npy", "op": "muls"}])");
    auto dup = pto(fmt::format("diff {} {}", q(dir / "dup"), q(dir / "t")));
    EXPECT_EQ(dup.exitCode, 2) << dup.out << dup.err;
    EXPECT_NE(dup.err.find((dir / "dup" / "manifest.json").string() +
                           ": values[0] and values[1] both name %y"),
              std::string::npos)
        << dup.err;
    auto extra = pto(fmt::format("diff {} {}", q(dir / "more"), q(dir / "less")));
    EXPECT_EQ(extra.exitCode, 0) << extra.out << extra.err;
    EXPECT_NE(extra.out.find("PASS: 1 values compared, every one within tolerance; 1 value(s) of "
                             "A not in the golden (not compared)"),
              std::string::npos)
        << extra.out;
    auto missing = pto(fmt::format("diff {} {} --json", q(dir / "less"), q(dir / "more")));
    EXPECT_EQ(missing.exitCode, 1) << missing.out << missing.err;
    const auto j = nlohmann::json::parse(missing.out);
    EXPECT_EQ(j["not_in_actual"], (std::vector<std::string>{"%q"}));
    EXPECT_FALSE(j["passed"].get<bool>());
    auto text = pto(fmt::format("diff {} {}", q(dir / "less"), q(dir / "more")));
    EXPECT_NE(text.out.find("FAIL: 1 values compared, every one within tolerance; 1 value(s) of "
                            "the golden missing from A"),
              std::string::npos)
        << text.out;
}

// A sum a `for` loop accumulates (4 trips of a 256-term reduce_sum) is a 1024-term sum against
// an f64 golden, as is the same reduce_sum written whole: both get K = 1024 (before, the loop's
// result got the elementwise f32 default and failed). NumPy confirms that the output fails the
// elementwise tolerance and meets the K = 1024 one. A Tile-level kernel's stored sum likewise.
TEST_F(DumpTreeCli, LoopAndKernelSumsAreJudgedAsTheWholeSum) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
    std::ofstream(dir / "t3.pto")
        << "func @main(%x: tensor<64x1024xf32>) -> (tensor<64x1xf32>, tensor<64x1xf32>) {\n"
           "  vec_tile [16, 256]\n"
           "  %s0 = fill {value = 0.0} : tensor<64x1xf32>\n"
           "  %r = for \"b\" %i = 0 to 4 iter_args(%acc = %s0) {\n"
           "    %b = view %x {offsets = [0, %i * 256], sizes = [64, 256]}\n"
           "    %n = add %acc, (reduce_sum %b {axis = 1, keepdim})\n"
           "    yield %n\n"
           "  }\n"
           "  %t = reduce_sum %x {axis = 1, keepdim}\n"
           "  return %r, %t\n"
           "}\n";
    numpy(fmt::format(R"PY(
import os, numpy as np
d = '{0}'
x = (np.random.default_rng(5).standard_normal((64, 1024)) * 1000).astype(np.float32)
np.save(d + '/x3.npy', x); os.makedirs(d + '/g3', exist_ok=True)
g = x.astype(np.float64).sum(1, keepdims=True).astype(np.float32)
np.save(d + '/g3/r.npy', g); np.save(d + '/g3/t.npy', g)
)PY",
                      dir.path().string()));
    auto run = pto(fmt::format("run {} --inputs {} -o {} --outputs {}", q(dir / "t3.pto"),
                               q(dir / "x3.npy"), q(dir / "r3.db"), q(dir / "o3")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const std::string verdicts = numpy(fmt::format(R"PY(
import numpy as np
d = '{0}'
a = np.load(d + '/o3/r.npy').astype(np.float64); g = np.load(d + '/g3/r.npy').astype(np.float64)
K = 1024; u = 2.0 ** -24
print(int((~np.isclose(a, g, 1.3e-6, 1e-5)).sum()) > 0,
      int((~np.isclose(a, g, 1.3e-6 + K * u, 1e-5 + K * u * np.sqrt(np.mean(g * g)))).sum()))
)PY",
                                                   dir.path().string()));
    EXPECT_EQ(verdicts, "True 0\n");
    auto diff =
        pto(fmt::format("diff {} --golden {} --json --no-store", q(dir / "r3.db"), q(dir / "g3")));
    EXPECT_EQ(diff.exitCode, 0) << diff.out << diff.err;
    auto j = nlohmann::json::parse(diff.out);
    EXPECT_EQ(j["outputs"][0]["producer"], "for");
    for (int i : {0, 1})
        EXPECT_NE(j["outputs"][i]["tolerance"]["source"].get<std::string>().find("K = 1024"),
                  std::string::npos)
            << j["outputs"][i].dump(2);

    run = pto(fmt::format("run {} --seed 1 -o {} --dump {}", q(tileLoop()), q(dir / "k.db"),
                          q(dir / "dk")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    numpy(fmt::format(R"PY(
import json, os, numpy as np
d = '{0}'
m = json.load(open(d + '/dk/manifest.json'))
e = {{v['value']: v for v in m['values']}}
x = np.load(d + '/dk/' + e['%x']['file'])
os.makedirs(d + '/gk', exist_ok=True)
np.save(d + '/gk/z.npy', x.astype(np.float64).sum(1, keepdims=True).astype(np.float32))
np.save(d + '/gk/y.npy', 2 * x)
)PY",
                      dir.path().string()));
    diff =
        pto(fmt::format("diff {} --golden {} --json --no-store", q(dir / "k.db"), q(dir / "gk")));
    EXPECT_EQ(diff.exitCode, 0) << diff.out << diff.err;
    j = nlohmann::json::parse(diff.out);
    bool sawZ = false;
    for (const auto& o : j["outputs"])
        if (o["name"] == "z") {
            sawZ = true;
            EXPECT_EQ(o["producer"], "for");
            EXPECT_NE(o["tolerance"]["source"].get<std::string>().find("K = 1024"),
                      std::string::npos)
                << o.dump(2);
        }
    EXPECT_TRUE(sawZ) << diff.out;
}

} // namespace
} // namespace pto
