// propagatedAccumulation: the K a value's inherited accumulation drift is judged by.
#include "validate/DriftChain.h"

#include <algorithm>
#include <cmath>

namespace pto {
namespace {

// One ulp of a narrower float type at its coarsest (relative to the value), in units of 2^-24.
int64_t castStepUnits(DType d) {
    switch (d) {
    case DType::F16:
        return int64_t{1} << 14;
    case DType::BF16:
        return int64_t{1} << 17;
    default:
        return 0;
    }
}

// Loops longer than this are rare and their K is already far above any order drift.
constexpr int64_t kMaxIterations = 1 << 16;

// Drift of more than 2^24 u is a relative error of 1: every value passes.
constexpr int64_t kMaxDrift = int64_t{1} << 24;

// The largest |x| of a float value of the reference (0 when it is not at hand).
double largestMagnitude(std::span<const TensorData> values, ValueId v) {
    if (v >= values.size() || !isFloatType(values[v].dtype)) return 0;
    const TensorData& t = values[v];
    if (t.byteSize() != static_cast<int64_t>(t.bytes.size())) return 0;
    std::vector<float> xs(static_cast<size_t>(t.numel()));
    t.loadFloats(xs.data());
    double m = 0;
    for (float x : xs)
        if (std::isfinite(x)) m = std::max(m, double(std::fabs(x)));
    return m;
}

// A bound over the elements of x (X = max |x|) of the condition number |x·f'(x) / f(x)|: how
// many times the relative error of x the relative error of f(x) is. Ops not listed pass it on
// unchanged (1): the other elementwise ops' condition numbers are at most 1 in the error model
// of the chain (products and quotients add the relative errors of their operands), and an add
// or sub of nearly equal values is covered by the K·u·rms(g) part of the tolerance.
double amplification(OpKind kind, double x) {
    switch (kind) {
    case OpKind::Exp:
    case OpKind::Sigmoid: // |x|·(1 − σ(x))
        return std::max(1.0, x);
    case OpKind::Silu: // 1 + x·(1 − σ(x)), largest for negative x
        return 1.0 + x;
    case OpKind::Softmax: // exp(x − max x): the difference carries the error of both
        return 1.0 + 2.0 * x;
    case OpKind::Gelu: // tanh form: for negative x, 1 + tanh(z) ~ 2·exp(2z), z ~ 0.8x + 0.036x³
        return 1.0 + 2.0 * x + 0.25 * x * x * x;
    default:
        return 1.0;
    }
}

int64_t amplified(int64_t k, double factor) {
    if (factor <= 1.0 || k <= 0) return k;
    const double scaled = double(k) * factor;
    // The cap bounds what amplification adds; a K already past it (a long sum) stays as it is.
    if (scaled >= double(kMaxDrift)) return std::max(k, kMaxDrift);
    return std::max(k, int64_t(std::ceil(scaled)));
}

int64_t largestOf(const std::vector<int64_t>& chain, const std::vector<ValueId>& values) {
    int64_t k = 0;
    for (ValueId v : values) k = std::max(k, chain[v]);
    return k;
}

// The body's results when its arguments carry `args` (one per body argument).
std::vector<int64_t> bodyResults(const Function& body, const std::vector<int64_t>& args);

std::vector<int64_t> propagate(const Function& fn, const std::vector<int64_t>& args,
                               std::span<const TensorData> values = {}) {
    std::vector<int64_t> chain(fn.valueCount(), 0);
    for (size_t i = 0; i < fn.args.size() && i < args.size(); ++i) chain[fn.args[i]] = args[i];
    for (const Op& op : fn.ops()) {
        int64_t in = largestOf(chain, op.operands);
        if (in > 0 && !values.empty() && op.operands.size() == 1)
            in = amplified(in, amplification(op.kind, largestMagnitude(values, op.operands[0])));
        if (op.kind == OpKind::For && !op.body.empty()) {
            // body.args = [induction variable, iter_args..., captures...]; operands = [initial
            // iter_args..., captures...]; the iter_args take the body's results each iteration.
            const Function& body = op.body.front();
            std::vector<int64_t> a(body.args.size(), 0);
            for (size_t i = 0; i < op.operands.size() && i + 1 < a.size(); ++i)
                a[i + 1] = chain[op.operands[i]];
            const int64_t trips = std::min(loopTripCount(op), kMaxIterations);
            for (int64_t t = 0; t < trips; ++t) {
                const std::vector<int64_t> r = bodyResults(body, a);
                for (size_t i = 0; i < r.size() && i + 1 < a.size(); ++i) a[i + 1] = r[i];
            }
            for (size_t i = 0; i < op.results.size() && i + 1 < a.size(); ++i)
                chain[op.results[i]] = a[i + 1];
            continue;
        }
        // A composite is decomposed into primitives that may round its f16 or bf16 result the
        // other way; a call's callee may hold one (it is not at hand here).
        const bool roundsItsOwn =
            toleranceClassOf(op.kind) == ToleranceClass::Composite || op.kind == OpKind::Call;
        auto ownRounding = [&](ValueId r) {
            if (roundsItsOwn) chain[r] = std::max(chain[r], castStepUnits(fn.type(r).dtype));
        };
        for (ValueId r : op.results) {
            chain[r] = in;
            ownRounding(r);
        }
        if (op.result == kNoId) continue;
        // A max or min is the same in any order: it passes drift on but adds none.
        const bool sums = op.kind != OpKind::ReduceMax && op.kind != OpKind::ReduceMin;
        const int64_t own = sums ? accumulationLength(fn, op) : 1;
        const DType dt = fn.type(op.result).dtype;
        chain[op.result] = isFloatType(dt) ? in + (own > 1 ? own : 0) : 0;
        if (op.kind == OpKind::Cast && in > 0)
            chain[op.result] = std::max(chain[op.result], castStepUnits(dt));
        ownRounding(op.result);
    }
    for (ValueId v = 0; v < chain.size(); ++v)
        if (!isFloatType(fn.type(v).dtype)) chain[v] = 0;
    return chain;
}

std::vector<int64_t> bodyResults(const Function& body, const std::vector<int64_t>& args) {
    const std::vector<int64_t> chain = propagate(body, args);
    std::vector<int64_t> out;
    out.reserve(body.results.size());
    for (ValueId v : body.results) out.push_back(chain[v]);
    return out;
}

} // namespace

std::vector<int64_t> propagatedAccumulation(const Function& fn,
                                            std::span<const TensorData> values) {
    return propagate(fn, {}, values);
}

bool inputsMayDrift(const Function& fn, ValueId v, const std::vector<int64_t>& chain) {
    const Op* p = fn.producer(v);
    return p && largestOf(chain, p->operands) > 0;
}

std::pair<ToleranceClass, int64_t> driftedTolerance(const Function& fn, ValueId v,
                                                    const std::vector<int64_t>& chain) {
    const Op* p = fn.producer(v);
    if (!p) return {ToleranceClass::Elementwise, 1};
    const ToleranceClass cls = toleranceClassOf(p->kind);
    const int64_t k = accumulationLength(fn, *p);
    if (p->kind == OpKind::Cast && !p->operands.empty() &&
        isFloatType(fn.type(p->operands[0]).dtype) && !isFloatType(fn.type(v).dtype))
        return {ToleranceClass::Composite, k};
    if (chain[v] <= k) return {cls, k};
    return {cls == ToleranceClass::Elementwise ? ToleranceClass::Accumulation : cls, chain[v]};
}

} // namespace pto
