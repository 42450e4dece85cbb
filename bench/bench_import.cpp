// `pto import` rate, rows (events, table rows) per second, on the real Ascend profiler output
// of ../shared/data/ascend-profiler (level 1, rank 0): trace_view.json (2.2 MB, 10 112 events)
// and ascend_pytorch_profiler_0.db, the whole import (read, merge, write the trace file with
// its indexes). Side by side: Python's json.load of the same trace_view.json, and Python's
// sqlite3 fetching the same tables of the .db, each timed inside the Python process. Rates are
// per CPU second on both sides (Python's time.process_time, Google Benchmark's CPU time): the
// machine is shared, and CPU time is the figure that does not depend on its load.
// BM_ImportLargeKernelCsv: peak RSS of `pto import` (a child process) of a kernel_details.csv
// made of N copies of the real level 2 one with shifted start times (1 500 copies: 97 MB).
#include "ChildProcess.h"
#include "importer/Importer.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
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

// A folder holding kernel_details.csv: `copies` copies of the real level 2 rank 0 file, each
// shifted after the previous one so no row repeats; its size in bytes, or 0.
std::uintmax_t makeLargeKernelCsv(const fs::path& dir, int copies) {
    const fs::path source =
        kData / "text/level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
    fs::create_directories(dir / "ASCEND_PROFILER_OUTPUT");
    const fs::path target = dir / "ASCEND_PROFILER_OUTPUT/kernel_details.csv";
    const std::string script =
        "import csv\nrows = list(csv.reader(open('" + source.string() +
        "')))\nh, body = rows[0], rows[1:]\ni = h.index('Start Time(us)')\nstarts = "
        "[float(r[i].strip()) for r in body]\nspan = max(starts) - min(starts) + 1000\nw = "
        "csv.writer(open('" +
        target.string() + "', 'w', newline=''))\nw.writerow(h)\nfor k in range(" +
        std::to_string(copies) +
        "):\n    for r, s in zip(body, starts):\n        r[i] = '%.3f' % (s + k * span)\n "
        "       w.writerow(r)\n";
    if (std::system(("/usr/bin/python3 -c \"" + script + "\"").c_str()) != 0) return 0;
    return fs::exists(target) ? fs::file_size(target) : 0;
}

void BM_ImportLargeKernelCsv(benchmark::State& state) {
    const fs::path dir =
        fs::temp_directory_path() / ("pto-bench-import-csv-" + std::to_string(::getpid()));
    const std::uintmax_t bytes = makeLargeKernelCsv(dir, int(state.range(0)));
    if (bytes == 0) {
        state.SkipWithError("could not write the kernel_details.csv (python3, test data)");
        fs::remove_all(dir);
        return;
    }
    pto::bench::ChildUsage usage;
    for (auto _ : state) usage = pto::bench::runPto({"import", dir.string(), "-o", output()});
    fs::remove_all(dir);
    fs::remove(output());
    if (usage.peakRssMib < 0) {
        state.SkipWithError("pto import failed");
        return;
    }
    state.counters["input_mib"] = double(bytes) / (1024.0 * 1024.0);
    state.counters["peak_rss_mib"] = usage.peakRssMib;
    state.counters["rss_per_input_byte"] = usage.peakRssMib * 1024.0 * 1024.0 / double(bytes);
    state.counters["cpu_s"] = usage.cpuSeconds;
}
BENCHMARK(BM_ImportLargeKernelCsv)->Arg(1500)->Unit(benchmark::kSecond)->Iterations(1);

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
