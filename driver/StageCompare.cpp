// Bisection's comparisons: Tensor stages against the reference, Tile stages and the
// simulator's stored regions against the last Tensor stage (the rules are in Bisect.h).
#include "driver/StageCompare.h"

#include "compiler/ir/Printer.h"
#include "validate/DriftChain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace pto {
namespace {

using Tagged = std::vector<std::pair<uint32_t, Divergence>>; // (Tensor op key, divergence)

ValueStatus effective(ValueStatus s) {
    return s == ValueStatus::Unchecked ? ValueStatus::Exact : s;
}

ValueStatus worst(ValueStatus a, ValueStatus b) {
    return std::max(effective(a), effective(b));
}

struct Judged {
    ValueStatus status = ValueStatus::Exact;
    bool diverges = false;
    std::string reason;
    TensorComparison cmp;
};

// The class and K of a result whose Tensor-level value is `v` of `fn`: its producer's own (an
// argument: elementwise), or, once its inputs have drifted, widened to the drift they carry
// (`chain`, DriftChain.h).
std::pair<ToleranceClass, int64_t>
toleranceFor(const Function& fn, ValueId v, const std::vector<int64_t>& chain, ValueStatus inputs) {
    if (effective(inputs) == ValueStatus::Drift) return driftedTolerance(fn, v, chain);
    const Op* p = fn.producer(v);
    if (!p) return {ToleranceClass::Elementwise, 1};
    return {toleranceClassOf(p->kind), accumulationLength(fn, *p)};
}

// Whether `v` of `fn` rounds drifted floats to f16 or bf16: a cast whose inputs have drifted.
bool roundsDriftedFloats(const Function& fn, ValueId v, ValueStatus inputs) {
    const Op* p = fn.producer(v);
    const DType to = fn.type(v).dtype;
    return effective(inputs) == ValueStatus::Drift && p && p->kind == OpKind::Cast &&
           (to == DType::F16 || to == DType::BF16) && !p->operands.empty() &&
           isFloatType(fn.type(p->operands[0]).dtype);
}

// Drift moves a value across a rounding midpoint as often up as down, so the elements of a
// rounded result that differ from the reference differ both ways; a rounding defect (truncation,
// a wrong mode) moves nearly all of them the same way. The widened tolerance of a drifted cast
// (one ulp) cannot tell the two apart; the direction can. Why, if the rounding is one-sided.
std::optional<std::string> oneSidedRounding(const TensorData& actual, const TensorData& golden) {
    constexpr int64_t kMinDiffering = 32; // below this a one-sided split is not unlikely
    constexpr double kOneSided = 0.9;     // of the differing elements, one way
    if (actual.dtype != golden.dtype || actual.numel() != golden.numel()) return std::nullopt;
    int64_t towardZero = 0, away = 0;
    for (int64_t i = 0; i < actual.numel(); ++i) {
        const float a = actual.get(i), g = golden.get(i);
        if (a == g || !std::isfinite(a) || !std::isfinite(g) || std::signbit(a) != std::signbit(g))
            continue;
        (std::fabs(a) < std::fabs(g) ? towardZero : away) += 1;
    }
    const int64_t differing = towardZero + away;
    const int64_t most = std::max(towardZero, away);
    if (differing < kMinDiffering || double(most) < kOneSided * double(differing))
        return std::nullopt;
    return fmt::format("{} of the {} elements that differ from the reference are rounded {}: "
                       "drift moves values across a rounding midpoint both ways, a one-sided "
                       "rounding is a defect",
                       most, differing, towardZero >= away ? "toward zero" : "away from zero");
}

Judged judgeValue(const TensorData& actual, const TensorData& golden,
                  std::pair<ToleranceClass, int64_t> tolerance, const ComparePolicy& policy,
                  ValueStatus inputs, bool roundsDrift) {
    const auto [cls, k] = tolerance;
    ComparePolicy p = policy;
    p.cls = cls;
    p.k = k;
    p.threads = 1;
    Judged j;
    j.cmp = compareTensors("", actual, golden, p);
    if (!j.cmp.verdict.passed) {
        j.status = ValueStatus::Fail;
        j.diverges = true;
        j.reason = "out of tolerance: " + j.cmp.verdict.summary();
    } else if (j.cmp.metrics.exact()) {
        j.status = ValueStatus::Exact;
    } else if (effective(inputs) == ValueStatus::Exact && cls == ToleranceClass::Elementwise) {
        j.status = ValueStatus::Fail;
        j.diverges = true;
        j.reason = fmt::format("not bit-exact although its inputs are: max abs {:.6g}, {} "
                               "element(s) differ, max {:.3g} ulp (a deterministic op must "
                               "reproduce the reference exactly)",
                               j.cmp.metrics.maxAbs, j.cmp.metrics.unequal, j.cmp.metrics.ulpMax);
    } else if (auto why = roundsDrift ? oneSidedRounding(actual, golden) : std::nullopt) {
        j.status = ValueStatus::Fail;
        j.diverges = true;
        j.reason = "within the drift tolerance but not drift: " + *why;
    } else {
        j.status = ValueStatus::Drift;
    }
    return j;
}

void count(StageResult& out, ValueStatus s) {
    ++out.compared;
    out.exact += s == ValueStatus::Exact;
    out.drift += s == ValueStatus::Drift;
    out.failed += s == ValueStatus::Fail;
}

std::string opRef(const NameTable& names, const Op& op) {
    if (op.result == kNoId) return std::string(opName(op.kind));
    return fmt::format("%{} = {}", names[op.result], opName(op.kind));
}

Divergence makeDivergence(const Function& f, const NameTable& names, const Op& op, const Judged& j,
                          ValueStatus inputs) {
    Divergence d;
    d.op = op.id;
    d.mnemonic = std::string(opName(op.kind));
    if (op.result != kNoId) {
        d.value = fmt::format("%{}", names[op.result]);
        const Shape& s = f.type(op.result).shape;
        d.shape.assign(s.begin(), s.end());
    }
    d.loc = op.loc;
    d.reason = j.reason;
    d.introduced = effective(inputs) != ValueStatus::Fail;
    d.metrics = j.cmp.metrics;
    d.tolerance = j.cmp.tolerance;
    return d;
}

void finish(StageResult& out, const Tagged& divs, int limit) {
    for (const auto& [k, d] : divs) out.inherited += !d.introduced;
    if (divs.empty()) return;
    out.first = divs.front().second;
    const uint32_t key = divs.front().first;
    for (const auto& [k, d] : divs) {
        if (k != key) continue;
        ++out.tilesFailed;
        if (int(out.tiles.size()) < limit) out.tiles.push_back(d);
    }
}

// rows × cols of `t`'s rows × cols view at (row, col), as a tensor of `shape`.
std::optional<TensorData> regionAt(const TensorData& t, int64_t row, int64_t col, int64_t rows,
                                   int64_t cols, const Shape& shape) {
    const int64_t tRows = t.shape.rows(), tCols = t.shape.cols();
    if (row < 0 || col < 0 || row + rows > tRows || col + cols > tCols ||
        rows * cols != shape.numel() || int64_t(t.bytes.size()) < t.byteSize())
        return std::nullopt;
    TensorData r(t.dtype, shape);
    const int64_t es = t.elementSize();
    for (int64_t i = 0; i < rows; ++i)
        std::memcpy(r.data() + i * cols * es, t.data() + ((row + i) * tCols + col) * es,
                    size_t(cols * es));
    return r;
}

// The region a tile of `shape` at `offset` (rank of `t`) covers in `t` (Graph.h's rule).
std::optional<TensorData> tileRegion(const TensorData& t, const Shape& offset, const Shape& shape) {
    int64_t row = 0, col = 0;
    const int rank = t.shape.rank();
    if (offset.rank() != 0 && offset.rank() != rank) return std::nullopt;
    for (int d = 0; d + 1 < rank; ++d) row = row * t.shape[d] + (offset.rank() ? offset[d] : 0);
    if (rank > 0 && offset.rank()) col = offset[rank - 1];
    return regionAt(t, row, col, shape.rows(), shape.cols(), shape);
}

std::string tensorOpText(const Function& tensor, const NameTable& names, ValueId origin) {
    const Op* p = tensor.producer(origin);
    if (!p) return fmt::format("%{} (argument)", names[origin]);
    return fmt::format("{} (line {}:{})", opRef(names, *p), p->loc.line, p->loc.col);
}

bool sameRegion(const Value& a, const Value& b) {
    return a.origin == b.origin && a.offset == b.offset && a.type.shape == b.type.shape;
}

bool isCopy(OpKind k) {
    return k == OpKind::TMove || k == OpKind::TLoad || k == OpKind::TStore || k == OpKind::Cast;
}

// Accumulator and partial-reduction tiles: read by a non-copy op that writes the same region;
// and a tile a transpose turns into its region's layout (a row reduction of a rank-3 value
// without keepdim: its r×1 sums become the 1×r row of the result), which holds the region's
// elements in another shape.
std::vector<char> partialTiles(const Function& tile) {
    std::vector<char> partial(tile.valueCount(), 0);
    for (const Op& op : tile.ops()) {
        if (op.result == kNoId || isCopy(op.kind)) continue;
        const Value& r = tile.value(op.result);
        for (ValueId v : op.operands) {
            const Value& x = tile.value(v);
            if (sameRegion(x, r) || (op.kind == OpKind::Transpose && x.origin == r.origin &&
                                     x.origin != kNoId && x.offset == r.offset))
                partial[v] = 1;
        }
    }
    return partial;
}

bool isGm(const Function& f, ValueId v) {
    return f.type(v).space == MemSpace::GM || f.value(v).def == kNoId ||
           f.op(f.value(v).def).kind == OpKind::GmTensor;
}

// Whether the ops a loop or a call stands for in the program as written may drift from the
// reference once lowered: a loop holding a composite, a reduction, a matmul or a call (nested
// loops too); any call (its callee is not at hand here, so assumed to). The reference has one
// value per loop or call result, so the unrolled and inlined ops have nothing to be compared
// with and inherit this.
bool mayDriftInside(const Op& op) {
    if (op.kind == OpKind::Call) return true;
    if (op.kind != OpKind::For) return false;
    for (const Function& body : op.body)
        for (const Op& inner : body.ops())
            if (toleranceClassOf(inner.kind) != ToleranceClass::Elementwise ||
                mayDriftInside(inner))
                return true;
    return false;
}

} // namespace

std::vector<OpId> chainRoots(const Function& fn, std::span<const OpId> previousRoots) {
    std::vector<OpId> roots(fn.ops().size(), kNoId);
    for (const Op& op : fn.ops())
        if (op.parent != kNoId && op.parent < previousRoots.size())
            roots[op.id] = previousRoots[op.parent];
    return roots;
}

void compareTensorStage(const Function& fn, std::span<const OpId> roots, const EvalResult& got,
                        const Function& ref, const EvalResult& refValues,
                        const ComparePolicy& policy, int tileLimit, StageResult& out) {
    std::vector<OpId> counterpart(ref.ops().size(), kNoId);
    for (const Op& op : fn.ops()) {
        const OpId root = roots[op.id];
        if (op.result == kNoId || root == kNoId || ref.op(root).result == kNoId) continue;
        if (fn.type(op.result).shape == ref.type(ref.op(root).result).shape)
            counterpart[root] = op.id;
    }
    std::vector<ValueStatus> status(fn.valueCount(), ValueStatus::Exact);
    const NameTable names(fn), refNames(ref);
    const std::vector<int64_t> chain = propagatedAccumulation(ref, refValues.values);
    std::vector<char> driftingLoop(ref.ops().size(), 0);
    for (const Op& op : ref.ops()) driftingLoop[op.id] = mayDriftInside(op);
    Tagged divs;
    for (const Op& op : fn.ops()) {
        if (op.result == kNoId) continue;
        ValueStatus in = ValueStatus::Exact;
        for (ValueId v : op.operands) in = worst(in, status[v]);
        const OpId root = roots[op.id];
        if (root == kNoId || counterpart[root] != op.id) {
            const bool unrolled = root != kNoId && driftingLoop[root];
            status[op.result] = unrolled ? worst(in, ValueStatus::Drift) : in;
            continue;
        }
        const Op& r = ref.op(root);
        Judged j = judgeValue(got.values[op.result], refValues.values[r.result],
                              toleranceFor(ref, r.result, chain, in), policy, in,
                              roundsDriftedFloats(ref, r.result, in));
        status[op.result] = j.status;
        count(out, j.status);
        if (!j.diverges) continue;
        Divergence d = makeDivergence(fn, names, op, j, in);
        d.tensorOp = fmt::format("{} (line {}:{})", opRef(refNames, r), r.loc.line, r.loc.col);
        divs.emplace_back(root, std::move(d));
    }
    finish(out, divs, tileLimit);
}

void compareTileStage(const Function& tile, const EvalResult& got, const Function& tensor,
                      const EvalResult& tensorValues, const ComparePolicy& policy, int tileLimit,
                      StageResult& out) {
    const std::vector<char> partial = partialTiles(tile);
    std::vector<ValueStatus> status(tile.valueCount(), ValueStatus::Exact);
    const NameTable names(tile), tensorNames(tensor);
    const std::vector<int64_t> chain = propagatedAccumulation(tensor, tensorValues.values);
    Tagged divs;
    for (const Op& op : tile.ops()) {
        if (op.kind == OpKind::TStore || op.kind == OpKind::TScatterAdd) {
            // A GM tensor is as good as the worst tile stored or scattered into it (a scatter's
            // index tile included).
            ValueId g = op.operands[1];
            for (size_t i = 0; i < op.operands.size(); ++i)
                if (i != 1) status[g] = worst(status[g], status[op.operands[i]]);
            continue;
        }
        if (op.result == kNoId || op.kind == OpKind::GmTensor) continue;
        ValueStatus in = ValueStatus::Exact;
        for (ValueId v : op.operands) in = worst(in, status[v]);
        const Value& val = tile.value(op.result);
        status[op.result] = in;
        if (val.origin == kNoId || partial[op.result] || op.kind == OpKind::Broadcast ||
            isGm(tile, op.result) || val.origin >= tensorValues.values.size())
            continue;
        auto golden = tileRegion(tensorValues.values[val.origin], val.offset, val.type.shape);
        if (!golden) continue;
        Judged j =
            judgeValue(got.values[op.result], *golden, toleranceFor(tensor, val.origin, chain, in),
                       policy, in, roundsDriftedFloats(tensor, val.origin, in));
        status[op.result] = j.status;
        count(out, j.status);
        if (!j.diverges) continue;
        Divergence d = makeDivergence(tile, names, op, j, in);
        d.offset.assign(val.offset.begin(), val.offset.end());
        d.tensorOp = tensorOpText(tensor, tensorNames, val.origin);
        const Op* p = tensor.producer(val.origin);
        divs.emplace_back(p ? p->id : UINT32_MAX - val.origin, std::move(d));
    }
    finish(out, divs, tileLimit);
}

namespace {

// Worst status of the stored regions the loads feeding `v` read (DFS over producers).
class LoadTracer {
public:
    explicit LoadTracer(const Function& tile) : m_tile(tile), m_seen(tile.ops().size(), 0) {}

    void record(const GmRegion& r, ValueStatus s) {
        if (s != ValueStatus::Exact) m_regions.push_back({r, s});
    }

    // `self`: v's own producer counts too (what a region v is stored into holds), not only what
    // it reads (what judging v against the reference assumes of its inputs).
    ValueStatus inputsOf(ValueId v, bool self) {
        ++m_stamp;
        ValueStatus worstSeen = ValueStatus::Exact;
        std::vector<ValueId> stack{v};
        while (!stack.empty()) {
            const ValueId cur = stack.back();
            stack.pop_back();
            const OpId def = m_tile.value(cur).def;
            if (def == kNoId || m_seen[def] == m_stamp) continue;
            m_seen[def] = m_stamp;
            const Op& op = m_tile.op(def);
            if (op.kind == OpKind::TLoad) {
                worstSeen = worst(worstSeen, statusOfLoad(op));
                continue;
            }
            // An accumulation on chip (a row sum, a matmul) is not observed here: the simulator
            // may add in another order than the reference, so what it feeds may have drifted.
            if ((self || cur != v) && toleranceClassOf(op.kind) == ToleranceClass::Accumulation)
                worstSeen = worst(worstSeen, ValueStatus::Drift);
            for (ValueId o : op.operands) stack.push_back(o);
        }
        return worstSeen;
    }

private:
    ValueStatus statusOfLoad(const Op& load) {
        GmRegion r;
        try {
            r = gmRegionOf(m_tile, load);
        } catch (const CompileError&) {
            return ValueStatus::Exact;
        }
        ValueStatus s = ValueStatus::Exact;
        for (const auto& [region, st] : m_regions)
            if (region.overlaps(r)) s = worst(s, st);
        return s;
    }

    const Function& m_tile;
    std::vector<uint32_t> m_seen;
    uint32_t m_stamp = 0;
    std::vector<std::pair<GmRegion, ValueStatus>> m_regions;
};

// The tstores whose bytes a later tstore of the program overwrites (ops by id). The final GM
// holds only the last write, so such a store cannot be compared there: a fused kernel's
// ping-pong workspaces, for one, are rewritten every other iteration.
std::unordered_set<OpId> overwrittenStores(const Function& tile) {
    std::unordered_map<ValueId, std::vector<GmRegion>> later; // writes after, by GM tensor
    std::unordered_set<OpId> overwritten;
    const auto& ops = tile.ops();
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
        if (it->kind != OpKind::TStore) continue;
        GmRegion r;
        try {
            r = gmRegionOf(tile, *it);
        } catch (const CompileError&) {
            continue;
        }
        std::vector<GmRegion>& after = later[r.tensor];
        if (std::any_of(after.begin(), after.end(),
                        [&](const GmRegion& w) { return w.overlaps(r); }))
            overwritten.insert(it->id);
        after.push_back(r);
    }
    return overwritten;
}

} // namespace

void compareSimulatorStage(const CompileState& state, const std::vector<TensorData>& gm,
                           const sim::SimResult& sim, const EvalResult& tensorValues,
                           const ComparePolicy& policy, int tileLimit, StageResult& out) {
    const Function& tile = state.block.tile;
    const Function& tensor = state.tensor;
    std::unordered_map<ValueId, size_t> gmIndex;
    const std::vector<ValueId> order = gmLayoutOrder(tile);
    for (size_t i = 0; i < order.size(); ++i) gmIndex[order[i]] = i;
    std::unordered_map<uint32_t, size_t> taskOfBlock;
    for (size_t i = 0; i < state.exec.tasks.size(); ++i)
        taskOfBlock.emplace(state.exec.tasks[i].block, i);
    const NameTable names(tile), tensorNames(tensor);
    const std::vector<int64_t> chain = propagatedAccumulation(tensor, tensorValues.values);
    LoadTracer tracer(tile);
    Tagged divs;
    // GM tensors scatter_add accumulates into: the final GM holds the base plus every
    // contribution, so a stored base tile cannot be compared with its own value there; such
    // regions carry the worst status of what was stored or scattered into them instead (the
    // final outputs are still compared whole).
    std::unordered_set<ValueId> scattered;
    for (const Op& op : tile.ops())
        if (op.kind == OpKind::TScatterAdd) scattered.insert(op.operands[1]);
    const std::unordered_set<OpId> overwritten = overwrittenStores(tile);
    for (const Op& op : tile.ops()) {
        if (op.kind == OpKind::TScatterAdd ||
            (op.kind == OpKind::TStore && scattered.count(op.operands[1]))) {
            try {
                ValueStatus in = ValueStatus::Exact;
                for (size_t i = 0; i < op.operands.size(); ++i)
                    if (i != 1) in = worst(in, tracer.inputsOf(op.operands[i], true));
                tracer.record(gmRegionOf(tile, op), in);
            } catch (const CompileError&) {
            }
            continue;
        }
        if (op.kind != OpKind::TStore) continue;
        const ValueId t = op.operands[0];
        if (overwritten.count(op.id)) {
            // Not observable in the final GM; its readers inherit what its inputs had.
            try {
                tracer.record(gmRegionOf(tile, op), tracer.inputsOf(t, true));
            } catch (const CompileError&) {
            }
            continue;
        }
        const Value& tv = tile.value(t);
        auto it = gmIndex.find(op.operands[1]);
        if (it == gmIndex.end() || it->second >= gm.size() || tv.origin == kNoId ||
            tv.origin >= tensorValues.values.size())
            continue;
        GmRegion r;
        try {
            r = gmRegionOf(tile, op);
        } catch (const CompileError&) {
            continue;
        }
        auto actual = regionAt(gm[it->second], r.row, r.col, r.rows, r.cols, tv.type.shape);
        auto golden = tileRegion(tensorValues.values[tv.origin], tv.offset, tv.type.shape);
        if (!actual || !golden) continue;
        const ValueStatus in = tracer.inputsOf(t, false);
        Judged j = judgeValue(*actual, *golden, toleranceFor(tensor, tv.origin, chain, in), policy,
                              in, roundsDriftedFloats(tensor, tv.origin, in));
        tracer.record(r, j.status);
        count(out, j.status);
        if (!j.diverges) continue;
        const Op& producer = tv.def == kNoId ? op : tile.op(tv.def);
        Divergence d = makeDivergence(tile, names, producer, j, in);
        d.offset.assign(tv.offset.begin(), tv.offset.end());
        d.tensorOp = tensorOpText(tensor, tensorNames, tv.origin);
        if (op.id < state.block.blockOfOp.size()) d.block = state.block.blockOfOp[op.id];
        if (auto task = taskOfBlock.find(d.block); task != taskOfBlock.end()) {
            d.task = int(state.exec.tasks[task->second].id);
            if (task->second < sim.tasks.size()) {
                d.coreType = sim.tasks[task->second].coreType;
                d.core = sim.tasks[task->second].core;
            }
        }
        const Op* p = tensor.producer(tv.origin);
        divs.emplace_back(p ? p->id : UINT32_MAX - tv.origin, std::move(d));
    }
    finish(out, divs, tileLimit);
}

} // namespace pto
