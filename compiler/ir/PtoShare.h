// Kernels shared by isomorphic tasks: one kernel text launched by several tasks, each task
// moving the kernel's GM addresses by its rebases (Task::rebases). The model the simulator,
// the listing and the trace read; the expanded form (one kernel per task) is what a program
// compiled without sharing looks like, and what tests compare against.
#pragma once

#include "compiler/ir/Pto.h"

#include <cstdint>
#include <span>

namespace pto {

/// The GM byte address `addr` of the task's kernel, as the task runs it: moved by the rebase
/// whose range holds it, unchanged when none does.
int64_t rebasedAddress(std::span<const GmRebase> rebases, int64_t addr);

/// The rebase whose range holds `addr`, or null.
const GmRebase* rebaseHolding(std::span<const GmRebase> rebases, int64_t addr);

/// `in` as the task runs it: every GM operand's address rebased. (An operand is moved by the
/// rebase holding its first byte; the verifier checks that its last byte is in the same one.)
Instr rebasedInstr(const Instr& in, std::span<const GmRebase> rebases);

/// The program with one kernel per task again: a task with rebases gets a copy of its kernel
/// with its GM operands moved (a counted loop's steps are relative: its round 0 is moved), named
/// `<kernel>@<task id>`; tasks without rebases keep their kernel. Kernels no task runs are kept.
PtoProgram expandSharedKernels(const PtoProgram& p);

/// What shareIsomorphicKernels did.
struct ShareStats {
    size_t kernelsBefore = 0;
    size_t kernelsAfter = 0;
    size_t merged() const { return kernelsBefore - kernelsAfter; }
};

/// Kernels equal in every field but their GM operand addresses and tile op provenance become
/// one: the first (lowest index) is kept, and every task of a kernel merged into it runs it
/// with rebases — per GM tensor the representative touches, the constant distance to the
/// merged kernel's addresses (adjacent tensors with one distance share a rebase). A kernel is
/// merged only when its rebased representative equals it in every GM operand of every round of
/// its counted loops, no operand leaving its rebase. Kernels run by a task that already has
/// rebases are left alone. Linear in the program's size (kernels are hashed by structure
/// first); deterministic. The kernels are renumbered in order (ids are positions).
ShareStats shareIsomorphicKernels(PtoProgram& p);

} // namespace pto
