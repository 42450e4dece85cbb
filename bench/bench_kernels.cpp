// Functional-kernel throughput: element bytes read + written per CPU second of one thread for the
// vector and cube kernels the simulator executes with numerics (figures in
// docs/SIMULATOR_NUMERICS.md); random operands in [-1, 1) so no special-value shortcut is taken.
#include "compiler/ir/TensorData.h"
#include "simulator/numerics/Executor.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <string>

namespace {

using namespace pto;

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

Instr matmulInstr() {
    Instr mm;
    mm.opcode = Opcode::TMatmul;
    mm.pipe = Pipe::M;
    mm.operandCount = 3;
    mm.operands[0] = Operand{MemSpace::L0C, DType::F32, 0, 128, 128, 128};
    mm.operands[1] = Operand{MemSpace::L0A, DType::F16, 0, 128, 128, 128};
    mm.operands[2] = Operand{MemSpace::L0B, DType::F16, 0, 128, 128, 128};
    return mm;
}

// Executes `instr` once per iteration on a core whose operands hold random values; reports
// bytes/s (element bytes read + written) and items/s (elements written).
void runKernel(benchmark::State& state, CoreType core, const Instr& instr) {
    const PtoProgram program;
    const TargetInfo target;
    GlobalMemory gm(program);
    FunctionalExecutor exec(program, target, gm);
    CoreMemory& memory = exec.coreMemory(0, core);
    for (const Operand& o : instr.ops()) {
        const TensorData values = randomTensor(o.dtype, Shape{o.rows, o.cols}, 7);
        std::memcpy(memory.data(o.space) + o.addr, values.data(), size_t(values.byteSize()));
    }
    exec.execute(0, core, instr); // warm-up
    const ExecStats before = exec.stats();
    for (auto _ : state) exec.execute(0, core, instr);
    const ExecStats& after = exec.stats();
    state.SetBytesProcessed(after.bytesRead - before.bytesRead + after.bytesWritten -
                            before.bytesWritten);
    state.SetItemsProcessed(after.elements - before.elements);
}

void registerKernels() {
    struct Row {
        const char* name;
        CoreType core;
        Instr instr;
    };
    static const Row kRows[] = {
        {"TADD_f16_128x128", CoreType::AIV, vectorInstr(Opcode::TAdd, DType::F16, 3, 128, 128)},
        {"TADD_f32_64x128", CoreType::AIV, vectorInstr(Opcode::TAdd, DType::F32, 3, 64, 128)},
        {"TEXP_f16_128x128", CoreType::AIV, vectorInstr(Opcode::TExp, DType::F16, 2, 128, 128)},
        {"TMULS_bf16_128x128", CoreType::AIV, vectorInstr(Opcode::TMulS, DType::BF16, 2, 128, 128)},
        {"TMOV_f16_128x128", CoreType::AIV, vectorInstr(Opcode::TMov, DType::F16, 2, 128, 128)},
        {"TCMP_f16_128x128", CoreType::AIV, vectorInstr(Opcode::TCmp, DType::F16, 3, 128, 128)},
        {"TMATMUL_f16_128x128x128", CoreType::AIC, matmulInstr()},
    };
    for (const Row& row : kRows)
        benchmark::RegisterBenchmark(
            (std::string("BM_Kernel/") + row.name).c_str(),
            [&row](benchmark::State& s) { runKernel(s, row.core, row.instr); })
            ->Unit(benchmark::kMicrosecond);
}

} // namespace

int main(int argc, char** argv) {
    registerKernels();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
