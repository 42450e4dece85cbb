// Which task launched which kernel text, for which block function, with which GM rebases: read
// from a trace's Exec stage (task → block function) and its PTO stage's kernel nodes (their
// "tasks" attrs when one kernel text is shared by several tasks, docs/TRACE_SCHEMA.md).
//
// A shared kernel's instr rows are the representative task's; another task ran the same
// instructions on its own block with its GM operands moved (compiler/ir/PtoShare.h). Per-block
// figures therefore go by the task of a slice, never by instr.block_id (a kernel id of the PTO
// stage), and an instruction's GM addresses as a task ran them are its rebased operands.
#pragma once

#include "trace_db/TraceReader.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace pto::prof {

/// GM addresses of the kernel text in [begin, end) are `delta` bytes further for one task
/// (the trace's `[begin, end, delta]`, compiler/ir/Exec.h GmRebase).
struct LaunchRebase {
    std::int64_t begin = 0, end = 0, delta = 0;
    bool operator==(const LaunchRebase&) const = default;
};

/// One task of a shared kernel, as its kernel node's attrs list it.
struct SharedLaunch {
    std::int64_t task = -1;
    std::vector<LaunchRebase> rebases; ///< sorted by begin, disjoint; empty: as written
};

/// The tasks a kernel node's attrs list (`{"tasks":[{"id":3,"rebases":[[0,4096,512]]},…]}`);
/// empty for a kernel no several tasks share, or attrs that are not that JSON.
std::vector<SharedLaunch> sharedLaunches(std::string_view kernelAttrs);

/// `addr` as a task runs it: moved by the rebase whose range holds it (the rule of
/// compiler/ir/PtoShare.h rebasedAddress: an operand moves by the rebase of its first byte).
std::int64_t rebasedAddress(std::span<const LaunchRebase> rebases, std::int64_t addr);

/// An instruction's operand text (`UB[0x0]:f16[16x1024/1024], GM[0x8000]:f16[…]`) with every
/// GM address rebased; a counted loop's step (`GM[0x0 + 0x100*i]`) is kept, as round 0 moves.
std::string rebasedOperands(std::string_view operands, std::span<const LaunchRebase> rebases);

/// `[0x0, 0x40000) +0x8000, …` (the listing's form), "none" for no rebase.
std::string formatRebases(std::span<const LaunchRebase> rebases);

/// Task → block function and shared-kernel launches of one trace, loaded in one pass over the
/// last Exec and PTO stages' nodes (a few hundred rows even for flash attention at S = 32768).
class KernelLaunches {
public:
    static KernelLaunches load(const tracedb::TraceReader& reader);

    /// The block function (node id of the Block stages) whose work task `task` did, given the
    /// kernel (instr.block_id) of its slice: the task's Exec node's parent; for a task the
    /// Exec stage does not name, the kernel node's block when no other task shares it (the
    /// kernel id itself without a PTO stage); -1 when the trace cannot tell (a shared kernel's
    /// task outside the compiled clusters).
    std::int64_t blockOf(std::int64_t task, std::int64_t kernel) const;
    /// The block function a kernel text was compiled from (a shared one: its first task's),
    /// found by name in the last Block stage (a kernel is named after its block function;
    /// traces written before 2026-11-27 recorded the kernel index as the kernel node's
    /// parent_id, which renumbering after sharing moves away from the block ids); the recorded
    /// parent otherwise (cluster probes' copies `@N`).
    std::int64_t blockOfKernel(std::int64_t kernel) const;
    /// The kernel text compiled from block function `block`; -1 when there is none (a block
    /// whose task launches another block's text: its tile ops have no instructions in the trace).
    std::int64_t kernelOfBlock(std::int64_t block) const;
    /// The shared kernel text task `task` launches; -1 for a task of a kernel of its own.
    std::int64_t sharedKernelOf(std::int64_t task) const;
    bool anyShared() const { return !m_sharedKernel.empty(); }

private:
    std::unordered_map<std::int64_t, std::int64_t> m_taskBlock;    ///< Exec task → block fn
    std::unordered_map<std::int64_t, std::int64_t> m_kernelBlock;  ///< PTO kernel → block fn
    std::unordered_map<std::int64_t, std::int64_t> m_blockKernel;  ///< the inverse
    std::unordered_map<std::int64_t, std::int64_t> m_sharedKernel; ///< task → shared kernel
    std::unordered_set<std::int64_t> m_sharedKernels;
};

} // namespace pto::prof
