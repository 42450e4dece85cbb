// The vector-pipe instructions: elementwise, tile-scalar, compare/select, conversions,
// row/column reductions and expansions, transposes, fills and top-k; all operands in UB.
#include "simulator/numerics/ExecuteOps.h"

#include "simulator/numerics/TileKernels.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <vector>

namespace pto::numerics {
namespace {

enum class VecForm : uint8_t {
    Unary,       // dst, src
    Binary,      // dst, a, b (broadcasting)
    RowExpandOp, // dst, a [r×c], b [r×1]
    Scalar,      // dst, src; Instr::scalar
    Convert,     // dst, src; Instr::mode rounding
    Compare,     // dst, a, b; Instr::mode predicate
    CompareS,    // dst, src; Instr::mode predicate, Instr::scalar
    Select,      // dst, cond, a, b
    Fill,        // dst; Instr::scalar
    RowReduce,   // dst [r×1], src [r×c]
    ColReduce,   // dst [1×c], src [r×c]
    RowExpand,   // dst [r×c], src [r×1]
    Transpose,   // dst [c×r], src [r×c]
};

struct VecOp {
    VecForm form;
    OpKind kind; // the element semantics (Semantics.h) of the opcode
};

std::optional<VecOp> vecOp(Opcode op) {
    switch (op) {
#define PTO_VEC(opcode, form, kind)                                                                \
    case Opcode::opcode:                                                                           \
        return VecOp{VecForm::form, OpKind::kind};
        PTO_VEC(TAdd, Binary, Add)
        PTO_VEC(TSub, Binary, Sub)
        PTO_VEC(TMul, Binary, Mul)
        PTO_VEC(TDiv, Binary, Div)
        PTO_VEC(TMax, Binary, Max)
        PTO_VEC(TMin, Binary, Min)
        PTO_VEC(TExp, Unary, Exp)
        PTO_VEC(TLog, Unary, Log)
        PTO_VEC(TSqrt, Unary, Sqrt)
        PTO_VEC(TRsqrt, Unary, Rsqrt)
        PTO_VEC(TRecip, Unary, Reciprocal)
        PTO_VEC(TAbs, Unary, Abs)
        PTO_VEC(TNeg, Unary, Neg)
        PTO_VEC(TRelu, Unary, Relu)
        PTO_VEC(TCvt, Convert, Cast)
        PTO_VEC(TCmp, Compare, Cmp)
        PTO_VEC(TSel, Select, Where)
        PTO_VEC(TAddS, Scalar, AddS)
        PTO_VEC(TSubS, Scalar, SubS)
        PTO_VEC(TMulS, Scalar, MulS)
        PTO_VEC(TDivS, Scalar, DivS)
        PTO_VEC(TMaxS, Scalar, MaxS)
        PTO_VEC(TMinS, Scalar, MinS)
        PTO_VEC(TCmpS, CompareS, CmpS)
        PTO_VEC(TExpandS, Fill, Fill)
        PTO_VEC(TRowSum, RowReduce, ReduceSum)
        PTO_VEC(TRowMax, RowReduce, ReduceMax)
        PTO_VEC(TRowMin, RowReduce, ReduceMin)
        PTO_VEC(TColSum, ColReduce, ReduceSum)
        PTO_VEC(TColMax, ColReduce, ReduceMax)
        PTO_VEC(TColMin, ColReduce, ReduceMin)
        PTO_VEC(TRowExpand, RowExpand, Broadcast)
        PTO_VEC(TRowExpandAdd, RowExpandOp, Add)
        PTO_VEC(TRowExpandSub, RowExpandOp, Sub)
        PTO_VEC(TRowExpandMul, RowExpandOp, Mul)
        PTO_VEC(TRowExpandDiv, RowExpandOp, Div)
        PTO_VEC(TRowExpandMax, RowExpandOp, Max)
        PTO_VEC(TTrans, Transpose, Transpose)
#undef PTO_VEC
    default:
        return std::nullopt;
    }
}

int operandCount(VecForm form) {
    switch (form) {
    case VecForm::Fill:
        return 1;
    case VecForm::Binary:
    case VecForm::RowExpandOp:
    case VecForm::Compare:
        return 3;
    case VecForm::Select:
        return 4;
    default:
        return 2;
    }
}

// The source shapes a form accepts for its destination shape.
void checkShapes(const InstrContext& ctx, VecForm form) {
    const int64_t rows = ctx.operand(0).rows;
    const int64_t cols = ctx.operand(0).cols;
    switch (form) {
    case VecForm::RowReduce:
        ctx.expectShape(0, rows, 1);
        if (ctx.operand(1).rows != rows)
            ctx.bad(
                fmt::format("{} must have the {} rows of the destination", ctx.describe(1), rows));
        return;
    case VecForm::ColReduce:
        ctx.expectShape(0, 1, cols);
        if (ctx.operand(1).cols != cols)
            ctx.bad(
                fmt::format("{} must have the {} cols of the destination", ctx.describe(1), cols));
        return;
    case VecForm::RowExpand:
        ctx.expectBroadcastable(1, rows, 1);
        return;
    case VecForm::RowExpandOp:
        ctx.expectShape(1, rows, cols);
        ctx.expectBroadcastable(2, rows, 1);
        return;
    case VecForm::Transpose:
        ctx.expectShape(1, cols, rows);
        return;
    default:
        for (int i = 1; i < ctx.count(); ++i) ctx.expectBroadcastable(i, rows, cols);
        return;
    }
}

RoundMode roundMode(const InstrContext& ctx) {
    const std::string& mode = ctx.instr().mode;
    if (mode.empty()) return RoundMode::NearestEven;
    if (std::optional<RoundMode> parsed = parseRoundMode(mode)) return *parsed;
    ctx.bad(fmt::format("unknown rounding mode '{}' (want rne, trunc, floor, ceil or rna)", mode));
}

CmpPred predicate(const InstrContext& ctx) {
    if (std::optional<CmpPred> parsed = parseCmpPred(ctx.instr().mode)) return *parsed;
    ctx.bad(fmt::format("unknown comparison predicate '{}' (want eq, ne, lt, le, gt or ge)",
                        ctx.instr().mode));
}

// Runs a checked instruction: sources are resolved (bounds, initialisation) before the
// destination, then the kernel of its form.
void run(InstrContext& ctx, const VecOp& op) {
    const auto scalar = static_cast<float>(ctx.instr().scalar);
    TileView src[3];
    for (int i = 1; i < ctx.count(); ++i) src[i - 1] = ctx.read(i);
    const TileView dst = ctx.write(0);
    switch (op.form) {
    case VecForm::Unary:
        unaryTile(op.kind, src[0], dst, RoundMode::NearestEven);
        return;
    case VecForm::Convert:
        if (src[0].rows == dst.rows && src[0].cols == dst.cols)
            copyTile(src[0], dst, roundMode(ctx)); // byte-exact for equal dtypes
        else
            unaryTile(OpKind::Cast, src[0], dst, roundMode(ctx));
        return;
    case VecForm::RowExpand:
        unaryTile(OpKind::Cast, src[0], dst, RoundMode::NearestEven);
        return;
    case VecForm::Binary:
    case VecForm::RowExpandOp:
        binaryTile(op.kind, src[0], src[1], dst);
        return;
    case VecForm::Scalar:
        scalarTile(op.kind, src[0], scalar, dst);
        return;
    case VecForm::Compare:
        compareTile(predicate(ctx), src[0], src[1], dst);
        return;
    case VecForm::CompareS:
        compareScalarTile(predicate(ctx), src[0], scalar, dst);
        return;
    case VecForm::Select:
        selectTile(src[0], src[1], src[2], dst);
        return;
    case VecForm::Fill:
        fillTile(dst, scalar);
        return;
    case VecForm::RowReduce:
        rowReduceTile(op.kind, src[0], dst);
        return;
    case VecForm::ColReduce:
        colReduceTile(op.kind, src[0], dst);
        return;
    case VecForm::Transpose:
        transposeTile(src[0], dst);
        return;
    }
}

// TTOPK dst [r x k], src [r x n]: per row, topkRow's positions (mode "largest" or
// "smallest", "-indices" for i32 positions) or the elements there, copied bit for bit.
void executeTopK(InstrContext& ctx) {
    ctx.expectCount(2, 2);
    ctx.expectSpace(0, {MemSpace::UB});
    ctx.expectSpace(1, {MemSpace::UB});
    ctx.expectPipe(Pipe::V);
    const std::string& mode = ctx.instr().mode;
    const bool largest = mode.rfind("largest", 0) == 0;
    const bool indices = mode.ends_with("-indices");
    if (!largest && mode.rfind("smallest", 0) != 0)
        ctx.bad(fmt::format("unknown top-k mode '{}' (largest or smallest, optionally "
                            "-indices)",
                            mode));
    const Operand& d = ctx.operand(0);
    const Operand& s = ctx.operand(1);
    if (d.rows != s.rows || d.cols > s.cols)
        ctx.bad(fmt::format("{} cannot hold the top {} of each row of {}", ctx.describe(0), d.cols,
                            ctx.describe(1)));
    if (indices)
        ctx.expectDType(0, {DType::I32});
    else
        ctx.expectSameDType(0, 1);
    const TileView src = ctx.read(1);
    const TileView dst = ctx.write(0);
    const size_t elem = size_t(src.elemSize());
    std::vector<double> keys(size_t(src.cols));
    std::vector<int32_t> best(size_t(dst.cols));
    for (int64_t r = 0; r < src.rows; ++r) {
        for (int64_t j = 0; j < src.cols; ++j)
            keys[size_t(j)] = elementKey(src.row(r) + size_t(j) * elem, src.dtype);
        topkRow(keys.data(), src.cols, dst.cols, largest, best.data());
        for (int64_t j = 0; j < dst.cols; ++j) {
            if (indices)
                std::memcpy(dst.row(r) + j * 4, &best[size_t(j)], 4);
            else
                std::memcpy(dst.row(r) + size_t(j) * elem, src.row(r) + best[size_t(j)] * elem,
                            elem);
        }
    }
}

// TCUMSUM dst, src (same shape and dtype, UB): mode "rows" scans along each row, "cols" down
// each column, by cumsumLine (the interpreters' cumsum, bit for bit).
void executeCumSum(InstrContext& ctx) {
    ctx.expectCount(2, 2);
    ctx.expectSpace(0, {MemSpace::UB});
    ctx.expectSpace(1, {MemSpace::UB});
    ctx.expectPipe(Pipe::V);
    ctx.expectSameDType(0, 1);
    ctx.expectDType(0, {DType::F32, DType::F16, DType::BF16, DType::I32});
    const std::string& mode = ctx.instr().mode;
    if (mode != "rows" && mode != "cols")
        ctx.bad(fmt::format("unknown cumsum mode '{}' (rows or cols)", mode));
    const Operand& s = ctx.operand(1);
    ctx.expectShape(0, s.rows, s.cols);
    const TileView src = ctx.read(1);
    const TileView dst = ctx.write(0);
    // Through a copy of the source: the two may overlap (an in-place scan).
    std::vector<std::byte> in(size_t(src.rows * src.cols * src.elemSize()));
    const size_t run = size_t(src.cols * src.elemSize());
    for (int64_t r = 0; r < src.rows; ++r)
        std::memcpy(in.data() + size_t(r) * run, src.row(r), run);
    std::vector<std::byte> out(in.size());
    if (mode == "rows")
        for (int64_t r = 0; r < src.rows; ++r)
            cumsumLine(in.data() + size_t(r) * run, out.data() + size_t(r) * run, src.dtype,
                       src.cols, 1);
    else
        for (int64_t c = 0; c < src.cols; ++c)
            cumsumLine(in.data() + size_t(c * src.elemSize()),
                       out.data() + size_t(c * src.elemSize()), src.dtype, src.rows, src.cols);
    for (int64_t r = 0; r < dst.rows; ++r)
        std::memcpy(dst.row(r), out.data() + size_t(r) * run, run);
}

} // namespace

void executeVector(InstrContext& ctx) {
    if (ctx.instr().opcode == Opcode::TTopK) return executeTopK(ctx);
    if (ctx.instr().opcode == Opcode::TCumSum) return executeCumSum(ctx);
    const std::optional<VecOp> op = vecOp(ctx.instr().opcode);
    if (!op) ctx.bad(fmt::format("{} is not a vector opcode", opcodeName(ctx.instr().opcode)));
    const int n = operandCount(op->form);
    ctx.expectCount(n, n);
    for (int i = 0; i < n; ++i) ctx.expectSpace(i, {MemSpace::UB});
    checkShapes(ctx, op->form);
    if (op->form == VecForm::Convert) roundMode(ctx);
    if (op->form == VecForm::Compare || op->form == VecForm::CompareS) predicate(ctx);
    ctx.expectPipe(Pipe::V);
    run(ctx, *op);
}

} // namespace pto::numerics
