// Functional-kernel throughput: element bytes read + written per CPU second of one thread for the
// vector and cube kernels the simulator executes with numerics (figures in
// docs/SIMULATOR_NUMERICS.md); random operands in [-1, 1) so no special-value shortcut is taken.
#include "simulator/numerics/Executor.h"
#include "tests/support/KernelInstrs.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace pto;
using test::matmulInstr;
using test::vectorInstr;

// Executes `instr` once per iteration on a core whose operands hold random values; reports
// bytes/s (element bytes read + written) and items/s (elements written).
void runKernel(benchmark::State& state, CoreType core, const Instr& instr) {
    const PtoProgram program;
    const TargetInfo target;
    GlobalMemory gm(program);
    FunctionalExecutor exec(program, target, gm);
    test::fillOperands(exec, core, instr);
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
