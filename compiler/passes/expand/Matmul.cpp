// expand-tiles of matmul: L1 blocks, L0 sub-tiles and L0C accumulators on the cube core.
#include "compiler/passes/expand/Expanders.h"

#include "compiler/passes/expand/Messages.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::expand {
namespace {

// Reserves room for the ops and values a matmul unrolls into (65k matmuls for 4096³).
void reserveMatmul(Function& f, const CubeTile& ct, int64_t m, int64_t k, int64_t n) {
    const int64_t blocks = ceilDiv(m, ct.m1) * ceilDiv(n, ct.n1);
    const int64_t accs = ceilDiv(ct.m1, ct.m0) * ceilDiv(ct.n1, ct.n0);
    const int64_t perK1 = 2 + accs * ceilDiv(ct.k1, ct.k0) * 3; // 2 tloads; tmove ×2 + matmul
    const int64_t values = blocks * ceilDiv(k, ct.k1) * perK1;
    f.reserve(size_t(values + blocks * accs), size_t(values));
}

// Labels `op` with the K step (L1 block of the reduction) it belongs to, and with the
// unrolled loop iteration of the matmul (`loop`, `iter`) if any, so that reroll-loops can fold
// a long reduction into a counted loop (RerollLoops.h).
void markKStep(Op& op, const Op& matmul, int64_t step) {
    for (std::string_view loopAttr : {"loop", "iter"})
        if (const AttrValue* v = matmul.attrs.find(loopAttr)) op.attrs.set(loopAttr, *v);
    op.attrs.set("k_step", step);
}

} // namespace

// matmul on the cube core. Per output L1 block (m1, n1), per k L1 block: tload A [mL1×kL1]
// and B [kL1×nL1] into L1; per (m0, n0) accumulator and k L0 step: tmove the [mL0×kL0] and
// [kL0×nL0] sub-tiles and matmul / matmul_acc into the [mL0×nL0] f32 (i32 for i8) L0C
// accumulator; finally every accumulator is stored to the result's GM tensor (FIX converts
// to its dtype). Transposed operands load the transposed region and set the flag. A batched
// matmul (equal leading dims) repeats this per batch index; its regions and tile offsets carry
// the batch index in the leading dims (extent 1). When K takes several L1 blocks, every tile
// op of one (its tloads, tmoves and matmuls) carries `k_step` = the block's index (and the matmul's
// `loop` and `iter`, if any).
void expandMatmul(Ctx& c, const Op& op) {
    const ValueId a = op.operands[0], b = op.operands[1], y = op.result;
    const Type &at = c.src.type(a), &bt = c.src.type(b), &yt = c.src.type(y);
    const int rank = yt.shape.rank(), lead = rank - 2;
    if (rank < 2 || at.shape.rank() != rank || bt.shape.rank() != rank)
        c.shapes.fail(op, fmt::format("matmul needs operands and result of one rank >= 2, got "
                                      "{} x {} -> {}",
                                      typeRef(at), typeRef(bt), typeRef(yt)));
    Shape batch, mn{at.shape[lead], at.shape[lead + 1]}, kn{bt.shape[lead], bt.shape[lead + 1]};
    for (int d = 0; d < lead; ++d) batch.push(yt.shape[d]);
    const bool ta = op.attrs.getBool("transpose_a"), tb = op.attrs.getBool("transpose_b");
    const int64_t m = ta ? mn[1] : mn[0], k = ta ? mn[0] : mn[1];
    const int64_t kb = tb ? kn[1] : kn[0], n = tb ? kn[0] : kn[1];
    Shape want = batch;
    want.push(m);
    want.push(n);
    for (int d = 0; d < lead; ++d)
        if (at.shape[d] != batch[d] || bt.shape[d] != batch[d]) want = Shape{};
    if (k != kb || yt.shape != want)
        c.shapes.fail(op, fmt::format("shapes do not match: {} x {} -> {}", typeRef(at),
                                      typeRef(bt), typeRef(yt)));
    const CubeTile ct = c.shapes.cubeTile(op, m, k, n, at.dtype, bt.dtype);
    const DType acc = at.dtype == DType::I8 ? DType::I32 : DType::F32;
    const Provenance from = provenanceOf(op);
    const Home homeA = c.values.materialise(a), homeB = c.values.materialise(b);
    const ValueId gm = c.values.destinationOf(y, from);
    Attrs flags;
    if (ta) flags.set("transpose_a", true);
    if (tb) flags.set("transpose_b", true);
    for (std::string_view loopAttr :
         {"loop", "iter"}) // an unrolled loop's label (fuse-cube-vector)
        if (const AttrValue* v = op.attrs.find(loopAttr)) flags.set(loopAttr, *v);
    // The batch index being expanded: the leading coordinates of every region and offset.
    Shape corner = zeros(lead);
    auto at2 = [&](int64_t i, int64_t j) {
        Shape s = corner;
        s.push(i);
        s.push(j);
        return s;
    };
    auto ones2 = [&](int64_t i, int64_t j) {
        Shape s;
        for (int d = 0; d < lead; ++d) s.push(1);
        s.push(i);
        s.push(j);
        return s;
    };
    // A region of an operand in its stored orientation: (i, j) with sizes (ri, rj) of the
    // logical [rows × cols] operand, swapped when the operand is stored transposed.
    auto region = [&](bool transposed, int64_t i, int64_t j, int64_t ri, int64_t rj) {
        return transposed ? Region{at2(j, i), ones2(rj, ri)} : Region{at2(i, j), ones2(ri, rj)};
    };
    const bool steps = k > ct.k1;
    Function& tile = c.emit.fn();
    auto mark = [&](ValueId v, int64_t step) {
        if (steps) markKStep(tile.op(tile.value(v).def), op, step);
        return v;
    };
    auto move = [&](ValueId l1, ValueId origin, const Region& whole, const Region& sub) {
        return c.emit.tile(OpKind::TMove, {l1},
                           offsetAttr(Shape{sub.offset[lead] - whole.offset[lead],
                                            sub.offset[lead + 1] - whole.offset[lead + 1]}),
                           c.src.type(origin).dtype, sub.extent[lead], sub.extent[lead + 1], origin,
                           sub.offset, from);
    };
    reserveMatmul(c.emit.fn(), ct, m * batch.numel(), k, n);
    std::vector<ValueId> accs;
    for (int64_t bi = 0; bi < batch.numel(); ++bi) {
        int64_t rest = bi;
        for (int d = lead - 1; d >= 0; --d) {
            corner[d] = rest % batch[d];
            rest /= batch[d];
        }
        for (int64_t m1 = 0; m1 < m; m1 += ct.m1) {
            const int64_t mb = std::min(ct.m1, m - m1);
            for (int64_t n1 = 0; n1 < n; n1 += ct.n1) {
                const int64_t nb = std::min(ct.n1, n - n1);
                accs.assign(size_t(((mb + ct.m0 - 1) / ct.m0) * ((nb + ct.n0 - 1) / ct.n0)), kNoId);
                for (int64_t k1 = 0; k1 < k; k1 += ct.k1) {
                    const int64_t kbk = std::min(ct.k1, k - k1), step = k1 / ct.k1;
                    const Region ra = region(ta, m1, k1, mb, kbk), rb = region(tb, k1, n1, kbk, nb);
                    const ValueId la = mark(c.values.loadFresh(a, homeA, ra, from), step);
                    const ValueId lb = mark(c.values.loadFresh(b, homeB, rb, from), step);
                    size_t slot = 0;
                    for (int64_t m0 = m1; m0 < m1 + mb; m0 += ct.m0) {
                        const int64_t ms = std::min(ct.m0, m1 + mb - m0);
                        for (int64_t n0 = n1; n0 < n1 + nb; n0 += ct.n0, ++slot) {
                            const int64_t ns = std::min(ct.n0, n1 + nb - n0);
                            for (int64_t k0 = k1; k0 < k1 + kbk; k0 += ct.k0) {
                                const int64_t ks = std::min(ct.k0, k1 + kbk - k0);
                                const ValueId sa =
                                    mark(move(la, a, ra, region(ta, m0, k0, ms, ks)), step);
                                const ValueId sb =
                                    mark(move(lb, b, rb, region(tb, k0, n0, ks, ns)), step);
                                ValueId& cur = accs[slot];
                                cur =
                                    mark(cur == kNoId
                                             ? c.emit.tile(OpKind::Matmul, {sa, sb}, flags, acc, ms,
                                                           ns, y, at2(m0, n0), from)
                                             : c.emit.tile(OpKind::MatmulAcc, {cur, sa, sb}, flags,
                                                           acc, ms, ns, y, at2(m0, n0), from),
                                         step);
                            }
                        }
                    }
                }
                size_t slot = 0;
                for (int64_t m0 = m1; m0 < m1 + mb; m0 += ct.m0)
                    for (int64_t n0 = n1; n0 < n1 + nb; n0 += ct.n0)
                        c.emit.store(accs[slot++], gm, at2(m0, n0), from);
            }
        }
    }
    c.values.setHome(y, Home{gm, HomeKind::Same, {}});
}

} // namespace pto::expand
