// The work one PTO instruction does, as its `instr` row records it: FLOPs and GM bytes
// counted by the compiler when it wrote the row (compiler/ir/Cost.h, the same rule as `pto
// run`'s total), and the compute unit's rate for the row's operand dtype.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pto::prof {

/// What an instruction contributes to the roofline.
struct InstrCost {
    double flops = 0;
    std::int64_t gmBytes = 0; ///< bytes of the GM operand of a TLOAD/TSTORE
    /// The GM operand is written (TSTORE, MSCATTER: the write path, MTE3 or FIXPIPE), not read.
    bool gmWrite = false;
    std::int64_t gmWriteBytes() const { return gmWrite ? gmBytes : 0; }
    /// The unit's rate for these operands relative to its f16 peak: the cube does twice the
    /// MACs per cycle on i8 and a quarter on f32 (REFERENCE.md §1); 1 for everything else.
    double rateScale = 1;
    /// SET_FLAG, WAIT_FLAG, BARRIER, CROSS_SET_FLAG, CROSS_WAIT_FLAG (Opcodes.def's sync rows):
    /// it waits or signals, it does no work.
    bool sync = false;
    /// FLOPs as time at the unit's f16 peak: flops ÷ rateScale. Summed per task and per op,
    /// flops ÷ nominalFlops scales the nominal compute roof to the operand dtypes really used.
    double nominalFlops() const { return rateScale > 0 ? flops / rateScale : flops; }
};

/// The cost of an `instr` row from its opcode and its columns flops, gm_bytes and src_dtype
/// (the dtype of a matmul's A, else of the first source). Columns not recorded (schema-1 files)
/// cost nothing.
InstrCost instrCost(std::string_view opcode, std::optional<double> flops,
                    std::optional<std::int64_t> gmBytes, std::string_view srcDtype);

} // namespace pto::prof
