// Bisection of Tile-level programs: their stores into their arguments against the reference.
#include "driver/KernelCompare.h"

#include "compiler/ir/Printer.h"
#include "validate/DriftChain.h"
#include "validate/GoldenDiff.h"

#include <tuple>

namespace pto {
namespace {

bool storesInto(const Op& op) {
    return (op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd) && op.operands.size() > 1;
}

// The loosest tolerance of the values stored into `arg`: their producers' classes and
// accumulation lengths, widened by the drift their chains may carry.
ComparePolicy storedPolicy(const Function& ref, ValueId arg, const std::vector<int64_t>& chain,
                           const ComparePolicy& base) {
    ComparePolicy loosest = base;
    for (const Op& op : ref.ops()) {
        if (!storesInto(op) || op.operands[1] != arg) continue;
        const ValueId stored = op.operands[0];
        ComparePolicy p = base;
        if (const Op* producer = ref.producer(stored)) {
            p.cls = toleranceClassOf(producer->kind);
            p.k = accumulationLength(ref, *producer);
        }
        if (inputsMayDrift(ref, stored, chain))
            std::tie(p.cls, p.k) = driftedTolerance(ref, stored, chain);
        if (std::tie(p.k, p.cls) > std::tie(loosest.k, loosest.cls)) loosest = p;
    }
    return loosest;
}

// The last store into `arg`: where a divergence of its contents is reported.
const Op* lastStore(const Function& fn, ValueId arg) {
    const Op* last = nullptr;
    for (const Op& op : fn.ops())
        if (storesInto(op) && op.operands[1] == arg) last = &op;
    return last;
}

// The divergence of written argument `arg`: reported at its last store, with `reason`.
Divergence atLastStore(const Function& fn, ValueId arg, std::string_view name, std::string reason) {
    Divergence d;
    if (const Op* store = lastStore(fn, arg)) {
        d.op = store->id;
        d.mnemonic = std::string(opName(store->kind));
        d.loc = store->loc;
    }
    d.value = "%" + std::string(name);
    d.reason = std::move(reason);
    return d;
}

void count(const Function& fn, ValueId arg, std::string_view name, const TensorComparison& c,
           StageResult& out) {
    ++out.compared;
    if (c.metrics.exact())
        ++out.exact;
    else if (c.verdict.passed)
        ++out.drift;
    else if (++out.failed == 1) {
        Divergence d =
            atLastStore(fn, arg, name,
                        "its final contents differ from the reference's: " + c.verdict.summary());
        d.shape.assign(c.shape.begin(), c.shape.end());
        d.metrics = c.metrics;
        d.tolerance = c.tolerance;
        out.first = d;
    }
}

// A written argument the stage or the simulator run does not have: its contents are lost.
void countMissing(const Function& ref, ValueId arg, std::string_view name, std::string reason,
                  StageResult& out) {
    ++out.compared;
    if (++out.failed == 1) out.first = atLastStore(ref, arg, name, std::move(reason));
}

} // namespace

std::vector<size_t> writtenArgs(const Function& fn) {
    std::vector<char> written(fn.valueCount(), 0);
    for (const Op& op : fn.ops())
        if (storesInto(op)) written[op.operands[1]] = 1;
    std::vector<size_t> args;
    for (size_t i = 0; i < fn.args.size(); ++i)
        if (written[fn.args[i]]) args.push_back(i);
    return args;
}

void compareKernelStage(const Function& fn, const EvalResult& got, const Function& ref,
                        const EvalResult& reference, const ComparePolicy& policy,
                        StageResult& out) {
    const std::vector<int64_t> chain = propagatedAccumulation(ref, reference.values);
    const NameTable names(ref);
    for (size_t i : writtenArgs(ref)) {
        const ValueId a = ref.args[i];
        if (i >= fn.args.size()) {
            countMissing(ref, a, names[a], "this stage has no such argument any more", out);
            continue;
        }
        const ValueId b = fn.args[i];
        if (a >= reference.values.size() || b >= got.values.size()) continue;
        const TensorComparison c =
            compareTensors(std::string(names[a]), got.values[b], reference.values[a],
                           storedPolicy(ref, a, chain, policy));
        count(fn, b, names[a], c, out);
    }
}

void compareKernelOutputs(const Function& ref, const EvalResult& reference,
                          const sim::SimResult& sim, const ComparePolicy& policy, StageResult& out,
                          BisectReport& report) {
    const std::vector<int64_t> chain = propagatedAccumulation(ref, reference.values);
    const NameTable names(ref);
    for (size_t i : writtenArgs(ref)) {
        const ValueId a = ref.args[i];
        const std::string name(names[a]);
        const TensorData* got = nullptr;
        for (const auto& [n, t] : sim.outputs)
            if (n == name) got = &t;
        if (a >= reference.values.size()) continue;
        if (!got) {
            countMissing(ref, a, name, "the simulated run returned no contents for it", out);
            continue;
        }
        const ComparePolicy p = storedPolicy(ref, a, chain, policy);
        report.outputs.push_back(compareTensors(name, *got, reference.values[a], p));
        report.diagnoses.push_back(
            diagnoseComparison(report.outputs.back(), *got, reference.values[a], p, nullptr));
        count(ref, a, name, report.outputs.back(), out);
    }
}

} // namespace pto
