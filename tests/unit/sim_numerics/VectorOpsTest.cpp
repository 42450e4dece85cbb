// Every vector-pipe opcode on real data against an independent NumPy computation: elementwise,
// tile-scalar, compare/select, conversions (rounding modes, i8 saturation, bf16 RNE),
// row/column reductions, broadcasting forms, transposes and fills.
#include <gtest/gtest.h>

#include "tests/unit/sim_numerics/SimTestSupport.h"

#include <random>

namespace pto::simtest {
namespace {

constexpr int32_t kRows = 16;
constexpr int32_t kCols = 64;

TensorData random2d(DType dtype, int32_t rows, int32_t cols, uint64_t seed, double lo = -1.0,
                    double hi = 1.0) {
    return randomTensor(dtype, Shape{rows, cols}, seed, RandomRange{lo, hi});
}

// Small integers as floats: many equal pairs for comparisons and exact .5 ties for rounding.
TensorData steps(DType dtype, int32_t rows, int32_t cols, uint64_t seed, int lo, int hi,
                 float scale) {
    std::mt19937 rng{static_cast<uint32_t>(seed)};
    std::uniform_int_distribution<int> dist(lo, hi);
    std::vector<float> values(size_t(rows * cols));
    for (float& v : values) v = float(dist(rng)) * scale;
    return TensorData::fromFloats(dtype, Shape{rows, cols}, values);
}

VecCase vec(Opcode op, std::vector<TensorData> inputs, DType out, int32_t rows = kRows,
            int32_t cols = kCols) {
    VecCase c;
    c.op = op;
    c.inputs = std::move(inputs);
    c.outDType = out;
    c.rows = rows;
    c.cols = cols;
    return c;
}

// Cases collected by a test and checked together against one Python run of the reference.
class Cases {
public:
    void exact(VecCase c) { add(std::move(c), 0); }
    void within(VecCase c, int64_t ulps) { add(std::move(c), ulps); }

    void check() const {
        std::vector<RefRequest> requests;
        for (const VecCase& c : m_cases) requests.push_back(request(c));
        const std::vector<TensorData> want = references(requests);
        for (size_t i = 0; i < m_cases.size(); ++i)
            EXPECT_TRUE(withinUlps(runVectorCase(m_cases[i]), want[i], m_ulps[i]))
                << "case " << i << ": " << opcodeName(m_cases[i].op) << " " << m_cases[i].mode;
    }

private:
    void add(VecCase c, int64_t ulps) {
        m_cases.push_back(std::move(c));
        m_ulps.push_back(ulps);
    }
    std::vector<VecCase> m_cases;
    std::vector<int64_t> m_ulps;
};

// --- Elementwise binary -------------------------------------------------------------------------

struct DTypeParam {
    DType dtype;
    const char* name;
};

class SimBinaryOps : public ::testing::TestWithParam<DTypeParam> {};

// f32 arithmetic (IEEE, correctly rounded in C++ and NumPy), then one RNE rounding to the
// dtype: bit-exact for every dtype.
TEST_P(SimBinaryOps, MatchNumpyBitExact) {
    REQUIRE_NUMPY();
    const DType dt = GetParam().dtype;
    if (dt == DType::BF16) REQUIRE_TORCH();
    Cases cases;
    const TensorData a = random2d(dt, kRows, kCols, 1, -4, 4);
    const TensorData b = random2d(dt, kRows, kCols, 2, -4, 4);
    for (Opcode op :
         {Opcode::TAdd, Opcode::TSub, Opcode::TMul, Opcode::TDiv, Opcode::TMax, Opcode::TMin})
        cases.exact(vec(op, {a, b}, dt));
    cases.check();
}

INSTANTIATE_TEST_SUITE_P(DTypes, SimBinaryOps,
                         ::testing::Values(DTypeParam{DType::F16, "f16"},
                                           DTypeParam{DType::F32, "f32"},
                                           DTypeParam{DType::BF16, "bf16"}),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(SimVectorOps, MixedInputDTypesComputeInF32) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData a = random2d(DType::F16, kRows, kCols, 3);
    const TensorData b = random2d(DType::F32, kRows, kCols, 4);
    cases.exact(vec(Opcode::TMul, {a, b}, DType::F16));
    cases.check();
}

TEST(SimVectorOps, Int8ArithmeticSaturates) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData a = random2d(DType::I8, kRows, kCols, 5, -128, 127);
    const TensorData b = random2d(DType::I8, kRows, kCols, 6, -128, 127);
    for (Opcode op : {Opcode::TAdd, Opcode::TSub, Opcode::TMul})
        cases.exact(vec(op, {a, b}, DType::I8));
    // 100 + 100 = 200 -> 127, -100 - 100 -> -128.
    const TensorData big =
        TensorData::fromFloats(DType::I8, Shape{1, 2}, std::vector{100.f, -100.f});
    const TensorData got = runVectorCase(vec(Opcode::TAdd, {big, big}, DType::I8, 1, 2));
    EXPECT_EQ(got.get(0), 127.0f);
    EXPECT_EQ(got.get(1), -128.0f);
    cases.check();
}

// --- Unary --------------------------------------------------------------------------------------

TEST(SimVectorOps, UnaryCorrectlyRoundedOpsAreBitExact) {
    REQUIRE_NUMPY();
    Cases cases;
    // sqrt and division are correctly rounded IEEE operations in both C++ and NumPy.
    const TensorData pos = random2d(DType::F16, kRows, kCols, 7, 0.01, 8);
    const TensorData any = random2d(DType::F16, kRows, kCols, 8, -8, 8);
    for (Opcode op : {Opcode::TSqrt, Opcode::TRsqrt, Opcode::TRecip})
        cases.exact(vec(op, {pos}, DType::F16));
    for (Opcode op : {Opcode::TAbs, Opcode::TNeg, Opcode::TRelu, Opcode::TRecip})
        cases.exact(vec(op, {any}, DType::F16));
    const TensorData pos32 = random2d(DType::F32, kRows, kCols, 9, 0.01, 8);
    for (Opcode op : {Opcode::TSqrt, Opcode::TRsqrt, Opcode::TRecip})
        cases.exact(vec(op, {pos32}, DType::F32));
    cases.check();
}

// exp and log are not correctly rounded in f32: the simulator uses glibc's expf/logf
// (Semantics.h), which are within 1 ulp of the correctly rounded result (measured: 116 of 200 000
// random inputs are 1 ulp off, none more). The reference is the correctly rounded f32 value
// (float64 exp/log rounded once), so the f32 results are within 1 ulp; an f16 result, rounded
// from those f32 values, can move by one f16 ulp only when the f32 values straddle an f16 tie.
// (NumPy's own f32 exp/log are SIMD approximations up to 2 ulp off, so they are not used.)
TEST(SimVectorOps, ExpAndLogWithinOneUlp) {
    REQUIRE_NUMPY();
    Cases cases;
    for (DType dt : {DType::F16, DType::F32}) {
        const TensorData x = random2d(dt, kRows, kCols, 10, -8, 8);
        const TensorData pos = random2d(dt, kRows, kCols, 11, 0.001, 100);
        cases.within(vec(Opcode::TExp, {x}, dt), 1);
        cases.within(vec(Opcode::TLog, {pos}, dt), 1);
    }
    cases.check();
}

// --- Tile-scalar --------------------------------------------------------------------------------

TEST(SimVectorOps, ScalarOpsRoundTheScalarToF32First) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData a = random2d(DType::F16, kRows, kCols, 12, -4, 4);
    for (Opcode op : {Opcode::TAddS, Opcode::TSubS, Opcode::TMulS, Opcode::TDivS, Opcode::TMaxS,
                      Opcode::TMinS}) {
        VecCase c = vec(op, {a}, DType::F16);
        c.scalar = 0.3; // not exact in f32: the f32 nearest is used
        cases.exact(c);
    }
    VecCase i8 = vec(Opcode::TMulS, {random2d(DType::I8, kRows, kCols, 13, -128, 127)}, DType::I8);
    i8.scalar = 3.0; // saturates
    cases.exact(i8);
    cases.check();
}

TEST(SimVectorOps, ExpandSFillsWithTheRoundedScalar) {
    REQUIRE_NUMPY();
    Cases cases;
    VecCase f16 = vec(Opcode::TExpandS, {}, DType::F16);
    f16.scalar = 0.1;
    cases.exact(f16);
    VecCase i8 = vec(Opcode::TExpandS, {}, DType::I8);
    i8.scalar = 300.0; // saturates to 127
    cases.exact(i8);
    EXPECT_EQ(runVectorCase(i8).get(0), 127.0f);
    cases.check();
}

// --- Compare and select -------------------------------------------------------------------------

TEST(SimVectorOps, CompareEveryPredicateGivesI1) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData a = steps(DType::F16, kRows, kCols, 14, -3, 3, 0.5f);
    const TensorData b = steps(DType::F16, kRows, kCols, 15, -3, 3, 0.5f);
    for (const char* pred : {"eq", "ne", "lt", "le", "gt", "ge"}) {
        VecCase c = vec(Opcode::TCmp, {a, b}, DType::Bool);
        c.mode = pred;
        cases.exact(c);
        VecCase s = vec(Opcode::TCmpS, {a}, DType::Bool);
        s.mode = pred;
        s.scalar = 0.5;
        cases.exact(s);
    }
    cases.check();
}

TEST(SimVectorOps, SelectPicksByCondition) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData cond = random2d(DType::Bool, kRows, kCols, 16);
    const TensorData a = random2d(DType::F16, kRows, kCols, 17);
    const TensorData b = random2d(DType::F16, kRows, kCols, 18);
    cases.exact(vec(Opcode::TSel, {cond, a, b}, DType::F16));
    // The condition broadcast per row ([r x 1]) and the else-branch per column ([1 x c]).
    const TensorData rowCond = random2d(DType::Bool, kRows, 1, 19);
    const TensorData colB = random2d(DType::F16, 1, kCols, 20);
    cases.exact(vec(Opcode::TSel, {rowCond, a, colB}, DType::F16));
    cases.check();
}

// --- Conversions --------------------------------------------------------------------------------

TEST(SimVectorOps, CvtToIntegersInEveryRoundingModeSaturates) {
    REQUIRE_NUMPY();
    Cases cases;
    // Multiples of 0.25 in [-300, 300]: exact ties for rne/rna, and values beyond int8.
    const TensorData x = steps(DType::F32, kRows, kCols, 21, -1200, 1200, 0.25f);
    for (const char* mode : {"rne", "trunc", "floor", "ceil", "rna"}) {
        for (DType out : {DType::I8, DType::I32}) {
            VecCase c = vec(Opcode::TCvt, {x}, out);
            c.mode = mode;
            cases.exact(c);
        }
    }
    cases.check();
}

TEST(SimVectorOps, CvtBetweenFloatsRoundsToNearestEven) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData x = random2d(DType::F32, kRows, kCols, 22, -70000, 70000); // f16 overflow
    cases.exact(vec(Opcode::TCvt, {x}, DType::F16));
    const TensorData h = random2d(DType::F16, kRows, kCols, 23, -10, 10);
    cases.exact(vec(Opcode::TCvt, {h}, DType::F32));
    const TensorData i = random2d(DType::I32, kRows, kCols, 24, -100000, 100000);
    cases.exact(vec(Opcode::TCvt, {i}, DType::F16));
    const TensorData q = random2d(DType::I8, kRows, kCols, 25, -128, 127);
    cases.exact(vec(Opcode::TCvt, {q}, DType::F32));
    cases.check();
}

TEST(SimVectorOps, Bf16RoundsToNearestEven) {
    REQUIRE_TORCH();
    Cases cases;
    const TensorData x = random2d(DType::F32, kRows, kCols, 26, -1000, 1000);
    cases.exact(vec(Opcode::TCvt, {x}, DType::BF16));
    // Exact ties: 1 + 2^-8 (halfway between bf16 1 and 1 + 2^-7) and 1 + 3·2^-8.
    const TensorData ties =
        TensorData::fromFloats(DType::F32, Shape{1, 2}, std::vector{1.00390625f, 1.01171875f});
    const TensorData got = runVectorCase(vec(Opcode::TCvt, {ties}, DType::BF16, 1, 2));
    EXPECT_EQ(got.get(0), 1.0f);      // tie to even (down)
    EXPECT_EQ(got.get(1), 1.015625f); // tie to even (up)
    cases.exact(vec(Opcode::TCvt, {ties}, DType::BF16, 1, 2));
    cases.exact(vec(Opcode::TAdd,
                    {random2d(DType::BF16, kRows, kCols, 41, -4, 4),
                     random2d(DType::BF16, kRows, kCols, 42, -4, 4)},
                    DType::BF16));
    cases.check();
}

// --- Reductions ---------------------------------------------------------------------------------

TEST(SimVectorOps, RowAndColumnReductionsFoldInIndexOrder) {
    REQUIRE_NUMPY();
    Cases cases;
    for (DType dt : {DType::F16, DType::F32}) {
        const TensorData x = random2d(dt, kRows, kCols, 27, -10, 10);
        for (Opcode op : {Opcode::TRowSum, Opcode::TRowMax, Opcode::TRowMin})
            cases.exact(vec(op, {x}, dt, kRows, 1));
        for (Opcode op : {Opcode::TColSum, Opcode::TColMax, Opcode::TColMin})
            cases.exact(vec(op, {x}, dt, 1, kCols));
    }
    // f16 input summed in f32 and rounded once: differs from an f16 running sum.
    const TensorData ones =
        TensorData::fromFloats(DType::F16, Shape{1, 4}, std::vector{2048.f, 1.f, 1.f, 1.f});
    EXPECT_EQ(runVectorCase(vec(Opcode::TRowSum, {ones}, DType::F16, 1, 1)).get(0), 2052.0f);
    cases.check();
}

// --- Broadcasting -------------------------------------------------------------------------------

TEST(SimVectorOps, BinaryOpsBroadcastRowsColumnsAndScalars) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData full = random2d(DType::F16, kRows, kCols, 28, -4, 4);
    const TensorData col = random2d(DType::F16, kRows, 1, 29, 0.5, 4); // [r x 1]
    const TensorData row = random2d(DType::F16, 1, kCols, 30, 0.5, 4); // [1 x c]
    const TensorData one = random2d(DType::F16, 1, 1, 31, 0.5, 4);     // [1 x 1]
    for (Opcode op : {Opcode::TAdd, Opcode::TSub, Opcode::TMul, Opcode::TDiv, Opcode::TMax}) {
        cases.exact(vec(op, {full, col}, DType::F16));
        cases.exact(vec(op, {full, row}, DType::F16));
        cases.exact(vec(op, {full, one}, DType::F16));
        cases.exact(vec(op, {row, full}, DType::F16)); // the first operand broadcasts too
        cases.exact(vec(op, {col, row}, DType::F16));  // outer product form
    }
    cases.check();
}

// The codegen's form of a [1 x c] / [1 x 1] broadcast: the source has the destination's rows and
// row stride 0 (EmitPto: TADD, TMULS by 1, TROWEXPAND).
TEST(SimVectorOps, StrideZeroSourcesBroadcastRows) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData full = random2d(DType::F16, kRows, kCols, 38, -4, 4);
    const TensorData row = random2d(DType::F16, 1, kCols, 39, 0.5, 4);
    const TensorData one = random2d(DType::F16, 1, 1, 40, 0.5, 4);
    std::vector<VecCase> forms = {vec(Opcode::TAdd, {full, row}, DType::F16),
                                  vec(Opcode::TMulS, {row}, DType::F16),
                                  vec(Opcode::TRowExpand, {one}, DType::F16)};
    forms[1].scalar = 1.0;
    for (VecCase& c : forms) {
        c.strideZeroBroadcast = true;
        cases.exact(c);
    }
    cases.check();
}

TEST(SimVectorOps, RowExpandFamily) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData full = random2d(DType::F16, kRows, kCols, 32, -4, 4);
    const TensorData col = random2d(DType::F16, kRows, 1, 33, 0.5, 4);
    cases.exact(vec(Opcode::TRowExpand, {col}, DType::F16));
    cases.exact(vec(Opcode::TRowExpand, {col}, DType::F32));
    for (Opcode op : {Opcode::TRowExpandAdd, Opcode::TRowExpandSub, Opcode::TRowExpandMul,
                      Opcode::TRowExpandDiv, Opcode::TRowExpandMax})
        cases.exact(vec(op, {full, col}, DType::F16));
    cases.check();
}

// --- Layout -------------------------------------------------------------------------------------

TEST(SimVectorOps, TransposeIsByteExact) {
    REQUIRE_NUMPY();
    Cases cases;
    const TensorData x = random2d(DType::F16, kRows, kCols, 34);
    cases.exact(vec(Opcode::TTrans, {x}, DType::F16, kCols, kRows));
    const TensorData i = random2d(DType::I32, 8, 24, 35, -2e9, 2e9); // beyond 2^24: bytes moved
    cases.exact(vec(Opcode::TTrans, {i}, DType::I32, 24, 8));
    cases.check();
}

// --- In place -----------------------------------------------------------------------------------

TEST(SimVectorOps, InPlaceAndOverlappingOperandsReadBeforeWrite) {
    // dst = a + b with dst aliasing a exactly, and dst = rowsum written over the first column of
    // the source: results equal the out-of-place ones.
    ProgramBuilder b(CoreType::AIV);
    const TensorData a = random2d(DType::F32, 4, 8, 36);
    const TensorData c = random2d(DType::F32, 4, 8, 37);
    const size_t ga = b.addGm("a", DType::F32, Shape{4, 8}, GmRole::Input);
    const size_t gc = b.addGm("c", DType::F32, Shape{4, 8}, GmRole::Input);
    const size_t gsum = b.addGm("sum", DType::F32, Shape{4, 8}, GmRole::Output);
    const size_t grow = b.addGm("row", DType::F32, Shape{4, 1}, GmRole::Output);
    const Operand ta = b.alloc(MemSpace::UB, DType::F32, 4, 8);
    const Operand tc = b.alloc(MemSpace::UB, DType::F32, 4, 8);
    b.emit(Opcode::TLoad, Pipe::MTE2, {ta, b.gmAll(ga)});
    b.emit(Opcode::TLoad, Pipe::MTE2, {tc, b.gmAll(gc)});
    b.emit(Opcode::TAdd, Pipe::V, {ta, ta, tc});
    b.emit(Opcode::TStore, Pipe::MTE3, {b.gmAll(gsum), ta});
    Operand firstCol = ta;
    firstCol.cols = 1; // [4 x 1] with stride 8, overlapping the source rows
    b.emit(Opcode::TRowSum, Pipe::V, {firstCol, ta});
    b.emit(Opcode::TStore, Pipe::MTE3, {b.gmAll(grow), firstCol});
    const std::vector<TensorData> inputs{a, c};
    const GlobalMemory gm = runProgram(b.program(), inputs);
    const TensorData sum = gm.tensor("sum");
    const TensorData row = gm.tensor("row");
    for (int r = 0; r < 4; ++r) {
        float acc = 0.0f;
        for (int j = 0; j < 8; ++j) {
            const float s = a.get(r * 8 + j) + c.get(r * 8 + j);
            EXPECT_EQ(sum.get(r * 8 + j), s);
            acc += s;
        }
        EXPECT_EQ(row.get(r), acc);
    }
}

} // namespace
} // namespace pto::simtest
