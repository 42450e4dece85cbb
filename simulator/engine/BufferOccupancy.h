// On-chip buffer occupancy over time: per kernel, the live ranges of the buffers its
// instructions write (in kernel order), turned into byte deltas applied when an instruction
// starts and completes; the engine sums them per core and buffer space for the trace's
// occupancy counters.
#pragma once

// The model
// ---------
// A buffer is the bounding byte range [lo, hi) of an on-chip destination operand. It becomes
// occupied when the instruction writing it starts and is released when the last instruction
// (in kernel order) that reads or rewrites it in place completes, before anything else writes
// over it. A write inside a live buffer (TMATMUL_ACC into its accumulator, a tile written in
// pieces) extends that buffer's life instead of allocating; a write that overlaps live buffers
// otherwise ends them and starts a new one. This is the compiler's notion of a buffer's live
// range (allocate-buffers), recovered from the instructions alone, so hand-written listings
// get counters too. GM operands and sync instructions carry no deltas.

#include "compiler/ir/Pto.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace pto::sim {

/// The on-chip spaces counted: L1, L0A, L0B, L0C, UB.
inline constexpr int kOccupancySpaces = 5;
/// Index of an on-chip space in [0, kOccupancySpaces), or -1 for GM and None.
int occupancyIndex(MemSpace space);
MemSpace occupancySpace(int index);

struct OccupancyDelta {
    int32_t space = 0; ///< occupancyIndex
    int64_t bytes = 0; ///< + allocated, − released
};

/// Deltas of every instruction of one kernel, in compressed rows.
class KernelOccupancy {
public:
    explicit KernelOccupancy(const Kernel& kernel);
    std::span<const OccupancyDelta> atStart(uint32_t instr) const { return row(m_start, instr); }
    std::span<const OccupancyDelta> atEnd(uint32_t instr) const { return row(m_end, instr); }
    /// The largest sum of live buffer bytes per space in kernel order (a static high-water
    /// mark; tests compare it with the allocator's capacities).
    const std::array<int64_t, kOccupancySpaces>& peak() const { return m_peak; }

private:
    struct Rows {
        std::vector<uint32_t> begin; ///< per instruction + 1 sentinel
        std::vector<OccupancyDelta> deltas;
    };
    static std::span<const OccupancyDelta> row(const Rows& r, uint32_t instr) {
        return {r.deltas.data() + r.begin[instr], r.begin[instr + 1] - r.begin[instr]};
    }

    Rows m_start, m_end;
    std::array<int64_t, kOccupancySpaces> m_peak{};
};

/// One KernelOccupancy per kernel of a program, built on first use of a kernel.
class BufferOccupancy {
public:
    explicit BufferOccupancy(const PtoProgram& program) : m_program(program) {
        m_kernels.resize(program.kernels.size());
    }
    const KernelOccupancy& kernel(uint32_t index);

private:
    const PtoProgram& m_program;
    std::vector<std::vector<KernelOccupancy>> m_kernels; // 0 or 1 entry each (lazy)
};

} // namespace pto::sim
