// Shape inference: a table of every op kind's result type and of every error, plus random
// broadcast / matmul / reduce / transpose / concat shapes checked against NumPy.
#include "compiler/ir/ShapeInference.h"
#include "compiler/ir/Printer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

namespace pto {
namespace {

Type t(Shape s, DType d = DType::F32, MemSpace space = MemSpace::None) {
    return Type{d, s, space};
}
Type gm(Shape s, DType d = DType::F32) {
    return t(s, d, MemSpace::GM);
}
Type ub(Shape s, DType d = DType::F32) {
    return t(s, d, MemSpace::UB);
}

Attrs attrs(std::initializer_list<std::pair<const char*, AttrValue>> items) {
    Attrs a;
    for (auto& [k, v] : items) a.set(k, v);
    return a;
}

using Ints = std::vector<int64_t>;

struct Case {
    std::string name;
    OpKind kind;
    std::vector<Type> in;
    Attrs attrs;
    std::optional<Type> declared;
    std::string expect; // the result type as printed, or "error: <substring of the message>"
    Level level = Level::Tensor;
};

std::string run(const Case& c) {
    try {
        Type r =
            inferResultType(c.level, c.kind, c.in, c.attrs, c.declared ? &*c.declared : nullptr);
        return opHasResult(c.kind) ? formatType(r, c.level) : "none";
    } catch (const ShapeError& e) {
        return std::string("error: ") + e.what();
    }
}

const DType F16 = DType::F16, F32 = DType::F32, BF16 = DType::BF16, I8 = DType::I8,
            I32 = DType::I32, I1 = DType::Bool;
const Level Tile = Level::Tile;

std::vector<Case> validCases() {
    // clang-format off
    return {
        {"add same", OpKind::Add, {t({64, 1024}), t({64, 1024})}, {}, {}, "tensor<64x1024xf32>"},
        {"add row bcast", OpKind::Add, {t({64, 1024}), t({64, 1})}, {}, {}, "tensor<64x1024xf32>"},
        {"sub rank bcast", OpKind::Sub, {t({1024}, F16), t({64, 1024}, F16)}, {}, {},
         "tensor<64x1024xf16>"},
        {"mul both bcast", OpKind::Mul, {t({4, 1, 3}), t({5, 1})}, {}, {}, "tensor<4x5x3xf32>"},
        {"div", OpKind::Div, {t({8}, BF16), t({8}, BF16)}, {}, {}, "tensor<8xbf16>"},
        {"max int", OpKind::Max, {t({8}, I32), t({1}, I32)}, {}, {}, "tensor<8xi32>"},
        {"min", OpKind::Min, {t({2, 2}), t({2, 2})}, {}, {}, "tensor<2x2xf32>"},
        {"adds", OpKind::AddS, {t({4}, F16)}, attrs({{"scalar", 1.0}}), {}, "tensor<4xf16>"},
        {"subs", OpKind::SubS, {t({4})}, attrs({{"scalar", 1.0}}), {}, "tensor<4xf32>"},
        {"muls int scalar", OpKind::MulS, {t({4})}, attrs({{"scalar", int64_t(2)}}), {},
         "tensor<4xf32>"},
        {"divs", OpKind::DivS, {t({4})}, attrs({{"scalar", 2.0}}), {}, "tensor<4xf32>"},
        {"maxs", OpKind::MaxS, {t({4}, I8)}, attrs({{"scalar", 0.0}}), {}, "tensor<4xi8>"},
        {"mins", OpKind::MinS, {t({4})}, attrs({{"scalar", 6.0}}), {}, "tensor<4xf32>"},
        {"exp", OpKind::Exp, {t({4, 4}, F16)}, {}, {}, "tensor<4x4xf16>"},
        {"log", OpKind::Log, {t({4})}, {}, {}, "tensor<4xf32>"},
        {"sqrt", OpKind::Sqrt, {t({4})}, {}, {}, "tensor<4xf32>"},
        {"rsqrt", OpKind::Rsqrt, {t({4})}, {}, {}, "tensor<4xf32>"},
        {"reciprocal", OpKind::Reciprocal, {t({4})}, {}, {}, "tensor<4xf32>"},
        {"abs int", OpKind::Abs, {t({4}, I32)}, {}, {}, "tensor<4xi32>"},
        {"neg", OpKind::Neg, {t({4}, I8)}, {}, {}, "tensor<4xi8>"},
        {"relu", OpKind::Relu, {t({4}, BF16)}, {}, {}, "tensor<4xbf16>"},
        {"cast", OpKind::Cast, {t({64, 1024}, F16)}, {}, t({64, 1024}, F32), "tensor<64x1024xf32>"},
        {"cast round", OpKind::Cast, {t({4})}, attrs({{"round", std::string("floor")}}), t({4}, I8),
         "tensor<4xi8>"},
        {"cast to bool", OpKind::Cast, {t({4})}, {}, t({4}, I1), "tensor<4xi1>"},
        {"sigmoid", OpKind::Sigmoid, {t({4}, F16)}, {}, {}, "tensor<4xf16>"},
        {"tanh", OpKind::Tanh, {t({4})}, {}, {}, "tensor<4xf32>"},
        {"gelu", OpKind::Gelu, {t({4})}, {}, {}, "tensor<4xf32>"},
        {"silu", OpKind::Silu, {t({4})}, {}, {}, "tensor<4xf32>"},
        {"reduce_sum", OpKind::ReduceSum, {t({64, 1024})}, attrs({{"axis", int64_t(1)}}), {},
         "tensor<64xf32>"},
        {"reduce_max keepdim", OpKind::ReduceMax, {t({64, 1024})},
         attrs({{"axis", int64_t(1)}, {"keepdim", true}}), {}, "tensor<64x1xf32>"},
        {"reduce_min negative axis", OpKind::ReduceMin, {t({2, 3, 4})},
         attrs({{"axis", int64_t(-3)}}), {}, "tensor<3x4xf32>"},
        {"reduce to rank 0", OpKind::ReduceSum, {t({8})}, attrs({{"axis", int64_t(0)}}), {},
         "tensor<f32>"},
        {"softmax", OpKind::Softmax, {t({64, 1024}, F16)}, {}, {}, "tensor<64x1024xf16>"},
        {"softmax axis", OpKind::Softmax, {t({64, 1024})}, attrs({{"axis", int64_t(-2)}}), {},
         "tensor<64x1024xf32>"},
        {"rms_norm", OpKind::RmsNorm, {t({128, 4096}, F16), t({4096}, F16)}, attrs({{"eps", 1e-6}}),
         {}, "tensor<128x4096xf16>"},
        {"rms_norm no weight", OpKind::RmsNorm, {t({8, 16})}, {}, {}, "tensor<8x16xf32>"},
        {"layer_norm", OpKind::LayerNorm, {t({8, 16}), t({16}), t({1, 16})}, {}, {},
         "tensor<8x16xf32>"},
        {"cmp", OpKind::Cmp, {t({4, 4}), t({4})}, attrs({{"pred", std::string("lt")}}), {},
         "tensor<4x4xi1>"},
        {"cmps", OpKind::CmpS, {t({4})}, attrs({{"scalar", 0.0}, {"pred", std::string("ge")}}), {},
         "tensor<4xi1>"},
        {"where", OpKind::Where, {t({4, 1}, I1), t({4, 4}), t({4})}, {}, {}, "tensor<4x4xf32>"},
        {"quantize", OpKind::Quantize, {t({4, 8}, F16), t({8}, F16)}, {}, {}, "tensor<4x8xi8>"},
        {"dequantize default", OpKind::Dequantize, {t({4, 8}, I8), t({1}, F32)}, {}, {},
         "tensor<4x8xf16>"},
        {"dequantize f32", OpKind::Dequantize, {t({4, 8}, I32), t({8})}, {}, t({4, 8}, F32),
         "tensor<4x8xf32>"},
        {"reshape", OpKind::Reshape, {t({4, 6})}, {}, t({2, 12}), "tensor<2x12xf32>"},
        {"transpose", OpKind::Transpose, {t({2, 3, 4})}, attrs({{"perm", Ints{2, 0, 1}}}), {},
         "tensor<4x2x3xf32>"},
        {"view", OpKind::View, {t({64, 1024})},
         attrs({{"offsets", Ints{16, 0}}, {"sizes", Ints{16, 512}}}), {}, "tensor<16x512xf32>"},
        {"concat", OpKind::Concat, {t({2, 3}), t({2, 5}), t({2, 1})},
         attrs({{"axis", int64_t(-1)}}), {}, "tensor<2x9xf32>"},
        {"concat one", OpKind::Concat, {t({2, 3})}, attrs({{"axis", int64_t(0)}}), {},
         "tensor<2x3xf32>"},
        {"broadcast", OpKind::Broadcast, {t({1, 4})}, {}, t({3, 2, 4}), "tensor<3x2x4xf32>"},
        {"fill", OpKind::Fill, {}, attrs({{"value", 0.0}}), t({2, 2}, F16), "tensor<2x2xf16>"},
        {"matmul f16", OpKind::Matmul, {t({128, 64}, F16), t({64, 256}, F16)}, {}, {},
         "tensor<128x256xf32>"},
        {"matmul transposes", OpKind::Matmul, {t({64, 128}, BF16), t({256, 64}, BF16)},
         attrs({{"transpose_a", true}, {"transpose_b", true}}), {}, "tensor<128x256xf32>"},
        {"matmul batched", OpKind::Matmul, {t({3, 8, 4}), t({3, 4, 5})}, {}, {},
         "tensor<3x8x5xf32>"},
        {"matmul i8", OpKind::Matmul, {t({8, 4}, I8), t({4, 8}, I8)}, {}, {}, "tensor<8x8xi32>"},
        {"matmul f16 out", OpKind::Matmul, {t({8, 4}, F16), t({4, 8}, F16)}, {}, t({8, 8}, F16),
         "tensor<8x8xf16>"},
        {"vec_tile directive", OpKind::VecTile, {}, attrs({{"sizes", Ints{16, 1024}}}), {}, "none"},
        {"cube_tile directive", OpKind::CubeTile, {},
         attrs({{"sizes", Ints{128, 128, 64, 256, 128, 128}}}), {}, "none"},
        {"vec_tile override", OpKind::Exp, {t({64, 64})}, attrs({{"vec_tile", Ints{16, 64}}}), {},
         "tensor<64x64xf32>"},
        {"cube_tile override", OpKind::Matmul, {t({128, 64}), t({64, 128})},
         attrs({{"cube_tile", Ints{64, 128, 32, 64, 64, 128}}}), {}, "tensor<128x128xf32>"},
        // Tile level.
        {"tile add", OpKind::Add, {ub({16, 1024}), ub({16, 1})}, {}, {}, "tile<16x1024xf32, UB>",
         Tile},
        {"tile add unplaced", OpKind::Add, {t({16, 64}), t({16, 64})}, {}, {}, "tile<16x64xf32>",
         Tile},
        {"tile matmul", OpKind::Matmul,
         {t({128, 64}, F16, MemSpace::L0A), t({64, 128}, F16, MemSpace::L0B)}, {}, {},
         "tile<128x128xf32, L0C>", Tile},
        {"tile matmul unplaced", OpKind::Matmul, {t({16, 16}, F16), t({16, 16}, F16)}, {}, {},
         "tile<16x16xf32>", Tile},
        {"matmul_acc", OpKind::MatmulAcc,
         {t({128, 128}, F32, MemSpace::L0C), t({128, 64}, F16, MemSpace::L0A),
          t({64, 128}, F16, MemSpace::L0B)},
         {}, {}, "tile<128x128xf32, L0C>", Tile},
        {"gm_tensor", OpKind::GmTensor, {}, {}, gm({64, 64}), "tensor<64x64xf32>", Tile},
        {"gather rows", OpKind::Gather, {t({64, 96}, F16), t({4, 8}, I32)},
         attrs({{"axis", int64_t{0}}}), {}, "tensor<4x8x96xf16>"},
        {"gather tile", OpKind::Gather, {gm({64, 96}, F16), ub({1, 8}, I32)},
         attrs({{"offset", Ints{0, 32}}}), ub({8, 64}, F16), "tile<8x64xf16, UB>", Tile},
        {"topk indices", OpKind::TopK, {t({5, 33})},
         attrs({{"k", int64_t{4}}, {"indices", true}}), {}, "tensor<5x4xi32>"},
        {"scatter_add rows", OpKind::ScatterAdd,
         {t({16, 96}, F16), t({4, 8}, I32), t({4, 8, 96}, F16)}, attrs({{"axis", int64_t{0}}}),
         {}, "tensor<16x96xf16>"},
        {"cumsum i32", OpKind::CumSum, {t({128, 4}, I32)}, attrs({{"axis", int64_t{0}}}), {},
         "tensor<128x4xi32>"},
        {"cumsum tile", OpKind::CumSum, {ub({8, 64}, F16)}, attrs({{"axis", int64_t{0}}}), {},
         "tile<8x64xf16, UB>", Tile},
        {"tload", OpKind::TLoad, {gm({64, 1024}, F16)}, attrs({{"offset", Ints{48, 0}}}),
         ub({16, 1024}, F16), "tile<16x1024xf16, UB>", Tile},
        {"tload no offset", OpKind::TLoad, {gm({64, 1024})}, {}, t({16, 1024}), "tile<16x1024xf32>",
         Tile},
        {"tload rank 1 into a row", OpKind::TLoad, {gm({4096}, F16)}, attrs({{"offset", Ints{0}}}),
         ub({1, 4096}, F16), "tile<1x4096xf16, UB>", Tile},
        {"tload rows of a rank-3 tensor", OpKind::TLoad, {gm({2, 4, 8})},
         attrs({{"offset", Ints{1, 0, 0}}}), ub({4, 8}), "tile<4x8xf32, UB>", Tile},
        {"tstore", OpKind::TStore, {ub({16, 1024}), gm({64, 1024})},
         attrs({{"offset", Ints{16, 0}}}), {}, "none", Tile},
        {"tscatter_add", OpKind::TScatterAdd, {ub({8, 64}, F16), gm({64, 96}, F16), ub({1, 8}, I32)},
         attrs({{"offset", Ints{0, 32}}}), {}, "none", Tile},
        {"tstore converts an accumulator (FIX)", OpKind::TStore,
         {t({16, 16}, F32, MemSpace::L0C), gm({16, 16}, F16)}, {}, {}, "none", Tile},
        {"tstore converts an unplaced i32 accumulator", OpKind::TStore,
         {t({16, 16}, DType::I32), gm({16, 16}, DType::BF16)}, {}, {}, "none", Tile},
        {"vec_tile of rank 0", OpKind::VecTile, {}, attrs({{"sizes", Ints{}}}), {}, "none"},
        {"tmove", OpKind::TMove, {t({128, 64}, F16, MemSpace::L1)}, {},
         t({128, 64}, F16, MemSpace::L0A), "tile<128x64xf16, L0A>", Tile},
        {"tile declared space wins", OpKind::Exp, {t({16, 16})}, {}, ub({16, 16}),
         "tile<16x16xf32, UB>", Tile},
    };
    // clang-format on
}

std::vector<Case> errorCases() {
    // clang-format off
    return {
        {"arity", OpKind::Add, {t({4})}, {}, {}, "error: add: takes 2 operands, got 1"},
        {"arity variadic", OpKind::LayerNorm, {t({4}), t({4}), t({4}), t({4})}, {}, {},
         "error: layer_norm: takes 1 to 3 operands, got 4"},
        {"arity concat", OpKind::Concat, {}, attrs({{"axis", int64_t(0)}}), {},
         "error: concat: takes at least 1 operand, got 0"},
        {"broadcast", OpKind::Add, {t({64, 1024}), t({32, 1024})}, {}, {},
         "error: add: operand shapes 64x1024 and 32x1024 do not broadcast (dim 0: 64 vs 32)"},
        {"dtype", OpKind::Mul, {t({4}, F16), t({4}, F32)}, {}, {},
         "error: mul: operand dtypes f16 and f32 differ"},
        {"bool arithmetic", OpKind::Add, {t({4}, I1), t({4}, I1)}, {}, {},
         "error: add: operand 0 has dtype i1"},
        {"float only", OpKind::Exp, {t({4}, I32)}, {}, {},
         "error: exp: operand 0 has dtype i32, but exp needs a float type"},
        {"composite float only", OpKind::Softmax, {t({4}, I8)}, {}, {}, "needs a float type"},
        {"scalar missing", OpKind::MulS, {t({4})}, {}, {},
         "error: muls: missing the scalar operand"},
        {"scalar not number", OpKind::AddS, {t({4})}, attrs({{"scalar", std::string("x")}}), {},
         "attribute 'scalar' must be a number, found \"x\""},
        {"pred missing", OpKind::Cmp, {t({4}), t({4})}, {}, {}, "missing attribute 'pred'"},
        {"pred unknown", OpKind::CmpS, {t({4})},
         attrs({{"scalar", 1.0}, {"pred", std::string("less")}}), {}, "unknown predicate \"less\""},
        {"cast undeclared", OpKind::Cast, {t({4})}, {}, {},
         "error: cast: needs a declared result type"},
        {"cast shape", OpKind::Cast, {t({4})}, {}, t({8}, F16), "cast changes only the dtype"},
        {"cast round", OpKind::Cast, {t({4})}, attrs({{"round", std::string("up")}}), t({4}, F16),
         "unknown rounding mode \"up\""},
        {"round not string", OpKind::Cast, {t({4})}, attrs({{"round", int64_t(1)}}), t({4}, F16),
         "attribute 'round' must be a string, found 1"},
        {"declared mismatch", OpKind::Add, {t({4}), t({4})}, {}, t({4}, F16),
         "error: add: declared type tensor<4xf16> does not match the inferred type tensor<4xf32>"},
        {"reduce no axis", OpKind::ReduceSum, {t({4, 4})}, {}, {},
         "error: reduce_sum: missing attribute 'axis'"},
        {"reduce axis range", OpKind::ReduceMax, {t({4, 4})}, attrs({{"axis", int64_t(2)}}), {},
         "axis 2 is out of range for a rank-2 operand (valid: -2..1)"},
        {"reduce axis float", OpKind::ReduceMax, {t({4, 4})}, attrs({{"axis", 1.5}}), {},
         "attribute 'axis' must be an integer, found 1.5"},
        {"keepdim value", OpKind::ReduceMin, {t({4, 4})},
         attrs({{"axis", int64_t(0)}, {"keepdim", int64_t(1)}}), {},
         "attribute 'keepdim' is a flag"},
        {"reduce rank 0", OpKind::ReduceSum, {t({})}, attrs({{"axis", int64_t(0)}}), {},
         "needs an operand of rank 1 or more"},
        {"norm weight shape", OpKind::RmsNorm, {t({64, 4096}), t({1024})}, {}, {},
         "error: rms_norm: weight shape 1024 does not broadcast to 64x4096"},
        {"norm weight dtype", OpKind::LayerNorm, {t({4, 8}), t({8}, F16)}, {}, {},
         "gamma dtype f16 differs from the input dtype f32"},
        {"norm eps", OpKind::RmsNorm, {t({4, 8})}, attrs({{"eps", -1.0}}), {},
         "eps must be positive, found -1.0"},
        {"where cond", OpKind::Where, {t({4}), t({4}), t({4})}, {}, {},
         "condition must have dtype i1, found f32"},
        {"where values", OpKind::Where, {t({4}, I1), t({4}), t({4}, F16)}, {}, {},
         "operand dtypes f32 and f16 differ"},
        {"where shapes", OpKind::Where, {t({3}, I1), t({4}), t({4})}, {}, {},
         "condition and value shapes 3 and 4 do not broadcast"},
        {"quantize scale", OpKind::Quantize, {t({4, 8}), t({4})}, {}, {},
         "scale shape 4 does not broadcast to 4x8"},
        {"quantize declared", OpKind::Quantize, {t({4}), t({1})}, {}, t({4}, I32),
         "declared type tensor<4xi32> does not match the inferred type tensor<4xi8>"},
        {"dequantize input", OpKind::Dequantize, {t({4}, F16), t({1})}, {}, {},
         "operand 0 has dtype f16, but dequantize takes i8 or i32"},
        {"dequantize result", OpKind::Dequantize, {t({4}, I8), t({1})}, {}, t({4}, I32),
         "result dtype must be a float type, found i32"},
        {"matmul rank", OpKind::Matmul, {t({4}), t({4, 4})}, {}, {},
         "operands must have rank 2 or more, got 4 and 4x4"},
        {"matmul ranks", OpKind::Matmul, {t({2, 4, 4}), t({4, 4})}, {}, {}, "operand ranks differ"},
        {"matmul batch", OpKind::Matmul, {t({2, 4, 4}), t({3, 4, 4})}, {}, {},
         "batch dims differ: 2x4x4 vs 3x4x4 (dim 0: 2 vs 3)"},
        {"matmul inner", OpKind::Matmul, {t({64, 128}), t({256, 512})}, {}, {},
         "error: matmul: inner dimensions differ: 64x128 @ 256x512 (k = 128 vs 256)"},
        {"matmul inner transposed", OpKind::Matmul, {t({64, 128}), t({64, 512})},
         attrs({{"transpose_b", true}}), {}, "64x512^T (k = 128 vs 512)"},
        {"matmul dtypes", OpKind::Matmul, {t({4, 4}, F16), t({4, 4}, BF16)}, {}, {},
         "operand dtypes f16 and bf16 differ"},
        {"matmul dtype", OpKind::Matmul, {t({4, 4}, I32), t({4, 4}, I32)}, {}, {},
         "operand dtype i32 is not supported"},
        {"matmul result", OpKind::Matmul, {t({4, 4}, F16), t({4, 4}, F16)}, {}, t({4, 4}, I32),
         "result dtype i32 is not allowed for f16 inputs"},
        {"transpose flag value", OpKind::Matmul, {t({4, 4}), t({4, 4})},
         attrs({{"transpose_a", int64_t(1)}}), {}, "attribute 'transpose_a' is a flag"},
        {"cube_tile override count", OpKind::Matmul, {t({4, 4}), t({4, 4})},
         attrs({{"cube_tile", Ints{4, 4}}}), {}, "cube_tile [4, 4] must have 6 sizes"},
        {"cube_tile override multiple", OpKind::Matmul, {t({4, 4}), t({4, 4})},
         attrs({{"cube_tile", Ints{4, 4, 3, 4, 4, 4}}}), {},
         "k L1 size 4 must be a multiple of the L0 size 3"},
        {"cube_tile override positive", OpKind::Matmul, {t({4, 4}), t({4, 4})},
         attrs({{"cube_tile", Ints{0, 4, 4, 4, 4, 4}}}), {}, "m sizes must be positive"},
        {"vec_tile override rank", OpKind::Exp, {t({4, 4})}, attrs({{"vec_tile", Ints{4}}}), {},
         "vec_tile [4] has 1 sizes, but the op works on rank-2 tensors"},
        {"vec_tile override positive", OpKind::Exp, {t({4, 4})}, attrs({{"vec_tile", Ints{4, -1}}}),
         {}, "has a size that is not positive"},
        {"vec_tile override list", OpKind::Exp, {t({4, 4})}, attrs({{"vec_tile", int64_t(4)}}), {},
         "attribute 'vec_tile' must be a list of integers, found 4"},
        {"reshape", OpKind::Reshape, {t({4, 6})}, {}, t({5, 5}),
         "cannot reshape 4x6 (24 elements) to 5x5 (25 elements)"},
        {"reshape dtype", OpKind::Reshape, {t({4, 6})}, {}, t({24}, F16),
         "reshape keeps the dtype"},
        {"reshape undeclared", OpKind::Reshape, {t({4})}, {}, {}, "needs a declared result type"},
        {"transpose perm", OpKind::Transpose, {t({2, 3})}, attrs({{"perm", Ints{0, 0}}}), {},
         "perm [0, 0] is not a permutation of the 2 dims of 2x3"},
        {"transpose no perm", OpKind::Transpose, {t({2, 3})}, {}, {}, "missing attribute 'perm'"},
        {"view range", OpKind::View, {t({64, 1024})},
         attrs({{"offsets", Ints{60, 0}}, {"sizes", Ints{16, 1024}}}), {},
         "(dim 0: 60 + 16 vs 64)"},
        {"view entries", OpKind::View, {t({64, 1024})},
         attrs({{"offsets", Ints{0}}, {"sizes", Ints{16, 1024}}}), {}, "need 2 entries each"},
        {"concat dims", OpKind::Concat, {t({2, 3}), t({3, 3})}, attrs({{"axis", int64_t(1)}}), {},
         "dim 0 differs (3 vs 2)"},
        {"concat dtype", OpKind::Concat, {t({2, 3}), t({2, 3}, F16)}, attrs({{"axis", int64_t(1)}}),
         {}, "operand 1 has dtype f16, operand 0 has f32"},
        {"concat rank", OpKind::Concat, {t({2, 3}), t({2})}, attrs({{"axis", int64_t(0)}}), {},
         "operand 1 has rank 1, operand 0 has rank 2"},
        {"broadcast shape", OpKind::Broadcast, {t({3, 4})}, {}, t({2, 4}),
         "operand shape 3x4 does not broadcast to 2x4"},
        {"broadcast dtype", OpKind::Broadcast, {t({4})}, {}, t({2, 4}, F16),
         "broadcast keeps the dtype"},
        {"fill value", OpKind::Fill, {}, {}, t({2}), "missing attribute 'value'"},
        {"fill undeclared", OpKind::Fill, {}, attrs({{"value", 1.0}}), {},
         "needs a declared result type"},
        {"vec_tile sizes", OpKind::VecTile, {}, attrs({{"sizes", Ints{1, 1, 1, 1, 1, 1, 1}}}), {},
         "vec_tile: needs 0 to 6 sizes, got 7"},
        {"vec_tile positive", OpKind::VecTile, {}, attrs({{"sizes", Ints{16, 0}}}), {},
         "sizes must be positive"},
        {"vec_tile missing", OpKind::VecTile, {}, {}, {}, "missing attribute 'sizes'"},
        {"cube_tile count", OpKind::CubeTile, {}, attrs({{"sizes", Ints{128, 128}}}), {},
         "needs [mL0, mL1], [kL0, kL1], [nL0, nL1], got 2 sizes"},
        {"cube_tile order", OpKind::CubeTile, {},
         attrs({{"sizes", Ints{128, 64, 64, 64, 128, 128}}}), {},
         "m L1 size 64 must be a multiple of (and at least) the L0 size 128"},
        {"cube_tile positive", OpKind::CubeTile, {},
         attrs({{"sizes", Ints{128, 128, 0, 64, 128, 128}}}), {},
         "k sizes [0, 64] must be positive"},
        {"directive type", OpKind::VecTile, {}, attrs({{"sizes", Ints{4}}}), t({4}),
         "is a directive"},
        {"tensor-level space", OpKind::Cast, {t({4})}, {}, ub({4}),
         "Tensor-level values have no memory space"},
        // Tile level.
        {"tile gm operand", OpKind::Exp, {gm({16, 16})}, {}, {},
         "operand 0 is a GM tensor (tensor<16x16xf32>); Tile-level compute ops take tiles", Tile},
        {"tile result gm", OpKind::Exp, {ub({16, 16})}, {}, gm({16, 16}),
         "result must be an on-chip tile", Tile},
        {"gm_tensor tile", OpKind::GmTensor, {}, {}, ub({4}), "result must be a GM tensor", Tile},
        {"tload source", OpKind::TLoad, {ub({16, 16})}, {}, ub({16, 16}),
         "source must be a GM tensor, found tile<16x16xf32, UB>", Tile},
        {"tload result", OpKind::TLoad, {gm({16, 16})}, {}, gm({16, 16}),
         "result must be an on-chip tile (tile<...>), found tensor<16x16xf32> (a GM tensor)", Tile},
        {"tload dtype", OpKind::TLoad, {gm({16, 16})}, {}, ub({16, 16}, F16),
         "tload keeps the dtype", Tile},
        {"tload bounds", OpKind::TLoad, {gm({64, 1024})}, attrs({{"offset", Ints{56, 0}}}),
         ub({16, 1024}),
         "tile 16x1024 at offset [56, 0] exceeds the tensor 64x1024 (dim 0: 56 + 16 > 64)", Tile},
        {"tload bigger", OpKind::TLoad, {gm({8, 8})}, {}, ub({16, 8}), "exceeds the tensor 8x8",
         Tile},
        {"tload offset rank", OpKind::TLoad, {gm({8, 8})}, attrs({{"offset", Ints{0}}}), ub({8, 8}),
         "offset [0] has 1 entries, but the tensor 8x8 has rank 2", Tile},
        {"tload negative", OpKind::TLoad, {gm({8, 8})}, attrs({{"offset", Ints{-1, 0}}}),
         ub({4, 8}), "is negative in dim 0", Tile},
        {"tload rank", OpKind::TLoad, {gm({8, 8})}, attrs({{"offset", Ints{4, 0}}}), ub({16}),
         "tile 16 at offset [4, 0] exceeds the tensor 8x8 viewed as 8x8 (rows x cols)", Tile},
        {"tload rank rows", OpKind::TLoad, {gm({2, 4, 8})}, attrs({{"offset", Ints{1, 2, 0}}}),
         ub({4, 8}), "exceeds the tensor 2x4x8 viewed as 8x8 (rows x cols)", Tile},
        {"tload undeclared", OpKind::TLoad, {gm({8, 8})}, {}, {},
         "needs a declared result type (write ': tile<...>'", Tile},
        {"tstore dest", OpKind::TStore, {ub({8, 8}), ub({8, 8})}, {}, {},
         "destination must be a GM tensor", Tile},
        {"tstore source", OpKind::TStore, {gm({8, 8}), gm({8, 8})}, {}, {},
         "operand 0 must be a tile", Tile},
        {"tstore dtype", OpKind::TStore, {ub({8, 8}, F16), gm({8, 8})}, {}, {},
         "tstore keeps the dtype", Tile},
        {"tstore type", OpKind::TStore, {ub({8, 8}), gm({8, 8})}, {}, ub({8, 8}), "has no result",
         Tile},
        {"tmove gm", OpKind::TMove, {gm({8, 8})}, {}, ub({8, 8}), "use tload", Tile},
        {"tmove dtype", OpKind::TMove, {ub({8, 8})}, {}, ub({8, 8}, F16), "tmove keeps the dtype",
         Tile},
        {"matmul_acc shape", OpKind::MatmulAcc,
         {t({8, 8}, F32, MemSpace::L0C), t({16, 4}, F16), t({4, 8}, F16)}, {}, {},
         "accumulator tile<8x8xf32, L0C> does not match the product shape 16x8", Tile},
        {"matmul_acc dtype", OpKind::MatmulAcc, {t({8, 8}, I8), t({8, 4}, F16), t({4, 8}, F16)}, {},
         {}, "accumulator dtype i8 is not allowed for f16 inputs", Tile},
        {"matmul_acc declared", OpKind::MatmulAcc,
         {t({8, 8}, F32, MemSpace::L0C), t({8, 4}, F16), t({4, 8}, F16)}, {}, t({8, 8}, F16),
         "differs from the accumulator type", Tile},
    };
    // clang-format on
}

TEST(ShapeInference, EveryOpKindInfers) {
    std::vector<bool> covered(size_t(opKindCount()), false);
    for (const Case& c : validCases()) {
        EXPECT_EQ(run(c), c.expect) << c.name;
        covered[size_t(c.kind)] = true;
    }
    // for and call type their results from their body or callee (Verifier.cpp), not here.
    for (int k = 0; k < opKindCount(); ++k)
        EXPECT_TRUE(covered[size_t(k)] || isControl(OpKind(k)))
            << "no case for " << opName(OpKind(k));
}

TEST(ShapeInference, LoopsAndCallsAreNotInferred) {
    for (OpKind k : {OpKind::For, OpKind::Call}) {
        EXPECT_FALSE(opHasResult(k)) << opName(k);
        EXPECT_THROW(inferResultType(Level::Tensor, k, {}, Attrs{}, nullptr), ShapeError)
            << opName(k);
    }
}

TEST(ShapeInference, EveryErrorIsReported) {
    for (const Case& c : errorCases()) {
        std::string got = run(c);
        EXPECT_TRUE(got.starts_with("error: ")) << c.name << ": got " << got;
        std::string want = c.expect.starts_with("error: ") ? c.expect.substr(7) : c.expect;
        EXPECT_NE(got.find(want), std::string::npos) << c.name << ": got " << got;
    }
}

TEST(ShapeInference, ShapeErrorCarriesKindAndDetail) {
    try {
        inferResultType(Level::Tensor, OpKind::Add, std::vector<Type>{t({2}), t({3})}, {}, nullptr);
        FAIL();
    } catch (const ShapeError& e) {
        EXPECT_EQ(e.kind(), OpKind::Add);
        EXPECT_EQ(e.detail(), "operand shapes 2 and 3 do not broadcast (dim 0: 2 vs 3)");
        EXPECT_EQ(std::string(e.what()), "add: " + e.detail());
    }
}

TEST(ShapeInference, NormalizeAttrs) {
    Attrs a = attrs({{"axis", int64_t(-1)}, {"keepdim", false}});
    std::vector<Type> in{t({4, 8})};
    normalizeAttrs(OpKind::ReduceSum, in, a);
    EXPECT_EQ(a.getInt("axis"), 1);
    EXPECT_FALSE(a.has("keepdim"));
    Attrs s = attrs({{"scalar", int64_t(3)}});
    normalizeAttrs(OpKind::MulS, in, s);
    EXPECT_TRUE(std::holds_alternative<double>(*s.find("scalar")));
    Attrs bad = attrs({{"axis", int64_t(-7)}});
    normalizeAttrs(OpKind::Softmax, in, bad);
    EXPECT_EQ(bad.getInt("axis"), -7); // left for inference to report
}

TEST(ShapeInference, DeclaredTypeIsDefault) {
    Function f;
    ValueId x = f.addArg(t({4, 4}, F16), "x");
    Op op;
    op.kind = OpKind::Exp;
    op.operands = {x};
    Type same = t({4, 4}, F16);
    OpId a = f.addOp(op, &same, "a");
    EXPECT_TRUE(declaredTypeIsDefault(f, f.op(a)));
    op.kind = OpKind::Cast;
    Type wide = t({4, 4}, F32);
    OpId b = f.addOp(op, &wide, "b");
    EXPECT_FALSE(declaredTypeIsDefault(f, f.op(b)));
}

TEST(ShapeInference, OperandCountRanges) {
    EXPECT_EQ(operandCountRange(OpKind::Add), (std::pair<int, int>{2, 2}));
    EXPECT_EQ(operandCountRange(OpKind::RmsNorm), (std::pair<int, int>{1, 2}));
    EXPECT_EQ(operandCountRange(OpKind::Fill), (std::pair<int, int>{0, 0}));
    EXPECT_FALSE(opHasResult(OpKind::TStore));
    EXPECT_FALSE(opHasResult(OpKind::VecTile));
    EXPECT_TRUE(opHasResult(OpKind::TLoad));
}

// --- NumPy as an independent reference ---------------------------------------------------

std::string shapeList(const Shape& s) {
    std::string out;
    for (int i = 0; i < s.rank(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
    return out.empty() ? "-" : out;
}

Shape randomShape(std::mt19937& rng, int minRank, int maxRank, int maxDim) {
    Shape s;
    int rank = std::uniform_int_distribution<int>(minRank, maxRank)(rng);
    for (int i = 0; i < rank; ++i) s.push(std::uniform_int_distribution<int>(1, maxDim)(rng));
    return s;
}

// One random case: the line NumPy reads and the result our inference gives.
struct NumpyCase {
    std::string line;
    std::string ours;
};

std::string ourShape(OpKind kind, std::vector<Type> in, const Attrs& a) {
    try {
        return shapeList(inferResultType(Level::Tensor, kind, in, a, nullptr).shape);
    } catch (const ShapeError&) {
        return "error";
    }
}

std::vector<NumpyCase> numpyCases() {
    std::mt19937 rng(1234);
    std::vector<NumpyCase> cases;
    auto coin = [&] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };
    for (int i = 0; i < 300; ++i) {
        Shape a = randomShape(rng, 0, 4, 3), b = randomShape(rng, 0, 4, 3);
        cases.push_back({"bcast " + shapeList(a) + " " + shapeList(b),
                         ourShape(OpKind::Add, {t(a), t(b)}, {})});
    }
    for (int i = 0; i < 200; ++i) {
        Shape a = randomShape(rng, 2, 3, 4);
        Shape b = a;
        for (int d = 0; d < b.rank(); ++d)
            if (d >= b.rank() - 2) b[d] = std::uniform_int_distribution<int>(1, 4)(rng);
        bool ta = coin(), tb = coin();
        Attrs at;
        if (ta) at.set("transpose_a", true);
        if (tb) at.set("transpose_b", true);
        cases.push_back({"matmul " + shapeList(a) + " " + shapeList(b) + " " + std::to_string(ta) +
                             " " + std::to_string(tb),
                         ourShape(OpKind::Matmul, {t(a), t(b)}, at)});
    }
    for (int i = 0; i < 200; ++i) {
        Shape a = randomShape(rng, 1, 4, 4);
        int64_t axis = std::uniform_int_distribution<int>(-a.rank() - 1, a.rank())(rng);
        bool keep = coin();
        Attrs at;
        at.set("axis", axis);
        if (keep) at.set("keepdim", true);
        cases.push_back(
            {"reduce " + shapeList(a) + " " + std::to_string(axis) + " " + std::to_string(keep),
             ourShape(OpKind::ReduceSum, {t(a)}, at)});
    }
    for (int i = 0; i < 200; ++i) {
        Shape a = randomShape(rng, 1, 4, 4);
        std::vector<int64_t> perm;
        for (int d = 0; d < a.rank(); ++d) perm.push_back(d);
        std::shuffle(perm.begin(), perm.end(), rng);
        if (coin() && coin()) perm.back() = std::uniform_int_distribution<int>(0, a.rank())(rng);
        Attrs at;
        at.set("perm", perm);
        std::string p;
        for (int64_t v : perm) p += (p.empty() ? "" : ",") + std::to_string(v);
        cases.push_back(
            {"transpose " + shapeList(a) + " " + p, ourShape(OpKind::Transpose, {t(a)}, at)});
    }
    for (int i = 0; i < 200; ++i) {
        Shape a = randomShape(rng, 1, 3, 3);
        Shape b = a;
        int64_t axis = std::uniform_int_distribution<int>(-a.rank(), a.rank() - 1)(rng);
        for (int d = 0; d < b.rank(); ++d)
            if (coin() && coin()) b[d] = std::uniform_int_distribution<int>(1, 3)(rng);
        Attrs at;
        at.set("axis", axis);
        cases.push_back({"concat " + shapeList(a) + " " + shapeList(b) + " " + std::to_string(axis),
                         ourShape(OpKind::Concat, {t(a), t(b)}, at)});
    }
    return cases;
}

constexpr const char* kNumpyScript = R"PY(
import sys
import numpy as np
def shape(s):
    return () if s == '-' else tuple(int(x) for x in s.split(','))
def fmt(s):
    return ','.join(str(d) for d in s) if len(s) else '-'
for line in open(sys.argv[1]):
    w = line.split()
    try:
        if w[0] == 'bcast':
            r = np.broadcast_shapes(shape(w[1]), shape(w[2]))
        elif w[0] == 'matmul':
            a = np.empty(shape(w[1])); b = np.empty(shape(w[2]))
            if w[3] == '1': a = np.swapaxes(a, -1, -2)
            if w[4] == '1': b = np.swapaxes(b, -1, -2)
            r = np.matmul(a, b).shape
        elif w[0] == 'reduce':
            r = np.sum(np.empty(shape(w[1])), axis=int(w[2]), keepdims=w[3] == '1').shape
        elif w[0] == 'transpose':
            r = np.transpose(np.empty(shape(w[1])), [int(p) for p in w[2].split(',')]).shape
        elif w[0] == 'concat':
            r = np.concatenate([np.empty(shape(w[1])), np.empty(shape(w[2]))], axis=int(w[3])).shape
        print(fmt(r))
    except Exception:
        print('error')
)PY";

TEST(ShapeInference, AgreesWithNumpy) {
    if (std::system("/usr/bin/python3 -c 'import numpy' > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "python3 with numpy not available";
    std::vector<NumpyCase> cases = numpyCases();
    std::string dir = testing::TempDir();
    std::string casesPath = dir + "/pto_shape_cases.txt", scriptPath = dir + "/pto_shapes.py";
    {
        std::ofstream(scriptPath) << kNumpyScript;
        std::ofstream out(casesPath);
        for (const NumpyCase& c : cases) out << c.line << "\n";
    }
    std::string cmd = "/usr/bin/python3 " + scriptPath + " " + casesPath;
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string output;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
    ASSERT_EQ(pclose(pipe), 0);
    std::istringstream lines(output);
    std::string want;
    size_t i = 0;
    for (; std::getline(lines, want) && i < cases.size(); ++i)
        EXPECT_EQ(cases[i].ours, want) << cases[i].line;
    EXPECT_EQ(i, cases.size());
    // Both outcomes are exercised.
    auto errors = std::count_if(cases.begin(), cases.end(),
                                [](const NumpyCase& c) { return c.ours == "error"; });
    EXPECT_GT(errors, 100);
    EXPECT_GT(long(cases.size()) - errors, 400);
}

} // namespace
} // namespace pto
