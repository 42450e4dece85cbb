// The Tensor/Tile verifier: a valid function, then one defect at a time, each caught with the
// op's position and a message naming the op and its value.
#include "compiler/ir/Verifier.h"
#include "compiler/ir/Parser.h"

#include <gtest/gtest.h>

#include <functional>

namespace pto {
namespace {

const char* kTensorText =
    R"(func @f(%x: tensor<64x1024xf16>, %w: tensor<1024x256xf16>) -> tensor<64x256xf32> {
  vec_tile [16, 1024]
  %xf = cast %x : tensor<64x1024xf32>
  %m = reduce_max %xf {axis = 1, keepdim}
  %d = sub %xf, %m
  cube_tile [64, 64], [64, 256], [128, 256]
  %c = matmul %x, %w
  return %c
}
)";

const char* kTileText = R"(func @t(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>) {
  %a = tload %x {offset = [16, 0]} : tile<16x64xf32, UB>
  %b = exp %a
  tstore %b, %y {offset = [16, 0]}
  return
}
)";

// Applies `mutate` to a freshly parsed copy and returns the verifier's error.
CompileError defect(const char* text, const std::function<void(Function&)>& mutate) {
    Function f = parseFunctionText(text, "v.pto");
    mutate(f);
    try {
        verifyFunction(f, "v.pto");
    } catch (const CompileError& e) {
        return e;
    }
    ADD_FAILURE() << "the defect was not caught";
    return CompileError("", {}, "");
}

void expectDefect(const char* text, const std::function<void(Function&)>& mutate,
                  const std::string& expectedMessage) {
    CompileError e = defect(text, mutate);
    EXPECT_NE(e.message().find(expectedMessage), std::string::npos) << e.what();
    EXPECT_EQ(e.file(), "v.pto");
}

TEST(Verifier, AcceptsValidFunctions) {
    EXPECT_NO_THROW(verifyFunction(parseFunctionText(kTensorText), "v.pto"));
    EXPECT_NO_THROW(verifyFunction(parseFunctionText(kTileText), "v.pto"));
    Module m = parseModule(kTensorText, "m.pto");
    EXPECT_NO_THROW(verifyModule(m));
}

TEST(Verifier, ReportsTheOpPositionAndEntity) {
    CompileError e = defect(kTensorText, [](Function& f) {
        f.value(f.op(3).result).type.dtype = DType::F16; // %d = sub: f32 inputs
    });
    EXPECT_EQ(e.loc(), (SourceLoc{5, 8}));
    EXPECT_EQ(e.message(), "sub %d (op #3): declared type tensor<64x1024xf16> does not match the "
                           "inferred type tensor<64x1024xf32>");
}

TEST(Verifier, CatchesIdAndSsaDefects) {
    expectDefect(
        kTensorText, [](Function& f) { f.op(2).id = 7; },
        "reduce_max %m (op #7): op id 7 is not its position 2");
    expectDefect(
        kTensorText, [](Function& f) { f.op(3).operands[1] = 999; },
        "operand 1 is value id 999, which does not exist");
    expectDefect(
        kTensorText, [](Function& f) { f.op(2).operands[0] = f.op(3).result; },
        "operand 0 (%d) is used before its definition by op #3");
    expectDefect(
        kTensorText, [](Function& f) { f.op(3).result = f.op(2).result; },
        "redefines a value defined earlier");
    expectDefect(
        kTensorText, [](Function& f) { f.value(f.op(3).result).def = 1; },
        "its result's def is op #1");
    expectDefect(
        kTensorText, [](Function& f) { f.op(1).result = kNoId; },
        "cast (op #1): has no result value");
    expectDefect(
        kTensorText, [](Function& f) { f.op(0).result = f.args[0]; },
        "has a result, but this kind of op defines none");
    expectDefect(
        kTensorText, [](Function& f) { f.results = {12345}; },
        "@f: result 0 (value id 12345) is not defined");
    expectDefect(
        kTensorText, [](Function& f) { f.args.push_back(f.args[0]); },
        "is listed twice as an argument");
    expectDefect(
        kTensorText, [](Function& f) { f.value(f.args[0]).def = 2; },
        "argument %x claims to be defined by op #2");
    expectDefect(
        kTensorText, [](Function& f) { f.op(1).kind = OpKind(200); }, "invalid op kind 200");
}

TEST(Verifier, CatchesArityAndLevelDefects) {
    expectDefect(
        kTensorText, [](Function& f) { f.op(3).operands.pop_back(); },
        "sub %d (op #3): takes 2 operand(s), has 1");
    expectDefect(
        kTensorText, [](Function& f) { f.op(3).kind = OpKind::MatmulAcc; },
        "is a Tile-level op in a Tensor-level function");
    expectDefect(
        kTileText, [](Function& f) { f.op(1).kind = OpKind::Softmax; },
        "softmax %b (op #1): is a Tensor-level op in a Tile-level function");
    expectDefect(
        kTensorText, [](Function& f) { f.op(2).attrs.erase("axis"); },
        "reduce_max %m (op #2): missing attribute 'axis'");
}

TEST(Verifier, CatchesTypeDefects) {
    expectDefect(
        kTensorText,
        [](Function& f) {
            f.value(f.op(4 + 1).result).type.shape = {64, 64};
        },
        "matmul %c (op #5): declared type tensor<64x64xf32> does not match the inferred "
        "type tensor<64x256xf32>");
    expectDefect(
        kTensorText,
        [](Function& f) {
            f.value(f.args[1]).type.shape = {512, 256};
        },
        "inner dimensions differ");
    expectDefect(
        kTensorText, [](Function& f) { f.value(f.op(2).result).type.space = MemSpace::UB; },
        "Tensor-level values have no memory space");
}

TEST(Verifier, CatchesDirectiveDefects) {
    expectDefect(
        kTensorText, [](Function& f) { f.op(0).attrs.set("sizes", std::vector<int64_t>{16}); },
        "cast %xf (op #1): vec_tile [16] (at 2:3) has 1 sizes, but this op works on "
        "rank-2 tensors");
    expectDefect(
        kTensorText,
        [](Function& f) {
            f.op(0).attrs.set("sizes", std::vector<int64_t>{16, -4});
        },
        "vec_tile (op #0): sizes must be positive");
    expectDefect(
        kTensorText,
        [](Function& f) {
            f.op(4).attrs.set("sizes", std::vector<int64_t>{64, 32, 64, 256, 128, 256});
        },
        "cube_tile (op #4): m L1 size 32 must be a multiple of (and at least) the L0 "
        "size 64");
    expectDefect(
        kTensorText, [](Function& f) { f.op(4).attrs = Attrs{}; },
        "cube_tile (op #4): missing attribute 'sizes'");
    expectDefect(
        kTensorText, [](Function& f) { f.op(3).attrs.set("vec_tile", std::vector<int64_t>{8}); },
        "vec_tile [8] has 1 sizes, but the op works on rank-2 tensors");
    // A per-op override replaces the scoped directive for its op.
    Function ok = parseFunctionText(kTensorText);
    ok.op(0).attrs.set("sizes", std::vector<int64_t>{16});
    for (int i : {1, 2, 3}) ok.op(i).attrs.set("vec_tile", std::vector<int64_t>{16, 1024});
    EXPECT_NO_THROW(verifyFunction(ok, "v.pto"));
}

TEST(Verifier, CatchesTileLevelDefects) {
    expectDefect(
        kTileText, [](Function& f) { f.value(f.args[0]).type.space = MemSpace::UB; },
        "tload %a (op #0): source must be a GM tensor");
    expectDefect(
        kTileText, [](Function& f) { f.op(2).operands[1] = f.op(0).result; },
        "tstore (op #2): destination must be a GM tensor");
    expectDefect(
        kTileText,
        [](Function& f) {
            f.op(0).attrs.set("offset", std::vector<int64_t>{20, 0});
        },
        "tile 16x64 at offset [20, 0] exceeds the tensor 32x64 (dim 0: 20 + 16 > 32)");
    expectDefect(
        kTileText,
        [](Function& f) {
            f.op(2).attrs.set("offset", std::vector<int64_t>{0, 8});
        },
        "tstore (op #2): tile 16x64 at offset [0, 8] exceeds the tensor 32x64");
    expectDefect(
        kTileText,
        [](Function& f) {
            f.value(f.op(0).result).type.shape = {64, 64};
        },
        "exceeds the tensor 32x64");
    expectDefect(
        kTileText, [](Function& f) { f.op(1).operands[0] = f.args[0]; },
        "exp %b (op #1): operand 0 is a GM tensor");
    expectDefect(
        kTileText, [](Function& f) { f.value(f.op(1).result).type.space = MemSpace::GM; },
        "result must be an on-chip tile");
}

} // namespace
} // namespace pto
