// Single PTO instructions for measuring the functional kernels (tests/unit/sim_numerics and
// bench/bench_kernels): a vector instruction on UB tiles, a 128³ f16 matmul, and random operands.
#pragma once

#include "compiler/ir/TensorData.h"
#include "simulator/numerics/Executor.h"

#include <cstring>

namespace pto::test {

/// `op` on `operands` UB tiles of rows × cols `dtype`, laid out one after the other.
inline Instr vectorInstr(Opcode op, DType dtype, int operands, int32_t rows, int32_t cols) {
    Instr in;
    in.opcode = op;
    in.pipe = Pipe::V;
    const int64_t bytes = int64_t(rows) * cols * dtypeSize(dtype);
    for (int i = 0; i < operands; ++i)
        in.operands[in.operandCount++] = Operand{MemSpace::UB, dtype, i * bytes, rows, cols, cols};
    in.mode = "lt";
    return in;
}

/// TMATMUL of 128×128 f16 tiles in L0A/L0B into a 128×128 f32 tile in L0C.
inline Instr matmulInstr() {
    Instr mm;
    mm.opcode = Opcode::TMatmul;
    mm.pipe = Pipe::M;
    mm.operandCount = 3;
    mm.operands[0] = Operand{MemSpace::L0C, DType::F32, 0, 128, 128, 128};
    mm.operands[1] = Operand{MemSpace::L0A, DType::F16, 0, 128, 128, 128};
    mm.operands[2] = Operand{MemSpace::L0B, DType::F16, 0, 128, 128, 128};
    return mm;
}

/// Fills every operand tile of `instr` on core 0 with random values in [-1, 1) (zeros would take
/// the special-value paths).
inline void fillOperands(FunctionalExecutor& exec, CoreType core, const Instr& instr) {
    CoreMemory& memory = exec.coreMemory(0, core);
    for (const Operand& o : instr.ops()) {
        const TensorData values = randomTensor(o.dtype, Shape{o.rows, o.cols}, 7);
        std::memcpy(memory.data(o.space) + o.addr, values.data(), size_t(values.byteSize()));
    }
}

} // namespace pto::test
