// Loop windows: lower a few iterations of a long loop, stretch its counted loops (see
// LoopWindow.h).
#include "compiler/passes/LoopWindow.h"

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/OpKind.h"
#include "compiler/ir/PtoLoops.h"
#include "compiler/ir/PtoSyncCheck.h"
#include "compiler/ir/Verifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

namespace pto {

std::optional<int64_t> linear(int64_t x, int64_t y, int64_t z, int64_t k) {
    int64_t d = 0, d2 = 0, kd = 0, r = 0;
    if (__builtin_sub_overflow(y, x, &d) || __builtin_sub_overflow(z, y, &d2) || d != d2 ||
        __builtin_mul_overflow(k, d, &kd) || __builtin_add_overflow(x, kd, &r))
        return std::nullopt;
    return r;
}

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

bool sameGm(const GmTensor& a, const GmTensor& b) {
    return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.addr == b.addr &&
           a.role == b.role;
}

// A GM tensor's name split into its stem and trailing number ("ws12" → ws, 12; "out" → out, -1).
std::pair<std::string_view, int64_t> splitName(std::string_view name) {
    size_t cut = name.size();
    while (cut > 0 && name[cut - 1] >= '0' && name[cut - 1] <= '9') --cut;
    if (cut == name.size() || cut == 0 || name.size() - cut > 15) return {name, -1};
    return {name.substr(0, cut), std::stoll(std::string(name.substr(cut)))};
}

// The GM tensor k periods after y, from x, y, z one period apart: equal dtype, shape and role,
// the address and the name's number changing by the same amount each period. The value id is
// dropped when it changes (the window's Tensor function has no such value).
std::optional<GmTensor> extendGm(const GmTensor& x, const GmTensor& y, const GmTensor& z,
                                 int64_t k) {
    if (x.dtype != y.dtype || y.dtype != z.dtype || x.shape != y.shape || y.shape != z.shape ||
        x.role != y.role || y.role != z.role)
        return std::nullopt;
    GmTensor out = x;
    auto addr = linear(x.addr, y.addr, z.addr, k);
    if (!addr) return std::nullopt;
    out.addr = *addr;
    if (x.name != y.name || y.name != z.name) {
        auto [sx, nx] = splitName(x.name);
        auto [sy, ny] = splitName(y.name);
        auto [sz, nz] = splitName(z.name);
        auto n = linear(nx, ny, nz, k);
        if (sx != sy || sy != sz || nx < 0 || ny < 0 || nz < 0 || !n || *n < 1) return std::nullopt;
        out.name = fmt::format("{}{}", sx, *n);
    }
    if (x.tensorValue != y.tensorValue || y.tensorValue != z.tensorValue) out.tensorValue = kNoId;
    return out;
}

// The GM table k periods after `a`: the tensors of each later window are a's, with `d` more of
// the loop's per-iteration workspaces inserted before a's last ones (the tensors after the
// loop). Equal leading tensors stay; the inserted ones repeat a's last d leading tensors, one
// period later each time; the trailing ones move linearly.
std::optional<std::vector<GmTensor>> extendGmTable(const std::vector<GmTensor>& a,
                                                   const std::vector<GmTensor>& b,
                                                   const std::vector<GmTensor>& c, int64_t k) {
    const size_t na = a.size();
    if (b.size() < na || c.size() < b.size() || c.size() - b.size() != b.size() - na)
        return std::nullopt;
    const size_t d = b.size() - na;
    size_t lead = 0;
    while (lead < na && sameGm(a[lead], b[lead]) && sameGm(b[lead], c[lead])) ++lead;
    if (d == 0) return lead == na ? std::optional(a) : std::nullopt;
    if (lead < d) return std::nullopt;
    std::vector<GmTensor> out(a.begin(), a.begin() + lead);
    for (int64_t t = 1; t <= k; ++t)
        for (size_t x = 0; x < d; ++x) {
            auto g = extendGm(a[lead - d + x], b[lead + x], c[lead + d + x], t);
            if (!g || !sameGm(b[lead + x], c[lead + x])) return std::nullopt;
            out.push_back(std::move(*g));
        }
    for (size_t t = lead; t < na; ++t) {
        auto g = extendGm(a[t], b[t + d], c[t + 2 * d], k);
        if (!g) return std::nullopt;
        out.push_back(std::move(*g));
    }
    return out;
}

// The exec graph k periods after `a`: equal tasks; dependencies equal but for the GM tensor
// carrying them, whose index moves linearly (a later iteration's workspace).
bool extendExec(ExecGraph& out, const ExecGraph& b, const ExecGraph& c, int64_t k) {
    const ExecGraph& a = out;
    if (a.tasks.size() != b.tasks.size() || b.tasks.size() != c.tasks.size() ||
        a.deps.size() != b.deps.size() || b.deps.size() != c.deps.size())
        return false;
    auto sameTask = [](const Task& x, const Task& y) {
        return x.id == y.id && x.block == y.block && x.core == y.core && x.name == y.name &&
               x.cluster == y.cluster && x.sub == y.sub;
    };
    for (size_t i = 0; i < a.tasks.size(); ++i)
        if (!sameTask(a.tasks[i], b.tasks[i]) || !sameTask(b.tasks[i], c.tasks[i])) return false;
    for (size_t i = 0; i < a.deps.size(); ++i) {
        const TaskDep& x = a.deps[i];
        const TaskDep& y = b.deps[i];
        const TaskDep& z = c.deps[i];
        if (x.from != y.from || y.from != z.from || x.to != y.to || y.to != z.to ||
            x.kind != y.kind || y.kind != z.kind)
            return false;
        auto tensor = linear(x.tensor, y.tensor, z.tensor, k);
        if (!tensor || *tensor < 0 || *tensor > int64_t(UINT32_MAX)) return false;
        out.deps[i].tensor = uint32_t(*tensor);
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

std::string loopLabel(const Op& loop) {
    return loop.attrs.has("name") ? loop.attrs.getString("name")
                                  : fmt::format("for@{}:{}", loop.loc.line, loop.loc.col);
}

LoopWindow loopWindowFor(const Op& loop) {
    LoopWindow w;
    w.trips = loopTripCount(loop);
    w.windowTrips = kWindowBase + w.trips % w.period;
    w.loopName = loopLabel(loop);
    return w;
}

void truncateLoop(Op& loop, int64_t trips) {
    loop.attrs.set("upper", loop.attrs.getInt("lower") + trips * loop.attrs.getInt("step", 1));
}

std::optional<PtoProgram> extrapolateLoopWindow(const PtoProgram& a, const PtoProgram& b,
                                                const PtoProgram& c, int64_t k) {
    if (a.name != b.name || b.name != c.name || a.kernels.size() != b.kernels.size() ||
        b.kernels.size() != c.kernels.size())
        return std::nullopt;
    std::optional<std::vector<GmTensor>> gm = extendGmTable(a.gm, b.gm, c.gm, k);
    if (!gm) return std::nullopt;
    PtoProgram out = a;
    out.gm = std::move(*gm);
    if (!extendExec(out.exec, b.exec, c.exec, k)) return std::nullopt;
    for (const TaskDep& d : out.exec.deps)
        if (d.tensor != UINT32_MAX && d.tensor >= out.gm.size()) return std::nullopt;
    for (size_t i = 0; i < out.kernels.size(); ++i)
        if (!extendKernel(out.kernels[i], b.kernels[i], c.kernels[i], k)) return std::nullopt;
    return out;
}

std::optional<PtoProgram> stretchCheckedLoopWindow(const PtoProgram& a, const PtoProgram& b,
                                                   const PtoProgram& c, int64_t k, std::string& why,
                                                   const std::string& file,
                                                   const TargetInfo& target) {
    std::optional<PtoProgram> stretched = extrapolateLoopWindow(a, b, c, k);
    if (!stretched) {
        why = "its three windows do not extend linearly";
        return std::nullopt;
    }
    if (const std::optional<SyncProblem> problem = checkPtoSync(*stretched, file)) {
        why = "the stretched program fails the sync check: " + problem->message;
        return std::nullopt;
    }
    try {
        verifyPtoProgram(*stretched, file, target);
    } catch (const CompileError& e) {
        why = "the stretched program is not valid: " + e.message();
        return std::nullopt;
    }
    return stretched;
}

void relabelLoopEpilogue(PtoProgram& p, const Function& tile, const std::string& loopName,
                         int64_t shift) {
    for (Kernel& k : p.kernels) relabelKernel(k, tile, loopName, shift);
}

} // namespace pto
