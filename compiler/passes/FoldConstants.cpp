// fold-constants: exact algebraic simplification of a Tensor function.
//
// A rule fires only when the op's result type (dtype and shape) equals the type of the value it
// is replaced by, and only when the identity holds bit for bit under the precision rule
// (compute in f32, round once to the result dtype). That excludes on purpose:
//   adds x, +0.0 — for x = −0 it gives +0 (IEEE 754 §6.3); kept for float dtypes.
//   subs x, −0.0 — the same thing written differently.
//   neg(neg x) on integers — neg(−128) saturates to 127 in i8.
//   cast(cast x) unless the inner cast widens exactly (f16/bf16 → f32, i8 → anything wider).
#include "compiler/passes/FoldConstants.h"
#include "compiler/passes/Permutation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pto {
namespace {

bool isScalar(const Op& op, double value) {
    const AttrValue* v = op.attrs.find("scalar");
    if (!v) return false;
    double s = 0;
    if (auto* d = std::get_if<double>(v))
        s = *d;
    else if (auto* i = std::get_if<int64_t>(v))
        s = double(*i);
    else
        return false;
    return s == value && std::signbit(s) == std::signbit(value);
}

// Every value of `from` is exactly representable in `to`.
bool widensExactly(DType from, DType to) {
    if (from == to) return true;
    switch (from) {
    case DType::Bool:
        return true;
    case DType::I8:
        return to != DType::Bool;
    case DType::F16:
    case DType::BF16:
        return to == DType::F32;
    default:
        return false;
    }
}

class Folder {
public:
    explicit Folder(Function& f) : m_f(f) {}

    // The value `op` provably equals, or kNoId. May rewrite `op` into a simpler exact form
    // (transpose of transpose becomes one transpose).
    ValueId fold(Op& op) {
        if (op.result == kNoId || op.operands.empty()) return kNoId;
        const ValueId x = op.operands[0];
        switch (op.kind) {
        case OpKind::MulS:
        case OpKind::DivS:
            return isScalar(op, 1.0) ? same(op, x) : kNoId;
        case OpKind::AddS:
            return isScalar(op, -0.0) || (isScalar(op, 0.0) && !isFloat(op)) ? same(op, x) : kNoId;
        case OpKind::SubS:
            return isScalar(op, 0.0) || (isScalar(op, -0.0) && !isFloat(op)) ? same(op, x) : kNoId;
        case OpKind::Cast:
            return foldCast(op, x);
        case OpKind::Reshape:
            return foldReshape(op, x);
        case OpKind::Broadcast:
            return same(op, x);
        case OpKind::Concat:
            return op.operands.size() == 1 ? same(op, x) : kNoId;
        case OpKind::View:
            return foldView(op, x);
        case OpKind::Neg:
            return foldNeg(op, x);
        case OpKind::Transpose:
            return foldTranspose(op, x);
        default:
            return kNoId;
        }
    }

private:
    ValueId same(const Op& op, ValueId x) const {
        return m_f.type(op.result) == m_f.type(x) ? x : kNoId;
    }
    bool isFloat(const Op& op) const { return isFloatType(m_f.type(op.result).dtype); }
    const Op* producerOf(ValueId v, OpKind kind) const {
        const Op* p = m_f.producer(v);
        return p && p->kind == kind && !p->operands.empty() ? p : nullptr;
    }

    ValueId foldCast(const Op& op, ValueId x) const {
        if (ValueId s = same(op, x); s != kNoId) return s;
        // cast(cast(y: A → B) → A) == y when A → B is exact.
        const Op* inner = producerOf(x, OpKind::Cast);
        if (!inner) return kNoId;
        const ValueId y = inner->operands[0];
        return widensExactly(m_f.type(y).dtype, m_f.type(x).dtype) ? same(op, y) : kNoId;
    }

    ValueId foldReshape(Op& op, ValueId x) const {
        if (ValueId s = same(op, x); s != kNoId) return s;
        // reshape(reshape(y)) == reshape(y): only the final shape matters.
        if (const Op* inner = producerOf(x, OpKind::Reshape)) {
            const ValueId y = inner->operands[0];
            if (ValueId s = same(op, y); s != kNoId) return s;
            if (m_f.type(y).dtype == m_f.type(op.result).dtype) op.operands[0] = y;
        }
        return kNoId;
    }

    ValueId foldView(const Op& op, ValueId x) const {
        auto offsets = op.attrs.getInts("offsets");
        if (offsets && std::any_of(offsets->begin(), offsets->end(), [](int64_t o) { return o; }))
            return kNoId;
        return same(op, x);
    }

    ValueId foldNeg(const Op& op, ValueId x) const {
        const Op* inner = producerOf(x, OpKind::Neg);
        if (!inner || !isFloat(op) || m_f.type(x) != m_f.type(op.result)) return kNoId;
        return same(op, inner->operands[0]);
    }

    ValueId foldTranspose(Op& op, ValueId x) const {
        auto perm = op.attrs.getInts("perm");
        if (!perm) return kNoId;
        if (isIdentityPerm(*perm)) return same(op, x);
        const Op* inner = producerOf(x, OpKind::Transpose);
        if (!inner || m_f.type(x).dtype != m_f.type(op.result).dtype) return kNoId;
        auto innerPerm = inner->attrs.getInts("perm");
        if (!innerPerm || innerPerm->size() != perm->size()) return kNoId;
        // z[i] = y[p2[i]] = x[p1[p2[i]]]
        std::vector<int64_t> composed(perm->size());
        for (size_t i = 0; i < perm->size(); ++i) {
            int64_t p = (*perm)[i];
            if (p < 0 || size_t(p) >= innerPerm->size()) return kNoId;
            composed[i] = (*innerPerm)[size_t(p)];
        }
        const ValueId y = inner->operands[0];
        if (isIdentityPerm(composed)) return same(op, y);
        if (!lowersInOneStep(composed)) return kNoId;
        op.operands[0] = y;
        op.attrs.set("perm", composed);
        return kNoId;
    }

    Function& m_f;
};

} // namespace

void foldConstants(Function& f) {
    std::vector<ValueId> replacement(f.valueCount());
    std::iota(replacement.begin(), replacement.end(), ValueId(0));
    std::vector<bool> erased(f.ops().size(), false);
    // Outputs are named after the returned values: a returned value may only be replaced by an
    // intermediate value, which then takes its name; an argument or a value returned under
    // its own name cannot take a second one, so such an op is kept.
    std::vector<bool> named(f.valueCount(), false);
    for (ValueId r : f.results) named[r] = true;
    for (ValueId a : f.args) named[a] = true;
    Folder folder(f);
    for (size_t i = 0; i < f.ops().size(); ++i) {
        Op& op = f.ops()[i];
        for (ValueId& v : op.operands) v = replacement[v];
        ValueId same = folder.fold(op);
        if (same == kNoId) continue;
        if (named[op.result]) {
            if (named[same]) continue;
            f.value(same).name = f.value(op.result).name;
            named[same] = true;
        }
        replacement[op.result] = same;
        erased[i] = true;
    }
    for (ValueId& r : f.results) r = replacement[r];
    std::vector<Op> kept;
    kept.reserve(f.ops().size());
    for (size_t i = 0; i < f.ops().size(); ++i)
        if (!erased[i]) kept.push_back(std::move(f.ops()[i]));
    f.ops() = std::move(kept);
    f.renumber();
}

} // namespace pto
