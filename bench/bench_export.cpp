// Chrome trace JSON export of a 10 M-slice trace (pto export --format chrome) side by side
// with `sqlite3 -json` selecting the same rows in the same order. Target: ≥ 3× faster.
// The trace is generated once by bench/SimShapedTrace.cpp (simulator-shaped: 24 AIC + 48 AIV
// cores with their pipe tracks, instruction slices with instr and task ids), kept in the temp dir.
#include "bench/SimShapedTrace.h"
#include "profiler/export/ChromeExport.h"
#include "trace_db/TraceReader.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace {

using namespace pto::tracedb;

std::int64_t sliceCount() {
    const char* env = std::getenv("PTO_BENCH_EXPORT_SLICES");
    return env ? std::atoll(env) : 10'000'000;
}

const std::filesystem::path& sampleTrace() {
    static const std::filesystem::path path = pto::bench::simShapedTrace(sliceCount());
    return path;
}

void BM_ChromeExport(benchmark::State& state) {
    const auto& path = sampleTrace();
    for (auto _ : state) {
        auto reader = TraceReader::open(path);
        std::FILE* out = std::fopen("/dev/null", "wb");
        auto counts = pto::prof::exportChromeJson(reader, out);
        std::fclose(out);
        benchmark::DoNotOptimize(counts.slices);
    }
    state.SetItemsProcessed(state.iterations() * sliceCount());
}

// CPU seconds (user + system) of this process's finished children.
double childCpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// The same rows, names joined in, in the same (insertion) order, as `sqlite3 -json` prints them.
void BM_Sqlite3Json(benchmark::State& state) {
    const auto& path = sampleTrace();
    std::string cmd = "sqlite3 -readonly -json '" + path.string() +
                      "' \"SELECT s.id, s.ts, s.dur, s.track_id, n.str AS name, s.category, "
                      "s.instr_id, s.task_id FROM slice s JOIN string n ON n.id = s.name_id\" "
                      "> /dev/null";
    double cpu0 = childCpuSeconds();
    for (auto _ : state)
        if (std::system(cmd.c_str()) != 0) state.SkipWithError("sqlite3 failed (installed?)");
    // The CPU column only counts this process: the sqlite3 child's CPU goes in a counter.
    state.counters["child_cpu_s"] = (childCpuSeconds() - cpu0) / double(state.iterations());
    state.SetItemsProcessed(state.iterations() * sliceCount());
}

// Process CPU time: the worker threads' too, not only the writing thread's.
BENCHMARK(BM_ChromeExport)
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Iterations(1);
BENCHMARK(BM_Sqlite3Json)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

} // namespace

BENCHMARK_MAIN();
