// `pto diff` as a user runs it: exit codes 0/1/2, messages, --json, run traces against goldens
// and --bisect with planted faults.
#include "compiler/ir/TensorData.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"
#include "validate/Npy.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

class DiffCli : public ::testing::Test {
protected:
    void SetUp() override {
        golden = randomTensor(DType::F16, {32, 64}, 7);
        writeTensor(dir / "g.npy", golden);
        TensorData near = golden;
        near.set(5, golden.get(5) * 1.01f);
        writeTensor(dir / "a.npy", near);
    }
    test::TempDir dir{"pto-diff-cli"};
    TensorData golden;
};

TEST_F(DiffCli, TwoFilesExitCodes) {
    auto same = pto(fmt::format("diff {} {}", q(dir / "g.npy"), q(dir / "g.npy")));
    EXPECT_EQ(same.exitCode, 0) << same.err;
    EXPECT_NE(same.out.find("PASS"), std::string::npos);
    auto off = pto(fmt::format("diff {} {}", q(dir / "a.npy"), q(dir / "g.npy")));
    EXPECT_EQ(off.exitCode, 1) << off.err;
    EXPECT_NE(off.out.find("FAIL: mismatch_count = 1 > 0"), std::string::npos) << off.out;
    EXPECT_NE(off.out.find("torch.testing.assert_close default for f16"), std::string::npos);
    auto loose = pto(fmt::format("diff {} {} --rtol 0.05", q(dir / "a.npy"), q(dir / "g.npy")));
    EXPECT_EQ(loose.exitCode, 0) << loose.out;
    EXPECT_NE(loose.out.find("--rtol"), std::string::npos);
}

TEST_F(DiffCli, JsonNamesMetricValueThresholdSource) {
    auto r = pto(fmt::format("diff {} {} --json", q(dir / "a.npy"), q(dir / "g.npy")));
    ASSERT_EQ(r.exitCode, 1) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["metrics"]["mismatch_count"], 1);
    EXPECT_EQ(j["metrics"]["max_abs_index"], (std::vector<int64_t>{0, 5}));
    EXPECT_FALSE(j["verdict"]["passed"].get<bool>());
    bool named = false;
    for (const auto& c : j["verdict"]["checks"])
        if (c["metric"] == "mismatch_count" && !c["passed"].get<bool>()) {
            named = c["threshold"] == 0 && c["value"] == 1 &&
                    c["source"].get<std::string>().find("torch.testing") != std::string::npos;
        }
    EXPECT_TRUE(named) << j["verdict"].dump(2);
}

TEST_F(DiffCli, InputErrorsExitTwoWithAClearMessage) {
    std::ofstream(dir / "text.npy") << "not an npy file at all";
    {
        std::ifstream in(dir / "g.npy", std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), {});
        std::ofstream(dir / "trunc.npy", std::ios::binary) << bytes.substr(0, 150);
    }
    NpyArray f64{"<f8", {2}, std::vector<std::byte>(16), ""};
    writeNpy(dir / "f64.npy", f64);
    writeTensor(dir / "t.npy", randomTensor(DType::F16, {64, 32}, 1));
    const std::string g = q(dir / "g.npy");
    struct Case {
        std::string args;
        std::string message;
    };
    const Case cases[] = {
        {fmt::format("diff {} {}", q(dir / "text.npy"), g), "not an .npy file"},
        {fmt::format("diff {} {}", q(dir / "trunc.npy"), g), "truncated"},
        {fmt::format("diff {} {}", q(dir / "f64.npy"), g), "'<f8'"},
        {fmt::format("diff {} {}", q(dir / "t.npy"), g), "shape mismatch"},
        {fmt::format("diff {} {}", q(dir / "none.npy"), g), "no such file"},
        {fmt::format("diff {}", g), "two .npy files"},
        {fmt::format("diff {} {} --standard nope", g, g), "unknown --standard"},
        {fmt::format("diff {} --golden {}", g, q(dir / "missing")), "not a directory"},
        {fmt::format("diff {} --golden {}", g, q(dir.path())), "not"},
        {"diff --bisect /nonexistent.pto", "cannot open"},
    };
    for (const Case& c : cases) {
        auto r = pto(c.args);
        EXPECT_EQ(r.exitCode, 2) << c.args << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    }
}

TEST_F(DiffCli, RunTraceAgainstGoldens) {
    const std::string sample = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
    auto run =
        pto(fmt::format("run {} -o {} --outputs {}", q(sample), q(dir / "run.db"), q(dir / "out")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto ok = pto(fmt::format("diff {} --golden {}", q(dir / "run.db"), q(dir / "out")));
    EXPECT_EQ(ok.exitCode, 0) << ok.out << ok.err;
    TensorData y = readTensor(dir / "out" / "yh.npy");
    y.set(100, y.get(100) * 2.0f + 0.01f);
    std::filesystem::create_directories(dir / "bad");
    writeTensor(dir / "bad" / "yh.npy", y);
    auto bad = pto(fmt::format("diff {} --golden {} --json", q(dir / "run.db"), q(dir / "bad")));
    EXPECT_EQ(bad.exitCode, 1) << bad.out << bad.err;
    auto j = nlohmann::json::parse(bad.out);
    EXPECT_FALSE(j["passed"].get<bool>());
    EXPECT_EQ(j["outputs"][0]["producer"], "cast");
    // The second comparison of `yh` replaces the first in the trace (the GUI's diff view
    // listed a stale "pass" beside the "fail" of the same output).
    const auto diffs = tracedb::TraceReader::open(dir / "run.db").diffs();
    ASSERT_EQ(diffs.size(), 1u);
    EXPECT_EQ(diffs[0].verdict, "fail");
    EXPECT_EQ(diffs[0].name, "yh");
    EXPECT_EQ(diffs[0].kind, tracedb::DiffKind::Tensor);
    ASSERT_EQ(pto(fmt::format("diff {} --golden {}", q(dir / "run.db"), q(dir / "out"))).exitCode,
              0);
    const auto again = tracedb::TraceReader::open(dir / "run.db").diffs();
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].verdict, "pass");
    std::filesystem::create_directories(dir / "empty");
    auto missing = pto(fmt::format("diff {} --golden {}", q(dir / "run.db"), q(dir / "empty")));
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.err.find("no golden for output 'yh'"), std::string::npos) << missing.err;
}

TEST_F(DiffCli, BisectCleanAndPlanted) {
    const std::string sample = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
    auto clean = pto(fmt::format("diff --bisect {} --seed 3", q(sample)));
    EXPECT_EQ(clean.exitCode, 0) << clean.out << clean.err;
    EXPECT_NE(clean.out.find("PASS"), std::string::npos);
    auto planted = pto(fmt::format("diff --bisect {} --fault truncate-cast:0 --json -o {}",
                                   q(sample), q(dir / "b.db")));
    EXPECT_EQ(planted.exitCode, 1) << planted.err;
    auto j = nlohmann::json::parse(planted.out);
    EXPECT_EQ(j["first_divergence"]["stage"], "expand-tiles");
    EXPECT_EQ(j["planted"]["kind"], "truncate-cast");
    auto reader = tracedb::TraceReader::open(dir / "b.db");
    bool bisectRow = false;
    for (const auto& d : reader.diffs()) bisectRow |= d.kind == tracedb::DiffKind::Bisect;
    EXPECT_TRUE(bisectRow);

    std::ofstream(dir / "add.pto") << "func @add(%a: tensor<64x256xf32>, %b: tensor<64x256xf32>) "
                                      "-> tensor<64x256xf32> {\n  vec_tile [16, 256]\n"
                                      "  %c = add %a, %b\n  return %c\n}\n";
    auto sync = pto(fmt::format("diff --bisect {} --fault drop-sync:0", q(dir / "add.pto")));
    EXPECT_EQ(sync.exitCode, 1) << sync.err;
    EXPECT_NE(sync.out.find("first diverges in: simulator (after emit-pto)"), std::string::npos)
        << sync.out;
    EXPECT_NE(sync.out.find("= add (tile op #"), std::string::npos) << sync.out;
    auto badFault = pto(fmt::format("diff --bisect {} --fault nope", q(sample)));
    EXPECT_EQ(badFault.exitCode, 2);
    EXPECT_NE(badFault.err.find("unknown fault 'nope'"), std::string::npos) << badFault.err;
    // The help of every command with --fault lists every kind (drop-cross-wait was missing).
    for (const char* command : {"diff", "run", "compile"})
        EXPECT_NE(pto(fmt::format("{} --help", command)).out.find("drop-cross-wait"),
                  std::string::npos)
            << command;
}

// A returned loop result is compared under the name `return` gives it, whatever the trip count
// (it was looked up under the last yield's name, found nowhere, and silently skipped).
// A planted 2× softmax scale (35 % relative error, float64 torch) was diagnosed "accumulation
// precision (the sum is kept in bf16, not f32), not a defect": a 16448-term drift chain's bound
// in bf16 covers about 50 % rms error. A program of f16 and f32 values has no bf16 sum.
TEST_F(DiffCli, BisectWeighsAccumulationOnlyInThePrecisionsTheProgramHolds) {
    std::ofstream(dir / "att.pto")
        << "func @att(%q: tensor<64x64xf16>, %k: tensor<64x64xf16>, %v: tensor<64x64xf16>) -> "
           "tensor<64x64xf32> {\n  %s = matmul %q, %k {transpose_b}\n  %t = muls %s, 0.125\n"
           "  %m = reduce_max %t {axis = 1, keepdim}\n  %d = sub %t, %m\n  %e = exp %d\n"
           "  %z = reduce_sum %e {axis = 1, keepdim}\n  %p = div %e, %z\n"
           "  %ph = cast %p : tensor<64x64xf16>\n  %o = matmul %ph, %v\n  return %o\n}\n";
    auto r = pto(
        fmt::format("diff --bisect {} --seed 2 --fault wrong-scale:0 --json", q(dir / "att.pto")));
    ASSERT_EQ(r.exitCode, 1) << r.err;
    const std::string text = r.out;
    EXPECT_EQ(text.find("bf16"), std::string::npos) << text;
    EXPECT_EQ(text.find("not a defect"), std::string::npos) << text;
    EXPECT_NE(text.find("a real defect"), std::string::npos) << text;
}

TEST_F(DiffCli, BisectComparesALoopsReturnedResults) {
    const std::string prog =
        std::string(PTO_SOURCE_DIR) + "/tests/integration/run/programs/loop_bound.pto";
    for (int t : {0, 4}) {
        auto r = pto(fmt::format("diff --bisect {} --bind t={}", q(prog), t));
        EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
        EXPECT_NE(r.out.find("output r#0: PASS"), std::string::npos) << "t=" << t << r.out;
        EXPECT_NE(r.out.find("output r#1: PASS"), std::string::npos) << "t=" << t << r.out;
    }
}

// A result that is an input returned unchanged (here through a call) is out<i> in `pto run
// --outputs` (docs/PTO_LANGUAGE.md §4) and in the bisection's report (it said "output id").
TEST_F(DiffCli, BisectNamesAReturnedInputAsRunDoes) {
    std::ofstream(dir / "id.pto") << "func @ident(%t: tensor<5x7xf32>) -> tensor<5x7xf32> {\n"
                                     "  return %t\n}\n"
                                     "func @main(%e: tensor<5x7xf32>) -> (tensor<5x7xf32>, "
                                     "tensor<5x7xf32>) {\n  %x = exp %e\n"
                                     "  %id = call @ident(%e)\n  return %x, %id\n}\n";
    auto run =
        pto(fmt::format("run {} --record none --outputs {}", q(dir / "id.pto"), q(dir / "o")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(std::filesystem::exists(dir / "o" / "out1.npy"));
    auto r = pto(fmt::format("diff --bisect {}", q(dir / "id.pto")));
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("output x: PASS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("output out1: PASS"), std::string::npos) << r.out;
}

// Correct programs the random-program bisection (session 17) reported as diverging: an
// rms_norm whose rows span two column tiles (the simulator's row sums, unobserved on chip, add
// in another order: drift, not a defect of the mul after them), and a loop whose body holds a
// composite and a matmul (its unrolled ops have no reference value of their own).
TEST_F(DiffCli, BisectOfCorrectProgramsFindsNoDivergence) {
    std::ofstream(dir / "rms.pto") << "func @main(%x: tensor<16x100xf32>) -> tensor<16x100xf32> {\n"
                                      "  %y = rms_norm %x {vec_tile = [7, 64]}\n  return %y\n}\n";
    std::ofstream(dir / "loop.pto")
        << "func @main(%p: tensor<2x133xf32>, %w: tensor<133x128xf32>, %a: tensor<2x128xf32>)\n"
           "    -> tensor<2x128xf16> {\n"
           "  %r = for \"blk\" %i = 0 to 4 step 1 iter_args(%acc = %a) {\n"
           "    %b = adds (silu (view %p {offsets = [0, %i * 32 + 5], sizes = [2, 32]})), 2.0\n"
           "    %wi = view %w {offsets = [%i * 32 + 5, 0], sizes = [32, 128]}\n"
           "    %next = add (muls %acc, 0.5), (matmul %b, %wi)\n"
           "    yield %next\n  }\n"
           "  %y = cast (subs %r, -1.5) : tensor<2x128xf16>\n  return %y\n}\n";
    // A returned loop result is judged with the accumulations its unrolled chain holds (its only
    // producer in the program as written is the loop).
    std::ofstream(dir / "acc.pto")
        << "func @main(%p: tensor<4x261xf32>, %w: tensor<261x128xf32>) -> tensor<4x128xf32> {\n"
           "  %z = fill {value = 0.0} : tensor<4x128xf32>\n"
           "  %r = for %i = 0 to 2 step 1 iter_args(%acc = %z) {\n"
           "    %b = sigmoid (view %p {offsets = [0, %i * 5], sizes = [4, 256]})\n"
           "    %wi = view %w {offsets = [%i * 5, 0], sizes = [256, 128]}\n"
           "    %next = add (muls %acc, 0.5), (matmul %b, %wi)\n"
           "    yield %next\n  }\n  return %r\n}\n";
    for (const char* name : {"rms.pto", "loop.pto", "acc.pto"}) {
        auto r = pto(fmt::format("diff --bisect {} --seed 5", q(dir / name)));
        EXPECT_EQ(r.exitCode, 0) << name << "\n" << r.out << r.err;
        EXPECT_NE(r.out.find("PASS: every stage agrees"), std::string::npos) << name << r.out;
    }
    // … and still finds a planted defect in the loop.
    auto planted = pto(
        fmt::format("diff --bisect {} --seed 5 --fault shift-tile-offset", q(dir / "loop.pto")));
    EXPECT_EQ(planted.exitCode, 1) << planted.out << planted.err;
}

// Runs a Python script with NumPy (the independent side of the checks below); its stdout.
std::string numpy(const std::filesystem::path& dir, const std::string& script) {
    std::ofstream(dir / "check.py") << script;
    auto r = runCommand("/usr/bin/python3 " + q(dir / "check.py"));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.out;
}

// --standard ascend judges elements whose golden is 0 by their absolute error (msprobe's
// small-value atol, 1e-9 for f32): an all-zero golden passed any output (mean_rel over no
// element is 0). The verdicts and the metric match NumPy's.
TEST_F(DiffCli, AscendJudgesZeroGoldenElementsByTheirAbsoluteError) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
    const std::string expected = numpy(dir.path(), fmt::format(R"PY(
import numpy as np
d = '{0}'
rng = np.random.default_rng(4)
np.save(d + '/gz.npy', np.zeros((4, 4), np.float32))
np.save(d + '/ag.npy', np.full((4, 4), 1000.0, np.float32))
g = rng.uniform(0.5, 1.0, (8, 8)).astype(np.float32); g[::2, 1] = 0
a = (g * (1 + 1e-5)).astype(np.float32)
np.save(d + '/g.npy', g); np.save(d + '/ok.npy', a)
a2 = a.copy(); a2[2, 1] = 1e-6; np.save(d + '/bad.npy', a2)
T = 2.0 ** -13
for x in (np.full((4, 4), 1000.0), a, a2):
    gg = np.zeros((4, 4)) if x.shape == (4, 4) else g.astype(np.float64)
    x = x.astype(np.float32).astype(np.float64); dd = np.abs(x - gg); nz = gg != 0
    rel = dd[nz] / np.abs(gg[nz]) if nz.any() else np.zeros(1)
    zmax = dd[~nz].max()
    print(int(rel.mean() < T and rel.max() < 10 * T and zmax <= 1e-9), repr(float(zmax)))
)PY",
                                                               dir.path().string()));
    EXPECT_EQ(expected, "0 1000.0\n1 0.0\n0 9.999999974752427e-07\n");
    auto zero =
        pto(fmt::format("diff {} {} --standard ascend", q(dir / "ag.npy"), q(dir / "gz.npy")));
    EXPECT_EQ(zero.exitCode, 1) << zero.out << zero.err;
    EXPECT_NE(zero.out.find("FAIL: zero_golden_max_abs = 1000 > 1e-09"), std::string::npos)
        << zero.out;
    auto ok = pto(fmt::format("diff {} {} --standard ascend", q(dir / "ok.npy"), q(dir / "g.npy")));
    EXPECT_EQ(ok.exitCode, 0) << ok.out << ok.err;
    auto bad = pto(
        fmt::format("diff {} {} --standard ascend --json", q(dir / "bad.npy"), q(dir / "g.npy")));
    ASSERT_EQ(bad.exitCode, 1) << bad.out << bad.err;
    const auto j = nlohmann::json::parse(bad.out);
    EXPECT_DOUBLE_EQ(j["metrics"]["zero_golden_max_abs"].get<double>(), 9.999999974752427e-07);
    EXPECT_EQ(j["metrics"]["zero_golden"], 4);
}

// A composite's output is judged by the composite tolerance of the op the user wrote, in the
// golden diff of a run and in the dump tree (its result was labelled `cast`, the last op of
// the decomposition, and judged by the f16 default: 4083 false mismatches).
TEST_F(DiffCli, ACompositeOutputGetsTheCompositeTolerance) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
    std::ofstream(dir / "sm.pto") << "func @sm(%x: tensor<32x256xf16>) -> tensor<32x256xf16> {\n"
                                     "  %y = softmax %x\n  return %y\n}\n";
    auto run = pto(fmt::format("run {} --seed 3 -o {} --dump {}", q(dir / "sm.pto"),
                               q(dir / "sm.db"), q(dir / "dump")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    // The golden: softmax in f64 scaled by 1.004 (max rel 0.004 < 10·2^-10), and the verdict
    // under the composite rule: rtol 10·T + K·u, atol 1e-5 + (T + K·u)·rms(g), K = 256.
    const std::string verdict = numpy(dir.path(), fmt::format(R"PY(
import json, os, numpy as np
d = '{0}'
m = json.load(open(d + '/dump/manifest.json'))
e = {{v['value']: v for v in m['values']}}
x = np.load(d + '/dump/' + e['%x']['file']).astype(np.float64)
p = np.exp(x - x.max(axis=1, keepdims=True)); p /= p.sum(axis=1, keepdims=True)
g = (p * 1.004).astype(np.float16)
os.makedirs(d + '/gold', exist_ok=True); np.save(d + '/gold/y.npy', g)
json.dump({{'values': [{{'value': '%y', 'file': 'y.npy'}}]}}, open(d + '/gold/manifest.json', 'w'))
a = np.load(d + '/dump/' + e['%y']['file']).astype(np.float64); g = g.astype(np.float64)
T, K = 2.0 ** -10, 256
rtol = 10 * T + K * 2.0 ** -24; atol = 1e-5 + (T + K * 2.0 ** -24) * np.sqrt(np.mean(g * g))
print(e['%y']['op'], e['%y']['reduction_length'], int((~np.isclose(a, g, rtol, atol)).sum()),
      int((~np.isclose(a, g, 1e-3, 1e-5)).sum()) > 1000)
)PY",
                                                              dir.path().string()));
    EXPECT_EQ(verdict, "softmax 256 0 True\n");
    auto diff = pto(fmt::format("diff {} --golden {} --json", q(dir / "sm.db"), q(dir / "gold")));
    EXPECT_EQ(diff.exitCode, 0) << diff.out << diff.err;
    const auto j = nlohmann::json::parse(diff.out);
    EXPECT_EQ(j["outputs"][0]["producer"], "softmax");
    EXPECT_NE(j["outputs"][0]["tolerance"]["source"].get<std::string>().find("composite"),
              std::string::npos);
    const auto rows = tracedb::TraceReader::open(dir / "sm.db").diffs();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(nlohmann::json::parse(rows[0].detail)["producer"], "softmax");
    auto tree = pto(fmt::format("diff {} {}", q(dir / "dump"), q(dir / "gold")));
    EXPECT_EQ(tree.exitCode, 0) << tree.out << tree.err;
    EXPECT_NE(tree.out.find("%y = softmax (line 2:"), std::string::npos) << tree.out;
}

// A dump-tree comparison that compares nothing is an input error, not a PASS.
TEST_F(DiffCli, DumpTreesThatCompareNothingAreAnInputError) {
    for (const char* tree : {"a", "b", "e"}) {
        std::filesystem::create_directories(dir / tree);
        writeTensor(dir / tree / "y.npy", golden);
    }
    std::ofstream(dir / "a" / "manifest.json")
        << R"({"values": [{"value": "%y", "file": "y.npy"}]})";
    std::ofstream(dir / "b" / "manifest.json")
        << R"({"values": [{"value": "y", "file": "y.npy"}]})";
    std::ofstream(dir / "e" / "manifest.json") << R"({"values": []})";
    auto same = pto(fmt::format("diff {} {}", q(dir / "a"), q(dir / "a")));
    EXPECT_EQ(same.exitCode, 0) << same.out << same.err;
    auto disjoint = pto(fmt::format("diff {} {}", q(dir / "a"), q(dir / "b")));
    EXPECT_EQ(disjoint.exitCode, 2) << disjoint.out;
    EXPECT_EQ(disjoint.out.find("PASS"), std::string::npos) << disjoint.out;
    EXPECT_NE(disjoint.err.find("no value compared: none of the 1 values"), std::string::npos)
        << disjoint.err;
    auto empty = pto(fmt::format("diff {} {}", q(dir / "e"), q(dir / "a")));
    EXPECT_EQ(empty.exitCode, 2) << empty.out;
    EXPECT_NE(empty.err.find("manifest.json: the manifest lists no values"), std::string::npos)
        << empty.err;
}

// Tolerance flags and manifest fields out of range or of the wrong type are input errors that
// name the flag, or the manifest file, the entry and the field; a shape mismatch in a tree
// names both files.
TEST_F(DiffCli, OutOfRangeToleranceInputsAreRefused) {
    const std::string a = q(dir / "a.npy"), g = q(dir / "g.npy");
    const std::pair<std::string, std::string> flags[] = {
        {"--reduction-length 99999999999999999999", "--reduction-length 99999999999999999999:"},
        {"--reduction-length 4096x", "--reduction-length 4096x: not an integer"},
        {"--reduction-length 281474976710657", "--reduction-length 281474976710657: a reduction"},
        {"--reduction-length 0", "--reduction-length 0:"},
        {"--rtol -1", "--rtol -1: must be a finite number"},
        {"--rtol nan", "--rtol nan: must be a finite number"},
        {"--atol inf", "--atol inf: must be a finite number"},
    };
    for (const auto& [flag, message] : flags) {
        auto r = pto(fmt::format("diff {} {} {}", a, g, flag));
        EXPECT_EQ(r.exitCode, 2) << flag << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << flag << "\n" << r.err;
    }
    std::filesystem::create_directories(dir / "t");
    std::filesystem::create_directories(dir / "w");
    writeTensor(dir / "t" / "y.npy", golden);
    writeTensor(dir / "w" / "y.npy", randomTensor(DType::F16, {64, 32}, 1));
    std::ofstream(dir / "w" / "manifest.json")
        << R"({"values": [{"value": "%y", "file": "y.npy"}]})";
    const std::pair<std::string, std::string> manifests[] = {
        {R"({"values": [{"value": "%y", "file": "y.npy", "reduction_length": -5}]})",
         "t/manifest.json: values[0] reduction_length -5: a reduction length is a number of "
         "terms"},
        {R"({"values": [{"value": "%y", "file": "y.npy", "reduction_length": "12"}]})",
         "t/manifest.json: values[0] \"reduction_length\": must be an integer"},
        {R"({"values": [{"value": "%y", "file": "y.npy", "line": "five"}]})",
         "t/manifest.json: values[0] \"line\": must be an integer from 0 to 2147483647, not "
         "\"five\""},
        {R"({"values": [{"value": "%y", "file": "y.npy", "op": 3}]})",
         "t/manifest.json: values[0] \"op\": must be a string, not 3"},
    };
    for (const auto& [manifest, message] : manifests) {
        std::ofstream(dir / "t" / "manifest.json") << manifest;
        auto r = pto(fmt::format("diff {} {}", q(dir / "t"), q(dir / "w")));
        EXPECT_EQ(r.exitCode, 2) << manifest << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << manifest << "\n" << r.err;
        EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
    }
    std::ofstream(dir / "t" / "manifest.json")
        << R"({"values": [{"value": "%y", "file": "y.npy"}]})";
    auto shape = pto(fmt::format("diff {} {}", q(dir / "t"), q(dir / "w")));
    EXPECT_EQ(shape.exitCode, 2) << shape.out;
    EXPECT_NE(
        shape.err.find(fmt::format("{} vs {}: %y: shape mismatch", (dir / "t" / "y.npy").string(),
                                   (dir / "w" / "y.npy").string())),
        std::string::npos)
        << shape.err;
}

// A flag of another mode is a usage error naming the flag and the mode it belongs to (before,
// `--fault wrong-scale --seed 4 -o q.db` on two files ran a plain comparison and wrote no q.db;
// a dump-tree comparison ignored --reduction-length, --tile, --inputs, -o, --no-store); an empty
// --rtol fell back to the default; a file against a directory blamed the file for not being a
// dump tree.
TEST_F(DiffCli, FlagsOfAnotherModeAndMixedOperandsAreUsageErrors) {
    const std::string a = q(dir / "a.npy"), g = q(dir / "g.npy");
    for (const char* tree : {"ta", "tb"}) {
        std::filesystem::create_directories(dir / tree);
        writeTensor(dir / tree / "y.npy", golden);
        std::ofstream(dir / tree / "manifest.json")
            << R"({"values": [{"value": "%y", "file": "y.npy", "op": "exp"}]})";
    }
    const std::string trees = fmt::format("{} {}", q(dir / "ta"), q(dir / "tb"));
    const std::pair<std::string, std::string> cases[] = {
        {fmt::format("{} {} --fault wrong-scale", a, g), "--fault belongs to `pto diff --bisect"},
        {fmt::format("{} {} --seed 4", a, g), "--seed belongs to"},
        {fmt::format("{} {} -o {}", a, g, q(dir / "q.db")), "-o/--output belongs to"},
        {fmt::format("{} {} --bind x=1", a, g), "--bind belongs to"},
        {fmt::format("{} {} --no-store", a, g), "--no-store belongs to `pto diff RUN.db --golden"},
        {fmt::format("{} --reduction-length 5", trees), "--reduction-length belongs to"},
        {fmt::format("{} --tile 4x4", trees), "--tile belongs to `pto diff A.npy B.npy`"},
        {fmt::format("{} --inputs {}", trees, a), "--inputs belongs to"},
        {fmt::format("{} --fault wrong-scale", trees), "comparing two dump trees"},
        {fmt::format("{} -o {}", trees, q(dir / "q.db")), "-o/--output belongs to"},
        {fmt::format("{} --no-store", trees), "--no-store belongs to"},
        {fmt::format("{} {} --rtol ''", a, g), "--rtol '': must be a finite number"},
        {fmt::format("{} {} --atol ''", a, g), "--atol '': must be a finite number"},
    };
    for (const auto& [args, message] : cases) {
        auto r = pto("diff " + args);
        EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "q.db"));
    std::filesystem::create_directories(dir / "dir.npy");
    auto mixed = pto(fmt::format("diff {} {}", a, q(dir / "dir.npy")));
    EXPECT_EQ(mixed.exitCode, 2) << mixed.out;
    EXPECT_NE(mixed.err.find(fmt::format("{} is a directory and {} is not: a file and a "
                                         "directory cannot be compared",
                                         (dir / "dir.npy").string(), (dir / "a.npy").string())),
              std::string::npos)
        << mixed.err;
}

// Refused dtypes name one list of what PTO computes in, whichever reader refuses them; a '<u2'
// file whose sidecar does not say bf16 says what a sidecar is for (it read "dtype '<u2' (f16)
// is not one PTO computes in; use f16, …"); a golden of the wrong shape is named; a
// --timing-only trace says it keeps no outputs.
TEST_F(DiffCli, RefusalsNameTheFileAndOneDTypeList) {
    NpyArray u2{"<u2", {2}, std::vector<std::byte>(4), ""};
    writeNpy(dir / "u2.npy", u2);
    std::ofstream(dir / "u2.npy.dtype") << "f16";
    NpyArray f64{"<f8", {2}, std::vector<std::byte>(16), ""};
    writeNpy(dir / "f64.npy", f64);
    std::ofstream(dir / "c.npy", std::ios::binary)
        << std::string("\x93NUMPY\x01\x00\x76\x00", 10)
        << fmt::format("{:<117}\n", "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }")
        << std::string(16, '\0');
    const std::string g = q(dir / "g.npy");
    const std::string list = "PTO computes in f16 ('<f2'), bf16";
    for (const char* file : {"u2.npy", "f64.npy", "c.npy"}) {
        auto r = pto(fmt::format("diff {} {}", q(dir / file), g));
        EXPECT_EQ(r.exitCode, 2) << file << r.out;
        EXPECT_NE(r.err.find(list), std::string::npos) << file << "\n" << r.err;
        EXPECT_EQ(r.err.find("supported:"), std::string::npos) << r.err;
    }
    auto u2r = pto(fmt::format("diff {} {}", q(dir / "u2.npy"), g));
    EXPECT_NE(u2r.err.find("a sidecar marks bf16 stored as '<u2'"), std::string::npos) << u2r.err;
    EXPECT_EQ(u2r.err.find("(f16) is not one PTO computes in"), std::string::npos) << u2r.err;

    const std::string sample = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
    auto run = pto(fmt::format("run {} -o {}", q(sample), q(dir / "run.db")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::filesystem::create_directories(dir / "wrong");
    writeTensor(dir / "wrong" / "yh.npy", golden);
    auto shape = pto(fmt::format("diff {} --golden {}", q(dir / "run.db"), q(dir / "wrong")));
    EXPECT_EQ(shape.exitCode, 2) << shape.out;
    EXPECT_NE(shape.err.find((dir / "wrong" / "yh.npy").string()), std::string::npos) << shape.err;
    auto timing = pto(fmt::format("run {} --timing-only -o {}", q(sample), q(dir / "t.db")));
    ASSERT_EQ(timing.exitCode, 0) << timing.err;
    auto none = pto(fmt::format("diff {} --golden {}", q(dir / "t.db"), q(dir / "wrong")));
    EXPECT_EQ(none.exitCode, 2) << none.out;
    EXPECT_NE(none.err.find("was made with pto run --timing-only"), std::string::npos) << none.err;
}

TEST_F(DiffCli, CompileAndRunTakeFaultToo) {
    const std::string sample = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
    auto compiled = pto(fmt::format("compile {} --fault truncate-cast:0", q(sample)));
    EXPECT_EQ(compiled.exitCode, 0) << compiled.err;
    auto bad = pto(fmt::format("compile {} --fault bogus:1", q(sample)));
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("unknown fault 'bogus'"), std::string::npos) << bad.err;
    auto clean = pto(fmt::format("run {} --outputs {}", q(sample), q(dir / "clean")));
    auto shifted = pto(fmt::format("run {} --fault shift-tile-offset:0 --outputs {}", q(sample),
                                   q(dir / "shifted")));
    ASSERT_EQ(clean.exitCode, 0) << clean.err;
    ASSERT_EQ(shifted.exitCode, 0) << shifted.err;
    auto d =
        pto(fmt::format("diff {} {}", q(dir / "shifted" / "yh.npy"), q(dir / "clean" / "yh.npy")));
    EXPECT_EQ(d.exitCode, 1) << d.out;
}

} // namespace
} // namespace pto
