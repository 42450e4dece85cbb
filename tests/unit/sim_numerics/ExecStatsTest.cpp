// What the functional executor counts per kernel (instructions, elements and element bytes read and
// written): the figures bench/bench_kernels.cpp divides by CPU time for docs/SIMULATOR_NUMERICS.md.
#include <gtest/gtest.h>

#include "tests/unit/sim_numerics/SimTestSupport.h"

#include <cstring>

namespace pto::simtest {
namespace {

// Executes `instr` once on a fresh core whose operands hold random values in [-1, 1) (zeros would
// take the special-value paths); returns what the executor counted.
ExecStats executeOnce(CoreType core, const Instr& instr) {
    const PtoProgram program;
    const TargetInfo target;
    GlobalMemory gm(program);
    FunctionalExecutor exec(program, target, gm);
    CoreMemory& memory = exec.coreMemory(0, core);
    for (const Operand& o : instr.ops()) {
        const TensorData values = randomTensor(o.dtype, Shape{o.rows, o.cols}, 7);
        std::memcpy(memory.data(o.space) + o.addr, values.data(), size_t(values.byteSize()));
    }
    exec.execute(0, core, instr);
    return exec.stats();
}

Instr vectorInstr(Opcode op, DType dtype, int operands, int32_t rows, int32_t cols) {
    Instr in;
    in.opcode = op;
    in.pipe = Pipe::V;
    const int64_t bytes = int64_t(rows) * cols * dtypeSize(dtype);
    for (int i = 0; i < operands; ++i)
        in.operands[in.operandCount++] = Operand{MemSpace::UB, dtype, i * bytes, rows, cols, cols};
    in.mode = "lt";
    return in;
}

TEST(SimExecStats, CountsTheElementsAndBytesOfEachKernel) {
    struct Row {
        const char* name;
        CoreType core;
        Instr instr;
        int64_t bytesRead; // element bytes of the sources
    };
    Instr mm;
    mm.opcode = Opcode::TMatmul;
    mm.pipe = Pipe::M;
    mm.operandCount = 3;
    mm.operands[0] = Operand{MemSpace::L0C, DType::F32, 0, 128, 128, 128};
    mm.operands[1] = Operand{MemSpace::L0A, DType::F16, 0, 128, 128, 128};
    mm.operands[2] = Operand{MemSpace::L0B, DType::F16, 0, 128, 128, 128};
    constexpr int64_t kTile16 = 128 * 128 * 2;
    const Row rows[] = {
        {"TADD f16", CoreType::AIV, vectorInstr(Opcode::TAdd, DType::F16, 3, 128, 128),
         2 * kTile16},
        {"TADD f32", CoreType::AIV, vectorInstr(Opcode::TAdd, DType::F32, 3, 64, 128), 2 * kTile16},
        {"TEXP f16", CoreType::AIV, vectorInstr(Opcode::TExp, DType::F16, 2, 128, 128), kTile16},
        {"TMULS bf16", CoreType::AIV, vectorInstr(Opcode::TMulS, DType::BF16, 2, 128, 128),
         kTile16},
        {"TMOV f16", CoreType::AIV, vectorInstr(Opcode::TMov, DType::F16, 2, 128, 128), kTile16},
        {"TCMP f16", CoreType::AIV, vectorInstr(Opcode::TCmp, DType::F16, 3, 128, 128),
         2 * kTile16},
        {"TMATMUL f16", CoreType::AIC, mm, 2 * kTile16},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        const ExecStats stats = executeOnce(row.core, row.instr);
        const Operand& dst = row.instr.operands[0];
        EXPECT_EQ(stats.instructions, 1);
        EXPECT_EQ(stats.elements, int64_t(dst.rows) * dst.cols);
        EXPECT_EQ(stats.bytesWritten, stats.elements * dtypeSize(dst.dtype));
        EXPECT_EQ(stats.bytesRead, row.bytesRead);
    }
}

} // namespace
} // namespace pto::simtest
