// Flash attention at long sequence lengths through the CLI (issue 15 "Done when"): compile and
// simulate samples/flash_attention_long.pto (one head, D = 128) timing-only with task-level
// trace, at S = 8192, 16384 and the full S = 32768; wall time, the child's CPU time (user +
// system: the machine is shared, so wall time alone says little) and its peak RSS. Side by side:
// the same program with every cluster compiled (`--no-cluster-probe`, the form before the
// clusters were compiled once). The loop is unrolled, so the budget flags are raised.
#include "ChildProcess.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The sample's text at sequence length s (128 K/V blocks at 32768 → s / 256).
fs::path programAt(int s) {
    std::ifstream in(std::string(PTO_SOURCE_DIR) + "/samples/flash_attention_long.pto");
    std::ostringstream text;
    text << in.rdbuf();
    std::string t = std::regex_replace(text.str(), std::regex("32768x"), std::to_string(s) + "x");
    t = std::regex_replace(t, std::regex("to 128 step"), "to " + std::to_string(s / 256) + " step");
    const fs::path path =
        fs::temp_directory_path() / ("pto_bench_fa_" + std::to_string(s) + ".pto");
    std::ofstream(path) << t;
    return path;
}

// Runs `pto run` timing-only at task level (with `extra` as its last flag, if any).
pto::bench::ChildUsage runChild(const fs::path& program, const fs::path& db,
                                const char* extra = nullptr) {
    std::vector<std::string> args{
        "run",      program.string(), "--timing-only",  "--trace",  "tasks",
        "-o",       db.string(),      "--max-tile-ops", "40000000", "--max-instrs",
        "80000000", "--max-memory",   "20GiB",          "--max-gm", "8GiB"};
    if (extra) args.emplace_back(extra);
    return pto::bench::runPto(args);
}

void runAndCount(benchmark::State& state, const char* extra) {
    const int s = int(state.range(0));
    const fs::path program = programAt(s);
    const fs::path db = fs::temp_directory_path() / ("pto_bench_fa_" + std::to_string(s) + ".db");
    pto::bench::ChildUsage usage;
    for (auto _ : state) {
        usage = runChild(program, db, extra);
        if (usage.peakRssMib < 0) return state.SkipWithError("pto run failed");
    }
    state.counters["peak_rss_mib"] = usage.peakRssMib;
    state.counters["cpu_s"] = usage.cpuSeconds;
    fs::remove(db);
}

void BM_FlashAttentionLongTimingOnly(benchmark::State& state) {
    runAndCount(state, nullptr);
}

void BM_FlashAttentionLongEveryClusterCompiled(benchmark::State& state) {
    runAndCount(state, "--no-cluster-probe");
}
BENCHMARK(BM_FlashAttentionLongTimingOnly)
    ->Arg(8192)
    ->Arg(16384)
    ->Arg(32768)
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK(BM_FlashAttentionLongEveryClusterCompiled)
    ->Arg(8192)
    ->Arg(16384)
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);

} // namespace

BENCHMARK_MAIN();
