// `pto diff` against NumPy on two 50 M-element f32 .npy files (200 MB each): our load (mmap,
// validate/TensorFile.h) + the full metric pass (validate/ErrorMetrics.h) versus NumPy's np.load ×2
// + np.allclose + max |a − b|, timed inside the Python process (interpreter start-up excluded).
// Counters: wall seconds pto_s and numpy_s, CPU seconds (all threads, user + system) pto_cpu_s and
// numpy_cpu_s, and the speedups numpy/pto of each. Both read the files from the page cache. On a
// shared machine the CPU figures are the stable ones; the wall figures are what a user waits on an
// idle machine.
#include "validate/GoldenDiff.h"
#include "validate/TensorCompare.h"
#include "validate/TensorFile.h"
#include "validate/TensorIo.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>

#include <unistd.h>

namespace {

using namespace pto;
namespace fs = std::filesystem;

constexpr int64_t kElements = 50'000'000;

struct Files {
    fs::path dir, actual, golden;
    Files() {
        dir = fs::temp_directory_path() / ("pto-bench-diff-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        actual = dir / "a.npy";
        golden = dir / "g.npy";
        TensorData g = randomTensor(DType::F32, {kElements / 1000, 1000}, 1);
        writeTensor(golden, g);
        float* p = reinterpret_cast<float*>(g.data());
        for (int64_t i = 0; i < kElements; ++i)
            p[i] *= 1.0f + 1e-6f * float((i * 2654435761u) % 1000) / 500.0f - 1e-6f;
        writeTensor(actual, g);
    }
    ~Files() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

const Files& files() {
    static const Files f;
    return f;
}

struct Seconds {
    double wall = 0, cpu = 0;
};

double cpuNow() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

Seconds numpySeconds(const Files& f) {
    const std::string cmd = "/usr/bin/python3 -c \"import sys, time, numpy as np\n"
                            "t = time.perf_counter(); c = time.process_time()\n"
                            "a = np.load(sys.argv[1]); b = np.load(sys.argv[2])\n"
                            "ok = np.allclose(a, b, rtol=1.3e-6, atol=1e-5)\n"
                            "m = float(np.max(np.abs(a - b)))\n"
                            "print(time.perf_counter() - t, time.process_time() - c)\" '" +
                            f.actual.string() + "' '" + f.golden.string() + "'";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    Seconds s;
    if (!pipe || std::fscanf(pipe.get(), "%lf %lf", &s.wall, &s.cpu) != 2) return {};
    return s;
}

Seconds ptoSeconds(const Files& f) {
    const double c0 = cpuNow();
    const auto t0 = std::chrono::steady_clock::now();
    {
        TensorFile a(f.actual);
        TensorFile g(f.golden);
        TensorComparison c = compareTensors("a", a.view(), g.view());
        benchmark::DoNotOptimize(c.metrics.maxAbs);
    }
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
            cpuNow() - c0};
}

void BM_DiffVsNumpy(benchmark::State& state) {
    const Files& f = files();
    Seconds pto, numpy;
    for (auto _ : state) {
        pto = ptoSeconds(f);
        numpy = numpySeconds(f);
        state.SetIterationTime(pto.wall);
    }
    state.counters["pto_s"] = pto.wall;
    state.counters["numpy_s"] = numpy.wall;
    state.counters["speedup"] = pto.wall > 0 ? numpy.wall / pto.wall : 0.0;
    state.counters["pto_cpu_s"] = pto.cpu;
    state.counters["numpy_cpu_s"] = numpy.cpu;
    state.counters["cpu_speedup"] = pto.cpu > 0 ? numpy.cpu / pto.cpu : 0.0;
}
BENCHMARK(BM_DiffVsNumpy)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// The error-pattern diagnosis on a failing 50 M-element output (issue 20): `pto diff` of two
// files = map + metrics (+ diagnosis when it fails). The actual is the golden with one block of
// 4 000 rows (8 %) scaled by 1.5 and the rest as in BM_DiffVsNumpy, so every detector runs
// (a sampled pass, the shift search, the scale fits). Counters: compare_s (map + metrics),
// diagnose_s, and overhead = diagnose_s / compare_s (target ≤ 0.2); the same in CPU seconds
// (compare's metric pass uses 2 threads, the diagnosis 1).
struct FailingFiles {
    fs::path actual;
    FailingFiles() {
        actual = files().dir / "bad.npy";
        TensorData a = readTensor(files().actual);
        float* p = reinterpret_cast<float*>(a.data());
        for (int64_t i = 20'000 * 1000; i < 24'000 * 1000; ++i) p[i] *= 1.5f;
        writeTensor(actual, a);
    }
};

void BM_DiagnosisOverhead(benchmark::State& state) {
    static const FailingFiles bad;
    double compare = 0, diag = 0, compareCpu = 0, diagCpu = 0;
    std::string first;
    for (auto _ : state) {
        const double c0 = cpuNow();
        const auto t0 = std::chrono::steady_clock::now();
        TensorFile a(bad.actual);
        TensorFile g(files().golden);
        const ComparePolicy policy;
        TensorComparison c = compareTensors("a", a.view(), g.view(), policy);
        const auto t1 = std::chrono::steady_clock::now();
        const double c1 = cpuNow();
        const Diagnosis d = diagnoseComparison(c, a.view(), g.view(), policy, nullptr);
        const auto t2 = std::chrono::steady_clock::now();
        compareCpu = c1 - c0;
        diagCpu = cpuNow() - c1;
        compare = std::chrono::duration<double>(t1 - t0).count();
        diag = std::chrono::duration<double>(t2 - t1).count();
        first = d.findings.empty() ? "none" : d.findings[0].pattern;
        state.SetIterationTime(compare + diag);
    }
    state.counters["compare_s"] = compare;
    state.counters["diagnose_s"] = diag;
    state.counters["overhead"] = compare > 0 ? diag / compare : 0.0;
    state.counters["compare_cpu_s"] = compareCpu;
    state.counters["diagnose_cpu_s"] = diagCpu;
    state.counters["cpu_overhead"] = compareCpu > 0 ? diagCpu / compareCpu : 0.0;
    state.SetLabel("first pattern: " + first);
}
BENCHMARK(BM_DiagnosisOverhead)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
