// The Tensor interpreter on loops: a loop program equals its hand-unrolled twin bit for bit,
// unroll-loops preserves every bit, and the online softmax written as a loop matches NumPy.
#include "compiler/interp/TensorInterpreter.h"
#include "compiler/interp/TileInterpreter.h"
#include "compiler/ir/BindScalars.h"
#include "compiler/ir/Parser.h"
#include "compiler/passes/InlineCalls.h"
#include "compiler/passes/UnrollLoops.h"
#include "tests/support/Process.h"
#include "tests/unit/interp/ReferenceHarness.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <fstream>

namespace pto {
namespace {

// Online softmax statistics and a weighted sum over 4 column blocks of x.
constexpr const char* kLoop = R"(
func @f(%x: tensor<16x1024xf32>, %w: tensor<16x256xf32>) -> (tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x256xf32>) {
  %m0 = fill {value = -inf} : tensor<16x1xf32>
  %l0 = fill {value = 0.0} : tensor<16x1xf32>
  %o0 = fill {value = 0.0} : tensor<16x256xf32>
  %r:3 = for "blocks" %i = 0 to 4 step 1 iter_args(%m = %m0, %l = %l0, %o = %o0) {
    %b = view %x {offsets = [0, %i * 256], sizes = [16, 256]}
    %bm = reduce_max %b {axis = 1, keepdim}
    %mn = max %m, %bm
    %p = exp (sub %b, %mn)
    %a = exp (sub %m, %mn)
    %ln = add (mul %l, %a), (reduce_sum %p {axis = 1, keepdim})
    %on = add (mul %o, %a), (mul %p, %w)
    yield %mn, %ln, %on
  }
  return %r#0, %r#1, %r#2
}
)";

// The same program with the four iterations written out by hand.
std::string unrolledText() {
    std::string body = R"(
func @f(%x: tensor<16x1024xf32>, %w: tensor<16x256xf32>) -> (tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x256xf32>) {
  %m0 = fill {value = -inf} : tensor<16x1xf32>
  %l0 = fill {value = 0.0} : tensor<16x1xf32>
  %o0 = fill {value = 0.0} : tensor<16x256xf32>
)";
    for (int i = 0; i < 4; ++i)
        body += fmt::format(R"(
  %b{1} = view %x {{offsets = [0, {2}], sizes = [16, 256]}}
  %bm{1} = reduce_max %b{1} {{axis = 1, keepdim}}
  %m{1} = max %m{0}, %bm{1}
  %p{1} = exp (sub %b{1}, %m{1})
  %a{1} = exp (sub %m{0}, %m{1})
  %l{1} = add (mul %l{0}, %a{1}), (reduce_sum %p{1} {{axis = 1, keepdim}})
  %o{1} = add (mul %o{0}, %a{1}), (mul %p{1}, %w)
)",
                            i, i + 1, i * 256);
    return body + "  return %m4, %l4, %o4\n}\n";
}

std::vector<TensorData> inputs() {
    return {randomTensor(DType::F32, Shape{16, 1024}, 11, RandomRange{-4.0, 4.0}),
            randomTensor(DType::F32, Shape{16, 256}, 12)};
}

TEST(LoopInterpreter, EqualsTheHandUnrolledProgramBitForBit) {
    Function loop = parseFunctionText(kLoop, "loop.pto");
    Function flat = parseFunctionText(unrolledText(), "flat.pto");
    std::vector<TensorData> in = inputs();
    EvalResult a = evaluateTensor(loop, in), b = evaluateTensor(flat, in);
    ASSERT_EQ(a.outputs.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(a.outputs[i] == b.outputs[i]) << "output " << i;
}

TEST(LoopInterpreter, UnrollLoopsKeepsEveryBit) {
    Function loop = parseFunctionText(kLoop, "loop.pto");
    Function unrolled = loop;
    unrollLoops(unrolled);
    for (const Op& op : unrolled.ops()) EXPECT_NE(op.kind, OpKind::For);
    std::vector<TensorData> in = inputs();
    EvalResult a = evaluateTensor(loop, in), b = evaluateTensor(unrolled, in);
    for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(a.outputs[i] == b.outputs[i]) << "output " << i;
}

void writeRaw(const std::filesystem::path& p, const TensorData& t) {
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(t.data()), std::streamsize(t.bytes.size()));
}

TensorData readRaw(const std::filesystem::path& p, Shape shape) {
    TensorData t(DType::F32, shape);
    std::ifstream(p, std::ios::binary)
        .read(reinterpret_cast<char*>(t.data()), std::streamsize(t.bytes.size()));
    return t;
}

TEST(LoopInterpreter, OnlineSoftmaxLoopMatchesNumPy) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "/usr/bin/python3 with numpy is needed";
    test::TempDir dir("pto-loop");
    std::vector<TensorData> in = inputs();
    writeRaw(dir / "x.bin", in[0]);
    writeRaw(dir / "w.bin", in[1]);
    // An independent formulation: the plain (not online) softmax statistics and weighted sum.
    const std::string script = fmt::format(R"(
import numpy as np
x = np.fromfile('{0}/x.bin', '<f4').reshape(16, 1024).astype(np.float64)
w = np.fromfile('{0}/w.bin', '<f4').reshape(16, 256).astype(np.float64)
m = x.max(axis=1, keepdims=True)
e = np.exp(x - m)
l = e.sum(axis=1, keepdims=True)
o = sum(e[:, 256 * j:256 * (j + 1)] * w for j in range(4))
for name, a in (('m', m), ('l', l), ('o', o)):
    a.astype('<f4').tofile('{0}/' + name + '.bin')
)",
                                           dir.path().string());
    std::ofstream(dir / "ref.py") << script;
    auto r = test::runCommand("/usr/bin/python3 " + test::shellQuote((dir / "ref.py").string()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EvalResult got = evaluateTensor(parseFunctionText(kLoop, "loop.pto"), in);
    const test::Tolerance tol{1e-4, 1e-5};
    EXPECT_EQ(test::compareTensors(got.outputs[0], readRaw(dir / "m.bin", Shape{16, 1}), tol), "");
    EXPECT_EQ(test::compareTensors(got.outputs[1], readRaw(dir / "l.bin", Shape{16, 1}), tol), "");
    EXPECT_EQ(test::compareTensors(got.outputs[2], readRaw(dir / "o.bin", Shape{16, 256}), tol),
              "");
}

TEST(LoopInterpreter, ZeroTripLoopYieldsItsInitialValues) {
    Function f = parseFunctionText(R"(
func @z(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = for %i = 3 to 3 step 1 iter_args(%a = %x) {
    %b = neg %a
    yield %b
  }
  return %r
}
)");
    std::vector<TensorData> in = {randomTensor(DType::F32, Shape{8}, 5)};
    EXPECT_TRUE(evaluateTensor(f, in).outputs[0] == in[0]);
}

// --- calls: interpreted as parsed, and after inline-calls ----------------------------------

// One attention-like block written once as @block and called from a loop and at top level.
constexpr const char* kCalls = R"(
func @block(%m: tensor<16x1xf32>, %l: tensor<16x1xf32>, %b: tensor<16x256xf32>) -> (tensor<16x1xf32>, tensor<16x1xf32>) {
  %mn = max %m, (reduce_max %b {axis = 1, keepdim})
  %a = exp (sub %m, %mn)
  %ln = add (mul %l, %a), (reduce_sum (exp (sub %b, %mn)) {axis = 1, keepdim})
  return %mn, %ln
}

func @main(%x: tensor<16x1024xf32>) -> (tensor<16x1xf32>, tensor<16x1xf32>) {
  %m0 = fill {value = -inf} : tensor<16x1xf32>
  %l0 = fill {value = 0.0} : tensor<16x1xf32>
  %b0 = view %x {offsets = [0, 0], sizes = [16, 256]}
  %m1, %l1 = call @block(%m0, %l0, %b0)
  %r:2 = for "rest" %i = 1 to 4 step 1 iter_args(%m = %m1, %l = %l1) {
    %b = view %x {offsets = [0, %i * 256], sizes = [16, 256]}
    %mn, %ln = call @block(%m, %l, %b)
    yield %mn, %ln
  }
  return %r#0, %r#1
}
)";

TEST(CallInterpreter, BeforeAndAfterInlineCallsBitEqual) {
    Module m = parseModule(kCalls, "calls.pto");
    const Function& entry = *m.entry();
    std::vector<TensorData> in = {
        randomTensor(DType::F32, Shape{16, 1024}, 21, RandomRange{-4.0, 4.0})};
    EvalResult before = evaluateTensor(entry, in, false, m.functions);
    Function inlined = entry;
    inlineCalls(inlined, m.functions, m.file);
    for (const Op& op : inlined.ops()) EXPECT_NE(op.kind, OpKind::Call);
    EvalResult after = evaluateTensor(inlined, in);
    Function flat = inlined;
    unrollLoops(flat);
    EvalResult unrolled = evaluateTensor(flat, in);
    ASSERT_EQ(before.outputs.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_TRUE(before.outputs[i] == after.outputs[i]) << "output " << i;
        EXPECT_TRUE(before.outputs[i] == unrolled.outputs[i]) << "output " << i;
    }
    // Without the module's functions a call is an error naming the callee.
    try {
        evaluateTensor(entry, in);
        FAIL() << "expected an error";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("call @block: the interpreter was given no functions"),
                  std::string::npos)
            << e.what();
    }
}

// --- bound trip counts and the clipped tail -------------------------------------------------

constexpr const char* kBound = R"(
func @main(%x: tensor<16x1000xf32>, %t: index) -> (tensor<16x1xf32>, tensor<16x1xf32>) {
  %m0 = fill {value = -inf} : tensor<16x1xf32>
  %l0 = fill {value = 0.0} : tensor<16x1xf32>
  %r:2 = for "blocks" %i = 0 to %t step 1 iter_args(%m = %m0, %l = %l0) {
    %b = view %x {offsets = [0, %i * 256], sizes = [16, 256], clip}
    %mn = max %m, (reduce_max %b {axis = 1, keepdim})
    %a = exp (sub %m, %mn)
    %ln = add (mul %l, %a), (reduce_sum (exp (sub %b, %mn)) {axis = 1, keepdim})
    yield %mn, %ln
  }
  return %r#0, %r#1
}
)";

TEST(LoopInterpreter, TheClippedTailInterpretsLikeItsUnrolledForm) {
    std::vector<TensorData> in = {
        randomTensor(DType::F32, Shape{16, 1000}, 31, RandomRange{-4.0, 4.0})};
    for (int64_t t : {1, 3, 4}) {
        Function f = parseFunctionText(kBound, "bound.pto");
        const ScalarBind bind{"t", t};
        bindScalars(f, std::span(&bind, 1), "bound.pto");
        EXPECT_EQ(f.args.size(), 1u);
        Function flat = f;
        unrollLoops(flat);
        EvalResult a = evaluateTensor(f, in), b = evaluateTensor(flat, in);
        for (size_t i = 0; i < 2; ++i)
            EXPECT_TRUE(a.outputs[i] == b.outputs[i]) << "t = " << t << ", output " << i;
    }
    // An unbound function is refused with what to do.
    Function unbound = parseFunctionText(kBound, "bound.pto");
    EXPECT_THROW(evaluateTensor(unbound, in), CompileError);
}

// --- Tile-level loops ------------------------------------------------------------------------

constexpr const char* kTileLoop = R"(
func @scale_and_sum(%x: tensor<16x1024xf32>, %y: tensor<16x1024xf32>, %z: tensor<16x1xf32>) {
  %s0 = fill {value = 0.0} : tile<16x1xf32, UB>
  %s = for "cols" %i = 0 to 4 iter_args(%acc = %s0) {
    %t = tload %x {offset = [0, %i * 256]} : tile<16x256xf32, UB>
    %u = muls %t, 2.0
    tstore %u, %y {offset = [0, %i * 256]}
    %acc1 = add %acc, (reduce_sum %t {axis = 1, keepdim})
    yield %acc1
  }
  tstore %s, %z {offset = [0, 0]}
  return
}
)";

TEST(TileLoopInterpreter, RunsTheLoopLikeItsUnrolledFormAndTheReference) {
    Function loop = parseFunctionText(kTileLoop, "tile_loop.pto");
    ASSERT_EQ(loop.level, Level::Tile);
    Function flat = loop;
    unrollLoops(flat);
    for (const Op& op : flat.ops()) EXPECT_NE(op.kind, OpKind::For);
    std::vector<TensorData> in = {
        randomTensor(DType::F32, Shape{16, 1024}, 41, RandomRange{-2.0, 2.0}),
        TensorData(DType::F32, Shape{16, 1024}), TensorData(DType::F32, Shape{16, 1})};
    EvalResult a = evaluateTile(loop, in, true), b = evaluateTile(flat, in, true);
    // The outputs are the GM arguments' final contents.
    for (size_t i = 1; i < 3; ++i)
        EXPECT_TRUE(a.values[loop.args[i]] == b.values[flat.args[i]]) << "argument " << i;
    // Independent reference: y = 2x exactly; z = the row sums of x (in double).
    const float* x = reinterpret_cast<const float*>(in[0].data());
    const float* y = reinterpret_cast<const float*>(a.values[loop.args[1]].data());
    const float* z = reinterpret_cast<const float*>(a.values[loop.args[2]].data());
    for (int r = 0; r < 16; ++r) {
        double sum = 0;
        for (int c = 0; c < 1024; ++c) {
            ASSERT_EQ(y[r * 1024 + c], 2.0f * x[r * 1024 + c]) << r << "," << c;
            sum += x[r * 1024 + c];
        }
        EXPECT_NEAR(z[r], sum, 1e-4 * (1 + std::abs(sum))) << "row " << r;
    }
}

// --- huge steps ------------------------------------------------------------------------------

// A step past the upper bound runs one iteration (%i = 0) however large it is: the trip count
// ceil((upper - lower) / step) once overflowed to 0 iterations (step 2^63 - 1) or to a last
// %i of 4 the verifier refused (step 2^63 - 2).
std::string sumFirstBlock(const std::string& step) {
    return fmt::format(R"(
func @f(%x: tensor<16x1024xf32>) -> tensor<16x256xf32> {{
  %s0 = fill {{value = 1.0}} : tensor<16x256xf32>
  %r = for "b" %i = 0 to 4 step {} iter_args(%a = %s0) {{
    %b = view %x {{offsets = [0, %i * 256], sizes = [16, 256]}}
    %c = add %a, %b
    yield %c
  }}
  return %r
}}
)",
                       step);
}

constexpr const char* kFirstBlockOnce = R"(
func @f(%x: tensor<16x1024xf32>) -> tensor<16x256xf32> {
  %s0 = fill {value = 1.0} : tensor<16x256xf32>
  %b = view %x {offsets = [0, 0], sizes = [16, 256]}
  %c = add %s0, %b
  return %c
}
)";

size_t countKind(const Function& f, OpKind kind) {
    size_t n = 0;
    for (const Op& op : f.ops()) n += op.kind == kind;
    return n;
}

TEST(LoopInterpreter, AStepPastTheUpperBoundRunsOneIteration) {
    std::vector<TensorData> in = {randomTensor(DType::F32, Shape{16, 1024}, 51)};
    const EvalResult once = evaluateTensor(parseFunctionText(kFirstBlockOnce, "once.pto"), in);
    for (const char* step : {"9223372036854775807", "9223372036854775806", "4"}) {
        Function loop = parseFunctionText(sumFirstBlock(step), "step.pto");
        EXPECT_EQ(loopTripCount(loop.ops().back()), 1) << "step " << step;
        Function flat = loop;
        unrollLoops(flat);
        EXPECT_EQ(countKind(flat, OpKind::Add), 1u) << "step " << step;
        EvalResult a = evaluateTensor(loop, in), b = evaluateTensor(flat, in);
        EXPECT_TRUE(a.outputs[0] == once.outputs[0]) << "step " << step;
        EXPECT_TRUE(b.outputs[0] == once.outputs[0]) << "step " << step;
    }
}

TEST(TileLoopInterpreter, AStepPastTheUpperBoundRunsOneIteration) {
    constexpr const char* kTile = R"(
func @k(%x: tensor<16x256xf32>, %y: tensor<16x256xf32>) {
  for "c" %i = 0 to 4 step 9223372036854775807 {
    %t = tload %x {offset = [0, %i * 64]} : tile<16x64xf32, UB>
    tstore %t, %y {offset = [0, %i * 64]}
  }
  return
}
)";
    Function loop = parseFunctionText(kTile, "step.pto");
    Function flat = loop;
    unrollLoops(flat);
    EXPECT_EQ(countKind(flat, OpKind::TStore), 1u);
    std::vector<TensorData> in = {randomTensor(DType::F32, Shape{16, 256}, 52),
                                  TensorData(DType::F32, Shape{16, 256})};
    EvalResult a = evaluateTile(loop, in, true);
    // Columns 0..63 copied (%i = 0), the rest untouched.
    const float* x = reinterpret_cast<const float*>(in[0].data());
    const float* y = reinterpret_cast<const float*>(a.values[loop.args[1]].data());
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 256; ++c)
            ASSERT_EQ(y[r * 256 + c], c < 64 ? x[r * 256 + c] : 0.0f) << r << "," << c;
}

} // namespace
} // namespace pto
