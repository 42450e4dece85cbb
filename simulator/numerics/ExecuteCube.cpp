// The cube instructions: TMATMUL (overwrites its L0C destination) and TMATMUL_ACC
// (accumulates into it).
#include "simulator/numerics/ExecuteOps.h"

#include "simulator/numerics/TileKernels.h"

#include <fmt/format.h>

namespace pto::numerics {
namespace {

// The operand dtypes of the cube: A and B equal, f16/bf16/f32 into f32, i8 into i32.
void checkDTypes(const InstrContext& ctx, int dst, int a, int b) {
    ctx.expectDType(a, {DType::F16, DType::BF16, DType::F32, DType::I8});
    ctx.expectSameDType(a, b);
    if (ctx.operand(a).dtype == DType::I8)
        ctx.expectDType(dst, {DType::I32});
    else
        ctx.expectDType(dst, {DType::F32});
}

// A is m×k (k×m stored when transposeA), B is k×n (n×k when transposeB); dst is m×n.
void checkShapes(const InstrContext& ctx, int dst, int a, int b) {
    const Instr& in = ctx.instr();
    const Operand& c = ctx.operand(dst);
    const Operand& oa = ctx.operand(a);
    const Operand& ob = ctx.operand(b);
    const int64_t m = in.transposeA ? oa.cols : oa.rows;
    const int64_t ka = in.transposeA ? oa.rows : oa.cols;
    const int64_t kb = in.transposeB ? ob.cols : ob.rows;
    const int64_t n = in.transposeB ? ob.rows : ob.cols;
    if (ka != kb || m != c.rows || n != c.cols)
        ctx.bad(fmt::format("matmul shapes do not agree: A{} is [{}x{}], B{} is [{}x{}], C is "
                            "[{}x{}] (want A [m x k], B [k x n], C [m x n])",
                            in.transposeA ? "^T" : "", m, ka, in.transposeB ? "^T" : "", kb, n,
                            c.rows, c.cols));
}

} // namespace

// TMATMUL dst(L0C), a(L0A), b(L0B); TMATMUL_ACC dst(L0C), a, b (dst is the accumulator) or
// dst, acc(L0C), a, b.
void executeCube(InstrContext& ctx) {
    const bool accumulate = ctx.instr().opcode == Opcode::TMatmulAcc;
    ctx.expectCount(3, accumulate ? 4 : 3);
    const int a = ctx.count() == 4 ? 2 : 1;
    const int b = a + 1;
    const int acc = ctx.count() == 4 ? 1 : 0;
    ctx.expectSpace(0, {MemSpace::L0C});
    ctx.expectSpace(acc, {MemSpace::L0C});
    ctx.expectSpace(a, {MemSpace::L0A});
    ctx.expectSpace(b, {MemSpace::L0B});
    checkDTypes(ctx, 0, a, b);
    checkShapes(ctx, 0, a, b);
    if (acc != 0) {
        ctx.expectSameDType(0, acc);
        ctx.expectShape(acc, ctx.operand(0).rows, ctx.operand(0).cols);
    }
    ctx.expectPipe(Pipe::M);
    const TileView av = ctx.read(a);
    const TileView bv = ctx.read(b);
    TileView accView;
    if (accumulate) accView = ctx.read(acc);
    const TileView dst = ctx.write(0);
    matmulTile(av, bv, accumulate ? &accView : nullptr, dst, ctx.instr().transposeA,
               ctx.instr().transposeB);
}

} // namespace pto::numerics
