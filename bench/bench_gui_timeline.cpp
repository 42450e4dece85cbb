// pto-studio's timeline on a 10 M-slice simulator-shaped trace, offscreen: time from launch
// (open the file, build the view) to the first painted timeline and to the painted summary,
// the frame time of zoom and pan over the whole range, through every zoom level and at the
// finest zoom, and the peak memory. Targets: first paint ≤ 2 s, frames ≤ 16 ms.
#include "bench/SimShapedTrace.h"
#include "gui/model/TimelineLoader.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPixmap>
#include <QThread>

#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <vector>

namespace {

using namespace pto::gui;
using Clock = std::chrono::steady_clock;

std::int64_t sliceCount() {
    const char* env = std::getenv("PTO_BENCH_TIMELINE_SLICES");
    return env ? std::atoll(env) : 10'000'000;
}

double since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds of the calling thread (the GUI thread paints alone) and of the whole process.
double threadCpu() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double processCpu() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

double peakMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0; // Linux: KiB
}

// The application as pto-studio builds it: a context, the document, the view, shown.
struct Studio {
    StudioContext context;
    std::unique_ptr<TimelineView> view;

    void launch(const std::filesystem::path& trace) {
        context.setDocument(TraceDocument::open(trace));
        view = std::make_unique<TimelineView>(context);
        view->resize(1600, 900);
        view->show();
    }
    void waitForSummary() {
        while (view->loader().busy()) {
            QApplication::processEvents(QEventLoop::AllEvents, 20);
            QThread::msleep(2);
        }
        QApplication::processEvents();
    }
    TimelineCanvas& canvas() { return view->canvas(); }
};

// Runs `step` then paints synchronously, `frames` times; reports mean, p95 and max ms.
template <typename Step>
void measureFrames(benchmark::State& state, Studio& studio, const char* name, int frames,
                   Step step) {
    std::vector<double> ms, cpu;
    std::int64_t slices = 0, blocks = 0;
    for (int i = 0; i < frames; ++i) {
        const auto start = Clock::now();
        const double cpuStart = threadCpu();
        step(i);
        studio.canvas().repaint();
        ms.push_back(since(start) * 1e3);
        cpu.push_back((threadCpu() - cpuStart) * 1e3);
        slices += studio.canvas().lastStats().slices;
        blocks += studio.canvas().lastStats().mergedBlocks;
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu.begin(), cpu.end());
    state.counters["cpu_mean_ms"] =
        std::accumulate(cpu.begin(), cpu.end(), 0.0) / double(cpu.size());
    state.counters["cpu_p95_ms"] = cpu[std::size_t(double(cpu.size() - 1) * 0.95)];
    state.counters["cpu_max_ms"] = cpu.back();
    state.counters["frame_mean_ms"] =
        std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
    state.counters["frame_p95_ms"] = ms[std::size_t(double(ms.size() - 1) * 0.95)];
    state.counters["frame_max_ms"] = ms.back();
    state.counters["slices_per_frame"] = double(slices) / frames;
    state.counters["blocks_per_frame"] = double(blocks) / frames;
    state.counters["peak_MiB"] = peakMiB();
    // PTO_BENCH_SCREENSHOTS=DIR keeps the last frame of each benchmark as a PNG.
    if (const char* dir = std::getenv("PTO_BENCH_SCREENSHOTS"))
        studio.view->grab().save(QString::fromUtf8(dir) + QStringLiteral("/") +
                                 QString::fromUtf8(name) + QStringLiteral(".png"));
}

Studio& readyStudio() {
    static Studio* studio = [] {
        auto* s = new Studio;
        s->launch(pto::bench::simShapedTrace(sliceCount()));
        s->waitForSummary();
        return s;
    }();
    return *studio;
}

void BM_LaunchToFirstPaint(benchmark::State& state) {
    const auto trace = pto::bench::simShapedTrace(sliceCount());
    for (auto _ : state) {
        Studio studio;
        const auto start = Clock::now();
        const double cpuStart = processCpu();
        studio.launch(trace);
        studio.canvas().repaint();
        const double firstPaint = since(start);
        studio.waitForSummary();
        studio.canvas().repaint();
        state.counters["first_paint_s"] = firstPaint;
        state.counters["summary_painted_s"] = since(start);
        state.counters["launch_cpu_s"] = processCpu() - cpuStart;
        state.counters["summary_build_s"] =
            studio.canvas().lod() ? studio.canvas().lod()->seconds : -1;
        state.counters["peak_MiB"] = peakMiB();
    }
}

// Whole range: zoom in and out around moving anchors and pan, all within the full view.
void BM_FrameWholeRange(benchmark::State& state) {
    Studio& studio = readyStudio();
    for (auto _ : state) {
        studio.canvas().viewport().showAll();
        measureFrames(state, studio, "whole_range", 120, [&](int i) {
            auto& vp = studio.canvas().viewport();
            if (i % 4 == 0)
                vp.zoom(1.1, (i * 37) % vp.width());
            else if (i % 4 == 1)
                vp.zoom(1 / 1.1, (i * 53) % vp.width());
            else
                vp.panPixels(i % 8 < 4 ? 40 : -40);
        });
    }
}

// From the whole range down to the finest zoom, one wheel notch (×1.41) per frame, and back:
// every level of the pyramid and the switch to single slices.
void BM_FrameZoomSweep(benchmark::State& state) {
    Studio& studio = readyStudio();
    for (auto _ : state) {
        auto& vp = studio.canvas().viewport();
        vp.showAll();
        int frames = 0;
        while (vp.span() > TimelineViewport::kMinSpan * 1.01) {
            vp.zoom(1.41, vp.width() * 0.37);
            ++frames;
        }
        vp.showAll();
        measureFrames(state, studio, "zoom_sweep", 2 * frames,
                      [&](int i) { vp.zoom(i < frames ? 1.41 : 1 / 1.41, vp.width() * 0.37); });
    }
}

// Finest zoom (16 cycles across the view) in the middle of the trace: pan with D/A steps,
// scroll the tracks, and jump to other places (new windows read from the file).
void BM_FrameFinestZoom(benchmark::State& state) {
    Studio& studio = readyStudio();
    for (auto _ : state) {
        auto& vp = studio.canvas().viewport();
        const double middle = (double(vp.boundsBegin()) + double(vp.boundsEnd())) / 2;
        vp.setRange(middle, middle + TimelineViewport::kMinSpan);
        measureFrames(state, studio, "finest", 120, [&](int i) {
            if (i % 30 == 29) {
                const double at = double(vp.boundsBegin()) +
                                  double(vp.boundsEnd() - vp.boundsBegin()) * (i % 7) / 7.0;
                vp.setRange(at, at + TimelineViewport::kMinSpan);
            } else if (i % 10 == 9) {
                studio.canvas().setScrollY(studio.canvas().scrollY() + 300);
            } else {
                vp.panPixels(i % 20 < 10 ? 160 : -160);
            }
        });
    }
}

// Search by name (synchronous on the GUI thread): a name with 1 M matches, the first 100 000
// kept in time order, then the step to the first match (reveal + select + details).
void BM_Search(benchmark::State& state) {
    Studio& studio = readyStudio();
    for (auto _ : state) {
        const double cpuStart = threadCpu();
        const int matches = studio.view->searchFor(QStringLiteral("TEXP"));
        state.counters["cpu_s"] = threadCpu() - cpuStart;
        state.counters["matches"] = matches;
        studio.view->searchFor(QString());
    }
}

BENCHMARK(BM_LaunchToFirstPaint)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_FrameWholeRange)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_FrameZoomSweep)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_FrameFinestZoom)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_Search)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

} // namespace
