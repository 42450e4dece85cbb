// pto-studio selection links on a big trace: the LinkResolver lookups every view makes when
// the selection changes, the IR line diff, and the stage-comparison node list.
// The trace is a `pto run samples/gemm_4096.pto` (230 401 tile nodes per Tile stage, 627 328
// instructions and slices), made once under the temp dir, or PTO_GUI_BENCH_TRACE.
#include "gui/model/LineDiff.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/StageCompareModel.h"
#include "trace_db/TraceReader.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

using namespace pto::gui;
namespace fs = std::filesystem;

const fs::path& bigTrace() {
    static const fs::path path = [] {
        if (const char* env = std::getenv("PTO_GUI_BENCH_TRACE")) return fs::path(env);
        const fs::path trace = fs::temp_directory_path() / "pto-bench-gui-gemm4096.db";
        if (!fs::exists(trace)) {
            const std::string command = std::string(PTO_CLI) + " run " + PTO_SOURCE_DIR +
                                        "/samples/gemm_4096.pto -o " + trace.string() +
                                        " > /dev/null";
            if (std::system(command.c_str()) != 0) return fs::path();
        }
        return trace;
    }();
    return path;
}

struct Fixture {
    pto::tracedb::TraceReader reader = pto::tracedb::TraceReader::open(bigTrace());
    std::int64_t tileStage = -1;
    std::int64_t matmul = -1;
    std::int64_t midSlice = -1;
    Fixture() {
        for (const auto& s : reader.stages())
            if (s.level == pto::tracedb::StageLevel::Tile) tileStage = s.id;
        for (const auto& n : reader.nodes(reader.stages().front().id))
            if (n.kind == "matmul") matmul = n.id;
        const auto r = reader.query("SELECT id FROM slice WHERE instr_id IS NOT NULL "
                                    "ORDER BY id LIMIT 1 OFFSET 300000");
        midSlice = std::get<std::int64_t>(r.rows.at(0).at(0));
    }
};

Fixture& fixture() {
    static Fixture f;
    return f;
}

bool ready(benchmark::State& state) {
    if (bigTrace().empty()) state.SkipWithError("cannot make the gemm_4096 trace");
    return !bigTrace().empty();
}

/// A slice picked on the timeline → its Tensor op, from a fresh resolver (builds the indexes).
void BM_SliceToTensorOpCold(benchmark::State& state) {
    if (!ready(state)) return;
    Fixture& f = fixture();
    for (auto _ : state) {
        LinkResolver links(f.reader);
        benchmark::DoNotOptimize(links.tensorOpOf(EntityRef::slice(f.midSlice)));
    }
}

/// The same with the indexes built: what every later click costs.
void BM_SliceToTensorOpWarm(benchmark::State& state) {
    if (!ready(state)) return;
    Fixture& f = fixture();
    LinkResolver links(f.reader);
    links.tensorOpOf(EntityRef::slice(f.midSlice));
    for (auto _ : state) benchmark::DoNotOptimize(links.tensorOpOf(EntityRef::slice(f.midSlice)));
}

/// Tensor op → its 230 k tiles of the last Tile stage, fresh resolver.
void BM_TensorOpToTilesCold(benchmark::State& state) {
    if (!ready(state)) return;
    Fixture& f = fixture();
    for (auto _ : state) {
        LinkResolver links(f.reader);
        benchmark::DoNotOptimize(links.nodesOf(f.matmul, f.tileStage).size());
    }
}

/// Tensor op → every slice it caused (627 k), through the slice(instr_id) index.
void BM_TensorOpToAllSlices(benchmark::State& state) {
    if (!ready(state)) return;
    Fixture& f = fixture();
    LinkResolver links(f.reader);
    links.instrsOf(f.matmul);
    for (auto _ : state) benchmark::DoNotOptimize(links.slicesOf(f.matmul).size());
}

/// The diff view's click: one tile op → its instructions → slices → time range.
void BM_TileOpToTimeRange(benchmark::State& state) {
    if (!ready(state)) return;
    Fixture& f = fixture();
    LinkResolver links(f.reader);
    const auto tile = links.tileOpOfInstr(links.instrOfSlice(f.midSlice));
    for (auto _ : state) {
        const auto instrs = links.instrsOfTileOp(tile.stageId, tile.id);
        benchmark::DoNotOptimize(links.timeRangeOf(links.slicesOfInstrs(instrs)));
    }
}

/// The lead's first version for comparison: one scan of every slice, filtered by a map.
void BM_AllSlicesByScan(benchmark::State& state) {
    if (!ready(state)) return;
    Fixture& f = fixture();
    LinkResolver links(f.reader);
    links.instrsOf(f.matmul);
    for (auto _ : state) {
        std::size_t n = 0;
        f.reader.query("SELECT id, instr_id FROM slice WHERE instr_id IS NOT NULL",
                       [&](auto, auto row) {
                           n += links.tensorOpOfInstr(std::get<std::int64_t>(row[1])) == f.matmul;
                           return true;
                       });
        benchmark::DoNotOptimize(n);
    }
}

/// The stage-comparison list of a 230 k-node Tile stage.
void BM_StageNodeListLoad(benchmark::State& state) {
    if (!ready(state)) return;
    Fixture& f = fixture();
    for (auto _ : state) {
        StageNodeListModel model;
        model.load(&f.reader, f.tileStage);
        benchmark::DoNotOptimize(model.rowCount());
    }
}

/// Line diff of a 200 k-line IR text against a copy with one line in `range(0)` changed
/// (400: 500 changes, exact; 100: 2000 changes, beyond the 2000-edit bound → approximate).
void BM_LineDiff200kLines(benchmark::State& state) {
    const int every = static_cast<int>(state.range(0));
    std::string before, after;
    for (int i = 0; i < 200'000; ++i) {
        const std::string line = "  %" + std::to_string(i) + " = tload %a {offset = [0, 0]}\n";
        before += line;
        after += i % every == every / 2 ? "  %" + std::to_string(i) + " = tload %a : L1\n" : line;
    }
    const auto a = splitLines(before), b = splitLines(after);
    bool approximate = false;
    for (auto _ : state) {
        const LineDiff diff = diffLines(a, b);
        approximate = diff.approximate;
        benchmark::DoNotOptimize(diff.addedCount());
    }
    state.counters["approximate"] = approximate;
}

} // namespace

BENCHMARK(BM_SliceToTensorOpCold)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_SliceToTensorOpWarm)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TensorOpToTilesCold)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TensorOpToAllSlices)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_AllSlicesByScan)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TileOpToTimeRange)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_StageNodeListLoad)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_LineDiff200kLines)->Arg(400)->Arg(100)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
