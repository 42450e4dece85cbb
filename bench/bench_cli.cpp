// Issue 17's latency targets as a user meets them: the `pto` binary in a child process (with its
// huge-page and malloc re-exec, which the in-process bench_compile lacks), wall time, the
// child's CPU time (user + system) and peak RSS. `pto compile samples/gemm_4096.pto` with the
// default (full) record, `pto run` of the 6144³ GEMM timing-only, untraced, default record, and
// `pto report` of a flash_attention_long trace (7.1 M instruction slices).
#include "ChildProcess.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

void runAndCount(benchmark::State& state, std::vector<std::string> args) {
    const fs::path db = fs::temp_directory_path() / "pto_bench_cli.db";
    args.insert(args.end(), {"-o", db.string()});
    pto::bench::ChildUsage usage;
    for (auto _ : state) {
        usage = pto::bench::runPto(args);
        if (usage.peakRssMib < 0) return state.SkipWithError("pto failed");
    }
    state.counters["peak_rss_mib"] = usage.peakRssMib;
    state.counters["cpu_s"] = usage.cpuSeconds;
    state.counters["trace_mib"] = double(fs::file_size(db)) / (1024.0 * 1024.0);
    fs::remove(db);
}

void BM_CliCompileGemm4096(benchmark::State& state) {
    runAndCount(state, {"compile", std::string(PTO_SOURCE_DIR) + "/samples/gemm_4096.pto"});
}

void BM_CliRunGemm6144(benchmark::State& state) {
    runAndCount(state, {"run", std::string(PTO_SOURCE_DIR) + "/bench/programs/gemm_6144.pto",
                        "--timing-only", "--trace", "none"});
}

// `pto report --no-store` of `pto run samples/flash_attention_long.pto --seed 1 --timing-only
// --max-instrs 8000000`
// (575 MB, 7.1 M instruction slices), made once and kept in the temp directory.
void BM_CliReportFaLong(benchmark::State& state) {
    const fs::path trace = fs::temp_directory_path() / "pto_bench_cli_fa_long.db";
    if (!fs::exists(trace) &&
        pto::bench::runPto(
            {"run", std::string(PTO_SOURCE_DIR) + "/samples/flash_attention_long.pto", "--seed",
             "1", "--timing-only", "--max-instrs", "8000000", "-o", trace.string()})
                .peakRssMib < 0)
        return state.SkipWithError("pto run failed");
    pto::bench::ChildUsage usage;
    for (auto _ : state) {
        usage = pto::bench::runPto({"report", trace.string(), "--no-store"}, 1); // 1: findings
        if (usage.peakRssMib < 0) return state.SkipWithError("pto report failed");
    }
    state.counters["peak_rss_mib"] = usage.peakRssMib;
    state.counters["cpu_s"] = usage.cpuSeconds;
}

// One iteration per repetition: bench/run.sh's repetitions give the median.
BENCHMARK(BM_CliCompileGemm4096)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_CliRunGemm6144)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_CliReportFaLong)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

} // namespace

BENCHMARK_MAIN();
