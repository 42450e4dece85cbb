// `pto tune`: sweep a program's tile shapes and options (locally or as a Slurm job array),
// merge chunk files, print or re-run a candidate of a tune file (docs/USER_GUIDE.md, "Tuning").
#include "cli/Command.h"

#include "base/JsonText.h"
#include "cli/Progress.h"
#include "cli/TuneSlurm.h"
#include "driver/Tuner.h"
#include "trace_db/TraceFile.h"
#include "trace_db/TuneDb.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <iostream>

namespace pto::cli {
namespace {

namespace fs = std::filesystem;
using tracedb::TuneCandidate;
using tracedb::TuneData;
using tracedb::TuneStatus;

struct TuneArgs {
    std::string input; // the .pto program, or a tune file
    std::string space;
    std::string output;
    TuneOptions options;
    std::string chunk;
    bool noPrune = false;
    std::string bestTrace = "full";
    bool apply = false;
    int64_t candidate = -1;
    std::string merge;
    bool json = false;
    SlurmOptions slurm;
    bool useSlurm = false;
};

std::pair<int, int> parseChunk(const std::string& text) {
    int index = -1, count = 0;
    char slash = 0;
    if (std::sscanf(text.c_str(), "%d%c%d", &index, &slash, &count) != 3 || slash != '/' ||
        count < 1 || index < 0 || index >= count)
        throw CLI::ValidationError("--chunk", fmt::format("'{}' is not I/N with 0 <= I < N", text));
    return {index, count};
}

sim::TraceLevel traceLevelOf(const std::string& name) {
    auto level = sim::parseTraceLevel(name);
    if (!level)
        throw std::invalid_argument(fmt::format(
            "unknown trace level '{}' for --best-trace (none, tasks, instructions, full)", name));
    return *level;
}

// A re-run whose cycles differ from the sweep's says so: the program, arch or pto changed.
void warnIfCyclesDiffer(const TuneCandidate& c, int64_t cycles) {
    if (c.cycles && *c.cycles != cycles)
        fmt::print(stderr,
                   "warning: candidate #{} took {} cycles in this run but {} in the sweep (was "
                   "the tune file's program, arch or pto changed since?)\n",
                   c.id, cycles, *c.cycles);
}

// Removes files a failed step wrote (never a directory).
void removeFiles(std::initializer_list<std::string> paths) {
    std::error_code error;
    for (const std::string& p : paths)
        if (fs::is_regular_file(p, error)) fs::remove(p, error);
}

// Re-runs the best candidate with a trace and names the kept files in the meta; a failure
// there is a warning, never the loss of the sweep.
void keepBestTrace(TuneData& data, const std::string& out, sim::TraceLevel level) {
    const TuneCandidate* best = data.best();
    if (!best || level == sim::TraceLevel::None) return;
    const std::string stem = stemOf(out);
    try {
        warnIfCyclesDiffer(
            *best, runTuneCandidate(data, best->id, stem + ".best.pto", stem + ".best.db", level));
    } catch (const std::exception& e) { // the sweep's results are kept all the same
        removeFiles({stem + ".best.pto", stem + ".best.db"});
        fmt::print(stderr, "warning: the best candidate's trace was not kept: {}\n", e.what());
        return;
    }
    data.meta["best_trace"] = fs::path(stem + ".best.db").filename().string();
    data.meta["best_program"] = fs::path(stem + ".best.pto").filename().string();
}

int countStatus(const TuneData& data, TuneStatus s) {
    return int(std::count_if(data.candidates.begin(), data.candidates.end(),
                             [s](const TuneCandidate& c) { return c.status == s; }));
}

const TuneCandidate* candidateById(const TuneData& data, int64_t id) {
    for (const TuneCandidate& c : data.candidates)
        if (c.id == id) return &c;
    return nullptr;
}

nlohmann::json candidateJson(const TuneCandidate& c) {
    nlohmann::json j = {{"id", c.id},
                        {"label", c.label},
                        {"config", nlohmann::json::parse(c.config)},
                        {"status", tracedb::tuneStatusName(c.status)}};
    if (c.cycles) j["cycles"] = *c.cycles;
    if (c.lowerBound) j["lower_bound"] = *c.lowerBound;
    if (!c.boundClass.empty()) j["bound_class"] = c.boundClass;
    if (c.coresUsed) j["cores_used"] = *c.coresUsed;
    if (c.onchipBytes) j["onchip_bytes"] = *c.onchipBytes;
    if (!c.error.empty()) j["error"] = c.error;
    return j;
}

void printJsonSummary(const TuneData& data) {
    nlohmann::json j = {{"program", data.metaOr("program")},
                        {"candidates", data.candidates.size()},
                        {"pruned", countStatus(data, TuneStatus::Pruned)},
                        {"compile_errors", countStatus(data, TuneStatus::CompileError)},
                        {"sim_errors", countStatus(data, TuneStatus::SimError)}};
    if (const TuneCandidate* c = candidateById(data, 0)) j["as_written"] = candidateJson(*c);
    if (const TuneCandidate* best = data.best()) j["best"] = candidateJson(*best);
    if (!data.metaOr("best_trace").empty()) j["best_trace"] = data.metaOr("best_trace");
    std::cout << jsonText(j, 2) << "\n";
}

// `tuneFile`: the tune file the summary is of (the best trace lies beside it).
void printSummary(const TuneData& data, const std::string& tuneFile) {
    fmt::print("tuned {}: {} candidates ({} simulated, {} pruned by the lower bound, {} did not "
               "compile, {} faulted){}\n",
               data.metaOr("program"), data.candidates.size(), countStatus(data, TuneStatus::Ok),
               countStatus(data, TuneStatus::Pruned), countStatus(data, TuneStatus::CompileError),
               countStatus(data, TuneStatus::SimError), tuneFile.empty() ? "" : " -> " + tuneFile);
    std::vector<const TuneCandidate*> ok;
    for (const TuneCandidate& c : data.candidates)
        if (c.status == TuneStatus::Ok) ok.push_back(&c);
    std::stable_sort(ok.begin(), ok.end(),
                     [](auto* a, auto* b) { return *a->cycles < *b->cycles; });
    const TuneCandidate* baseline = candidateById(data, 0);
    const bool baselineOk = baseline && baseline->cycles;
    if (baselineOk) fmt::print("  as written  #0  {} cycles\n", *baseline->cycles);
    if (!ok.empty())
        fmt::print("  best        #{}  {} cycles{}  {}\n", ok[0]->id, *ok[0]->cycles,
                   baselineOk ? fmt::format(" ({:.3f}x)",
                                            double(*baseline->cycles) / double(*ok[0]->cycles))
                              : "",
                   ok[0]->label);
    fmt::print("  {:>4} {:>5} {:>12} {:>6} {:>10}  {:<22} {}\n", "rank", "id", "cycles", "cores",
               "on-chip", "bound", "settings");
    for (size_t i = 0; i < ok.size() && i < 10; ++i)
        fmt::print("  {:>4} {:>5} {:>12} {:>6} {:>10}  {:<22} {}\n", i + 1, ok[i]->id,
                   *ok[i]->cycles, ok[i]->coresUsed.value_or(0), ok[i]->onchipBytes.value_or(0),
                   ok[i]->boundClass, ok[i]->label);
    // Why candidates failed, the first three of each kind (all are in the tune file and --json).
    int compileErrors = 0, faults = 0;
    for (const TuneCandidate& c : data.candidates) {
        const bool compile = c.status == TuneStatus::CompileError;
        if ((!compile && c.status != TuneStatus::SimError) ||
            (compile ? compileErrors : faults)++ >= 3)
            continue;
        fmt::print("  {} #{} ({}): {}\n", compile ? "did not compile" : "faulted", c.id, c.label,
                   c.error.substr(0, c.error.find('\n')));
    }
    if (!data.metaOr("best_trace").empty()) { // kept beside the tune file, by file name
        const fs::path dir = fs::path(tuneFile).parent_path();
        const std::string program = data.metaOr("best_program").empty()
                                        ? std::string() // a merge of chunks without it
                                        : (dir / data.metaOr("best_program")).string();
        fmt::print("  best trace  {} ({}open in pto-studio)\n",
                   (dir / data.metaOr("best_trace")).string(),
                   program.empty() ? "" : fmt::format("program {}; ", program));
        if (const TuneCandidate* best = data.best(); best && !program.empty())
            if (const std::string flags = tuneCandidateFlags(data, best->id); !flags.empty())
                fmt::print("  the best ran with options its text cannot hold: pto run {} {}\n",
                           program, flags);
    }
    fmt::print("  the simulator is deterministic: each candidate ran once\n");
}

// --apply: the candidate's program on stdout (its last line, a comment, names the run options
// the text cannot hold: double buffering, tiles per task, arch values), those options also on
// stderr, so the printed program alone never silently runs another candidate.
void printApplied(const TuneData& data, int64_t id) {
    const std::string flags = tuneCandidateFlags(data, id);
    if (!flags.empty())
        fmt::print(stderr,
                   "note: candidate #{} ran with options the program text cannot hold: "
                   "pto run FILE {} (the program's last line says so too)\n",
                   id, flags);
    if (const std::string drift = tuneArchWarning(data); !drift.empty())
        fmt::print(stderr, "warning: {}\n", drift);
    std::cout << tuneCandidateProgram(data, id);
}

int runSweep(TuneArgs& args) {
    if (args.space.empty())
        throw CLI::ValidationError("--space", "pto tune PROGRAM needs --space SPEC");
    const TuneSpace space = loadTuneSpace(args.space);
    TuneOptions& o = args.options;
    o.program = args.input;
    o.prune = !args.noPrune;
    if (!args.chunk.empty()) o.chunk = parseChunk(args.chunk);
    const sim::TraceLevel bestLevel = traceLevelOf(args.bestTrace);
    if (args.output.empty()) args.output = "tune.db";
    checkTuneOutputs(args.output, bestLevel != sim::TraceLevel::None); // before anything runs
    if (args.useSlurm) {
        auto merged = runSlurmSweep(args.slurm, space, args.output, o, args.bestTrace);
        if (!merged) return kExitOk; // --no-wait: the job id is printed
        if (args.json)
            printJsonSummary(*merged);
        else
            printSummary(*merged, args.output);
        return merged->best() ? kExitOk : kExitFindings;
    }
    setActivity(fmt::format("tuning {}", o.program));
    ProgressBar progress("pto tune");
    o.onProgress = [&progress](size_t done, size_t total) {
        progress.phase(fmt::format("candidate {}/{}", done, total), double(done) / double(total));
    };
    TuneData data = runTune(space, o);
    progress.done();
    keepBestTrace(data, args.output, bestLevel);
    try {
        tracedb::writeTuneFile(args.output, data);
    } catch (const std::exception&) { // nothing of a failed sweep is left behind
        if (!data.metaOr("best_trace").empty())
            removeFiles({stemOf(args.output) + ".best.pto", stemOf(args.output) + ".best.db"});
        throw;
    }
    if (args.apply) {
        if (const TuneCandidate* best = data.best()) {
            printApplied(data, best->id);
            return kExitOk;
        }
    } else if (args.json) {
        printJsonSummary(data);
    } else {
        printSummary(data, args.output);
    }
    return data.best() ? kExitOk : kExitFindings;
}

// `pto tune tune.db`: summary, --apply (the program text) or --candidate N -o trace.db.
int runOnTuneFile(TuneArgs& args) {
    TuneData data = tracedb::readTuneFile(args.input);
    int64_t id = args.candidate;
    if (id < 0) {
        const TuneCandidate* best = data.best();
        if (!best && (args.apply || !args.output.empty())) {
            fmt::print(stderr, "error: {} has no candidate that ran\n", args.input);
            return kExitUsage;
        }
        id = best ? best->id : 0;
    }
    if (!candidateById(data, id))
        throw CLI::ValidationError("--candidate",
                                   fmt::format("{} has no candidate {} (0 … {})", args.input, id,
                                               data.candidates.size() - 1));
    if (args.apply) {
        printApplied(data, id);
        return kExitOk;
    }
    if (!args.output.empty()) {
        const std::string stem = stemOf(args.output);
        const sim::TraceLevel level = traceLevelOf(args.bestTrace);
        checkRerunOutputs(args.output, stem + ".pto");
        int64_t cycles = 0;
        try {
            cycles = runTuneCandidate(data, id, stem + ".pto", args.output, level);
        } catch (const std::exception&) {
            removeFiles({stem + ".pto"});
            throw;
        }
        fmt::print("ran candidate #{} of {}: {} cycles -> {} (program {})\n", id, args.input,
                   cycles, args.output, stem + ".pto");
        warnIfCyclesDiffer(*candidateById(data, id), cycles);
        return kExitOk;
    }
    if (args.json)
        printJsonSummary(data);
    else
        printSummary(data, args.input);
    return kExitOk;
}

int runMerge(TuneArgs& args) {
    if (args.output.empty()) throw CLI::ValidationError("-o", "--merge DIR needs -o tune.db");
    TuneData merged = mergeChunkDir(args.merge, args.output);
    if (args.json)
        printJsonSummary(merged);
    else
        printSummary(merged, args.output);
    return merged.best() ? kExitOk : kExitFindings;
}

int runTuneCommand(TuneArgs& args) {
    if (!args.merge.empty()) return runMerge(args);
    if (args.input.empty())
        throw CLI::ValidationError("file", "give a .pto program (or a tune file, or --merge DIR)");
    if (tracedb::isTuneFile(args.input)) {
        if (!args.space.empty()) // a sweep needs the program: its text is in the file
            throw CLI::ValidationError(
                "--space", fmt::format("{} is a tune file: it is summarised, applied or re-run, "
                                       "not swept again; give the .pto program to sweep a space",
                                       args.input));
        return runOnTuneFile(args);
    }
    if (tracedb::isSqliteFile(args.input))
        throw CLI::ValidationError(
            "file", fmt::format("{} is an SQLite file but no tune file (a trace?): pto tune takes "
                                "a .pto program or a tune file",
                                args.input));
    return runSweep(args);
}

} // namespace

void registerTune(CLI::App& app, Action& action) {
    auto args = std::make_shared<TuneArgs>();
    TuneOptions& o = args->options;
    CLI::App* cmd = app.add_subcommand(
        "tune", "Search tile shapes and options of a program: compile and simulate every "
                "candidate (timing only), keep the results in a tune file");
    cmd->add_option("file", args->input,
                    "the .pto program to tune, or a tune file to summarise, --apply or re-run");
    cmd->add_option("--space", args->space,
                    "the search space: a file (text or JSON) or inline text such as "
                    "'tiles_per_task = 1 | 2 | 4' (docs/USER_GUIDE.md, Tuning)");
    cmd->add_option("-o,--output", args->output,
                    "tune file to write (default tune.db); with a tune file as input and "
                    "--candidate: the trace of that candidate's re-run");
    cmd->add_option("--threads", o.threads, "local threads (default: all the host has)")
        ->check(nonNegativeInteger());
    cmd->add_flag("--no-prune", args->noPrune,
                  "simulate every candidate (no skipping by the analytic lower bound)");
    cmd->add_option("--best-trace", args->bestTrace,
                    "trace level of the best candidate's kept trace <out>.best.db (none, tasks, "
                    "instructions, full; default full)");
    cmd->add_flag("--apply", args->apply,
                  "print the program with the winning directives (the best, or --candidate)");
    cmd->add_option("--candidate", args->candidate, "a candidate id of the tune file")
        ->check(nonNegativeInteger());
    cmd->add_option("--merge", args->merge,
                    "merge the chunk files of a Slurm sweep in DIR into -o (SQLite ATTACH)");
    cmd->add_option("--entry", o.entry, "function to tune (default @main or the last)");
    cmd->add_option("--arch", o.archFile, "arch config file (default: embedded 910B-like)");
    addArchSetOption(cmd, o.archOverrides,
                     "override an arch parameter for every candidate: key=value or key=2x");
    addBindOption(cmd, o.binds);
    addBudgetOptions(cmd, o.compile.budget);
    cmd->add_flag("--json", args->json, "machine-readable summary");
    cmd->add_option("--chunk", args->chunk, "run chunk I/N of the candidates (a Slurm task)")
        ->group(""); // hidden: written by --slurm into the job script
    addSlurmOptions(cmd, args->useSlurm, args->slurm);
    cmd->callback([args, &action] { action = [args] { return runTuneCommand(*args); }; });
}

} // namespace pto::cli
