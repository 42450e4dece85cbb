// Data movement between GM and the on-chip buffers: TLOAD, TSTORE, TEXTRACT, TMOV.
#include "simulator/numerics/ExecuteOps.h"

#include "simulator/numerics/TileKernels.h"

#include <fmt/format.h>

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
    default:
        ctx.bad(fmt::format("{} is not a data-movement opcode", opcodeName(ctx.instr().opcode)));
    }
}

} // namespace pto::numerics
