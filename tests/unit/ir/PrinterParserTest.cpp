// The .pto printer and parser: round trips, names, numbers, locations, error positions, the
// coverage of the golden round-trip cases, and parsing speed on a 400k-op Tile function.
#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/ShapeInference.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace pto {
namespace {

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The error a parse throws, or "" when it parses.
CompileError parseError(const std::string& text) {
    try {
        parseModule(text, "t.pto");
    } catch (const CompileError& e) {
        return e;
    }
    return CompileError("", {}, "");
}

// `%y = neg (neg (... (neg %x)))` with `levels` parenthesised ops, at Tensor or Tile level.
std::string nestedOps(int levels, bool tile) {
    std::string expr;
    for (int i = 0; i < levels; ++i) expr += "neg (";
    expr += tile ? "neg %t" : "neg %x";
    expr.append(size_t(levels), ')');
    if (!tile)
        return "func @f(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {\n  %y = " + expr +
               "\n  return %y\n}\n";
    return "func @f(%x: tensor<16x16xf32>) {\n"
           "  %t = tload %x {offset = [0, 0]} : tile<16x16xf32, UB>\n"
           "  %y = " +
           expr + "\n  tstore %y, %x {offset = [0, 0]}\n  return\n}\n";
}

TEST(PrinterParser, NestingIsLimitedAtBothLevelsWithoutExhaustingTheStack) {
    for (bool tile : {false, true}) {
        SCOPED_TRACE(tile ? "Tile level" : "Tensor level");
        const Module ok = parseModule(nestedOps(kMaxOpNesting, tile), "t.pto");
        EXPECT_EQ(ok.functions.at(0).ops().size(), size_t(kMaxOpNesting + 1 + (tile ? 2 : 0)));
        const CompileError e = parseError(nestedOps(kMaxOpNesting + 1, tile));
        EXPECT_EQ(e.loc().line, tile ? 3u : 2u);
        // The 257th '(' : after "  %y = " and 256 × "neg (", then "neg ".
        EXPECT_EQ(e.loc().col, uint32_t(8 + 5 * kMaxOpNesting + 4));
        EXPECT_NE(e.message().find("nested more than 256 levels"), std::string::npos) << e.what();
        // Far deeper than any stack would take if each level recursed.
        const CompileError deep = parseError(nestedOps(200000, tile));
        EXPECT_NE(deep.message().find("nested more than 256 levels"), std::string::npos);
    }
}

// `levels` loops nested one in another, each of one trip, around a copy of %x.
std::string nestedLoops(int levels) {
    std::string text = "func @f(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {\n";
    for (int i = 0; i < levels; ++i)
        text += fmt::format("  %r{0} = for %i{0} = 0 to 1 iter_args(%a{0} = %{1}) {{\n", i,
                            i == 0 ? "x" : fmt::format("a{}", i - 1));
    text += fmt::format("  %y = neg %{}\n", levels == 0 ? "x" : fmt::format("a{}", levels - 1));
    std::string result = "y";
    for (int i = levels - 1; i >= 0; --i) {
        text += fmt::format("  yield %{}\n  }}\n", result);
        result = fmt::format("r{}", i);
    }
    return text + fmt::format("  return %{}\n}}\n", result);
}

TEST(PrinterParser, LoopNestingIsLimitedWithoutExhaustingTheStack) {
    const Module ok = parseModule(nestedLoops(kMaxLoopNesting), "t.pto");
    const Function* body = &ok.functions.at(0);
    int depth = 0;
    for (; !body->ops().empty() && body->ops().front().kind == OpKind::For; ++depth)
        body = &body->ops().front().body.front();
    EXPECT_EQ(depth, kMaxLoopNesting);
    const CompileError e = parseError(nestedLoops(kMaxLoopNesting + 1));
    EXPECT_EQ(e.loc().line, uint32_t(2 + kMaxLoopNesting)); // the 65th 'for'
    EXPECT_NE(e.message().find("loops nested more than 64 levels deep"), std::string::npos)
        << e.what();
    // 5000 levels crashed the parser (one recursion per level).
    const CompileError deep = parseError(nestedLoops(5000));
    EXPECT_NE(deep.message().find("loops nested more than 64 levels deep"), std::string::npos);
}

TEST(PrinterParser, SamplesRoundTrip) {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(PTO_SOURCE_DIR "/samples")) {
        if (entry.path().extension() != ".pto") continue;
        std::string text = readFile(entry.path());
        Module m = parseModule(text, entry.path().string());
        std::string printed = printModule(m);
        EXPECT_EQ(printModule(parseModule(printed, "again")), printed) << entry.path();
        ++count;
    }
    EXPECT_GT(count, 0);
}

TEST(PrinterParser, CanonicalTextPrintsBackExactly) {
    const std::string text = R"(func @softmax(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  vec_tile [16, 1024]
  %xf = cast %x : tensor<64x1024xf32>
  %m = reduce_max %xf {axis = 1, keepdim}
  %d = sub %xf, %m
  %e = exp %d
  %s = reduce_sum %e {axis = 1, keepdim}
  %y = div %e, %s
  %yh = cast %y : tensor<64x1024xf16>
  return %yh
}
)";
    Function f = parseFunctionText(text, "softmax.pto");
    EXPECT_EQ(printFunction(f), text);
    EXPECT_EQ(f.level, Level::Tensor);
    EXPECT_EQ(f.ops().size(), 8u);
    // Locations are the mnemonic's line:col; no provenance at parse.
    EXPECT_EQ(f.op(1).loc, (SourceLoc{3, 9}));
    EXPECT_EQ(f.op(2).loc, (SourceLoc{4, 8}));
    for (const Op& op : f.ops()) EXPECT_EQ(op.parent, kNoId);
    EXPECT_EQ(f.loc, (SourceLoc{1, 1}));
}

TEST(PrinterParser, LocsAndIdsReadBack) {
    Function f = parseFunctionText(R"(func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = exp %x loc(17:4) #0<-#9
  return %y
}
)");
    EXPECT_EQ(f.op(0).loc, (SourceLoc{17, 4}));
    EXPECT_EQ(f.op(0).parent, 9u);
    f.op(0).parent = kNoId;
    f.op(0).loc = {};
    EXPECT_NE(printFunction(f, {.locs = true, .ids = true}).find("%y = exp %x loc(unknown) #0\n"),
              std::string::npos);
}

TEST(PrinterParser, UnnamedAndDuplicateNames) {
    Function f;
    f.name = "names";
    ValueId x = f.addArg(Type{DType::F32, {4}, MemSpace::None}, "x");
    Type t{DType::F32, {4}, MemSpace::None};
    auto unary = [&](OpKind k, ValueId in, std::string name) {
        Op op;
        op.kind = k;
        op.operands = {in};
        return f.op(f.addOp(op, &t, std::move(name))).result;
    };
    ValueId a = unary(OpKind::Exp, x, "");         // %0 ("1" is taken below)
    ValueId b = unary(OpKind::Neg, a, "c");        // %c
    ValueId c = unary(OpKind::Abs, b, "c");        // duplicate -> %c_1
    ValueId d = unary(OpKind::Relu, c, "1");       // %1 as written
    ValueId e = unary(OpKind::Exp, d, "");         // %2
    ValueId g = unary(OpKind::Exp, e, "bad name"); // sanitised -> %bad_name
    f.results = {g};
    std::string text = printFunction(f);
    EXPECT_EQ(text, R"(func @names(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = exp %x
  %c = neg %0
  %c_1 = abs %c
  %1 = relu %c_1
  %2 = exp %1
  %bad_name = exp %2
  return %bad_name
}
)");
    EXPECT_EQ(printFunction(parseFunctionText(text)), text);
}

TEST(PrinterParser, FloatsReadBackExactly) {
    const double values[] = {0.5,
                             1.0,
                             -0.0,
                             0.1,
                             1e-06,
                             1e300,
                             5e-324,
                             65504,
                             -1.5e-5,
                             3.14159265358979,
                             1e22,
                             123456789.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
    for (double v : values) {
        std::string text = formatDouble(v);
        Function f = parseFunctionText(fmt::format(
            "func @f(%x: tensor<4xf32>) -> tensor<4xf32> {{\n  %y = muls %x, {}\n  return %y\n}}\n",
            text));
        double back = f.op(0).attrs.getFloat("scalar");
        EXPECT_EQ(std::signbit(back), std::signbit(v)) << text;
        EXPECT_EQ(back, v) << text;
    }
    EXPECT_EQ(formatDouble(1.0), "1.0");
    EXPECT_EQ(formatDouble(1e-06), "1e-06");
    EXPECT_EQ(formatDouble(-0.0), "-0.0");
    EXPECT_EQ(formatDouble(std::nan("")), "nan");
    Function n = parseFunctionText(
        "func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = maxs %x, nan\n  return %y\n}\n");
    EXPECT_TRUE(std::isnan(n.op(0).attrs.getFloat("scalar")));
}

TEST(PrinterParser, AttrFormatting) {
    Attrs a;
    a.set("axis", int64_t(1));
    a.set("keepdim", true);
    a.set("pred", std::string("a\"b"));
    a.set("perm", std::vector<int64_t>{1, 0});
    a.set("eps", 1e-5);
    a.set("off", false);
    EXPECT_EQ(formatAttrs(a),
              " {axis = 1, keepdim, pred = \"a\\\"b\", perm = [1, 0], eps = 1e-05, off = false}");
    constexpr std::string_view kSkip[] = {"axis", "perm"};
    EXPECT_EQ(formatAttrs(a, kSkip), " {keepdim, pred = \"a\\\"b\", eps = 1e-05, off = false}");
    EXPECT_EQ(formatAttrs(Attrs{}), "");
}

TEST(PrinterParser, TypeFormatting) {
    EXPECT_EQ(formatType(Type{DType::F16, {64, 1024}, MemSpace::None}, Level::Tensor),
              "tensor<64x1024xf16>");
    EXPECT_EQ(formatType(Type{DType::F32, {16, 1024}, MemSpace::UB}, Level::Tile),
              "tile<16x1024xf32, UB>");
    EXPECT_EQ(formatType(Type{DType::F32, {16, 16}, MemSpace::None}, Level::Tile),
              "tile<16x16xf32>");
    EXPECT_EQ(formatType(Type{DType::I8, {8}, MemSpace::GM}, Level::Tile), "tensor<8xi8>");
    EXPECT_EQ(formatType(Type{DType::Bool, {}, MemSpace::None}, Level::Tensor), "tensor<i1>");
    Function f = parseFunctionText(R"(func @scalar(%x: tensor<8xf32>) -> tensor<f32> {
  %s = reduce_sum %x {axis = 0}
  return %s
}
)");
    EXPECT_TRUE(f.type(f.results[0]).shape.empty());
}

TEST(PrinterParser, TileLevelDetection) {
    Function t = parseFunctionText(R"(func @t(%x: tensor<16x16xf32>) {
  %a = tload %x {offset = [0, 0]} : tile<16x16xf32, UB>
  tstore %a, %x {offset = [0, 0]}
  return
}
)");
    EXPECT_EQ(t.level, Level::Tile);
    EXPECT_EQ(t.type(t.args[0]).space, MemSpace::GM);
    EXPECT_EQ(t.type(t.op(0).result).space, MemSpace::UB);
    EXPECT_EQ(t.op(1).result, kNoId);
    // Each function of a module has its own level.
    Module m = parseModule(R"(func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x
}
func @b(%x: tensor<4xf32>) {
  %g = gm_tensor : tensor<4xf32>
  return
}
)",
                           "two.pto");
    EXPECT_EQ(m.functions[0].level, Level::Tensor);
    EXPECT_EQ(m.functions[1].level, Level::Tile);
    EXPECT_EQ(m.entry()->name, "b");
}

TEST(PrinterParser, ErrorPositions) {
    struct Case {
        std::string text;
        SourceLoc loc;
        std::string message;
    };
    const std::string head = "func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {\n";
    const Case cases[] = {
        {head + "  %y = softmx %x\n  return %y\n}\n",
         {2, 8},
         "unknown op 'softmx' (did you mean 'softmax'?)"},
        {head + "  %y = add %x, %q\n  return %y\n}\n", {2, 16}, "use of undefined value %q"},
        {head + "  %y = add %x %x\n  return %y\n}\n",
         {2, 15},
         "expected ',' and a second operand ('add' takes 2 operands), found '%x'"},
        {head + "  %y = exp %x\n  %y = neg %x\n  return %y\n}\n",
         {3, 3},
         "redefinition of %y (first defined at 2:3)"},
        {head + "  %y = matmul %x, (reduce_sum %x {axis = 0})\n  return %y\n}\n",
         {2, 8},
         "matmul %y: operands must have rank 2 or more, got 4x4 and 4"},
        {head + "  return %x\n", {3, 1}, "unterminated body of @f"},
        {"", {1, 1}, "empty input"},
        {"func @f(%x: tensor<4xbf17>) -> tensor<4xf32> {\n", {1, 22}, "unknown dtype 'bf17'"},
    };
    for (const Case& c : cases) {
        CompileError e = parseError(c.text);
        EXPECT_EQ(e.loc(), c.loc) << c.message << " / got " << e.what();
        EXPECT_NE(e.message().find(c.message), std::string::npos) << e.what();
        EXPECT_EQ(e.file(), "t.pto");
    }
}

TEST(PrinterParser, ParseFunctionTextNeedsOneFunction) {
    const std::string two = "func @a(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x\n}\n"
                            "func @b(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x\n}\n";
    EXPECT_THROW(parseFunctionText(two), CompileError);
    EXPECT_EQ(parseModule(two, "two.pto").functions.size(), 2u);
}

TEST(PrinterParser, GoldenRoundTripsCoverEveryOpKind) {
    std::set<OpKind> seen;
    for (const auto& entry :
         std::filesystem::directory_iterator(PTO_SOURCE_DIR "/tests/golden/parser")) {
        if (entry.path().extension() != ".pto") continue;
        std::string text = readFile(entry.path());
        if (text.find("// RUN: roundtrip") == std::string::npos) continue;
        for (const Function& f : parseModule(text, entry.path().string()).functions)
            for (const Op& op : f.ops()) seen.insert(op.kind);
    }
    for (int k = 0; k < opKindCount(); ++k)
        EXPECT_TRUE(seen.count(OpKind(k))) << "no round-trip case uses " << opName(OpKind(k));
}

// A Tile-level function the size of a 4096^3 matmul's tile graph plus its vector epilogue.
std::string bigTileFunction(int groups) {
    std::string text = "func @big(%a: tensor<8192x512xf16>, %y: tensor<8192x512xf16>) {\n";
    for (int i = 0; i < groups; ++i) {
        int row = (i % 512) * 16;
        text += fmt::format("  %t{0} = tload %a {{offset = [{1}, 0]}} : tile<16x512xf16, UB>\n"
                            "  %f{0} = cast %t{0} : tile<16x512xf32, UB>\n"
                            "  %m{0} = reduce_max %f{0} {{axis = 1, keepdim}}\n"
                            "  %d{0} = sub %f{0}, %m{0}\n"
                            "  %e{0} = exp %d{0}\n"
                            "  %s{0} = muls %e{0}, 0.5\n"
                            "  %h{0} = cast %s{0} : tile<16x512xf16, UB>\n"
                            "  tstore %h{0}, %y {{offset = [{1}, 0]}}\n",
                            i, row);
    }
    return text + "  return\n}\n";
}

// CPU seconds (not wall time: the test machine may be shared).
double cpuSeconds() {
    return double(std::clock()) / CLOCKS_PER_SEC;
}

TEST(PrinterParser, ParsesA400kOpTileFunctionQuickly) {
    std::string text = bigTileFunction(50000); // 8 ops per group: 400k ops
    double t0 = cpuSeconds();
    Module m = parseModule(text, "big.pto");
    double parseSeconds = cpuSeconds() - t0;
    ASSERT_EQ(m.functions[0].ops().size(), 400000u);
    EXPECT_EQ(m.functions[0].level, Level::Tile);
    double t1 = cpuSeconds();
    std::string printed = printModule(m);
    double printSeconds = cpuSeconds() - t1;
    EXPECT_EQ(printed, text);
    RecordProperty("parse_cpu_seconds", std::to_string(parseSeconds));
    RecordProperty("print_cpu_seconds", std::to_string(printSeconds));
}

} // namespace
} // namespace pto
