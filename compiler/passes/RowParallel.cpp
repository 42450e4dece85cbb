// Row-parallel Tensor programs: which values carry the rows, pinning the default tiles, cutting
// the rows (see RowParallel.h).
#include "compiler/passes/RowParallel.h"

#include "compiler/ir/OpKind.h"
#include "compiler/passes/DefaultVecTiles.h"

#include <fmt/format.h>

namespace pto {
namespace {

std::string where(const Op& op) {
    return fmt::format("`{}` at line {}:{}", opName(op.kind), op.loc.line, op.loc.col);
}

// Whether operand type `t` of an op with result shape `result` lines up with the result's rows
// (same rank, the leading dim as long): it is then row-parallel too. Operands broadcast along
// the rows (lower rank, or one leading row) are not.
bool alignsRows(const Shape& t, const Shape& result) {
    return t.rank() == result.rank() && t.rank() > 0 && t[0] == result[0] &&
           !(result[0] == 1 && t[0] == 1);
}

bool keepsRowsElementwise(OpKind k) {
    const OpClass c = opInfo(k).cls;
    if (isElementwise(k)) return true;
    return c == OpClass::Composite &&
           (k == OpKind::Sigmoid || k == OpKind::Tanh || k == OpKind::Gelu || k == OpKind::Silu);
}

int normalizedAxis(const Op& op, int rank) {
    int64_t axis = op.attrs.getInt("axis", rank - 1);
    return int(axis < 0 ? axis + rank : axis);
}

// Marks the operands of `op` (whose result is row-parallel) that carry its rows.
void markOperands(const Function& f, const Op& op, std::vector<bool>& row) {
    const Shape& result = f.type(op.result).shape;
    auto mark = [&](size_t i) {
        if (i < op.operands.size()) row[op.operands[i]] = true;
    };
    if (op.kind == OpKind::Matmul) {
        if (!op.attrs.getBool("transpose_a")) mark(0);
        return;
    }
    if (op.kind == OpKind::View) {
        mark(0);
        return;
    }
    if (opInfo(op.kind).cls == OpClass::Reduce || op.kind == OpKind::Softmax) {
        if (normalizedAxis(op, result.rank()) != 0) mark(0);
        return;
    }
    if (keepsRowsElementwise(op.kind) || op.kind == OpKind::Broadcast)
        for (size_t i = 0; i < op.operands.size(); ++i)
            if (alignsRows(f.type(op.operands[i]).shape, result)) mark(i);
}

// Why `op`, whose result is row-parallel, does not keep its rows apart; "" when it does.
std::string rowResultProblem(const Function& f, const Op& op, const std::vector<bool>& row) {
    const Shape& result = f.type(op.result).shape;
    if (op.kind == OpKind::Fill) return {};
    if (op.kind == OpKind::Matmul) {
        if (op.attrs.getBool("transpose_a"))
            return where(op) + " reads its row-parallel A transposed (rows become columns)";
        if (op.operands.size() > 1 && row[op.operands[1]])
            return where(op) + " takes a row-parallel value as its B operand (every row of the "
                               "result reads every row of it)";
        return {};
    }
    if (op.kind == OpKind::View) {
        const auto offsets = op.attrs.getInts("offsets");
        const auto sizes = op.attrs.getInts("sizes");
        const Shape& src = f.type(op.operands[0]).shape;
        if (op.operands.size() > 1 || !offsets || !sizes || offsets->empty() || sizes->empty() ||
            (*offsets)[0] != 0 || (*sizes)[0] != src[0] || op.attrs.has("clip"))
            return where(op) + " moves or cuts the rows (a view offset on the row dim)";
        return {};
    }
    if (opInfo(op.kind).cls == OpClass::Reduce || op.kind == OpKind::Softmax) {
        if (normalizedAxis(op, result.rank()) == 0) return where(op) + " reduces over the rows";
        return {};
    }
    if (keepsRowsElementwise(op.kind) || op.kind == OpKind::Broadcast) {
        for (ValueId v : op.operands) {
            const Shape& s = f.type(v).shape;
            if (!row[v] && s.rank() == result.rank() && s.rank() > 0 && s[0] != 1)
                return where(op) + fmt::format(" combines rows with an operand of {} rows that "
                                               "does not follow them",
                                               s[0]);
        }
        return {};
    }
    return where(op) + " is not known to keep rows apart";
}

} // namespace

RowParallel analyzeRowParallel(const Function& f) {
    RowParallel rp;
    rp.rowValue.assign(f.valueCount(), false);
    if (f.results.empty()) {
        rp.refusal = "the function returns nothing";
        return rp;
    }
    for (ValueId r : f.results) {
        const Shape& s = f.type(r).shape;
        if (s.rank() < 1 || (rp.rows != 0 && s[0] != rp.rows)) {
            rp.refusal = "its results do not share a leading dim";
            return rp;
        }
        rp.rows = s[0];
        rp.rowValue[r] = true;
    }
    for (const Op& op : f.ops())
        if (isControl(op.kind)) {
            rp.refusal = where(op) + " is a loop or call left after unroll-loops";
            return rp;
        }
    // Backwards: every use of a value comes after its definition.
    for (auto it = f.ops().rbegin(); it != f.ops().rend(); ++it)
        if (it->result != kNoId && rp.rowValue[it->result]) markOperands(f, *it, rp.rowValue);
    // Every op with a row-parallel result keeps its rows apart…
    for (const Op& op : f.ops()) {
        if (isDirective(op.kind) || op.result == kNoId || !rp.rowValue[op.result]) continue;
        if (f.type(op.result).shape[0] != rp.rows) {
            rp.refusal = where(op) + " has a row-parallel result of another length";
            return rp;
        }
        rp.refusal = rowResultProblem(f, op, rp.rowValue);
        if (!rp.refusal.empty()) return rp;
    }
    // … and a row-parallel operand only flows into row-parallel results.
    for (const Op& op : f.ops()) {
        if (isDirective(op.kind) || (op.result != kNoId && rp.rowValue[op.result])) continue;
        for (ValueId v : op.operands)
            if (rp.rowValue[v]) {
                rp.refusal = where(op) + " mixes rows: it reads a row-parallel value into a "
                                         "result that does not keep them";
                if (op.kind == OpKind::Transpose) rp.refusal = where(op) + " transposes the rows";
                if (opInfo(op.kind).cls == OpClass::Reduce)
                    rp.refusal = where(op) + " reduces over the rows";
                if (op.kind == OpKind::Matmul)
                    rp.refusal = where(op) + " takes a row-parallel value as its B operand";
                return rp;
            }
    }
    return rp;
}

int64_t clusterRowsOf(const Function& f, const RowParallel& rp) {
    int64_t rows = 0;
    for (const Op& op : f.ops()) {
        if (op.kind != OpKind::Matmul || op.result == kNoId || !rp.rowValue[op.result]) continue;
        const auto tile = op.attrs.getInts("cube_tile");
        if (!tile || tile->size() != 6 || (rows != 0 && (*tile)[1] != rows)) return 0;
        rows = (*tile)[1];
    }
    return rows;
}

void pinDefaultTiles(Function& f, const TargetInfo& target) {
    const std::vector<std::optional<Shape>> vec = planDefaultVecTiles(f, target);
    bool cubeDirective = false;
    for (Op& op : f.ops()) {
        if (op.kind == OpKind::CubeTile) cubeDirective = true;
        if (op.id < vec.size() && vec[op.id] && !op.attrs.has("vec_tile")) {
            const Shape& s = *vec[op.id];
            op.attrs.set("vec_tile", std::vector<int64_t>(s.begin(), s.end()));
        }
        if (op.kind != OpKind::Matmul || cubeDirective || op.attrs.has("cube_tile") ||
            op.operands.size() != 2 || op.result == kNoId)
            continue;
        const Shape& y = f.type(op.result).shape;
        if (y.rank() < 2) continue;
        op.attrs.set("cube_tile",
                     defaultCubeTile(y[y.rank() - 2], y[y.rank() - 1], f.type(op.operands[0]).dtype,
                                     f.type(op.operands[1]).dtype, target));
    }
}

void cutRows(Function& f, const RowParallel& rp, int64_t rows) {
    for (ValueId v = 0; v < f.valueCount() && v < rp.rowValue.size(); ++v)
        if (rp.rowValue[v]) f.value(v).type.shape[0] = rows;
    for (Op& op : f.ops()) {
        if (op.kind != OpKind::View || op.result == kNoId || !rp.rowValue[op.result]) continue;
        std::vector<int64_t> sizes = *op.attrs.getInts("sizes");
        sizes[0] = rows;
        op.attrs.set("sizes", sizes);
    }
}

} // namespace pto
