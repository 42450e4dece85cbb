// `pto import` rate, rows (events, table rows) per second, on the real Ascend profiler output
// of ../shared/data/ascend-profiler (level 1, rank 0): trace_view.json (2.2 MB, 10 112 events)
// and ascend_pytorch_profiler_0.db, the whole import (read, merge, write the trace file with
// its indexes). Side by side: Python's json.load of the same trace_view.json, and Python's
// sqlite3 fetching the same tables of the .db, each timed inside the Python process. Rates are
// per CPU second on both sides (Python's time.process_time, Google Benchmark's CPU time): the
// machine is shared, and CPU time is the figure that does not depend on its load.
#include "importer/Importer.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(PTO_SOURCE_DIR) / "../shared/data/ascend-profiler";
const fs::path kTraceView =
    kData / "text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json";
const fs::path kDb = kData / "db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                             "ascend_pytorch_profiler_0.db";

fs::path output() {
    return fs::temp_directory_path() / ("pto-bench-import-" + std::to_string(::getpid()) + ".db");
}

void importRate(benchmark::State& state, const fs::path& input) {
    if (!fs::exists(input)) {
        state.SkipWithError("no test data in ../shared/data/ascend-profiler");
        return;
    }
    std::int64_t rows = 0;
    for (auto _ : state) rows += pto::importer::importProfile(input, output()).rowsRead;
    fs::remove(output());
    state.SetItemsProcessed(rows);
    state.counters["rows"] = double(rows) / double(state.iterations());
}

void BM_ImportTraceViewJson(benchmark::State& state) {
    importRate(state, kTraceView);
}
BENCHMARK(BM_ImportTraceViewJson)->Unit(benchmark::kMillisecond);

void BM_ImportProfilerDb(benchmark::State& state) {
    importRate(state, kDb);
}
BENCHMARK(BM_ImportProfilerDb)->Unit(benchmark::kMillisecond);

// Seconds per run and rows, as printed by the Python snippet.
std::pair<double, double> python(const std::string& script) {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(
        popen(("/usr/bin/python3 -c \"" + script + "\"").c_str(), "r"), pclose);
    double seconds = 0, rows = 0;
    if (!pipe || std::fscanf(pipe.get(), "%lf %lf", &seconds, &rows) != 2) return {0, 0};
    return {seconds, rows};
}

void pythonRate(benchmark::State& state, const std::string& script) {
    for (auto _ : state) {
        auto [seconds, rows] = python(script);
        if (seconds <= 0) {
            state.SkipWithError("python3 failed");
            return;
        }
        state.SetIterationTime(seconds);
        state.counters["rows"] = rows;
        state.SetItemsProcessed(state.items_processed() + std::int64_t(rows));
    }
}

void BM_PythonJsonLoad(benchmark::State& state) {
    pythonRate(state, "import json, time\nt = time.process_time()\nd = json.load(open('" +
                          kTraceView.string() + "'))\nprint(time.process_time() - t, len(d))");
}
BENCHMARK(BM_PythonJsonLoad)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_PythonSqliteFetch(benchmark::State& state) {
    pythonRate(state,
               "import sqlite3, time\nt = time.process_time()\ndb = sqlite3.connect('file:" +
                   kDb.string() +
                   "?immutable=1', uri=True)\nn = 0\nfor q in ['SELECT * FROM COMPUTE_TASK_INFO c "
                   "JOIN TASK t ON t.globalTaskId = c.globalTaskId', 'SELECT * FROM "
                   "TASK_PMU_INFO', 'SELECT * FROM PYTORCH_API', 'SELECT * FROM CANN_API', "
                   "'SELECT * FROM COMMUNICATION_OP', 'SELECT * FROM STRING_IDS', 'SELECT * FROM "
                   "CONNECTION_IDS']:\n    n += "
                   "len(db.execute(q).fetchall())\nprint(time.process_time() - t, n)");
}
BENCHMARK(BM_PythonSqliteFetch)->UseManualTime()->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
