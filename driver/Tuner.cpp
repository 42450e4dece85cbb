// The sweep of `pto tune`: one compile + timing-only simulation per candidate, on local
// threads, pruned by the analytic lower bound (driver/Tuner.h).
#include "driver/Tuner.h"

#include "base/ShellQuote.h"

#include "compiler/Pipeline.h"
#include "compiler/ir/Cost.h"
#include "compiler/ir/Diagnostics.h"
#include "driver/RecordLevel.h"
#include "driver/Session.h"
#include "driver/TuneApply.h"
#include "driver/TuneBound.h"
#include "profiler/ArchPeaks.h"
#include "profiler/analyses/Bound.h"
#include "simulator/Simulator.h"
#include "simulator/arch/ArchConfig.h"
#include "simulator/numerics/SimFault.h"
#include "trace_db/TraceWriter.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace pto {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The arch file's text ("" without one), read once: the sweep and its re-runs use it.
std::string readArchText(const std::string& path) {
    return path.empty() ? std::string() : sim::readArchText(path);
}

std::string absolutePath(const std::string& path) {
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(path, error);
    return error ? path : absolute.lexically_normal().string();
}

// FNV-1a of the program and its sweep options: chunks of one sweep share it.
std::string fingerprint(const std::string& text) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    return fmt::format("{:016x}", h);
}

// The largest on-chip footprint of one block function: per space the end of its highest
// buffer, summed over the spaces.
int64_t onchipFootprint(const BlockProgram& block) {
    int64_t most = 0;
    for (const BlockFunction& f : block.blocks) {
        std::map<MemSpace, int64_t> top;
        for (const Buffer& b : f.buffers) top[b.space] = std::max(top[b.space], b.addr + b.size);
        int64_t sum = 0;
        for (const auto& [space, end] : top) sum += end;
        most = std::max(most, sum);
    }
    return most;
}

int64_t gmTraffic(const sim::SimResult& s) {
    using sim::DmaPath;
    return s.bytes(DmaPath::GmToUb) + s.bytes(DmaPath::GmToL1) + s.bytes(DmaPath::UbToGm) +
           s.bytes(DmaPath::L1ToGm) + s.bytes(DmaPath::L0cToGm);
}

// Per-pipe busy time, cores used and the run's bound class (the profiler's rule, on the
// simulator's totals instead of a trace).
void fillRunStats(tracedb::TuneCandidate& row, const sim::SimResult& r, const sim::ArchConfig& arch,
                  double flops) {
    const prof::ArchPeaks peaks = prof::parseArchPeaks(sim::archJson(arch));
    std::array<int64_t, kPipeCount> busy{};
    std::array<prof::CoreTypeBusy, 2> byType{}; // AIV, AIC; the profiler's pipe order
    int64_t active = 0, used = 0;
    prof::RooflinePoint point;
    for (const sim::CoreStats& c : r.cores) {
        if (c.tasks == 0) continue;
        ++used;
        active += c.taskTime.count();
        const bool cube = c.type == CoreType::AIC;
        byType[cube].active += c.taskTime.count();
        for (size_t p = 0; p < kPipeCount; ++p) {
            busy[p] += c.busy[p].count();
            const auto id = prof::parsePipeId(pipeName(Pipe(p)));
            if (id) byType[cube].busy[size_t(*id)] += c.busy[p].count();
        }
        point.computeRoof += cube ? peaks.cubeFlopsPerCycle : peaks.vectorFlopsPerCycle;
        point.bandwidth += cube ? peaks.gmToL1Rate : peaks.gmToUbRate;
    }
    point.bandwidth = std::min(point.bandwidth, peaks.gmBytesPerCycle);
    point.flops = flops;
    point.bytes = gmTraffic(r);
    point.cycles = r.totalCycles.count();
    point.cores = double(used);
    prof::completeRooflinePoint(point);
    std::array<double, kPipeCount> ratios{};
    for (size_t p = 0; p < kPipeCount; ++p) {
        ratios[p] = active > 0 ? double(busy[p]) / double(active) : 0;
        if (busy[p] > 0) row.pipes.push_back({std::string(pipeName(Pipe(p))), busy[p], ratios[p]});
    }
    row.boundClass = prof::classifyRunTotals(point, byType[1], byType[0]).label();
    row.coresUsed = used;
    row.cycles = r.totalCycles.count();
    row.instructions = r.instructions;
    row.tasks = int64_t(r.tasks.size());
    row.gmBytes = point.bytes;
    row.flops = flops;
}

// Everything a candidate needs besides its settings, shared read-only by the workers.
struct SweepContext {
    const TuneSpace& space;
    const TuneOptions& options;
    std::string source;
    std::string archText; // the arch file's, read once (kept in the tune file)
    std::atomic<int64_t> best{INT64_MAX};
};

void lowerBest(std::atomic<int64_t>& best, int64_t cycles) {
    int64_t seen = best.load();
    while (cycles < seen && !best.compare_exchange_weak(seen, cycles)) {
    }
}

// Compiles and (unless pruned) simulates candidate `id`.
tracedb::TuneCandidate evaluate(SweepContext& ctx, int64_t id) {
    const json config = ctx.space.candidate(size_t(id));
    tracedb::TuneCandidate row;
    row.id = id;
    row.label = candidateLabel(config);
    row.config = config.dump();
    const TuneOptions& o = ctx.options;
    const auto compileStart = Clock::now();
    CompileState state;
    sim::ArchConfig arch;
    try {
        CompileOptions compile = o.compile;
        std::vector<std::string> overrides = o.archOverrides;
        applyRunSettings(config, compile, overrides);
        arch = loadArchConfig(o.archFile, ctx.archText, overrides);
        compile.target = sim::toTargetInfo(arch);
        const std::string text = applyTileSettings(ctx.source, o.program, o.entry, config);
        state = loadProgramText(text, o.program, o.entry, o.binds, compile.budget);
        // As `pto run` compiles it: default tiles that do not fit are retried smaller.
        std::optional<tracedb::TraceWriter> noTrace;
        compileWithTileFallback(state, compile, noTrace, RecordLevel::None);
        checkRunBudget(state, compile.budget, false);
        row.onchipBytes = onchipFootprint(state.block);
        row.lowerBound = cycleLowerBound(state.pto, arch);
    } catch (const std::exception& e) {
        row.status = tracedb::TuneStatus::CompileError;
        row.error = e.what();
        row.compileMs = msSince(compileStart);
        return row;
    }
    row.compileMs = msSince(compileStart);
    const int64_t best = ctx.best.load();
    if (o.prune && id != 0 && *row.lowerBound > best) {
        row.status = tracedb::TuneStatus::Pruned;
        row.error = fmt::format("lower bound {} cycles > best found {}", *row.lowerBound, best);
        return row;
    }
    const auto simStart = Clock::now();
    try {
        sim::SimOptions simOptions;
        simOptions.timingOnly = true;
        simOptions.traceLevel = sim::TraceLevel::None;
        simOptions.sourceFile = o.program;
        const sim::SimResult r = sim::simulate(state.pto, arch, {}, simOptions);
        fillRunStats(row, r, arch, programFlops(state)); // every iteration and cluster
        lowerBest(ctx.best, *row.cycles);
    } catch (const std::exception& e) {
        row.status = tracedb::TuneStatus::SimError;
        row.error = e.what();
    }
    row.simMs = msSince(simStart);
    return row;
}

// The candidate ids of the chunk (contiguous ranges; chunk 0 holds the program as written).
std::vector<int64_t> chunkIds(size_t count, const std::optional<std::pair<int, int>>& chunk) {
    size_t first = 0, last = count;
    if (chunk) {
        const auto [index, n] = *chunk;
        first = count * size_t(index) / size_t(n);
        last = count * size_t(index + 1) / size_t(n);
    }
    std::vector<int64_t> ids;
    for (size_t i = first; i < last; ++i) ids.push_back(int64_t(i));
    return ids;
}

std::string bindsText(const std::vector<ScalarBind>& binds) {
    std::string text;
    for (const ScalarBind& b : binds)
        text += fmt::format("{}{}={}", text.empty() ? "" : " ", b.name, b.value);
    return text;
}

std::map<std::string, std::string> sweepMeta(const SweepContext& ctx) {
    const TuneOptions& o = ctx.options;
    json base = {{"tiles_per_task", o.compile.tilesPerTask},
                 {"double_buffer", o.compile.doubleBuffer},
                 {"fuse", o.compile.fuse},
                 {"reroll_loops", o.compile.rerollLoops}};
    std::map<std::string, std::string> meta = {
        {"producer", "pto tune"},
        {"program", o.program},
        {"program_text", ctx.source},
        {"entry", o.entry},
        {"binds", bindsText(o.binds)},
        {"arch_file", o.archFile.empty() ? "" : absolutePath(o.archFile)},
        {"arch_text", ctx.archText},
        {"arch_overrides", json(o.archOverrides).dump()},
        {"compile_options", base.dump()},
        {"space", ctx.space.text},
        {"candidates", std::to_string(ctx.space.candidateCount())},
        {"prune", o.prune ? "1" : "0"},
        {"deterministic", "1"}};
    meta["program_hash"] = fingerprint(ctx.source + "\n" + meta["entry"] + "\n" + meta["binds"] +
                                       "\n" + meta["arch_text"] + "\n" + meta["arch_overrides"] +
                                       "\n" + meta["compile_options"]);
    if (o.chunk) meta["chunk"] = fmt::format("{}/{}", o.chunk->first, o.chunk->second);
    return meta;
}

std::vector<ScalarBind> parseBindsText(const std::string& text) {
    std::vector<ScalarBind> binds;
    std::istringstream in(text);
    std::string item;
    while (in >> item) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) continue;
        binds.push_back({item.substr(0, eq), std::stoll(item.substr(eq + 1))});
    }
    return binds;
}

const tracedb::TuneCandidate& candidateOf(const tracedb::TuneData& data, int64_t id) {
    for (const tracedb::TuneCandidate& c : data.candidates)
        if (c.id == id) return c;
    throw std::invalid_argument(fmt::format("the tune file has no candidate {}", id));
}

} // namespace

tracedb::TuneData runTune(const TuneSpace& space, const TuneOptions& options) {
    if (isPtoListingPath(options.program))
        throw std::invalid_argument(
            fmt::format("{}: a .ptoasm listing has no tiling to tune (give the .pto program)",
                        options.program));
    SweepContext ctx{space, options, readProgramFile(options.program, options.compile.budget),
                     readArchText(options.archFile)};
    loadProgramText(ctx.source, options.program, options.entry, options.binds,
                    options.compile.budget); // input errors
    std::vector<std::string> settings;
    for (const TuneDimension& d : space.dimensions) settings.push_back(d.setting);
    checkOpSettings(ctx.source, options.program, options.entry, settings);
    loadArchConfig(options.archFile, ctx.archText,
                   options.archOverrides); // ArchError before any thread

    const auto start = Clock::now();
    const std::vector<int64_t> ids = chunkIds(space.candidateCount(), options.chunk);
    std::vector<tracedb::TuneCandidate> rows(ids.size());
    std::atomic<size_t> next{0}, done{0};
    std::mutex progressMutex;
    auto worker = [&] {
        for (size_t i = next++; i < ids.size(); i = next++) {
            rows[i] = evaluate(ctx, ids[i]);
            const size_t finished = ++done;
            if (options.onProgress) {
                std::lock_guard lock(progressMutex);
                options.onProgress(finished, ids.size());
            }
        }
    };
    int threads = options.threads > 0 ? options.threads
                                      : int(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::min<int>(threads, int(std::max<size_t>(ids.size(), 1)));
    {
        std::vector<std::jthread> pool;
        for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
        worker();
    }
    tracedb::TuneData data;
    data.meta = sweepMeta(ctx);
    data.meta["threads"] = std::to_string(threads);
    data.meta["elapsed_s"] = fmt::format("{:.3f}", msSince(start) / 1000);
    data.candidates = std::move(rows);
    return data;
}

std::string tuneCandidateText(const tracedb::TuneData& data, int64_t id) {
    const json config = json::parse(candidateOf(data, id).config);
    return applyTileSettings(data.metaOr("program_text"), data.metaOr("program"),
                             data.metaOr("entry"), config);
}

std::string tuneCandidateProgram(const tracedb::TuneData& data, int64_t id) {
    std::string text = tuneCandidateText(data, id);
    const std::string flags = tuneCandidateFlags(data, id);
    if (flags.empty()) return text;
    if (!text.empty() && text.back() != '\n') text += '\n';
    return text + fmt::format("// tuned candidate #{} also needs: pto run FILE {}\n", id, flags);
}

std::string tuneArchWarning(const tracedb::TuneData& data) {
    const std::string file = data.metaOr("arch_file");
    if (file.empty() || !data.meta.count("arch_text")) return {};
    try {
        if (sim::readArchText(file) == data.metaOr("arch_text")) return {};
    } catch (const sim::ArchError&) { // gone, a directory or unreadable: not the swept arch
    }
    std::error_code error;
    return fmt::format("the arch file {} {} since the sweep: `--arch` runs another chip than the "
                       "candidates ran on (the tune file keeps the arch they ran on: pto tune "
                       "TUNE.db --candidate N -o trace.db re-runs with it)",
                       file, std::filesystem::exists(file, error) ? "has changed" : "is gone");
}

// The run options of candidate `id` besides its program text: the sweep's (meta) with the
// candidate's run settings (tiles_per_task, double_buffer, arch.*) applied.
RunOptions candidateRunOptions(const tracedb::TuneData& data, int64_t id) {
    RunOptions run;
    run.entry = data.metaOr("entry");
    run.binds = parseBindsText(data.metaOr("binds"));
    run.archFile = data.metaOr("arch_file");
    run.archText = data.metaOr("arch_text"); // "" in a tune file of before it was kept
    run.archOverrides =
        json::parse(data.metaOr("arch_overrides", "[]")).get<std::vector<std::string>>();
    const json base = json::parse(data.metaOr("compile_options", "{}"));
    run.compile.tilesPerTask = base.value("tiles_per_task", 0);
    run.compile.doubleBuffer = base.value("double_buffer", true);
    run.compile.fuse = base.value("fuse", true);
    run.compile.rerollLoops = base.value("reroll_loops", true);
    applyRunSettings(json::parse(candidateOf(data, id).config), run.compile, run.archOverrides);
    return run;
}

std::string tuneCandidateFlags(const tracedb::TuneData& data, int64_t id) {
    const RunOptions run = candidateRunOptions(data, id);
    std::string flags;
    auto add = [&](const std::string& flag) { flags += (flags.empty() ? "" : " ") + flag; };
    if (!run.entry.empty()) add("--entry " + run.entry);
    for (const ScalarBind& b : run.binds) add(fmt::format("--bind {}={}", b.name, b.value));
    if (run.compile.tilesPerTask > 0)
        add(fmt::format("--tiles-per-task {}", run.compile.tilesPerTask));
    if (!run.compile.doubleBuffer) add("--no-double-buffer");
    if (!run.compile.fuse) add("--no-fuse");
    if (!run.compile.rerollLoops) add("--no-reroll");
    if (!run.archFile.empty()) add("--arch " + shellQuote(run.archFile));
    for (const std::string& o : run.archOverrides) add("--set " + shellQuote(o));
    return flags;
}

int64_t runTuneCandidate(const tracedb::TuneData& data, int64_t id, const std::string& programPath,
                         const std::string& tracePath, sim::TraceLevel level) {
    {
        std::ofstream out(programPath, std::ios::binary | std::ios::trunc);
        out << tuneCandidateProgram(data, id);
        if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", programPath));
    }
    RunOptions run = candidateRunOptions(data, id);
    run.program = programPath;
    run.sim.timingOnly = true;
    run.sim.traceLevel = level;
    run.tracePath = tracePath;
    const RunResult r = runProgram(run);
    if (!r.faultMessage.empty()) throw std::runtime_error(r.faultMessage);
    return r.sim.totalCycles.count();
}

} // namespace pto
