// Compile throughput: the whole lowering of the 4096³ f16 GEMM (128×128×64 tiles), trace file
// included, reported as tile ops per second.
#include "compiler/Pipeline.h"
#include "trace_db/TraceWriter.h"

#include <benchmark/benchmark.h>

#include <filesystem>

namespace {

void compileToTrace(const std::string& program, const std::filesystem::path& out, size_t* tileOps,
                    size_t* instrs) {
    pto::CompileState state = pto::loadProgram(program);
    pto::CompileOptions options;
    auto writer = pto::tracedb::TraceWriter::create(out);
    pto::compileProgram(state, options, &writer);
    writer.commit();
    *tileOps = state.tile.ops().size();
    *instrs = 0;
    for (const auto& k : state.pto.kernels) *instrs += k.instrs.size();
}

void BM_CompileGemm4096(benchmark::State& st) {
    std::string program = std::string(PTO_SOURCE_DIR) + "/samples/gemm_4096.pto";
    auto out = std::filesystem::temp_directory_path() / "pto_bench_compile.db";
    size_t tileOps = 0, instrs = 0;
    for (auto _ : st) compileToTrace(program, out, &tileOps, &instrs);
    st.counters["tile_ops"] = double(tileOps);
    st.counters["instrs"] = double(instrs);
    st.counters["tile_ops_per_s"] =
        benchmark::Counter(double(tileOps), benchmark::Counter::kIsIterationInvariantRate);
    std::filesystem::remove(out);
}
BENCHMARK(BM_CompileGemm4096)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_CompileGemm4096NoTrace(benchmark::State& st) {
    std::string program = std::string(PTO_SOURCE_DIR) + "/samples/gemm_4096.pto";
    for (auto _ : st) {
        pto::CompileState state = pto::loadProgram(program);
        pto::PassManager pm(state, pto::CompileOptions{});
        pm.start();
        pto::lowerToPto(pm);
        benchmark::DoNotOptimize(state.pto.kernels.size());
    }
}
BENCHMARK(BM_CompileGemm4096NoTrace)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

BENCHMARK_MAIN();
