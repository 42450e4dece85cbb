// Kernels shared by isomorphic tasks: rebasing a task's GM addresses, finding kernels equal but
// for their GM addresses, and writing the shared kernels out again (compiler/ir/PtoShare.h).
#include "compiler/ir/PtoShare.h"

#include "compiler/ir/PtoLoops.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <optional>
#include <unordered_map>

namespace pto {

const GmRebase* rebaseHolding(std::span<const GmRebase> rebases, int64_t addr) {
    auto it = std::upper_bound(rebases.begin(), rebases.end(), addr,
                               [](int64_t a, const GmRebase& r) { return a < r.begin; });
    if (it == rebases.begin()) return nullptr;
    --it;
    return addr < it->end ? &*it : nullptr;
}

int64_t rebasedAddress(std::span<const GmRebase> rebases, int64_t addr) {
    const GmRebase* r = rebaseHolding(rebases, addr);
    return r ? addr + r->delta : addr;
}

Instr rebasedInstr(const Instr& in, std::span<const GmRebase> rebases) {
    Instr out = in;
    if (rebases.empty()) return out;
    for (size_t j = 0; j < out.operandCount; ++j)
        if (out.operands[j].space == MemSpace::GM)
            out.operands[j].addr = rebasedAddress(rebases, out.operands[j].addr);
    return out;
}

PtoProgram expandSharedKernels(const PtoProgram& p) {
    PtoProgram out;
    out.name = p.name;
    out.gm = p.gm;
    out.kernels = p.kernels;
    out.exec.deps = p.exec.deps;
    out.exec.tasks.reserve(p.exec.tasks.size());
    for (const Task& t : p.exec.tasks) {
        Task copy = t;
        copy.rebases.clear();
        if (!t.rebases.empty() && t.block < p.kernels.size()) {
            Kernel k = p.kernels[t.block];
            for (Instr& in : k.instrs) in = rebasedInstr(in, t.rebases);
            k.id = uint32_t(out.kernels.size());
            k.name = k.name + "@" + std::to_string(t.id);
            copy.block = k.id;
            out.kernels.push_back(std::move(k));
        }
        out.exec.tasks.push_back(std::move(copy));
    }
    return out;
}

namespace {

class StructureHash {
public:
    void add(uint64_t v) { m_h ^= v + 0x9e3779b97f4a7c15ull + (m_h << 6) + (m_h >> 2); }
    void add(const std::string& s) { add(std::hash<std::string>{}(s)); }
    uint64_t value() const { return m_h; }

private:
    uint64_t m_h = 1469598103934665603ull;
};

void hashInstr(StructureHash& h, const Instr& in) {
    h.add(uint64_t(in.opcode) | uint64_t(in.pipe) << 8 | uint64_t(in.operandCount) << 16 |
          uint64_t(in.flagSrc) << 24 | uint64_t(in.flagDst) << 32 | uint64_t(in.event) << 40 |
          uint64_t(in.peer) << 48 | uint64_t(in.transposeA) << 56 | uint64_t(in.transposeB) << 57);
    h.add(std::bit_cast<uint64_t>(in.scalar));
    if (!in.mode.empty()) h.add(in.mode);
    h.add(uint64_t(in.loc.line) << 32 | in.loc.col);
    for (const Operand& o : in.ops()) {
        h.add(uint64_t(o.space) | uint64_t(o.dtype) << 8 | uint64_t(uint32_t(o.rows)) << 16);
        h.add(uint64_t(uint32_t(o.cols)) | uint64_t(o.stride) << 32);
        h.add(uint64_t(o.space == MemSpace::GM ? 0 : o.addr));
    }
}

uint64_t structureHash(const Kernel& k) {
    StructureHash h;
    h.add(uint64_t(k.core));
    h.add(k.instrs.size());
    for (const Instr& in : k.instrs) hashInstr(h, in);
    for (const InstrLoop& l : k.loops) {
        h.add(uint64_t(l.begin) << 32 | l.end);
        h.add(uint64_t(l.count));
        h.add(uint64_t(l.firstIter) ^ uint64_t(l.iterStride) << 20);
        h.add(l.name);
        for (int64_t v : l.iterOffsets) h.add(uint64_t(v));
        for (int64_t v : l.outerIters) h.add(uint64_t(v));
        for (const auto& s : l.steps)
            for (int64_t v : s) h.add(uint64_t(v));
    }
    return h.value();
}

// Equal in every field but GM addresses and tile op ids.
bool sameStructure(const Kernel& a, const Kernel& b) {
    if (a.core != b.core || a.instrs.size() != b.instrs.size() || a.loops != b.loops) return false;
    for (size_t i = 0; i < a.instrs.size(); ++i) {
        const Instr& x = a.instrs[i];
        const Instr& y = b.instrs[i];
        if (!sameButAddresses(x, y)) return false;
        for (size_t j = 0; j < x.operandCount; ++j)
            if (x.operands[j].space != MemSpace::GM && x.operands[j].addr != y.operands[j].addr)
                return false;
    }
    return true;
}

// The GM tensors by address, to find the one an operand lies in.
class GmIndex {
public:
    explicit GmIndex(const std::vector<GmTensor>& gm) : m_gm(gm) {
        for (size_t i = 0; i < gm.size(); ++i) m_byAddr.push_back(i);
        std::stable_sort(m_byAddr.begin(), m_byAddr.end(),
                         [&](size_t a, size_t b) { return gm[a].addr < gm[b].addr; });
    }
    /// The tensor holding [begin, end) (the latest-starting one when tensors overlap).
    std::optional<size_t> holding(int64_t begin, int64_t end) const {
        auto it = std::upper_bound(m_byAddr.begin(), m_byAddr.end(), begin,
                                   [&](int64_t a, size_t t) { return a < m_gm[t].addr; });
        while (it != m_byAddr.begin()) {
            const GmTensor& t = m_gm[*--it];
            if (end <= t.addr + t.bytes()) return *it;
        }
        return std::nullopt;
    }
    const GmTensor& operator[](size_t i) const { return m_gm[i]; }

private:
    const std::vector<GmTensor>& m_gm;
    std::vector<size_t> m_byAddr;
};

// The bytes a GM operand covers over every round of its counted loop (round 0 alone outside
// loops); nullopt on overflow.
std::optional<ByteRange> spanOverRounds(const Operand& o, int64_t step, int64_t count) {
    std::optional<ByteRange> r = operandBytes(o);
    if (!r || count <= 1 || step == 0) return r;
    int64_t reach = 0;
    if (__builtin_mul_overflow(step, count - 1, &reach)) return std::nullopt;
    int64_t moved = 0;
    if (__builtin_add_overflow(step > 0 ? r->end : r->begin, reach, &moved)) return std::nullopt;
    (step > 0 ? r->end : r->begin) = moved;
    return r;
}

// Calls f(instr index, operand index, span) for every GM operand of `k` over all rounds;
// false when a span overflows.
template <typename F> bool forEachGmSpan(const Kernel& k, F&& f) {
    size_t loop = 0;
    for (size_t i = 0; i < k.instrs.size(); ++i) {
        while (loop < k.loops.size() && k.loops[loop].end <= i) ++loop;
        const InstrLoop* l =
            loop < k.loops.size() && k.loops[loop].begin <= i ? &k.loops[loop] : nullptr;
        const Instr& in = k.instrs[i];
        for (size_t j = 0; j < in.operandCount; ++j) {
            if (in.operands[j].space != MemSpace::GM) continue;
            const int64_t step = l ? l->steps[i - l->begin][j] : 0;
            const std::optional<ByteRange> span =
                spanOverRounds(in.operands[j], step, l ? l->count : 1);
            if (!span || !f(i, j, *span)) return false;
        }
    }
    return true;
}

// Whether [begin, end) lies inside one rebase, or meets none.
bool withinOneRebase(std::span<const GmRebase> rebases, const ByteRange& r) {
    if (const GmRebase* holder = rebaseHolding(rebases, r.begin)) return r.end <= holder->end;
    auto next = std::upper_bound(rebases.begin(), rebases.end(), r.begin,
                                 [](int64_t a, const GmRebase& x) { return a < x.begin; });
    return next == rebases.end() || next->begin >= r.end;
}

// The rebases that turn representative `rep` into `k` (same structure), or nullopt when the
// distances are not one constant per GM tensor.
std::optional<std::vector<GmRebase>> rebasesBetween(const Kernel& rep, const Kernel& k,
                                                    const GmIndex& gm) {
    std::unordered_map<size_t, int64_t> deltaOf; // GM tensor -> distance
    const bool consistent = forEachGmSpan(rep, [&](size_t i, size_t j, const ByteRange& span) {
        const int64_t from = rep.instrs[i].operands[j].addr;
        const int64_t to = k.instrs[i].operands[j].addr;
        const std::optional<size_t> t = gm.holding(span.begin, span.end);
        if (!t) return from == to;
        return deltaOf.try_emplace(*t, to - from).first->second == to - from;
    });
    if (!consistent) return std::nullopt;
    std::vector<std::pair<size_t, int64_t>> touched(deltaOf.begin(), deltaOf.end());
    std::sort(touched.begin(), touched.end(), [&](const auto& a, const auto& b) {
        return std::pair(gm[a.first].addr, a.first) < std::pair(gm[b.first].addr, b.first);
    });
    std::vector<GmRebase> rebases;
    int64_t previousDelta = 0;
    for (const auto& [t, delta] : touched) {
        const int64_t begin = gm[t].addr, end = begin + gm[t].bytes();
        if (delta != 0 && delta == previousDelta && !rebases.empty())
            rebases.back().end = std::max(rebases.back().end, end);
        else if (delta != 0)
            rebases.push_back(GmRebase{begin, end, delta});
        previousDelta = delta;
    }
    for (size_t r = 1; r < rebases.size(); ++r)
        if (rebases[r].begin < rebases[r - 1].end) return std::nullopt;
    const bool exact = forEachGmSpan(rep, [&](size_t i, size_t j, const ByteRange& span) {
        return withinOneRebase(rebases, span) &&
               rebasedAddress(rebases, rep.instrs[i].operands[j].addr) ==
                   k.instrs[i].operands[j].addr;
    });
    if (!exact) return std::nullopt;
    return rebases;
}

// At most this many representatives of one structure hash are tried per kernel, so a program
// of many near-isomorphic kernels stays linear.
constexpr size_t kRepresentativesTried = 4;

} // namespace

ShareStats shareIsomorphicKernels(PtoProgram& p) {
    const size_t n = p.kernels.size();
    ShareStats stats{n, n};
    // A kernel is a candidate when tasks run it and none of them moves it already.
    std::vector<char> candidate(n, 0);
    for (const Task& t : p.exec.tasks)
        if (t.block < n) candidate[t.block] = 1;
    for (const Task& t : p.exec.tasks)
        if (t.block < n && !t.rebases.empty()) candidate[t.block] = 0;
    const GmIndex gm(p.gm);
    std::vector<uint32_t> target(n);
    std::vector<std::vector<GmRebase>> rebasesOf(n);
    std::unordered_map<uint64_t, std::vector<uint32_t>> representatives;
    for (uint32_t k = 0; k < n; ++k) {
        target[k] = k;
        if (!candidate[k]) continue;
        std::vector<uint32_t>& reps = representatives[structureHash(p.kernels[k])];
        for (size_t r = 0; r < std::min(reps.size(), kRepresentativesTried); ++r) {
            const Kernel& rep = p.kernels[reps[r]];
            if (!sameStructure(rep, p.kernels[k])) continue;
            if (auto rebases = rebasesBetween(rep, p.kernels[k], gm)) {
                target[k] = reps[r];
                rebasesOf[k] = std::move(*rebases);
                break;
            }
        }
        if (target[k] == k) reps.push_back(k);
    }
    std::vector<uint32_t> newIndex(n, UINT32_MAX);
    std::vector<Kernel> kept;
    for (uint32_t k = 0; k < n; ++k) {
        if (target[k] != k) continue;
        newIndex[k] = uint32_t(kept.size());
        kept.push_back(std::move(p.kernels[k]));
        kept.back().id = newIndex[k];
    }
    for (Task& t : p.exec.tasks) {
        if (t.block >= n) continue;
        const uint32_t k = t.block;
        t.block = newIndex[target[k]];
        if (target[k] != k) t.rebases = rebasesOf[k];
    }
    p.kernels = std::move(kept);
    stats.kernelsAfter = p.kernels.size();
    return stats;
}

} // namespace pto
