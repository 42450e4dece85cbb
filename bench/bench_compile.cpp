// Compile throughput: the whole lowering of the 4096³ f16 GEMM (128×128×64 tiles), trace file
// included, reported as tile ops per second; and the compile time, instruction count and trace
// size of an online-softmax attention loop at trip counts 16 and 256 (issue 15 item 2); and the
// end-to-end timing-only run of a 6144³ GEMM with its trace (issue 17 item 1).
#include "compiler/Pipeline.h"
#include "driver/RecordLevel.h"
#include "driver/Session.h"
#include "trace_db/TraceWriter.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fmt/format.h>

namespace {

void compileToTrace(const std::string& program, const std::filesystem::path& out, size_t* tileOps,
                    size_t* instrs) {
    pto::CompileState state = pto::loadProgram(program);
    pto::CompileOptions options;
    auto writer = pto::tracedb::TraceWriter::create(out);
    pto::compileProgram(state, options, &writer);
    writer.commit();
    *tileOps = state.tileFunction().ops().size();
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

// The same compile into a trace at `--record levels` / `final` / `none` (driver/RecordLevel.h).
void compileRecordedGemm4096(benchmark::State& st, pto::RecordLevel level) {
    std::string program = std::string(PTO_SOURCE_DIR) + "/samples/gemm_4096.pto";
    auto out = std::filesystem::temp_directory_path() / "pto_bench_compile_record.db";
    for (auto _ : st) {
        pto::CompileState state = pto::loadProgram(program);
        auto writer = pto::tracedb::TraceWriter::create(out);
        pto::compileRecorded(state, pto::CompileOptions{}, &writer, level);
        writer.commit();
    }
    st.counters["trace_bytes"] = double(std::filesystem::file_size(out));
    std::filesystem::remove(out);
}
void BM_CompileGemm4096RecordLevels(benchmark::State& st) {
    compileRecordedGemm4096(st, pto::RecordLevel::Levels);
}
void BM_CompileGemm4096RecordFinal(benchmark::State& st) {
    compileRecordedGemm4096(st, pto::RecordLevel::Final);
}
void BM_CompileGemm4096RecordNone(benchmark::State& st) {
    compileRecordedGemm4096(st, pto::RecordLevel::None);
}
BENCHMARK(BM_CompileGemm4096RecordLevels)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_CompileGemm4096RecordFinal)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_CompileGemm4096RecordNone)->Unit(benchmark::kMillisecond)->Iterations(3);

// Issue 17 item 1: `pto run bench/programs/gemm_6144.pto --timing-only --trace none -o FILE` end
// to end (load, compile, record at `level`, simulate timing-only, commit the trace).
void runGemm6144(benchmark::State& st, pto::RecordLevel level) {
    auto out = std::filesystem::temp_directory_path() / "pto_bench_run_6144.db";
    pto::RunOptions options;
    options.program = std::string(PTO_SOURCE_DIR) + "/bench/programs/gemm_6144.pto";
    options.sim.timingOnly = true;
    options.sim.traceLevel = pto::sim::TraceLevel::None;
    options.tracePath = out.string();
    options.record = level;
    for (auto _ : st) benchmark::DoNotOptimize(pto::runProgram(options).sim.totalCycles);
    st.counters["trace_bytes"] = double(std::filesystem::file_size(out));
    std::filesystem::remove(out);
}
void BM_RunGemm6144(benchmark::State& st) {
    runGemm6144(st, pto::RecordLevel::All);
}
void BM_RunGemm6144RecordFinal(benchmark::State& st) {
    runGemm6144(st, pto::RecordLevel::Final);
}
void BM_RunGemm6144RecordNone(benchmark::State& st) {
    runGemm6144(st, pto::RecordLevel::None);
}
BENCHMARK(BM_RunGemm6144)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_RunGemm6144RecordFinal)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_RunGemm6144RecordNone)->Unit(benchmark::kMillisecond)->Iterations(1);

// tests/integration/run/programs/loop_attention.pto with `trips` K/V blocks of 128 keys.
std::string attentionLoop(int64_t trips) {
    return fmt::format(R"(func @loop_attention(%q: tensor<2x128x64xf16>, %k: tensor<2x{0}x64xf16>,
                     %v: tensor<2x{0}x64xf16>) -> tensor<2x128x64xf16> {{
  vec_tile [1, 128, 64]
  %m0 = fill {{value = -inf}} : tensor<2x128x1xf32>
  %l0 = fill {{value = 0.0}} : tensor<2x128x1xf32>
  %o0 = fill {{value = 0.0}} : tensor<2x128x64xf32>
  %st:3 = for "kv" %j = 0 to {1} step 1 iter_args(%m = %m0, %l = %l0, %o = %o0) {{
    vec_tile [1, 32, 128]
    %kj = view %k {{offsets = [0, %j * 128, 0], sizes = [2, 128, 64]}}
    %vj = view %v {{offsets = [0, %j * 128, 0], sizes = [2, 128, 64]}}
    %s = muls (matmul %q, %kj {{transpose_b}}), 0.125
    %mj = max %m, (reduce_max %s {{axis = 2, keepdim}})
    %p = exp (sub %s, %mj)
    %r = reduce_sum %p {{axis = 2, keepdim}}
    %pv = matmul (cast %p : tensor<2x128x128xf16>), %vj
    vec_tile [1, 64, 64]
    %a = exp (sub %m, %mj)
    %lj = add (mul %l, %a), %r
    %oj = add (mul %o, %a), %pv
    yield %mj, %lj, %oj
  }}
  %out = cast (div %st#2, %st#1) : tensor<2x128x64xf16>
  return %out
}}
)",
                       128 * trips, trips);
}

void BM_CompileLoop(benchmark::State& st) {
    const int64_t trips = st.range(0);
    const std::string text = attentionLoop(trips);
    auto out = std::filesystem::temp_directory_path() / "pto_bench_compile_loop.db";
    size_t instrs = 0, tileOps = 0;
    for (auto _ : st) {
        pto::CompileState state = pto::loadProgramText(text, "loop_attention.pto");
        auto writer = pto::tracedb::TraceWriter::create(out);
        pto::compileProgram(state, pto::CompileOptions{}, &writer);
        writer.commit();
        tileOps = state.tileFunction().ops().size();
        instrs = 0;
        for (const auto& k : state.pto.kernels) instrs += k.instrs.size();
    }
    st.counters["trips"] = double(trips);
    st.counters["tile_ops"] = double(tileOps);
    st.counters["instrs"] = double(instrs);
    st.counters["trace_bytes"] = double(std::filesystem::file_size(out));
    std::filesystem::remove(out);
}
BENCHMARK(BM_CompileLoop)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond)->Iterations(3);

// A vector-only loop with a carried accumulator (tests/integration/run/programs/
// loop_accumulate_100.pto at `trips` blocks): from 64 trips on it is compiled through a window of
// 24-31 iterations whose counted loops are stretched (compiler/passes/LoopWindow.h), so its
// compile time stops growing with the trip count.
std::string accumulateLoop(int64_t trips) {
    return fmt::format(R"(func @loop_accumulate(%x: tensor<256x{0}xf32>, %s: tensor<256x128xf32>)
    -> tensor<256x128xf32> {{
  vec_tile [32, 128]
  %a0 = fill {{value = 0.0}} : tensor<256x128xf32>
  %r:1 = for "blk" %j = 0 to {1} step 1 iter_args(%a = %a0) {{
    %xj = view %x {{offsets = [0, %j * 128], sizes = [256, 128]}}
    %a1 = add %a, (mul (exp %xj), %s)
    yield %a1
  }}
  return %r#0
}}
)",
                       trips * 128, trips);
}

void BM_CompileVectorLoop(benchmark::State& st) {
    const int64_t trips = st.range(0);
    const std::string text = accumulateLoop(trips);
    auto out = std::filesystem::temp_directory_path() / "pto_bench_compile_vloop.db";
    size_t tileOps = 0;
    for (auto _ : st) {
        pto::CompileState state = pto::loadProgramText(text, "loop_accumulate.pto");
        auto writer = pto::tracedb::TraceWriter::create(out);
        pto::compileProgram(state, pto::CompileOptions{}, &writer);
        writer.commit();
        tileOps = state.tileFunction().ops().size();
    }
    st.counters["trips"] = double(trips);
    st.counters["tile_ops"] = double(tileOps);
    std::filesystem::remove(out);
}
BENCHMARK(BM_CompileVectorLoop)
    ->Arg(16)
    ->Arg(256)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

} // namespace

BENCHMARK_MAIN();
