// The graph view on a Tile stage of more than 100 000 nodes (samples/gemm_4096.pto, compiled
// once under the temp dir, or PTO_GUI_GRAPH_TRACE): time to the first painted graph, time to
// expand one group with a warm layout cache, the frame time zoomed out over the whole graph
// (every group expanded), and plain `dot -Tsvg` on the same full graph (with a timeout).
#include "gui/model/GraphModel.h"
#include "gui/model/LayoutCache.h"
#include "gui/widgets/GraphView.h"
#include "gui/widgets/GraphViewCanvas.h"

#include <QApplication>
#include <QTest>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

using namespace pto::gui;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

const fs::path& trace() {
    static const fs::path path = [] {
        if (const char* env = std::getenv("PTO_GUI_GRAPH_TRACE")) return fs::path(env);
        const fs::path t = fs::temp_directory_path() / "pto-bench-gui-graph-gemm4096.db";
        if (!fs::exists(t)) {
            const std::string command = std::string(PTO_CLI) + " compile " + PTO_SOURCE_DIR +
                                        "/samples/gemm_4096.pto -o " + t.string() + " > /dev/null";
            if (std::system(command.c_str()) != 0) return fs::path();
        }
        return t;
    }();
    return path;
}

struct Session {
    StudioContext context;
    std::unique_ptr<GraphView> view;
    Session() {
        context.setDocument(TraceDocument::open(trace()));
        view = std::make_unique<GraphView>(context);
        view->resize(1400, 900);
        view->show();
        settle();
    }
    bool settle() {
        return QTest::qWaitFor([&] { return view->isIdle() && view->canvas().itemCount() > 0; },
                               600000);
    }
    /// Applies a change and waits for its graph on screen, painted.
    template <typename F> void showAfter(F change) {
        change();
        settle();
        view->canvas().repaint();
    }
    int findGroup(HierarchyItem::Kind kind) {
        for (int item : view->graphModel().visible().items)
            if (view->graphModel().hierarchy().item(item).kind == kind) return item;
        return -1;
    }
};

bool ready(benchmark::State& state) {
    if (trace().empty()) state.SkipWithError("cannot compile samples/gemm_4096.pto");
    return !trace().empty();
}

void BM_FirstPaintedGraph(benchmark::State& state) {
    if (!ready(state)) return;
    for (auto _ : state) {
        fs::remove(layoutCachePath(trace())); // cold layout cache
        const auto start = Clock::now();
        Session s;
        s.view->canvas().repaint();
        state.SetIterationTime(since(start));
        state.counters["nodes"] = double(s.view->graphModel().stage().nodes.size());
        state.counters["items"] = double(s.view->canvas().itemCount());
    }
}
BENCHMARK(BM_FirstPaintedGraph)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

/// Expands group `kind` (after expanding its ancestors) with a warm cache; collapses between.
void expandWarm(benchmark::State& state, HierarchyItem::Kind kind) {
    if (!ready(state)) return;
    Session s;
    auto& model = s.view->graphModel();
    s.showAfter([&] { model.setExpanded(s.findGroup(HierarchyItem::Kind::TensorOp), true); });
    if (kind == HierarchyItem::Kind::Range)
        s.showAfter([&] { model.setExpanded(s.findGroup(HierarchyItem::Kind::Block), true); });
    const int group = s.findGroup(kind);
    const auto cold = Clock::now();
    s.showAfter([&] { model.setExpanded(group, true); }); // warms the cache (or reads it)
    state.counters["first_s"] = since(cold);
    s.showAfter([&] { model.setExpanded(group, false); });
    double modelS = 0, paintMs = 0;
    for (auto _ : state) {
        const auto start = Clock::now();
        s.showAfter([&] {
            model.setExpanded(group, true); // the visible graph, the job submitted
            modelS += since(start);
        });
        state.SetIterationTime(since(start));
        paintMs += s.view->canvas().lastFrameMs();
        state.PauseTiming();
        state.counters["items"] = double(model.visible().items.size());
        s.showAfter([&] { model.setExpanded(group, false); });
        state.ResumeTiming();
    }
    state.counters["model_ms"] = 1000 * modelS / double(state.iterations());
    state.counters["paint_ms"] = paintMs / double(state.iterations());
}
void BM_ExpandBlockWarm(benchmark::State& state) {
    expandWarm(state, HierarchyItem::Kind::Block);
}
void BM_ExpandRangeWarm(benchmark::State& state) {
    expandWarm(state, HierarchyItem::Kind::Range);
}
BENCHMARK(BM_ExpandBlockWarm)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_ExpandRangeWarm)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_FrameZoomedOutWholeGraph(benchmark::State& state) {
    if (!ready(state)) return;
    Session s;
    const auto start = Clock::now();
    s.showAfter([&] { s.view->graphModel().expandAll(); });
    state.counters["expand_all_s"] = since(start);
    auto& canvas = s.view->canvas();
    canvas.fitAll();
    for (auto _ : state) {
        canvas.repaint();
        state.SetIterationTime(canvas.lastFrameMs() / 1000);
    }
    state.counters["items"] = double(canvas.itemCount());
    state.counters["edges"] = double(s.view->graphModel().visible().edges.size());
}
BENCHMARK(BM_FrameZoomedOutWholeGraph)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);

void BM_FrameZoomedInWholeGraph(benchmark::State& state) {
    if (!ready(state)) return;
    Session s;
    s.showAfter([&] { s.view->graphModel().expandAll(); });
    auto& canvas = s.view->canvas();
    canvas.centerOn(int(canvas.itemCount() / 2)); // node labels readable
    for (auto _ : state) {
        canvas.repaint();
        state.SetIterationTime(canvas.lastFrameMs() / 1000);
    }
}
BENCHMARK(BM_FrameZoomedInWholeGraph)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);

/// Plain Graphviz on the whole stage as `pto export --format dot` writes it.
void BM_PlainDotWholeStage(benchmark::State& state) {
    if (!ready(state)) return;
    const char* limit = std::getenv("PTO_GUI_GRAPH_DOT_TIMEOUT");
    const int timeout = limit ? std::atoi(limit) : 600;
    const fs::path dot = fs::temp_directory_path() / "pto-bench-gui-graph-tile.dot";
    const std::string export_ = std::string(PTO_CLI) + " export " + trace().string() +
                                " --format dot --stage tile -o " + dot.string();
    if (std::system(export_.c_str()) != 0) return state.SkipWithError("pto export failed");
    for (auto _ : state) {
        const auto start = Clock::now();
        const std::string command =
            "timeout " + std::to_string(timeout) + " dot -Tsvg -o /dev/null " + dot.string();
        const int status = std::system(command.c_str());
        state.SetIterationTime(since(start));
        state.counters["timed_out"] = WEXITSTATUS(status) == 124 ? 1 : 0;
        state.counters["timeout_s"] = timeout;
    }
}
BENCHMARK(BM_PlainDotWholeStage)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);

} // namespace
