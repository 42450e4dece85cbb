// Data movement between GM and the on-chip buffers: TLOAD, TSTORE, TEXTRACT, TMOV, MGATHER,
// MSCATTER.
#include "simulator/numerics/ExecuteOps.h"

#include "simulator/numerics/TileKernels.h"

#include <fmt/format.h>

#include <cstring>

namespace pto::numerics {
namespace {

constexpr RoundMode kRne = RoundMode::NearestEven;

// Operand 1 has operand 0's shape, or (when `mayTranspose` and a transpose flag is set) the
// transposed shape; returns whether to transpose.
bool checkCopyShape(const InstrContext& ctx, bool mayTranspose) {
    const Operand& dst = ctx.operand(0);
    const bool transpose = mayTranspose && (ctx.instr().transposeA || ctx.instr().transposeB);
    if (transpose)
        ctx.expectShape(1, dst.cols, dst.rows);
    else
        ctx.expectShape(1, dst.rows, dst.cols);
    return transpose;
}

void copyOrTranspose(InstrContext& ctx, bool transpose, RoundMode mode) {
    const TileView src = ctx.read(1);
    const TileView dst = ctx.write(0);
    if (transpose)
        transposeTile(src, dst);
    else
        copyTile(src, dst, mode);
}

// TLOAD dst(UB|L1) <- src(GM): a strided 2-D DMA copy; MTE2 does not convert.
void executeLoad(InstrContext& ctx) {
    ctx.expectCount(2, 2);
    ctx.expectSpace(0, {MemSpace::UB, MemSpace::L1});
    ctx.expectSpace(1, {MemSpace::GM});
    ctx.expectSameDType(0, 1);
    checkCopyShape(ctx, false);
    ctx.expectPipe(Pipe::MTE2);
    copyOrTranspose(ctx, false, kRne);
}

// MGATHER dst(UB) <- src(GM), idx(UB i32): row i of dst is row idx[i] of the GM strip src
// (rows = every row of the tensor, cols = dst's); an index outside the strip's rows is an
// out-of-bounds fault naming the index, never a silent read.
void executeGather(InstrContext& ctx) {
    ctx.expectCount(3, 3);
    ctx.expectSpace(0, {MemSpace::UB});
    ctx.expectSpace(1, {MemSpace::GM});
    ctx.expectSpace(2, {MemSpace::UB});
    ctx.expectSameDType(0, 1);
    ctx.expectDType(2, {DType::I32});
    ctx.expectPipe(Pipe::MTE2);
    const Operand& dst = ctx.operand(0);
    const Operand& idx = ctx.operand(2);
    if (int64_t(idx.rows) * idx.cols != dst.rows || ctx.operand(1).cols != dst.cols)
        ctx.bad(fmt::format("{} indices for {} destination rows, or strip columns {} != {}",
                            int64_t(idx.rows) * idx.cols, dst.rows, ctx.operand(1).cols, dst.cols));
    const TileView index = ctx.read(2);
    const TileView src = ctx.read(1);
    const TileView out = ctx.write(0);
    const size_t run = size_t(out.cols * out.elemSize());
    for (int64_t i = 0; i < out.rows; ++i) {
        int32_t k = 0;
        std::memcpy(&k, index.row(i / index.cols) + (i % index.cols) * 4, 4);
        if (k < 0 || k >= src.rows)
            ctx.fail(FaultKind::OutOfBounds,
                     fmt::format("gather index {} (element {} of the index tile) is outside the "
                                 "{} rows of its GM source",
                                 k, i, src.rows),
                     i);
        std::memcpy(out.row(i), src.row(k), run);
    }
}

// MSCATTER dst(GM) += src(UB), idx(UB i32), mode "add": row i of src is added into row idx[i]
// of the GM strip dst (rows = every row of the tensor, cols = src's), rows in order, each
// element computed as accumulateRow does (the Tile interpreter's tscatter_add, bit for bit); an
// index outside the strip's rows is an out-of-bounds fault naming the index.
void executeScatter(InstrContext& ctx) {
    ctx.expectCount(3, 3);
    ctx.expectSpace(0, {MemSpace::GM});
    ctx.expectSpace(1, {MemSpace::UB});
    ctx.expectSpace(2, {MemSpace::UB});
    ctx.expectSameDType(0, 1);
    ctx.expectDType(0, {DType::F32, DType::F16, DType::BF16, DType::I32});
    ctx.expectDType(2, {DType::I32});
    ctx.expectPipe(Pipe::MTE3);
    if (ctx.instr().mode != "add")
        ctx.bad(fmt::format("unknown scatter mode '{}' (add)", ctx.instr().mode));
    const Operand& src = ctx.operand(1);
    const Operand& idx = ctx.operand(2);
    if (int64_t(idx.rows) * idx.cols != src.rows || ctx.operand(0).cols != src.cols)
        ctx.bad(fmt::format("{} indices for {} source rows, or strip columns {} != {}",
                            int64_t(idx.rows) * idx.cols, src.rows, ctx.operand(0).cols, src.cols));
    const TileView index = ctx.read(2);
    const TileView rows = ctx.read(1);
    const TileView out = ctx.write(0);
    for (int64_t i = 0; i < rows.rows; ++i) {
        int32_t k = 0;
        std::memcpy(&k, index.row(i / index.cols) + (i % index.cols) * 4, 4);
        if (k < 0 || k >= out.rows)
            ctx.fail(FaultKind::OutOfBounds,
                     fmt::format("scatter index {} (element {} of the index tile) is outside "
                                 "the {} rows of its GM destination",
                                 k, i, out.rows),
                     i);
        accumulateRow(out.row(k), rows.row(i), out.dtype, out.cols);
    }
}

// TSTORE dst(GM) <- src: UB (MTE3, converts to the GM dtype by RNE), L0C (FIX, f32/i32 to the
// GM dtype by RNE, integers saturate), L1 (MTE3, same dtype).
void executeStore(InstrContext& ctx) {
    ctx.expectCount(2, 2);
    ctx.expectSpace(0, {MemSpace::GM});
    ctx.expectSpace(1, {MemSpace::UB, MemSpace::L0C, MemSpace::L1});
    checkCopyShape(ctx, false);
    const MemSpace from = ctx.operand(1).space;
    if (from == MemSpace::L0C) {
        ctx.expectDType(1, {DType::F32, DType::I32});
        ctx.expectPipe(Pipe::FIX);
    } else {
        if (from == MemSpace::L1) ctx.expectSameDType(0, 1);
        ctx.expectPipe(Pipe::MTE3);
    }
    copyOrTranspose(ctx, false, kRne);
}

// TEXTRACT dst(L0A|L0B) <- src(L1), same dtype, optionally transposed.
void executeExtract(InstrContext& ctx) {
    ctx.expectCount(2, 2);
    ctx.expectSpace(0, {MemSpace::L0A, MemSpace::L0B});
    ctx.expectSpace(1, {MemSpace::L1});
    ctx.expectSameDType(0, 1);
    const bool transpose = checkCopyShape(ctx, true);
    ctx.expectPipe(Pipe::MTE1);
    copyOrTranspose(ctx, transpose, kRne);
}

// TMOV: L1 -> L0A/L0B (MTE1, as TEXTRACT), L0C -> L1 (FIX, converts by RNE), UB -> UB (V).
void executeMov(InstrContext& ctx) {
    ctx.expectCount(2, 2);
    const MemSpace to = ctx.operand(0).space;
    const MemSpace from = ctx.operand(1).space;
    if (from == MemSpace::L1 && (to == MemSpace::L0A || to == MemSpace::L0B)) {
        executeExtract(ctx);
        return;
    }
    if (from == MemSpace::L0C && to == MemSpace::L1) {
        ctx.expectDType(1, {DType::F32, DType::I32});
        checkCopyShape(ctx, false);
        ctx.expectPipe(Pipe::FIX);
        copyOrTranspose(ctx, false, kRne);
        return;
    }
    if (from == MemSpace::UB && to == MemSpace::UB) {
        ctx.expectSameDType(0, 1);
        checkCopyShape(ctx, false);
        ctx.expectPipe(Pipe::V);
        copyOrTranspose(ctx, false, kRne);
        return;
    }
    ctx.bad(fmt::format("TMOV moves L1->L0A/L0B, L0C->L1 or UB->UB, not {}->{}", memSpaceName(from),
                        memSpaceName(to)));
}

} // namespace

void executeMove(InstrContext& ctx) {
    switch (ctx.instr().opcode) {
    case Opcode::TLoad:
        executeLoad(ctx);
        return;
    case Opcode::TStore:
        executeStore(ctx);
        return;
    case Opcode::TExtract:
        executeExtract(ctx);
        return;
    case Opcode::TMov:
        executeMov(ctx);
        return;
    case Opcode::MGather:
        executeGather(ctx);
        return;
    case Opcode::MScatter:
        executeScatter(ctx);
        return;
    default:
        ctx.bad(fmt::format("{} is not a data-movement opcode", opcodeName(ctx.instr().opcode)));
    }
}

} // namespace pto::numerics
