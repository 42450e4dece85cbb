// The work one PTO instruction does, read back from its printed form in the trace's `instr`
// table: useful FLOPs and bytes moved to or from GM.
#pragma once

#include <cstdint>
#include <string_view>

namespace pto::prof {

/// What an instruction contributes to the roofline. FLOPs follow the session's count
/// (cli/session/Session.cpp countFlops): matmul 2·m·n·k, one per result element of an
/// elementwise op, one per input element of a row/column reduction, none for casts, moves,
/// broadcasts and sync.
struct InstrCost {
    double flops = 0;
    std::int64_t gmBytes = 0; ///< bytes of the GM operand of a TLOAD/TSTORE
    bool isCube = false;      ///< TMATMUL / TMATMUL_ACC
    bool isVector = false;    ///< runs on pipe V and computes
    /// The unit's rate for these operands relative to its f16 peak: the cube does twice the
    /// MACs per cycle on i8 and a quarter on f32 (REFERENCE.md §1); 1 for everything else.
    double rateScale = 1;
    /// FLOPs as time at the unit's f16 peak: flops ÷ rateScale. Summed per task and per op,
    /// flops ÷ nominalFlops scales the nominal compute roof to the operand dtypes really used.
    double nominalFlops() const { return rateScale > 0 ? flops / rateScale : flops; }
};

/// `operands` is the instr row's printed listing, e.g.
/// "M    TMATMUL  L0C[0x0]:f32[128x128/128], L0A[0x0]:f16[128x64/64], L0B[0x0]:f16[64x128/128]".
/// Unknown or malformed text costs nothing (never throws).
InstrCost instrCost(std::string_view opcode, std::string_view operands);

} // namespace pto::prof
