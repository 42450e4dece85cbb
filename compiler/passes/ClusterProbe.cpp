// Compiling isomorphic fused clusters once: checking the probes and building the full program
// in the shared form (see ClusterProbe.h).
#include "compiler/passes/ClusterProbe.h"

#include "compiler/ir/PtoLoops.h"
#include "compiler/ir/PtoSyncCheck.h"
#include "compiler/ir/Verifier.h"
#include "compiler/passes/LoopWindow.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

namespace pto {
namespace {

constexpr int kRoles = 3;

// A name with a decimal run that numbers its cluster ("…_fused3_aic"): the text before and
// after the run and the run's value; nullopt when the two names do not differ in one run.
struct NumberedName {
    std::string head, tail;
    int64_t first = 0, step = 0;
    std::string at(int64_t i) const { return fmt::format("{}{}{}", head, first + i * step, tail); }
};
std::optional<NumberedName> numberedName(std::string_view n0, std::string_view n1) {
    size_t i = 0;
    while (i < n0.size() && i < n1.size() && n0[i] == n1[i]) ++i;
    auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
    while (i > 0 && digit(n0[i - 1])) --i;
    size_t e0 = i, e1 = i;
    while (e0 < n0.size() && digit(n0[e0])) ++e0;
    while (e1 < n1.size() && digit(n1[e1])) ++e1;
    if (e0 == i || e1 == i || e0 - i > 15 || e1 - i > 15 || n0.substr(e0) != n1.substr(e1))
        return std::nullopt;
    NumberedName out{std::string(n0.substr(0, i)), std::string(n0.substr(e0)), 0, 0};
    out.first = std::stoll(std::string(n0.substr(i, e0 - i)));
    out.step = std::stoll(std::string(n1.substr(i, e1 - i))) - out.first;
    return out;
}

// A probe seen as clusters: its GM table is `prefix` tensors (inputs, outputs) then one set of
// `set` workspaces per cluster.
struct Probe {
    const PtoProgram* p = nullptr;
    int64_t clusters = 0;
    size_t prefix = 0, set = 0;
    std::vector<uint32_t> byAddr; // GM tensor indices sorted by address
    int64_t setStride = 0;
    std::vector<std::optional<int64_t>> delta; // per prefix tensor: its move per cluster

    const Kernel& kernel(int64_t cluster, int role) const {
        return p->kernels[p->exec.tasks[size_t(cluster * kRoles + role)].block];
    }
    // The GM tensor holding byte `addr`, or -1.
    int64_t tensorAt(int64_t addr) const {
        auto it = std::upper_bound(byAddr.begin(), byAddr.end(), addr,
                                   [&](int64_t a, uint32_t t) { return a < p->gm[t].addr; });
        if (it == byAddr.begin()) return -1;
        const GmTensor& g = p->gm[*--it];
        return addr < g.addr + g.bytes() ? int64_t(*it) : -1;
    }
};

bool sameInstrButGm(const Instr& x, const Instr& y) {
    if (!sameButAddresses(x, y)) return false;
    for (size_t j = 0; j < x.operandCount; ++j)
        if (x.operands[j].space != MemSpace::GM && x.operands[j].addr != y.operands[j].addr)
            return false;
    return true;
}

// Checks the tasks, the GM table's sets and every cluster's kernels against cluster 0's,
// recording how each prefix tensor moves per cluster.
bool readProbe(Probe& pr, std::string& why) {
    const PtoProgram& p = *pr.p;
    const int64_t n = pr.clusters;
    if (!p.exec.deps.empty()) return why = "a probe has task dependencies", false;
    if (int64_t(p.exec.tasks.size()) != kRoles * n)
        return why = fmt::format("a probe of {} clusters has {} tasks", n, p.exec.tasks.size()),
               false;
    for (int64_t i = 0; i < n; ++i)
        for (int r = 0; r < kRoles; ++r) {
            const Task& t = p.exec.tasks[size_t(i * kRoles + r)];
            const Task& t0 = p.exec.tasks[size_t(r)];
            if (t.cluster != uint32_t(i) || t.core != t0.core || t.sub != t0.sub ||
                t.block >= p.kernels.size() || !t.rebases.empty())
                return why = "a probe's tasks are not three per cluster in cluster order", false;
        }
    if (p.gm.size() < size_t(n) * pr.set || (p.gm.size() - pr.prefix) != size_t(n) * pr.set ||
        pr.set == 0)
        return why = "a probe's GM table is not its tensors and one workspace set per cluster",
               false;
    pr.byAddr.resize(p.gm.size());
    for (uint32_t t = 0; t < p.gm.size(); ++t) pr.byAddr[t] = t;
    std::sort(pr.byAddr.begin(), pr.byAddr.end(),
              [&](uint32_t x, uint32_t y) { return p.gm[x].addr < p.gm[y].addr; });
    pr.setStride = p.gm[pr.prefix + pr.set].addr - p.gm[pr.prefix].addr;
    for (int64_t j = 0; j < n; ++j)
        for (size_t x = 0; x < pr.set; ++x) {
            const GmTensor& g = p.gm[pr.prefix + size_t(j) * pr.set + x];
            const GmTensor& g0 = p.gm[pr.prefix + x];
            if (g.dtype != g0.dtype || g.shape != g0.shape || g.role != g0.role ||
                g.addr != g0.addr + j * pr.setStride)
                return why = "a probe's workspace sets are not laid out one stride apart", false;
        }
    pr.delta.assign(pr.prefix, std::nullopt);
    for (int r = 0; r < kRoles; ++r) {
        const Kernel& k0 = pr.kernel(0, r);
        for (int64_t i = 1; i < n; ++i) {
            const Kernel& k = pr.kernel(i, r);
            if (k.core != k0.core || k.instrs.size() != k0.instrs.size() || k.loops != k0.loops)
                return why =
                           fmt::format("cluster {} of a probe has other kernels than cluster 0", i),
                       false;
            for (size_t e = 0; e < k.instrs.size(); ++e) {
                const Instr& x = k0.instrs[e];
                const Instr& y = k.instrs[e];
                if (!sameInstrButGm(x, y))
                    return why = fmt::format("cluster {}'s kernel @{} differs from cluster 0's "
                                             "@{} at instruction {}",
                                             i, k.name, k0.name, e),
                           false;
                for (size_t j = 0; j < x.operandCount; ++j) {
                    if (x.operands[j].space != MemSpace::GM) continue;
                    const int64_t t0 = pr.tensorAt(x.operands[j].addr);
                    const int64_t ti = pr.tensorAt(y.operands[j].addr);
                    if (t0 < 0 || ti < 0 || size_t(t0) >= pr.prefix + pr.set)
                        return why = "a cluster-0 GM access lies outside its own tensors", false;
                    if (size_t(t0) >= pr.prefix) {
                        if (ti != t0 + i * int64_t(pr.set) ||
                            y.operands[j].addr - p.gm[size_t(ti)].addr !=
                                x.operands[j].addr - p.gm[size_t(t0)].addr)
                            return why = "a cluster does not use its own workspace set", false;
                        continue;
                    }
                    const int64_t d = y.operands[j].addr - x.operands[j].addr;
                    std::optional<int64_t>& dt = pr.delta[size_t(t0)];
                    if (ti != t0 || d % i != 0 || (dt && *dt != d / i))
                        return why = fmt::format("the GM accesses of %{} do not move by one "
                                                 "amount per cluster",
                                                 p.gm[size_t(t0)].name),
                               false;
                    dt = d / i;
                }
            }
        }
    }
    return true;
}

std::optional<GmTensor> extendPrefix(const GmTensor& x, const GmTensor& y, const GmTensor& z,
                                     int64_t k) {
    if (x.name != y.name || y.name != z.name || x.dtype != y.dtype || y.dtype != z.dtype ||
        x.role != y.role || y.role != z.role || x.shape.rank() != y.shape.rank() ||
        y.shape.rank() != z.shape.rank())
        return std::nullopt;
    GmTensor out = x;
    for (int d = 0; d < x.shape.rank(); ++d) {
        auto e = linear(x.shape[d], y.shape[d], z.shape[d], k);
        if (!e || *e < 1) return std::nullopt;
        out.shape[d] = *e;
    }
    auto addr = linear(x.addr, y.addr, z.addr, k);
    if (!addr) return std::nullopt;
    out.addr = *addr;
    if (x.tensorValue != y.tensorValue || y.tensorValue != z.tensorValue) out.tensorValue = kNoId;
    return out;
}

// The full GM table of `n` clusters (probe a has a.clusters), and where each of a's tensors
// of cluster 0 went (index in the full table).
bool buildGm(const Probe& a, const Probe& b, const Probe& c, int64_t n, PtoProgram& out,
             std::string& why) {
    const int64_t k = n - a.clusters;
    if (b.setStride != a.setStride || c.setStride != a.setStride || b.prefix != a.prefix ||
        c.prefix != a.prefix || b.set != a.set || c.set != a.set)
        return why = "the probes' GM tables differ in layout", false;
    for (size_t t = 0; t < a.prefix; ++t) {
        auto g = extendPrefix(a.p->gm[t], b.p->gm[t], c.p->gm[t], k);
        if (!g) return why = fmt::format("%{} does not grow linearly", a.p->gm[t].name), false;
        out.gm.push_back(std::move(*g));
    }
    auto base = linear(a.p->gm[a.prefix].addr, b.p->gm[a.prefix].addr, c.p->gm[a.prefix].addr, k);
    if (!base) return why = "the workspace sets do not move linearly", false;
    std::vector<NumberedName> names;
    for (size_t x = 0; x < a.set; ++x) {
        const GmTensor& g0 = a.p->gm[a.prefix + x];
        const GmTensor& g1 = a.p->gm[a.prefix + a.set + x];
        auto name = numberedName(g0.name, g1.name);
        for (const Probe* pr : {&a, &b, &c})
            for (int64_t j = 0; name && j < pr->clusters; ++j)
                if (pr->p->gm[pr->prefix + size_t(j) * pr->set + x].name != name->at(j))
                    name.reset();
        if (!name) return why = "the workspace names are not numbered by cluster", false;
        names.push_back(*name);
    }
    out.gm.reserve(a.prefix + size_t(n) * a.set);
    for (int64_t j = 0; j < n; ++j)
        for (size_t x = 0; x < a.set; ++x) {
            GmTensor g = a.p->gm[a.prefix + x];
            g.addr = *base + j * a.setStride + (g.addr - a.p->gm[a.prefix].addr);
            g.name = names[x].at(j);
            out.gm.push_back(std::move(g));
        }
    return true;
}

// Cluster 0's kernel of `role` in probe `pr` with its GM addresses in the full table `gm`.
Kernel fullKernel(const Probe& pr, int role, const std::vector<GmTensor>& gm) {
    Kernel k = pr.kernel(0, role);
    for (Instr& in : k.instrs)
        for (size_t j = 0; j < in.operandCount; ++j) {
            Operand& o = in.operands[j];
            if (o.space != MemSpace::GM) continue;
            const size_t t = size_t(pr.tensorAt(o.addr)); // readProbe checked it exists
            o.addr = gm[t].addr + (o.addr - pr.p->gm[t].addr);
        }
    return k;
}

bool sameKernel(const Kernel& x, const Kernel& y) {
    if (x.name != y.name || x.core != y.core || x.loops != y.loops ||
        x.instrs.size() != y.instrs.size())
        return false;
    for (size_t e = 0; e < x.instrs.size(); ++e) {
        if (!sameButAddresses(x.instrs[e], y.instrs[e])) return false;
        for (size_t j = 0; j < x.instrs[e].operandCount; ++j)
            if (x.instrs[e].operands[j].addr != y.instrs[e].operands[j].addr) return false;
    }
    return true;
}

// Where cluster 0 touches one GM tensor, and whether it writes it.
struct Footprint {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    bool writes = false;
};

// Checks that no two clusters touch the same bytes where one of them writes, and that every
// cluster stays inside the tensors cluster 0 touches (a workspace of cluster 0's set moves to
// the same workspace of the cluster's set). `move[t]`: tensor t's move per cluster; the
// tensors from `prefix` on are cluster 0's workspace set.
bool checkFootprints(const PtoProgram& out, size_t prefix, size_t tensors,
                     const std::vector<int64_t>& move, int64_t n, std::string& why) {
    std::vector<uint32_t> byAddr(tensors);
    for (uint32_t t = 0; t < tensors; ++t) byAddr[t] = t;
    std::sort(byAddr.begin(), byAddr.end(),
              [&](uint32_t x, uint32_t y) { return out.gm[x].addr < out.gm[y].addr; });
    std::vector<Footprint> fp(tensors);
    auto touch = [&](const Operand& o, bool write) {
        const std::optional<ByteRange> r = operandBytes(o);
        auto it = std::upper_bound(byAddr.begin(), byAddr.end(), o.addr,
                                   [&](int64_t a, uint32_t t) { return a < out.gm[t].addr; });
        if (!r || it == byAddr.begin()) return false;
        const GmTensor& g = out.gm[*--it];
        if (r->end > g.addr + g.bytes()) return false;
        Footprint& f = fp[*it];
        f.lo = std::min(f.lo, r->begin);
        f.hi = std::max(f.hi, r->end);
        f.writes = f.writes || write;
        return true;
    };
    for (const Kernel& k : out.kernels)
        for (size_t e = 0; e < k.instrs.size(); ++e) {
            const InstrLoop* loop = nullptr;
            for (const InstrLoop& l : k.loops)
                if (e >= l.begin && e < l.end) loop = &l;
            for (int64_t round : {int64_t(0), loop ? loop->count - 1 : int64_t(0)}) {
                const Instr in =
                    loop ? loopRoundInstr(k.instrs[e], *loop, e - loop->begin, round) : k.instrs[e];
                for (size_t j = 0; j < in.operandCount; ++j)
                    if (in.operands[j].space == MemSpace::GM && !touch(in.operands[j], j == 0))
                        return why = fmt::format("@{} reaches past a GM tensor", k.name), false;
            }
        }
    for (size_t t = 0; t < tensors; ++t) {
        const Footprint& f = fp[t];
        if (f.lo > f.hi) continue;
        const GmTensor& g = out.gm[t];
        const int64_t d = move[t];
        if (f.writes && (d == 0 || f.hi - f.lo > std::abs(d)))
            return why = fmt::format("the clusters' writes of %{} overlap (a task dependency "
                                     "would be needed)",
                                     g.name),
                   false;
        const int64_t last = (n - 1) * d;
        if (t < prefix && (f.lo + std::min<int64_t>(0, last) < g.addr ||
                           f.hi + std::max<int64_t>(0, last) > g.addr + g.bytes()))
            return why = fmt::format("the last cluster's accesses leave %{}", g.name), false;
    }
    return true;
}

} // namespace

std::optional<PtoProgram> replicateClusters(const PtoProgram& pa, const PtoProgram& pb,
                                            const PtoProgram& pc, int64_t ca, int64_t n,
                                            std::string& why) {
    if (ca < 2 || n < ca) return why = "too few clusters to probe", std::nullopt;
    Probe probes[3];
    const PtoProgram* ps[3] = {&pa, &pb, &pc};
    const size_t grow = pb.gm.size() - pa.gm.size();
    if (pb.gm.size() < pa.gm.size() || pc.gm.size() - pb.gm.size() != grow || grow == 0 ||
        pa.gm.size() < size_t(ca) * grow)
        return why = "the probes' GM tables do not grow by one workspace set per cluster",
               std::nullopt;
    for (int q = 0; q < 3; ++q) {
        probes[q].p = ps[q];
        probes[q].clusters = ca + q;
        probes[q].set = grow;
        probes[q].prefix = pa.gm.size() - size_t(ca) * grow;
        if (!readProbe(probes[q], why)) return std::nullopt;
    }
    const Probe& a = probes[0];
    PtoProgram out;
    out.name = pa.name;
    if (!buildGm(a, probes[1], probes[2], n, out, why)) return std::nullopt;
    // The tensors' moves per cluster (prefix: as measured, equal in the three probes).
    std::vector<int64_t> move(a.prefix + a.set, a.setStride);
    for (size_t t = 0; t < a.prefix; ++t) {
        const auto& d = a.delta[t];
        if (d != probes[1].delta[t] || d != probes[2].delta[t])
            return why = fmt::format("the probes move %{} differently per cluster", pa.gm[t].name),
                   std::nullopt;
        move[t] = d.value_or(0);
    }
    for (int r = 0; r < kRoles; ++r) {
        Kernel k = fullKernel(a, r, out.gm);
        for (int q = 1; q < 3; ++q)
            if (!sameKernel(k, fullKernel(probes[q], r, out.gm)))
                return why = fmt::format("the probes of {} and {} clusters differ in @{}", ca,
                                         ca + q, k.name),
                       std::nullopt;
        k.id = uint32_t(r);
        out.kernels.push_back(std::move(k));
    }
    if (!checkFootprints(out, a.prefix, a.prefix + a.set, move, n, why)) return std::nullopt;
    std::vector<NumberedName> taskNames;
    for (int r = 0; r < kRoles; ++r) {
        auto name =
            numberedName(pa.exec.tasks[size_t(r)].name, pa.exec.tasks[size_t(kRoles + r)].name);
        for (const Probe& pr : probes)
            for (int64_t i = 0; name && i < pr.clusters; ++i)
                if (pr.p->exec.tasks[size_t(i * kRoles + r)].name != name->at(i)) name.reset();
        if (!name) return why = "the probes' task names are not numbered by cluster", std::nullopt;
        taskNames.push_back(*name);
    }
    out.exec.tasks.reserve(size_t(n) * kRoles);
    for (int64_t i = 0; i < n; ++i) {
        std::vector<GmRebase> rebases;
        for (size_t t = 0; i > 0 && t < move.size(); ++t)
            if (move[t] != 0)
                rebases.push_back(
                    {out.gm[t].addr, out.gm[t].addr + out.gm[t].bytes(), i * move[t]});
        std::sort(rebases.begin(), rebases.end(),
                  [](const GmRebase& x, const GmRebase& y) { return x.begin < y.begin; });
        for (int r = 0; r < kRoles; ++r) {
            Task t = pa.exec.tasks[size_t(r)];
            t.id = uint32_t(i * kRoles + r);
            t.block = uint32_t(r);
            t.name = taskNames[size_t(r)].at(i);
            t.cluster = uint32_t(i);
            t.rebases = rebases;
            out.exec.tasks.push_back(std::move(t));
        }
    }
    return out;
}

std::optional<PtoProgram> checkedReplicatedClusters(const PtoProgram& a, const PtoProgram& b,
                                                    const PtoProgram& c, int64_t ca, int64_t n,
                                                    std::string& why, const std::string& file,
                                                    const TargetInfo& target) {
    std::optional<PtoProgram> full = replicateClusters(a, b, c, ca, n, why);
    if (!full) return std::nullopt;
    PtoProgram one;
    one.name = full->name;
    one.gm = full->gm;
    one.kernels = full->kernels;
    one.exec.tasks.assign(full->exec.tasks.begin(), full->exec.tasks.begin() + kRoles);
    if (const std::optional<SyncProblem> problem = checkPtoSync(one, file)) {
        why = "the replicated cluster fails the sync check: " + problem->message;
        return std::nullopt;
    }
    try {
        verifyPtoProgram(one, file, target);
    } catch (const CompileError& e) {
        why = "the replicated cluster is not valid: " + e.message();
        return std::nullopt;
    }
    return full;
}

} // namespace pto
