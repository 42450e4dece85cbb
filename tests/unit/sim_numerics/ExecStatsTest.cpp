// What the functional executor counts per kernel (instructions, elements and element bytes read and
// written): the figures bench/bench_kernels.cpp divides by CPU time for docs/SIMULATOR_NUMERICS.md.
#include <gtest/gtest.h>

#include "tests/support/KernelInstrs.h"
#include "tests/unit/sim_numerics/SimTestSupport.h"

namespace pto::simtest {
namespace {

// Executes `instr` once on a fresh core whose operands hold random values in [-1, 1) (zeros would
// take the special-value paths); returns what the executor counted.
ExecStats executeOnce(CoreType core, const Instr& instr) {
    const PtoProgram program;
    const TargetInfo target;
    GlobalMemory gm(program);
    FunctionalExecutor exec(program, target, gm);
    test::fillOperands(exec, core, instr);
    exec.execute(0, core, instr);
    return exec.stats();
}

TEST(SimExecStats, CountsTheElementsAndBytesOfEachKernel) {
    struct Row {
        const char* name;
        CoreType core;
        Instr instr;
        int64_t bytesRead; // element bytes of the sources
    };
    const Instr mm = test::matmulInstr();
    constexpr int64_t kTile16 = 128 * 128 * 2;
    const Row rows[] = {
        {"TADD f16", CoreType::AIV, test::vectorInstr(Opcode::TAdd, DType::F16, 3, 128, 128),
         2 * kTile16},
        {"TADD f32", CoreType::AIV, test::vectorInstr(Opcode::TAdd, DType::F32, 3, 64, 128),
         2 * kTile16},
        {"TEXP f16", CoreType::AIV, test::vectorInstr(Opcode::TExp, DType::F16, 2, 128, 128),
         kTile16},
        {"TMULS bf16", CoreType::AIV, test::vectorInstr(Opcode::TMulS, DType::BF16, 2, 128, 128),
         kTile16},
        {"TMOV f16", CoreType::AIV, test::vectorInstr(Opcode::TMov, DType::F16, 2, 128, 128),
         kTile16},
        {"TCMP f16", CoreType::AIV, test::vectorInstr(Opcode::TCmp, DType::F16, 3, 128, 128),
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
