// `pto compile`: lower a .pto program through every pass and record each stage in a trace file.
#include "cli/Command.h"

#include "cli/TraceValue.h"

#include "compiler/Pipeline.h"
#include "compiler/ir/PtoSyncCheck.h"
#include "driver/RecordLevel.h"
#include "driver/Session.h"
#include "profiler/CompileNotes.h"
#include "trace_db/TraceWriter.h"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <stdexcept>

namespace pto::cli {
namespace {

struct CompileArgs {
    std::string input;
    std::string output;
    std::string entry;
    std::string record = "all";
    std::string stopAfter;
    std::vector<std::string> printAfter;
    bool printAfterAll = false;
    bool noDoubleBuffer = false;
    bool noFuse = false;
    bool noReroll = false;
    bool verifyEach = false;
    ReplicationArgs replication; // --no-cluster-probe, --share-kernels
    bool timePasses = false;
    bool checkSync = false;
    int tilesPerTask = 0;
    FaultSpec fault; // debug: --fault
    ResourceBudget budget;
    std::vector<ScalarBind> binds;
    std::string traceValue; // --trace-value %x
};

// "1 kernel", "7 kernels".
std::string counted(std::size_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

void printSummary(const CompileState& s, const std::vector<PassTiming>& timings,
                  const CompileArgs& args, int tileShrink) {
    double total = 0;
    for (const PassTiming& t : timings) total += t.micros;
    fmt::print("compiled {} (@{}){}\n", args.input, s.tensor.name,
               args.output.empty() ? "" : fmt::format(" -> {}", args.output));
    // The levels the program went through: a Tile-level program has no Tensor level, a listing
    // only the PTO level.
    const StageKind written = isPtoListingPath(args.input)    ? StageKind::Pto
                              : s.tensor.level == Level::Tile ? StageKind::Tile
                                                              : StageKind::Tensor;
    if (written == StageKind::Tensor)
        fmt::print("  tensor  {}\n", counted(s.tensor.ops().size(), "op", "ops"));
    if (s.kind >= StageKind::Tile && written <= StageKind::Tile)
        fmt::print("  tile    {}\n", counted(s.tileFunction().ops().size(), "op", "ops"));
    if (s.kind >= StageKind::Block && written < StageKind::Pto) {
        size_t buffers = 0;
        for (const BlockFunction& b : s.block.blocks) buffers += b.buffers.size();
        fmt::print("  block   {}, {}\n",
                   counted(s.block.blocks.size(), "block function", "block functions"),
                   counted(buffers, "buffer", "buffers"));
    }
    if (s.kind >= StageKind::Exec && written < StageKind::Pto)
        fmt::print("  exec    {}, {}{}\n", counted(s.exec.tasks.size(), "task", "tasks"),
                   counted(s.exec.deps.size(), "dependency", "dependencies"),
                   s.clusters && !s.clusters->later.empty()
                       ? fmt::format(" (the probe's {} clusters)", s.clusters->probeClusters)
                       : "");
    if (s.kind >= StageKind::Pto) {
        size_t instrs = 0;
        for (const Kernel& k : s.pto.kernels) instrs += k.instrs.size();
        fmt::print("  pto     {} (listing) in {}\n", counted(instrs, "instruction", "instructions"),
                   counted(s.pto.kernels.size(), "kernel", "kernels"));
    }
    if (s.kind >= StageKind::Tile && tileShrink > 0)
        fmt::print("  note    {}\n", tileShrinkNote(tileShrink));
    if (!s.windowNote.empty()) fmt::print("  window  {}\n", s.windowNote);
    if (!s.clusterNote.empty()) fmt::print("  clusters  {}\n", s.clusterNote);
    if (!s.shareNote.empty()) fmt::print("  shared  {}\n", s.shareNote);
    if (s.kind >= StageKind::Block)
        for (const std::string& note : prof::groupedNotes(s.block.notes))
            fmt::print("  note    {}\n", note);
    fmt::print("  passes  {} in {:.1f} ms\n", timings.size(), total / 1000.0);
    if (args.timePasses)
        for (const PassTiming& t : timings)
            fmt::print("    {:<22} {:>10.3f} ms\n", t.pass, t.micros / 1000.0);
}

// --check-sync: the static sync check of the PTO program (compiler/ir/PtoSyncCheck.h).
int checkSync(const CompileState& s, const CompileArgs& args) {
    if (s.kind != StageKind::Pto)
        throw std::invalid_argument("--check-sync needs the PTO program: the compile stopped at "
                                    "the " +
                                    std::string(stageKindName(s.kind)) + " level");
    const auto start = std::chrono::steady_clock::now();
    const std::optional<SyncProblem> problem = checkPtoSync(s.pto, args.input);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (problem) {
        fmt::print(stderr, "{}: sync check failed: {}\n", args.input, problem->message);
        return kExitFindings;
    }
    fmt::print("  sync    every on-chip hazard of the {} kernel{} is ordered by flags or "
               "barriers ({:.1f} ms)\n",
               s.pto.kernels.size(), s.pto.kernels.size() == 1 ? "" : "s", ms);
    return kExitOk;
}

int runCompile(const CompileArgs& args) {
    setActivity(fmt::format("compiling {}", args.input));
    CompileState state = loadProgram(args.input, args.entry, args.binds, args.budget);
    CompileOptions options;
    options.budget = args.budget;
    options.doubleBuffer = !args.noDoubleBuffer;
    options.fuse = !args.noFuse;
    options.rerollLoops = !args.noReroll;
    if (args.verifyEach) options.verify = VerifyStages::EachPass;
    applyReplicationOptions(args.replication, options);
    options.tilesPerTask = args.tilesPerTask;
    options.fault = args.fault;
    PassManagerOptions pmOptions;
    pmOptions.printAfterAll = args.printAfterAll;
    pmOptions.printAfter = args.printAfter;
    pmOptions.printStream = &std::cout;
    pmOptions.stopAfter = args.stopAfter;

    std::optional<tracedb::TraceWriter> writer;
    if (!args.output.empty()) writer.emplace(tracedb::TraceWriter::create(args.output));
    std::optional<ValueTracer> tracer;
    std::vector<StageObserver*> observers;
    if (!args.traceValue.empty()) observers.push_back(&tracer.emplace(args.traceValue));
    auto record = parseRecordLevel(args.record);
    if (!record)
        throw std::invalid_argument(
            fmt::format("unknown record level '{}' ({})", args.record, kRecordLevelNames));
    auto timings = compileWithTileFallback(state, options, writer, *record, pmOptions, observers);
    if (writer) {
        if (state.kind >= StageKind::Block) recordCompileNotes(*writer, state.block.notes);
        writer->commit();
    }
    if (tracer)
        std::cout << tracer->report(args.input);
    else
        printSummary(state, timings, args, options.target.tileShrink);
    const int code = args.checkSync ? checkSync(state, args) : kExitOk;
    keepUntilExit(std::move(state));
    return code;
}

} // namespace

void registerCompile(CLI::App& app, Action& action) {
    auto args = std::make_shared<CompileArgs>();
    CLI::App* cmd = app.add_subcommand("compile", "Lower a .pto program to PTO instructions and "
                                                  "record every stage in a trace file");
    cmd->add_option("file", args->input, "the .pto program")->required();
    cmd->add_option("-o,--output", args->output, "trace file to write (SQLite)");
    cmd->add_option("--entry", args->entry, "function to compile (default @main or the last)");
    cmd->add_option("--record", args->record,
                    "stages in the trace: all (the default: every pass's stage, so pto-studio "
                    "shows each pass's IR, graph and diff), levels (the last stage of each level "
                    "in full, the other passes as stage rows), final (only the parsed program "
                    "and the last Tile, Block, Exec and PTO stages), none (the program meta "
                    "only)");
    cmd->add_option("--stop-after", args->stopAfter,
                    "stop after this pass or level (tensor, tile, block, exec, pto)");
    cmd->add_option("--print-after", args->printAfter, "print the IR after this pass");
    cmd->add_flag("--print-after-all", args->printAfterAll, "print the IR after every pass");
    cmd->add_flag("--no-double-buffer", args->noDoubleBuffer,
                  "allocate one buffer per role instead of two");
    cmd->add_flag("--no-fuse", args->noFuse,
                  "no fused cube-vector clusters (fuse-cube-vector does nothing)");
    cmd->add_flag(
        "--no-reroll", args->noReroll,
        "keep unrolled loop iterations written out in the PTO kernels (no counted loops)");
    cmd->add_flag("--verify-each", args->verifyEach,
                  "run the level's verifier after every pass, not only after each level's last "
                  "(names the pass that broke an invariant)");
    addReplicationOptions(cmd, args->replication);
    addFaultOption(cmd, args->fault, kFaultHelp);
    addBindOption(cmd, args->binds);
    cmd->add_option("--tiles-per-task", args->tilesPerTask,
                    "tile chains per task (default: spread over all cores)")
        ->check(nonNegativeInteger());
    cmd->add_flag("--time-passes", args->timePasses, "print the time of every pass");
    cmd->add_flag("--check-sync", args->checkSync,
                  "prove statically that flags and barriers order every two instructions of a "
                  "kernel on different pipes touching the same on-chip bytes (exit 1 naming the "
                  "first unordered pair otherwise)");
    cmd->add_option("--trace-value", args->traceValue,
                    "list the passes that changed the ops derived from this value (%x), with "
                    "their IR before and after; passes that left them unchanged are hidden");
    addBudgetOptions(cmd, args->budget);
    cmd->callback([args, &action] { action = [args] { return runCompile(*args); }; });
}

} // namespace pto::cli
