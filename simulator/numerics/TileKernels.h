// The functional kernels of the PTO instructions on resolved tile views: data movement,
// elementwise and tile-scalar ops, comparisons, selects, row/column reductions and matmul.
#pragma once

// Every kernel trusts its arguments (the executor has checked opcode, spaces, dtypes, shapes
// and bounds). Arithmetic happens in f32 with the element semantics of compiler/ir/Semantics.h
// and each result is rounded once to the destination dtype (convertRowFromFloat). A source may
// alias the destination: sources are read through SafeSource, so every kernel behaves as if all
// sources were read before the destination is written.
//
// Broadcasting (elementwise kernels): a source of 1 row serves every row of the destination and
// a source of 1 column is splat along the row; [1×1] is a scalar.

#include "compiler/ir/OpKind.h"
#include "compiler/ir/Semantics.h"
#include "simulator/numerics/TileView.h"

namespace pto::numerics {

// --- Movement (MoveKernels.cpp) -----------------------------------------------------------------

/// dst = src (same shape). Equal dtypes copy bytes exactly; else each element is widened to f32
/// and rounded to dst's dtype by `mode`.
void copyTile(const TileView& src, const TileView& dst, RoundMode mode);
/// dst[c][r] = src[r][c] (dst is src.cols × src.rows); byte-exact for equal dtypes, else
/// converted with RNE.
void transposeTile(const TileView& src, const TileView& dst);
/// Every element of dst = value rounded once to dst's dtype (RNE).
void fillTile(const TileView& dst, float value);

// --- Vector (VectorKernels.cpp) -----------------------------------------------------------------

/// dst = f(src) for a unary kind (Semantics.h; Cast is the identity, rounded by `mode`).
void unaryTile(OpKind kind, const TileView& src, const TileView& dst, RoundMode mode);
/// dst = a (op) b for add/sub/mul/div/max/min, with broadcasting.
void binaryTile(OpKind kind, const TileView& a, const TileView& b, const TileView& dst);
/// dst = src (op) s for adds/subs/muls/divs/maxs/mins.
void scalarTile(OpKind kind, const TileView& src, float s, const TileView& dst);
/// dst = pred(a, b) ? 1 : 0, with broadcasting.
void compareTile(CmpPred pred, const TileView& a, const TileView& b, const TileView& dst);
/// dst = pred(src, s) ? 1 : 0.
void compareScalarTile(CmpPred pred, const TileView& src, float s, const TileView& dst);
/// dst = cond != 0 ? a : b, with broadcasting (a NaN condition counts as true).
void selectTile(const TileView& cond, const TileView& a, const TileView& b, const TileView& dst);
/// dst[r][0] = fold of src[r][0..cols) in index order from reduceInit (ReduceSum/Max/Min).
void rowReduceTile(OpKind reduceKind, const TileView& src, const TileView& dst);
/// dst[0][c] = fold of src[0..rows)[c] in index order from reduceInit.
void colReduceTile(OpKind reduceKind, const TileView& src, const TileView& dst);

// --- Matrix (MatmulKernel.cpp) ------------------------------------------------------------------

/// dst[m×n] = acc + op(a)·op(b), acc = 0 when null: a holds m×k (k×m when transposeA), b holds
/// k×n (n×k when transposeB). Float inputs: the partial product p[i][j] starts from 0 and adds
/// a[i][q]·b[q][j] for q = 0..k-1 in order, in f32 (product rounded, then sum rounded); with an
/// accumulator, dst = acc + p in one f32 addition (the Tile interpreter's matmul_acc, bit for
/// bit). i8 inputs accumulate exactly in i32 (wrapping on overflow, as a 32-bit register does).
void matmulTile(const TileView& a, const TileView& b, const TileView* acc, const TileView& dst,
                bool transposeA, bool transposeB);

} // namespace pto::numerics
