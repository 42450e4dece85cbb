// The C++ builder API: the same printed text as the equivalent .pto program for every Tensor
// op, source locations from the calling line, and errors at the caller's file:line.
#include "compiler/frontend/Builder.h"
#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/Verifier.h"

#include "tests/support/ReadFile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace pto {
namespace {

using test::readFile;

// The canonical text of a .pto file.
std::string canonical(const std::string& path) {
    return printModule(parseModule(readFile(path), path));
}

TEST(Builder, SoftmaxMatchesTheSample) {
    ModuleBuilder mb("softmax.cpp");
    auto f = mb.function("softmax");
    auto x = f.arg("x", tensorType({64, 1024}, DType::F16));
    f.vecTile({16, 1024});
    auto xf = f.cast(x, DType::F32).named("xf");
    auto m = f.reduceMax(xf, 1, true).named("m");
    auto d = f.sub(xf, m).named("d");
    auto e = f.exp(d).named("e");
    auto s = f.reduceSum(e, -1, true).named("s");
    auto y = f.div(e, s).named("y");
    f.ret(f.cast(y, DType::F16).named("yh"));
    Module built = mb.finish();
    EXPECT_EQ(printModule(built), canonical(PTO_SOURCE_DIR "/samples/softmax.pto"));
}

TEST(Builder, CallsPrintLikeTheText) {
    ModuleBuilder mb("calls.cpp");
    auto g = mb.function("block");
    auto m = g.arg("m", tensorType({16, 1}, DType::F32));
    auto b = g.arg("b", tensorType({16, 256}, DType::F32));
    g.ret(g.max(m, g.reduceMax(b, 1, true)).named("mn"));
    auto f = mb.function("main");
    auto x = f.arg("x", tensorType({16, 512}, DType::F32));
    auto m0 = f.fill(tensorType({16, 1}, DType::F32), 0.0).named("m0");
    auto m1 = f.call("block", {m0, f.view(x, {0, 0}, {16, 256}).named("b0")}).at(0).named("m1");
    auto m2 = f.call("block", {m1, f.view(x, {0, 256}, {16, 256}).named("b1")}).at(0).named("m2");
    f.ret(m2);
    const std::string text =
        R"(func @block(%m: tensor<16x1xf32>, %b: tensor<16x256xf32>) -> tensor<16x1xf32> {
  %0 = reduce_max %b {axis = 1, keepdim}
  %mn = max %m, %0
  return %mn
}

func @main(%x: tensor<16x512xf32>) -> tensor<16x1xf32> {
  %m0 = fill {value = 0.0} : tensor<16x1xf32>
  %b0 = view %x {offsets = [0, 0], sizes = [16, 256]}
  %m1 = call @block(%m0, %b0)
  %b1 = view %x {offsets = [0, 256], sizes = [16, 256]}
  %m2 = call @block(%m1, %b1)
  return %m2
}
)";
    EXPECT_EQ(printModule(mb.finish()), printModule(parseModule(text, "calls.pto")));
    ModuleBuilder bad("bad.cpp");
    auto h = bad.function("h");
    auto y = h.arg("y", tensorType({4}, DType::F32));
    EXPECT_THROW(h.call("nowhere", {y}), CompileError);
    EXPECT_THROW(h.call("h", {y}), CompileError);
}

TEST(Builder, LoopsPrintLikeTheText) {
    ModuleBuilder mb("loops.cpp");
    auto f = mb.function("main");
    auto x = f.arg("x", tensorType({16, 1000}, DType::F32));
    auto m0 = f.fill(tensorType({16, 1}, DType::F32), -INFINITY).named("m0");
    auto l0 = f.fill(tensorType({16, 1}, DType::F32), 0.0).named("l0");
    auto r =
        f.forLoop("blocks", 0, 4, {m0, l0}, [&](FunctionBuilder& body, ValueRef i, const auto& it) {
            auto m = it[0].named("m");
            auto l = it[1].named("l");
            auto b = body.viewAt(x, i, {0, 256}, {0, 0}, {16, 256}, /*clip=*/true).named("b");
            auto mn = body.max(m, body.reduceMax(b, 1, true)).named("mn");
            auto a = body.exp(body.sub(m, mn)).named("a");
            auto la = body.mul(l, a); // the text's operands, left to right
            auto e = body.reduceSum(body.exp(body.sub(b, mn)), 1, true);
            return std::vector<ValueRef>{mn, body.add(la, e).named("ln")};
        });
    f.ret({r.at(0).named("mf"), r.at(1).named("lf")});
    const std::string text =
        R"(func @main(%x: tensor<16x1000xf32>) -> (tensor<16x1xf32>, tensor<16x1xf32>) {
  %m0 = fill {value = -inf} : tensor<16x1xf32>
  %l0 = fill {value = 0.0} : tensor<16x1xf32>
  %mf, %lf = for "blocks" %i = 0 to 4 step 1 iter_args(%m = %m0, %l = %l0) {
    %b = view %x {offsets = [0, %i * 256], sizes = [16, 256], clip}
    %mn = max %m, (reduce_max %b {axis = 1, keepdim})
    %a = exp (sub %m, %mn)
    %ln = add (mul %l, %a), (reduce_sum (exp (sub %b, %mn)) {axis = 1, keepdim})
    yield %mn, %ln
  }
  return %mf, %lf
}
)";
    EXPECT_EQ(printModule(mb.finish()), printModule(parseModule(text, "loops.pto")));
}

TEST(Builder, LoopMisuseIsReported) {
    ModuleBuilder mb("bad_loops.cpp");
    auto f = mb.function("main");
    auto x = f.arg("x", tensorType({16, 16}, DType::F32));
    // Yielding a value of another type than the iter_arg's.
    EXPECT_THROW(f.forLoop("twice", 0, 2, {x},
                           [&](FunctionBuilder& b, ValueRef, const auto&) {
                               return std::vector<ValueRef>{b.cast(x, DType::F16)};
                           }),
                 CompileError);
    // A body builder kept past its loop is closed.
    FunctionBuilder* kept = nullptr;
    std::optional<FunctionBuilder> copy;
    f.forLoop("twice", 0, 2, {x}, [&](FunctionBuilder& b, ValueRef, const auto& it) {
        copy.emplace(b);
        kept = &*copy;
        return std::vector<ValueRef>{b.adds(it[0], 1.0)};
    });
    EXPECT_THROW(kept->adds(x, 1.0), CompileError);
}

// A C++ loop gets the parser's rule on names: the verifier refuses one traces use otherwise.
TEST(Builder, ALoopNamedLikeTheCompilersTileLoopIsRefusedByTheVerifier) {
    ModuleBuilder mb("tiles_loop.cpp");
    auto f = mb.function("main");
    auto x = f.arg("x", tensorType({16, 16}, DType::F32));
    auto r = f.forLoop("tiles", 0, 2, {x}, [&](FunctionBuilder& b, ValueRef, const auto& it) {
        return std::vector<ValueRef>{b.adds(it[0], 1.0)};
    });
    f.ret(r[0]);
    try {
        const Module m = mb.finish();
        verifyModule(m);
        ADD_FAILURE() << "no error";
    } catch (const CompileError& e) {
        EXPECT_NE(e.message().find("loop name \"tiles\" is the compiler's name"), std::string::npos)
            << e.message();
    }
}

TEST(Builder, MlpExample) {
    ModuleBuilder mb("my_mlp.cpp");
    auto f = mb.function("mlp");
    auto x = f.arg("x", tensorType({128, 512}, DType::F16));
    auto w = f.arg("w", tensorType({512, 256}, DType::F16));
    f.vecTile({32, 256});
    auto h = f.gelu(f.matmul(x, w)).named("h");
    f.ret(f.cast(h, DType::F16));
    Module m = mb.finish();
    EXPECT_EQ(
        printModule(m),
        R"(func @mlp(%x: tensor<128x512xf16>, %w: tensor<512x256xf16>) -> tensor<128x256xf16> {
  vec_tile [32, 256]
  %0 = matmul %x, %w
  %h = gelu %0
  %1 = cast %h : tensor<128x256xf16>
  return %1
}
)");
    EXPECT_EQ(m.file, "my_mlp.cpp");
}

// Builds, with the C++ API, the same program as builder_all_ops.pto: every Tensor-level op.
Module buildAllOps() {
    ModuleBuilder mb("all_ops.cpp");
    auto f = mb.function("all_ops");
    auto a = f.arg("a", tensorType({64, 128}, DType::F16));
    auto b = f.arg("b", tensorType({128, 256}, DType::F16));
    auto bias = f.arg("bias", tensorType({256}, DType::F32));
    auto w = f.arg("w", tensorType({256}, DType::F32));
    auto scale = f.arg("scale", tensorType({1, 256}, DType::F32));
    auto idx = f.arg("idx", tensorType({2, 3}, DType::I32));
    f.cubeTile({64, 64}, {64, 128}, {128, 256});
    auto mm = f.matmul(a, b).named("mm");
    auto mt = f.matmul(b, a, {.transposeA = true, .transposeB = true, .resultDType = DType::F16})
                  .named("mt")
                  .cubeTile({128, 256}, {32, 64}, {64, 64});
    f.vecTile({16, 256});
    auto s1 = f.add(mm, bias).named("s1");
    auto s2 = f.sub(s1, bias).named("s2");
    auto s3 = f.mul(s2, s1).named("s3");
    auto s4 = f.div(s3, bias).named("s4");
    auto s5 = f.max(s4, s1).named("s5");
    auto s6 = f.min(s5, s2).named("s6");
    auto c1 = f.add(s6, 1.0).named("c1");
    auto c2 = f.subs(c1, 2.0).named("c2");
    auto c3 = f.mul(c2, 0.5).named("c3");
    auto c4 = f.divs(c3, 4.0).named("c4");
    auto c5 = f.max(c4, -1.0).named("c5");
    auto c6 = f.mins(c5, 6.0).named("c6");
    auto u1 = f.relu(f.neg(f.abs(f.reciprocal(f.rsqrt(f.sqrt(f.log(f.exp(c6)))))))).named("u1");
    auto u2 = f.silu(f.gelu(f.tanh(f.sigmoid(u1)))).named("u2");
    auto h = f.cast(u2, DType::F16).named("h");
    auto r = f.cast(u2, DType::I8, RoundMode::TowardZero).named("r");
    auto rs = f.reduceSum(u2, 1, true).named("rs");
    auto rm = f.reduceMax(u2, -1).named("rm");
    auto rn = f.reduceMin(u2, 0).named("rn");
    auto sm = f.softmax(u2).named("sm");
    auto sm0 = f.softmax(sm, -2).named("sm0");
    auto n1 = f.rmsNorm(sm0).named("n1");
    auto n2 = f.rmsNorm(n1, w, 1e-5).named("n2");
    auto n3 = f.layerNorm(n2, w, bias).named("n3");
    auto n4 = f.layerNorm(n3, std::nullopt, std::nullopt, 1e-3).named("n4");
    auto lt = f.cmp(n4, s1, CmpPred::Lt).named("lt");
    auto gt = f.cmp(n4, 0.0, CmpPred::Gt).named("gt");
    auto sel = f.where(lt, n4, f.where(gt, s1, bias)).named("sel");
    auto q = f.quantize(sel, scale).named("q");
    auto dq = f.dequantize(q, scale).named("dq");
    auto dq32 = f.dequantize(q, scale, DType::F32).named("dq32");
    auto rsh = f.reshape(dq32, {2, 32, 256}).named("rsh");
    auto tr = f.transpose(rsh, {0, 2, 1}).named("tr");
    auto vw = f.view(sel, {16, 0}, {16, 256}).named("vw");
    auto cc = f.concat({sel, vw, dq32}, 0).named("cc");
    auto bc = f.broadcast(bias, {4, 256}).named("bc");
    auto z = f.fill(tensorType({4, 256}, DType::F32), 0.0).named("z");
    auto zz = f.add(bc, z).named("zz").vecTile({4, 256});
    auto gat = f.gather(sel, idx, 0).named("gat");
    auto tk = f.topk(sel, 4).named("tk");
    auto tki = f.topk(sel, 2, {.axis = 0, .largest = false, .indices = true}).named("tki");
    auto sca = f.scatterAdd(sel, idx, gat, 0).named("sca");
    auto cs = f.cumsum(sel, 0).named("cs");
    f.ret({cc, tr, h, r, rs, rm, rn, dq, mt, zz, gat, tk, tki, sca, cs});
    return mb.finish();
}

TEST(Builder, EveryTensorOpMatchesTheText) {
    Module built = buildAllOps();
    std::string expected = canonical(PTO_SOURCE_DIR "/tests/unit/ir/builder_all_ops.pto");
    EXPECT_EQ(printModule(built), expected);
    // Every op kind of the Tensor level appears.
    std::vector<bool> seen(size_t(opKindCount()), false);
    for (const Op& op : built.functions[0].ops()) seen[size_t(op.kind)] = true;
    for (int k = 0; k < opKindCount(); ++k) {
        // for and call (OpClass::Control) have no builder method yet: they are written in .pto.
        bool tensorLevel = (opInfo(OpKind(k)).levels & kLevelTensor) && !isControl(OpKind(k));
        EXPECT_TRUE(!tensorLevel || seen[size_t(k)])
            << "the builder test misses " << opName(OpKind(k));
    }
}

TEST(Builder, LocationsComeFromTheCaller) {
    ModuleBuilder mb("loc.cpp");
    auto f = mb.function("f");
    auto x = f.arg("x", tensorType({4}, DType::F32));
    int line = __LINE__ + 1;
    auto y = f.exp(x);
    f.ret(y);
    Module m = mb.finish();
    EXPECT_EQ(m.functions[0].op(0).loc.line, uint32_t(line));
    EXPECT_GT(m.functions[0].op(0).loc.col, 0u);
    EXPECT_EQ(m.functions[0].op(0).parent, kNoId);
}

// The CompileError thrown by `build`, checked to point at the line recorded by `build`.
template <class Fn> CompileError errorOf(Fn build) {
    try {
        build();
    } catch (const CompileError& e) {
        return e;
    }
    ADD_FAILURE() << "no error";
    return CompileError("", {}, "");
}

TEST(Builder, ErrorsPointAtTheCaller) {
    int line = 0;
    CompileError e = errorOf([&] {
        ModuleBuilder mb("err.cpp");
        auto f = mb.function("f");
        auto a = f.arg("a", tensorType({64, 1024}, DType::F32));
        auto b = f.arg("b", tensorType({32, 1024}, DType::F32));
        line = __LINE__ + 1;
        f.add(a, b);
    });
    EXPECT_EQ(e.loc().line, uint32_t(line));
    EXPECT_NE(e.file().find("BuilderTest.cpp"), std::string::npos);
    EXPECT_EQ(e.message(),
              "add: operand shapes 64x1024 and 32x1024 do not broadcast (dim 0: 64 vs 32)");
}

TEST(Builder, MisuseIsReported) {
    auto expectError = [](auto build, const std::string& text) {
        CompileError e = errorOf(build);
        EXPECT_NE(e.message().find(text), std::string::npos) << e.what();
    };
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            auto f = mb.function("f");
            auto g = mb.function("g");
            auto x = f.arg("x", tensorType({4}, DType::F32));
            g.exp(x);
        },
        "exp: operand 0 is not a value of @g");
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            auto f = mb.function("f");
            auto x = f.arg("x", tensorType({4}, DType::F32));
            f.ret(x);
            f.exp(x);
        },
        "@f: 'exp' after ret()");
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            auto f = mb.function("f");
            f.arg("x", tensorType({4}, DType::F32));
            mb.finish();
        },
        "@f has no ret()");
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            auto f = mb.function("f");
            auto x = f.arg("x", tensorType({4}, DType::F32));
            f.exp(x).named("x");
        },
        "redefinition of %x in @f");
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            mb.function("f");
            mb.function("f");
        },
        "redefinition of function @f");
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            auto f = mb.function("f");
            auto x = f.arg("x", tensorType({4}, DType::F32));
            f.ret(x);
            mb.finish();
            mb.finish();
        },
        "already finished");
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            auto f = mb.function("f");
            auto x = f.arg("x", tensorType({4}, DType::F32));
            f.exp(x).cubeTile({16, 16}, {16, 16}, {16, 16});
        },
        "cubeTile() applies to the result of a matmul");
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            auto f = mb.function("f");
            auto x = f.arg("x", tensorType({4, 4}, DType::F32));
            f.exp(x).vecTile({4});
        },
        "vec_tile [4] has 1 sizes, but the op works on rank-2 tensors");
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            auto f = mb.function("f");
            f.cubeTile({128, 64}, {64, 64}, {64, 64});
        },
        "cube_tile: m L1 size 64 must be a multiple of (and at least) the L0 size 128");
    expectError(
        [] {
            ModuleBuilder mb("m.cpp");
            auto f = mb.function("f");
            auto x = f.arg("x", tensorType({4, 4}, DType::F32));
            f.reshape(x, {5});
        },
        "reshape: cannot reshape 4x4 (16 elements) to 5 (5 elements)");
}

} // namespace
} // namespace pto
