// Loop windows: lower a few iterations of a long loop, stretch its counted loops (see
// LoopWindow.h).
#include "compiler/passes/LoopWindow.h"

#include "compiler/ir/OpKind.h"
#include "compiler/ir/PtoLoops.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto {
namespace {

// Iterations of the smallest window: a prologue, two rounds of a period and the last iterations
// (written out after the counted loop) must fit in it.
constexpr int64_t kWindowBase = 24;

bool bodyIsWindowable(const Function& body) {
    for (const Op& op : body.ops()) {
        const OpClass c = opInfo(op.kind).cls;
        if (c == OpClass::Matmul || c == OpClass::Control || c == OpClass::Index) return false;
        if (op.kind == OpKind::View && op.attrs.has("clip")) return false;
        if (!op.body.empty()) return false;
    }
    return true;
}

// x + k·(y − x) when z − y == y − x, without overflow.
std::optional<int64_t> linear(int64_t x, int64_t y, int64_t z, int64_t k) {
    int64_t d = 0, d2 = 0, kd = 0, r = 0;
    if (__builtin_sub_overflow(y, x, &d) || __builtin_sub_overflow(z, y, &d2) || d != d2 ||
        __builtin_mul_overflow(k, d, &kd) || __builtin_add_overflow(x, kd, &r))
        return std::nullopt;
    return r;
}

bool sameGm(const GmTensor& a, const GmTensor& b) {
    return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.addr == b.addr &&
           a.role == b.role;
}

bool sameExec(const ExecGraph& a, const ExecGraph& b) {
    if (a.tasks.size() != b.tasks.size() || a.deps.size() != b.deps.size()) return false;
    for (size_t i = 0; i < a.tasks.size(); ++i) {
        const Task& x = a.tasks[i];
        const Task& y = b.tasks[i];
        if (x.id != y.id || x.block != y.block || x.core != y.core || x.name != y.name ||
            x.cluster != y.cluster || x.sub != y.sub)
            return false;
    }
    for (size_t i = 0; i < a.deps.size(); ++i) {
        const TaskDep& x = a.deps[i];
        const TaskDep& y = b.deps[i];
        if (x.from != y.from || x.to != y.to || x.kind != y.kind || x.tensor != y.tensor)
            return false;
    }
    return true;
}

bool extendInstr(Instr& out, const Instr& b, const Instr& c, int64_t k) {
    if (!sameButAddresses(out, b) || !sameButAddresses(b, c)) return false;
    for (size_t j = 0; j < out.operandCount; ++j) {
        auto addr = linear(out.operands[j].addr, b.operands[j].addr, c.operands[j].addr, k);
        if (!addr) return false;
        out.operands[j].addr = *addr;
    }
    return true;
}

bool extendLoop(InstrLoop& out, const InstrLoop& b, const InstrLoop& c, int64_t k) {
    auto sameBut = [](const InstrLoop& x, const InstrLoop& y) {
        return x.begin == y.begin && x.end == y.end && x.iterStride == y.iterStride &&
               x.iterOffsets == y.iterOffsets && x.outerIters == y.outerIters && x.name == y.name &&
               x.steps == y.steps;
    };
    if (!sameBut(out, b) || !sameBut(b, c)) return false;
    auto count = linear(out.count, b.count, c.count, k);
    auto first = linear(out.firstIter, b.firstIter, c.firstIter, k);
    if (!count || !first || *count < 0) return false;
    out.count = *count;
    out.firstIter = *first;
    return true;
}

bool extendKernel(Kernel& out, const Kernel& b, const Kernel& c, int64_t k) {
    if (out.id != b.id || b.id != c.id || out.name != b.name || b.name != c.name ||
        out.core != b.core || b.core != c.core || out.instrs.size() != b.instrs.size() ||
        b.instrs.size() != c.instrs.size() || out.loops.size() != b.loops.size() ||
        b.loops.size() != c.loops.size())
        return false;
    for (size_t i = 0; i < out.instrs.size(); ++i)
        if (!extendInstr(out.instrs[i], b.instrs[i], c.instrs[i], k)) return false;
    for (size_t l = 0; l < out.loops.size(); ++l)
        if (!extendLoop(out.loops[l], b.loops[l], c.loops[l], k)) return false;
    return true;
}

// The iteration a tile op's instruction belongs to, or nullopt (no loop label, or another loop).
std::optional<int64_t> iterOf(const Instr& in, const Function& tile, const std::string& name) {
    if (in.tileOp == kNoId || in.tileOp >= tile.ops().size()) return std::nullopt;
    const Attrs& a = tile.op(in.tileOp).attrs;
    if (a.getString("loop") != name) return std::nullopt;
    std::optional<std::vector<int64_t>> it = a.getInts("iter");
    if (!it || it->size() != 1) return std::nullopt;
    return it->front();
}

void relabelKernel(Kernel& k, const Function& tile, const std::string& name, int64_t shift) {
    uint32_t from = 0;
    for (const InstrLoop& l : k.loops)
        if (l.name == name) from = l.end;
    if (from == 0) return; // no stretched loop: nothing after it to rename
    for (const InstrLoop& l : k.loops)
        if (l.begin >= from) return; // another loop follows: leave the kernel as it is
    // The run of instructions labelled with the loop (and unlabelled ones between them).
    uint32_t end = from;
    for (uint32_t i = from; i < k.instrs.size(); ++i)
        if (iterOf(k.instrs[i], tile, name)) end = i + 1;
    if (end == from) return;
    std::vector<int64_t> iters(end - from);
    std::optional<int64_t> current;
    for (uint32_t i = from; i < end; ++i) {
        if (auto it = iterOf(k.instrs[i], tile, name)) current = it;
        iters[i - from] = current.value_or(-1);
    }
    // Instructions before the first labelled one belong to its iteration.
    const int64_t firstLabelled =
        *std::find_if(iters.begin(), iters.end(), [](int64_t v) { return v >= 0; });
    for (int64_t& v : iters)
        if (v < 0) v = firstLabelled;
    const int64_t lo = *std::min_element(iters.begin(), iters.end());
    InstrLoop tail;
    tail.begin = from;
    tail.end = end;
    tail.count = 1;
    tail.firstIter = lo + shift;
    tail.name = name;
    tail.steps.assign(end - from, std::array<int64_t, 4>{});
    for (int64_t v : iters) tail.iterOffsets.push_back(v - lo);
    tail.iterStride = *std::max_element(tail.iterOffsets.begin(), tail.iterOffsets.end()) + 1;
    if (std::all_of(tail.iterOffsets.begin(), tail.iterOffsets.end(),
                    [](int64_t v) { return v == 0; }))
        tail.iterOffsets.clear();
    k.loops.push_back(std::move(tail));
}

} // namespace

const Op* windowableLoop(const Function& f) {
    const Op* found = nullptr;
    for (const Op& op : f.ops()) {
        if (op.kind == OpKind::Call) return nullptr;
        if (op.kind != OpKind::For) continue;
        if (found) return nullptr; // one loop only
        found = &op;
    }
    if (!found || found->body.size() != 1 || !found->attrs.has("upper")) return nullptr;
    if (loopTripCount(*found) < kMinWindowTrips) return nullptr;
    return bodyIsWindowable(found->body.front()) ? found : nullptr;
}

LoopWindow loopWindowFor(const Op& loop) {
    LoopWindow w;
    w.trips = loopTripCount(loop);
    w.windowTrips = kWindowBase + w.trips % w.period;
    w.loopName = loop.attrs.has("name") ? loop.attrs.getString("name")
                                        : fmt::format("for@{}:{}", loop.loc.line, loop.loc.col);
    return w;
}

void truncateLoop(Op& loop, int64_t trips) {
    loop.attrs.set("upper", loop.attrs.getInt("lower") + trips * loop.attrs.getInt("step", 1));
}

std::optional<PtoProgram> extrapolateLoopWindow(const PtoProgram& a, const PtoProgram& b,
                                                const PtoProgram& c, int64_t k) {
    if (a.name != b.name || b.name != c.name || a.gm.size() != b.gm.size() ||
        b.gm.size() != c.gm.size() || a.kernels.size() != b.kernels.size() ||
        b.kernels.size() != c.kernels.size() || !sameExec(a.exec, b.exec) ||
        !sameExec(b.exec, c.exec))
        return std::nullopt;
    for (size_t i = 0; i < a.gm.size(); ++i)
        if (!sameGm(a.gm[i], b.gm[i]) || !sameGm(b.gm[i], c.gm[i])) return std::nullopt;
    PtoProgram out = a;
    for (size_t i = 0; i < out.kernels.size(); ++i)
        if (!extendKernel(out.kernels[i], b.kernels[i], c.kernels[i], k)) return std::nullopt;
    return out;
}

void relabelLoopEpilogue(PtoProgram& p, const Function& tile, const std::string& loopName,
                         int64_t shift) {
    for (Kernel& k : p.kernels) relabelKernel(k, tile, loopName, shift);
}

} // namespace pto
