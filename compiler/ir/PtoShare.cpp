// Kernels shared by isomorphic tasks: rebasing a task's GM addresses and writing the shared
// kernels out again (compiler/ir/PtoShare.h).
#include "compiler/ir/PtoShare.h"

#include <algorithm>

namespace pto {

int64_t rebasedAddress(std::span<const GmRebase> rebases, int64_t addr) {
    auto it = std::upper_bound(rebases.begin(), rebases.end(), addr,
                               [](int64_t a, const GmRebase& r) { return a < r.begin; });
    if (it == rebases.begin()) return addr;
    --it;
    return addr < it->end ? addr + it->delta : addr;
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

} // namespace pto
