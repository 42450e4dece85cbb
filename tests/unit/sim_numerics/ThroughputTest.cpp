// Throughput of the functional kernels (element bytes read + written per CPU second), printed for
// docs/SIMULATOR_NUMERICS.md; asserts only a floor far below the measured figures so that a
// loaded CI machine does not fail it.
#include <gtest/gtest.h>

#include "tests/unit/sim_numerics/SimTestSupport.h"

#include <cstdio>
#include <cstring>
#include <ctime>

namespace pto::simtest {
namespace {

struct Measured {
    double gbPerSecond;
    double elementsPerSecond;
};

// CPU time of this thread: unlike wall time, not inflated when other jobs share the cores.
double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Executes `instr` `repeats` times on a fresh core (dense operands, so a random fill of each
// operand's tile gives realistic values).
Measured measure(CoreType core, const Instr& instr, int repeats) {
    const PtoProgram program;
    const TargetInfo target;
    GlobalMemory gm(program);
    FunctionalExecutor exec(program, target, gm);
    // Sources hold random values in [-1, 1) (zeros would take the special-value paths).
    CoreMemory& memory = exec.coreMemory(0, core);
    for (const Operand& o : instr.ops()) {
        const TensorData values = randomTensor(o.dtype, Shape{o.rows, o.cols}, 7);
        std::memcpy(memory.data(o.space) + o.addr, values.data(), size_t(values.byteSize()));
    }
    exec.execute(0, core, instr); // warm-up
    const ExecStats before = exec.stats();
    const double start = threadCpuSeconds();
    for (int i = 0; i < repeats; ++i) exec.execute(0, core, instr);
    const double seconds = threadCpuSeconds() - start;
    const ExecStats& after = exec.stats();
    const double bytes = double(after.bytesRead - before.bytesRead) +
                         double(after.bytesWritten - before.bytesWritten);
    return {bytes / seconds / 1e9, double(after.elements - before.elements) / seconds};
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

TEST(SimThroughput, VectorAndCubeKernels) {
    struct Row {
        const char* name;
        CoreType core;
        Instr instr;
    };
    Instr mm;
    mm.opcode = Opcode::TMatmul;
    mm.pipe = Pipe::M;
    mm.operandCount = 3;
    mm.operands[0] = Operand{MemSpace::L0C, DType::F32, 0, 128, 128, 128};
    mm.operands[1] = Operand{MemSpace::L0A, DType::F16, 0, 128, 128, 128};
    mm.operands[2] = Operand{MemSpace::L0B, DType::F16, 0, 128, 128, 128};
    const Row rows[] = {
        {"TADD f16 128x128", CoreType::AIV, vectorInstr(Opcode::TAdd, DType::F16, 3, 128, 128)},
        {"TADD f32 64x128", CoreType::AIV, vectorInstr(Opcode::TAdd, DType::F32, 3, 64, 128)},
        {"TEXP f16 128x128", CoreType::AIV, vectorInstr(Opcode::TExp, DType::F16, 2, 128, 128)},
        {"TMULS bf16 128x128", CoreType::AIV, vectorInstr(Opcode::TMulS, DType::BF16, 2, 128, 128)},
        {"TMOV f16 128x128", CoreType::AIV, vectorInstr(Opcode::TMov, DType::F16, 2, 128, 128)},
        {"TCMP f16 128x128", CoreType::AIV, vectorInstr(Opcode::TCmp, DType::F16, 3, 128, 128)},
        {"TMATMUL f16 128x128x128", CoreType::AIC, mm},
    };
    for (const Row& row : rows) {
        const Measured m = measure(row.core, row.instr, row.core == CoreType::AIC ? 20 : 400);
        std::printf("  %-26s %7.2f GB/s  %8.1f M elements/s\n", row.name, m.gbPerSecond,
                    m.elementsPerSecond / 1e6);
        RecordProperty(row.name, std::to_string(m.gbPerSecond));
        EXPECT_GT(m.gbPerSecond, 0.01) << row.name;
    }
}

} // namespace
} // namespace pto::simtest
