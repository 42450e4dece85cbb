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

// The same rows, names joined in, in the same (insertion) order, as `sqlite3 -json` prints them.
void BM_Sqlite3Json(benchmark::State& state) {
    const auto& path = sampleTrace();
    std::string cmd = "sqlite3 -readonly -json '" + path.string() +
                      "' \"SELECT s.id, s.ts, s.dur, s.track_id, n.str AS name, s.category, "
                      "s.instr_id, s.task_id FROM slice s JOIN string n ON n.id = s.name_id\" "
                      "> /dev/null";
    for (auto _ : state)
        if (std::system(cmd.c_str()) != 0) state.SkipWithError("sqlite3 failed (installed?)");
    state.SetItemsProcessed(state.iterations() * sliceCount());
}

BENCHMARK(BM_ChromeExport)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_Sqlite3Json)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

} // namespace

BENCHMARK_MAIN();
