// Row-parallel Tensor programs: the leading dim every op maps row to row from the outputs back,
// so a program with that dim cut to fewer rows is the same computation on its first rows (the
// probe of compiling isomorphic fused clusters once, docs/ARCHITECTURE.md).
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pto {

// Which values of a straight-line Tensor function (after unroll-loops) carry the row-parallel
// dim: `rows` rows each (the results' leading dim). Values not reached from the results that
// way (a matmul's B operand, views of it) keep their shape. `refusal` says why the function is
// not row-parallel (an op that mixes rows: a reduction over the rows, a transpose, a
// row-parallel value as a matmul's B, a view that moves or cuts the rows); "" when it is.
struct RowParallel {
    int64_t rows = 0;
    std::vector<bool> rowValue; // per value id
    std::string refusal;
};
RowParallel analyzeRowParallel(const Function& f);

// The rows of every cluster of the fused program: the mL1 of the cube tile of every matmul
// with a row-parallel A (0 when they differ or there is none), as pinDefaultTiles fixes it.
int64_t clusterRowsOf(const Function& f, const RowParallel& rp);

// Fixes the shape-dependent default tiles of `f` as per-op attributes (cube_tile on a matmul
// with no tile of its own, vec_tile on vector ops tiled by their chain's default), so the
// program keeps the tiles of its full shapes when its rows are cut.
void pinDefaultTiles(Function& f, const TargetInfo& target);

// `f` with its row-parallel values cut to `rows` rows (value types and the sizes of views).
void cutRows(Function& f, const RowParallel& rp, int64_t rows);

} // namespace pto
