// producedTolerance / storedTolerance: the class and K of a value against an independent golden.
#include "validate/ProducedTolerance.h"

#include "compiler/ir/ShapeInference.h"
#include "validate/DriftChain.h"

#include <algorithm>
#include <tuple>

namespace pto {
namespace {

bool storesInto(const Op& op, ValueId arg) {
    return (op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd) &&
           op.operands.size() > 1 && op.operands[1] == arg;
}

int64_t saturatingProduct(int64_t a, int64_t b) {
    return a > kMaxElements / std::max<int64_t>(b, 1) ? kMaxElements : a * b;
}

bool looser(const ProducedTolerance& a, const ProducedTolerance& b) {
    return std::tie(a.k, a.cls) > std::tie(b.k, b.cls);
}

// The tolerance of result `index` of loop `op`.
ProducedTolerance loopResult(const Op& op, size_t index) {
    ProducedTolerance t{ToleranceClass::Elementwise, 1, "for", op.loc};
    if (op.body.empty() || index >= op.body.front().results.size()) return t;
    const Function& body = op.body.front();
    const ValueId yielded = body.results[index];
    const ProducedTolerance inner = producedTolerance(body, yielded);
    const int64_t perTrip = std::max(inner.k, propagatedAccumulation(body)[yielded]);
    t.k = saturatingProduct(perTrip, std::max<int64_t>(loopTripCount(op), 1));
    t.cls = inner.cls == ToleranceClass::Elementwise && t.k > 1 ? ToleranceClass::Accumulation
                                                                : inner.cls;
    return t;
}

// The loosest tolerance of what `fn` stores into `arg`, each K times `trips` for a
// scatter-add (it adds to what earlier trips wrote).
void loosestStore(const Function& fn, ValueId arg, int64_t trips, ProducedTolerance& out) {
    for (const Op& op : fn.ops()) {
        if (storesInto(op, arg)) {
            ProducedTolerance t = producedTolerance(fn, op.operands[0]);
            if (op.kind == OpKind::TScatterAdd && trips > 1) {
                t.k = saturatingProduct(t.k, trips);
                if (t.cls == ToleranceClass::Elementwise) t.cls = ToleranceClass::Accumulation;
            }
            if (looser(t, out) || out.op.empty()) out = t;
        }
        if (op.kind != OpKind::For || op.body.empty()) continue;
        // operands = [initial iter_args..., captures...]; body.args = [iv, the same...].
        const Function& body = op.body.front();
        for (size_t j = 0; j < op.operands.size() && j + 1 < body.args.size(); ++j)
            if (op.operands[j] == arg)
                loosestStore(body, body.args[j + 1],
                             saturatingProduct(trips, std::max<int64_t>(loopTripCount(op), 1)),
                             out);
    }
}

} // namespace

ProducedTolerance producedTolerance(const Function& fn, ValueId v) {
    const Op* p = fn.producer(v);
    if (!p) return {};
    if (p->kind == OpKind::For) {
        const auto it = std::find(p->results.begin(), p->results.end(), v);
        return loopResult(*p, size_t(it - p->results.begin()));
    }
    return {toleranceClassOf(p->kind), accumulationLength(fn, *p), std::string(opName(p->kind)),
            p->loc};
}

ProducedTolerance storedTolerance(const Function& fn, ValueId arg) {
    ProducedTolerance out;
    loosestStore(fn, arg, 1, out);
    return out;
}

} // namespace pto
