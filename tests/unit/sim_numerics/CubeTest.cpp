// The cube path end to end on one AIC core: TLOAD GM->L1, TEXTRACT L1->L0A/L0B, TMATMUL then
// TMATMUL_ACC over k tiles, TSTORE L0C->GM; bit-exact against NumPy's f32 accumulation in k
// order (an np.float32 loop over k per k-tile, tiles added in order), for f16, bf16, f32 and
// the transpose flags; i8 inputs exactly in int32 against NumPy's int64 matmul (k up to 4096).
#include <gtest/gtest.h>

#include "tests/support/TestTensors.h"
#include "tests/unit/sim_numerics/SimTestSupport.h"

namespace pto::simtest {
namespace {

struct MatmulCase {
    DType in = DType::F16;
    DType out = DType::F32; // the GM output (TSTORE from L0C rounds to it)
    int32_t m = 32, k = 48, n = 40;
    int32_t kSplit = 32; // TMATMUL over k [0, kSplit), TMATMUL_ACC over the rest
    bool transposeA = false, transposeB = false;
    bool extractTransposesB = false; // GM holds B^T; TEXTRACT transposes it into L0B
    bool fourOperandAcc = false;     // TMATMUL_ACC dst, acc, a, b instead of dst(=acc), a, b
};

// The stored shape of an operand (transposed storage swaps it).
Shape stored(int32_t rows, int32_t cols, bool transposed) {
    return transposed ? Shape{cols, rows} : Shape{rows, cols};
}

// A k-range [k0, k0 + kLen) of A or B as a box of its stored GM tensor.
Operand kSlice(const ProgramBuilder& b, size_t g, bool isA, bool transposed, int32_t k0,
               int32_t kLen, int32_t other) {
    // A: [m x k] (stored [k x m] when transposed); B: [k x n] (stored [n x k]).
    const bool kIsCols = isA != transposed;
    return kIsCols ? b.gmBox(g, 0, k0, other, kLen) : b.gmBox(g, k0, 0, kLen, other);
}

using test::extremeInt8;

TensorData runMatmul(const MatmulCase& c, const TensorData& a, const TensorData& bData) {
    ProgramBuilder b(CoreType::AIC);
    const DType acc = c.in == DType::I8 ? DType::I32 : DType::F32;
    const bool bStoredT = c.transposeB || c.extractTransposesB;
    const size_t ga = b.addGm("a", c.in, a.shape, GmRole::Input);
    const size_t gb = b.addGm("b", c.in, bData.shape, GmRole::Input);
    const size_t gc = b.addGm("c", c.out, Shape{c.m, c.n}, GmRole::Output);
    const Operand l0c = b.alloc(MemSpace::L0C, acc, c.m, c.n);
    for (int32_t k0 = 0; k0 < c.k; k0 += c.kSplit) {
        const int32_t kl = std::min(c.kSplit, c.k - k0);
        const Operand ga1 = kSlice(b, ga, true, c.transposeA, k0, kl, c.m);
        const Operand gb1 = kSlice(b, gb, false, bStoredT, k0, kl, c.n);
        const Operand l1a = b.alloc(MemSpace::L1, c.in, ga1.rows, ga1.cols);
        const Operand l1b = b.alloc(MemSpace::L1, c.in, gb1.rows, gb1.cols);
        b.emit(Opcode::TLoad, Pipe::MTE2, {l1a, ga1});
        b.emit(Opcode::TLoad, Pipe::MTE2, {l1b, gb1});
        const Operand l0a = b.alloc(MemSpace::L0A, c.in, l1a.rows, l1a.cols);
        const Operand l0b = c.extractTransposesB ? b.alloc(MemSpace::L0B, c.in, l1b.cols, l1b.rows)
                                                 : b.alloc(MemSpace::L0B, c.in, l1b.rows, l1b.cols);
        b.emit(Opcode::TExtract, Pipe::MTE1, {l0a, l1a});
        Instr& ex = b.emit(Opcode::TExtract, Pipe::MTE1, {l0b, l1b});
        ex.transposeB = c.extractTransposesB;
        const bool first = k0 == 0;
        Instr& mm = first              ? b.emit(Opcode::TMatmul, Pipe::M, {l0c, l0a, l0b})
                    : c.fourOperandAcc ? b.emit(Opcode::TMatmulAcc, Pipe::M, {l0c, l0c, l0a, l0b})
                                       : b.emit(Opcode::TMatmulAcc, Pipe::M, {l0c, l0a, l0b});
        mm.transposeA = c.transposeA;
        mm.transposeB = c.transposeB;
    }
    b.emit(Opcode::TStore, Pipe::FIX, {b.gmAll(gc), l0c});
    const std::vector<TensorData> inputs{a, bData};
    return runProgram(b.program(), inputs, ExecOptions{true, {}}).tensor("c");
}

void checkMatmul(const MatmulCase& c) {
    const double lo = c.in == DType::I8 ? -128 : -2;
    const double hi = c.in == DType::I8 ? 127 : 2;
    const TensorData a = randomTensor(c.in, stored(c.m, c.k, c.transposeA), 40, {lo, hi});
    const TensorData b =
        randomTensor(c.in, stored(c.k, c.n, c.transposeB || c.extractTransposesB), 41, {lo, hi});
    const TensorData got = runMatmul(c, a, b);
    const nlohmann::json extra = {{"transpose_a", c.transposeA},
                                  {"transpose_b", c.transposeB || c.extractTransposesB},
                                  {"k_split", c.kSplit}};
    const TensorData want = reference("MATMUL", {a, b}, c.out, Shape{c.m, c.n}, extra);
    EXPECT_TRUE(bitExact(got, want)) << dtypeName(c.in) << " -> " << dtypeName(c.out);
}

TEST(SimCube, F16MatmulAccumulatesInF32InKOrder) {
    REQUIRE_NUMPY();
    checkMatmul({});
}

TEST(SimCube, AccumulateAddsEachKTilesPartialProduct) {
    REQUIRE_NUMPY();
    // TMATMUL_ACC computes its k-tile's product from 0 and adds it to L0C (the Tile
    // interpreter's matmul_acc): 5 k-tiles of 16, in both operand forms.
    MatmulCase c;
    c.in = DType::F32;
    c.k = 80;
    c.kSplit = 16;
    checkMatmul(c);
    c.fourOperandAcc = true;
    checkMatmul(c);
}

TEST(SimCube, Bf16AndF32Inputs) {
    REQUIRE_NUMPY();
    MatmulCase c;
    c.in = DType::BF16;
    checkMatmul(c);
    c.in = DType::F32;
    checkMatmul(c);
}

TEST(SimCube, StoreFromL0CRoundsToTheGmDType) {
    REQUIRE_TORCH();
    MatmulCase c;
    c.out = DType::F16;
    checkMatmul(c);
    c.in = DType::BF16;
    c.out = DType::BF16;
    checkMatmul(c);
}

TEST(SimCube, Int8AccumulatesExactlyInInt32) {
    REQUIRE_NUMPY();
    MatmulCase c;
    c.in = DType::I8;
    c.out = DType::I32;
    checkMatmul(c);
}

TEST(SimCube, Int8AtK4096WithExtremeValuesIsExact) {
    REQUIRE_NUMPY();
    // 16×4096 · 4096×16 in 4 k tiles (TMATMUL, then 3 TMATMUL_ACC into the i32 L0C), TSTORE
    // to i32 GM: exact against NumPy's int64 matmul although the sums reach ±2^26.
    MatmulCase c;
    c.in = DType::I8;
    c.out = DType::I32;
    c.m = 16;
    c.k = 4096;
    c.n = 16;
    c.kSplit = 1024;
    const TensorData a = extremeInt8(c.m, c.k, false, 1);
    const TensorData b = extremeInt8(c.k, c.n, true, 2);
    const TensorData got = runMatmul(c, a, b);
    const nlohmann::json extra = {
        {"transpose_a", false}, {"transpose_b", false}, {"k_split", c.kSplit}};
    EXPECT_TRUE(bitExact(got, reference("MATMUL", {a, b}, c.out, Shape{c.m, c.n}, extra)));
    EXPECT_EQ(got.get(0), float(4096 * 127 * 127)); // row 0 · column 0, not an f32 running sum
}

TEST(SimCube, TransposeFlags) {
    REQUIRE_NUMPY();
    MatmulCase c;
    c.transposeA = true;
    checkMatmul(c);
    c.transposeA = false;
    c.transposeB = true;
    checkMatmul(c);
    c.transposeA = true;
    checkMatmul(c);
}

TEST(SimCube, ExtractWithTransposeFlagTransposesTheTile) {
    REQUIRE_NUMPY();
    MatmulCase c;
    c.extractTransposesB = true;
    checkMatmul(c);
}

} // namespace
} // namespace pto::simtest
