// Generator of the simulator-shaped benchmark trace (see SimShapedTrace.h).
#include "bench/SimShapedTrace.h"

#include "trace_db/TraceWriter.h"

#include <span>
#include <string>
#include <vector>

namespace pto::bench {

using namespace pto::tracedb;

// Cores as the simulator lays them out, each pipe track streaming back-to-back instructions.
void writeSimShapedTrace(const std::filesystem::path& path, std::int64_t slices) {
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

std::filesystem::path simShapedTrace(std::int64_t slices) {
    auto path = std::filesystem::temp_directory_path() /
                ("pto-bench-export-" + std::to_string(slices) + ".db");
    if (!std::filesystem::exists(path)) writeSimShapedTrace(path, slices);
    return path;
}

} // namespace pto::bench
