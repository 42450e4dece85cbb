// dead-code: one backward sweep over the ops in program order, keeping what a result needs.
#include "compiler/passes/EliminateDeadCode.h"

namespace pto {
namespace {

// Values whose contents are visible after the function returns: results and arguments (a
// store into an argument is a side effect on the caller's tensor).
std::vector<bool> externallyVisible(const Function& f) {
    std::vector<bool> visible(f.valueCount(), false);
    for (ValueId r : f.results) visible[r] = true;
    for (ValueId a : f.args) visible[a] = true;
    return visible;
}

bool isLive(const Op& op, const std::vector<bool>& needed, const std::vector<bool>& visible) {
    if (isDirective(op.kind)) return true;
    if (op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd) {
        // tstore %tile, %gm (tscatter_add %tile, %gm, %idx): live when %gm is an
        // output/argument or a kept op reads it later.
        if (op.operands.size() < 2) return true;
        const ValueId gm = op.operands[1];
        return visible[gm] || needed[gm];
    }
    if (op.result == kNoId) return true; // no result and not a store: keep, to be safe
    return needed[op.result];
}

} // namespace

void eliminateDeadCode(Function& f) {
    const std::vector<bool> visible = externallyVisible(f);
    std::vector<bool> needed(f.valueCount(), false);
    for (ValueId r : f.results) needed[r] = true;

    std::vector<Op>& ops = f.ops();
    std::vector<bool> keep(ops.size(), false);
    size_t kept = 0;
    for (size_t i = ops.size(); i-- > 0;) {
        const Op& op = ops[i];
        if (!isLive(op, needed, visible)) continue;
        keep[i] = true;
        ++kept;
        // A kept store also marks its GM destination: that keeps the declaration, and the
        // earlier stores into it were live already (a later reader reads them too).
        for (ValueId v : op.operands) needed[v] = true;
    }
    if (kept == ops.size()) return;
    std::vector<Op> out;
    out.reserve(kept);
    for (size_t i = 0; i < ops.size(); ++i)
        if (keep[i]) out.push_back(std::move(ops[i]));
    ops = std::move(out);
    f.renumber();
}

} // namespace pto
