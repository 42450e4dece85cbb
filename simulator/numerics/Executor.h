// Functional execution of PTO instructions on real data: each instruction reads and writes the
// byte-addressed memories (GM image, per-core on-chip buffers) with the dtype's rounding.
#pragma once

// The timing engine decides *when* an instruction runs; FunctionalExecutor::execute does *what*
// it computes, at that moment, on the memories. So a wrong buffer address or a missing flag
// changes the numbers, and the diff tool finds it. The semantics of every opcode (operands,
// broadcasting, rounding) are documented in docs/SIMULATOR_NUMERICS.md.
//
// Before it touches memory, execute() checks the instruction and throws a SimFault:
// BadInstruction for operand counts, spaces, dtypes, shapes or pipes that make no sense;
// OutOfBounds for a region (stride extent included) that leaves its space, the GM image or its
// GM tensor; UninitializedRead (when ExecOptions::checkUninitialized) for an on-chip byte no
// instruction wrote. The fault names the core, pipe, instruction (kernel and index, found by
// the Instr's address in the program) and provenance; the engine adds the cycle.
//
// Flags and barriers (SET_FLAG, WAIT_FLAG, BARRIER, CROSS_SET_FLAG, CROSS_WAIT_FLAG) are no-ops
// here: ordering is the engine's.

#include "compiler/ir/Pto.h"
#include "compiler/ir/Target.h"
#include "simulator/numerics/Memory.h"
#include "simulator/numerics/SimFault.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace pto {

struct ExecOptions {
    /// Track written on-chip bytes and fault on reading one that was never written.
    bool checkUninitialized = false;
    /// The .pto file the program came from, for fault messages ("" = unknown).
    std::string sourceFile;
};

/// Counters of the work done, for throughput figures.
struct ExecStats {
    int64_t instructions = 0; ///< instructions executed (flags and barriers included)
    int64_t elements = 0;     ///< elements written to destinations
    int64_t bytesRead = 0;    ///< element bytes read from source operands
    int64_t bytesWritten = 0; ///< element bytes written to destination operands
};

class FunctionalExecutor {
public:
    /// `program`, `target` and `gm` must outlive the executor. On-chip memories are created
    /// (zeroed) on a core's first instruction.
    FunctionalExecutor(const PtoProgram& program, const TargetInfo& target, GlobalMemory& gm,
                       ExecOptions options = {});
    ~FunctionalExecutor();
    FunctionalExecutor(const FunctionalExecutor&) = delete;
    FunctionalExecutor& operator=(const FunctionalExecutor&) = delete;

    /// Executes `instr` on core `coreId` (0-based within `core`'s type) now, its GM operands
    /// moved by `rebases` (the task's Task::rebases). Throws SimFault (see above; the site names
    /// `instr` as written); std::out_of_range for a core id the target does not have.
    void execute(int coreId, CoreType core, const Instr& instr,
                 std::span<const GmRebase> rebases = {});

    /// The on-chip memory of a core (created on first use).
    CoreMemory& coreMemory(int coreId, CoreType core);
    GlobalMemory& globalMemory() { return m_gm; }
    const ExecOptions& options() const { return m_options; }
    const ExecStats& stats() const { return m_stats; }

private:
    /// `located`: the program's instruction `instr` was rebased from (fault sites).
    void executeAt(int coreId, CoreType core, const Instr& instr, const Instr& located);

    const PtoProgram& m_program;
    const TargetInfo& m_target;
    GlobalMemory& m_gm;
    ExecOptions m_options;
    ExecStats m_stats;
    std::vector<std::unique_ptr<CoreMemory>> m_aic;
    std::vector<std::unique_ptr<CoreMemory>> m_aiv;
};

} // namespace pto
