// Chrome trace JSON export of a 10 M-slice trace (pto export --format chrome) side by side
// with `sqlite3 -json` selecting the same rows in the same order. Target: ≥ 3× faster.
// The trace is generated once with TraceWriter (simulator-shaped: 24 AIC + 48 AIV cores with
// their pipe tracks, instruction slices with instr and task ids) and kept in the temp dir.
#include "profiler/export/ChromeExport.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

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

std::filesystem::path tracePath() {
    return std::filesystem::temp_directory_path() /
           ("pto-bench-export-" + std::to_string(sliceCount()) + ".db");
}

// Cores as the simulator lays them out, each pipe track streaming back-to-back instructions.
void writeTrace(const std::filesystem::path& path, std::int64_t slices) {
    TraceWriter w = TraceWriter::create(path);
    w.setMeta("clock_hz", "1800000000");
    std::int64_t chip =
        w.add(TrackRow{.nameId = w.intern("910B-like chip"), .kind = TrackKind::Chip});
    std::vector<std::int64_t> pipes;
    const char* aicPipes[] = {"S", "MTE2", "MTE1", "M", "FIX", "MTE3"};
    const char* aivPipes[] = {"S", "MTE2", "V", "MTE3"};
    for (int c = 0; c < 72; ++c) {
        bool aic = c < 24;
        std::string type = aic ? "AIC" : "AIV";
        int index = aic ? c : c - 24;
        std::int64_t core = w.add(TrackRow{.parentId = chip,
                                           .nameId = w.intern(type + " " + std::to_string(index)),
                                           .kind = TrackKind::Core,
                                           .coreId = index,
                                           .coreType = type,
                                           .sortIndex = c});
        int n = aic ? 6 : 4;
        for (int p = 0; p < n; ++p) {
            std::string pipe = aic ? aicPipes[p] : aivPipes[p];
            pipes.push_back(w.add(TrackRow{.parentId = core,
                                           .nameId = w.intern(pipe),
                                           .kind = TrackKind::Pipe,
                                           .coreId = index,
                                           .coreType = type,
                                           .pipe = pipe,
                                           .sortIndex = p}));
        }
    }
    std::vector<std::int64_t> names;
    for (const char* op : {"TLOAD", "TSTORE", "TADD", "TMUL", "TEXP", "TMATMUL", "TEXTRACT",
                           "SET_FLAG", "WAIT_FLAG", "TROWSUM"})
        names.push_back(w.intern(op));
    std::vector<std::int64_t> clock(pipes.size(), 0);
    std::vector<SliceRow> batch;
    batch.reserve(1 << 16);
    for (std::int64_t i = 0; i < slices; ++i) {
        std::size_t t = std::size_t(i % std::int64_t(pipes.size()));
        std::int64_t dur = 20 + (i * 13) % 500;
        batch.push_back(SliceRow{.ts = clock[t],
                                 .dur = dur,
                                 .trackId = pipes[t],
                                 .nameId = names[std::size_t(i % 10)],
                                 .category = SliceCategory::Instr,
                                 .instrId = 1 + i % 4096,
                                 .taskId = std::int64_t(t / 6)});
        clock[t] += dur + 3;
        if (batch.size() == batch.capacity()) {
            w.addAll(std::span<const SliceRow>(batch));
            batch.clear();
        }
    }
    w.addAll(std::span<const SliceRow>(batch));
    w.commit();
}

const std::filesystem::path& sampleTrace() {
    static const std::filesystem::path path = [] {
        auto p = tracePath();
        if (!std::filesystem::exists(p)) writeTrace(p, sliceCount());
        return p;
    }();
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
