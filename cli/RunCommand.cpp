// `pto run`: compile and simulate a .pto program, write outputs and the trace, print timing.
#include "cli/Command.h"

#include "base/JsonText.h"
#include "cli/Progress.h"
#include "driver/Session.h"
#include "driver/ValueDump.h"
#include "profiler/CompileNotes.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace pto::cli {
namespace {

struct RunArgs {
    RunOptions options;
    std::string traceLevel = "instructions";
    std::string record = "all";
    bool noDoubleBuffer = false;
    bool noFuse = false;
    bool noReroll = false;
    bool verifyEach = false;
    ReplicationArgs replication; // --no-cluster-probe, --share-kernels
    bool json = false;
    std::string dump;       // --dump DIR
    bool dumpTiles = false; // --dump-tiles
};

nlohmann::json summaryJson(const RunResult& r) {
    double secs = r.seconds();
    nlohmann::json j = {{"program", r.state.file},
                        {"entry", r.state.tensor.name},
                        {"arch", r.arch.name()},
                        {"total_cycles", r.sim.totalCycles.count()},
                        {"seconds", secs},
                        {"instructions", r.sim.instructions},
                        {"tasks", r.sim.tasks.size()},
                        {"flops", r.flops},
                        {"gm_bytes", r.gmBytes},
                        {"tflops", secs > 0 ? r.flops / secs / 1e12 : 0.0},
                        {"gbps", secs > 0 ? double(r.gmBytes) / secs / 1e9 : 0.0}};
    for (const auto& w : r.sim.warnings) j["warnings"].push_back(w.message);
    if (r.tileShrink > 0) j["tile_shrink"] = r.tileShrink;
    for (const std::string& note : prof::groupedNotes(r.state.block.notes))
        j["notes"].push_back(note);
    if (!r.faultMessage.empty()) {
        j["fault"] = r.faultMessage;
        if (r.faultCycle >= 0) j["fault_cycle"] = r.faultCycle;
    }
    return j;
}

void printSummary(const RunResult& r, const RunArgs& args) {
    double secs = r.seconds();
    fmt::print("ran {} (@{}) on {}{}\n", r.state.file, r.state.tensor.name, r.arch.name(),
               args.options.tracePath.empty() ? "" : " -> " + args.options.tracePath);
    if (!r.faultMessage.empty()) {
        // The run stopped: its totals would read as zeros; the trace holds it up to the fault.
        fmt::print("  stopped      by a fault{} (below){}\n",
                   r.faultCycle >= 0 ? fmt::format(" at cycle {}", r.faultCycle) : "",
                   args.options.tracePath.empty() ? "" : "; the trace holds the run up to it");
        return;
    }
    fmt::print("  cycles       {}\n", r.sim.totalCycles.count());
    fmt::print("  time         {:.3f} us at {:.2f} GHz\n", secs * 1e6, r.arch.clockHz() / 1e9);
    fmt::print("  instructions {} executed in {} tasks\n", r.sim.instructions, r.sim.tasks.size());
    fmt::print("  compute      {:.3f} TFLOP/s ({:.3g} FLOP)\n",
               secs > 0 ? r.flops / secs / 1e12 : 0.0, r.flops);
    fmt::print("  bandwidth    {:.1f} GB/s ({} bytes to/from GM)\n",
               secs > 0 ? double(r.gmBytes) / secs / 1e9 : 0.0, r.gmBytes);
    for (const auto& w : r.sim.warnings) fmt::print("  warning: {}\n", w.message);
    if (r.tileShrink > 0) fmt::print("  note         {}\n", tileShrinkNote(r.tileShrink));
    for (const std::string& note : prof::groupedNotes(r.state.block.notes))
        fmt::print("  note         {}\n", note);
    if (!args.options.outputsDir.empty() && r.faultMessage.empty())
        fmt::print("  outputs      {} file(s) in {}\n", r.sim.outputs.size(),
                   args.options.outputsDir);
}

int runRun(RunArgs& args) {
    auto level = sim::parseTraceLevel(args.traceLevel);
    if (!level)
        throw std::invalid_argument(fmt::format(
            "unknown trace level '{}' (none, tasks, instructions, full)", args.traceLevel));
    args.options.sim.traceLevel = *level;
    auto record = parseRecordLevel(args.record);
    if (!record)
        throw std::invalid_argument(
            fmt::format("unknown record level '{}' ({})", args.record, kRecordLevelNames));
    args.options.record = *record;
    args.options.compile.doubleBuffer = !args.noDoubleBuffer;
    args.options.compile.fuse = !args.noFuse;
    args.options.compile.rerollLoops = !args.noReroll;
    if (args.verifyEach) args.options.compile.verify = VerifyStages::EachPass;
    applyReplicationOptions(args.replication, args.options.compile);
    if (!args.dump.empty() && args.options.sim.timingOnly)
        throw std::invalid_argument("--dump needs the numerics: drop --timing-only");
    if (args.dumpTiles && args.dump.empty())
        throw std::invalid_argument("--dump-tiles needs --dump DIR");

    if (!args.dump.empty()) checkOutputDirectory("--dump", args.dump); // before the run
    setActivity(fmt::format("running {}", args.options.program));
    ProgressBar progress("pto run");
    args.options.onPhase = [&progress](const std::string& phase, int index, int count) {
        progress.phase(fmt::format("{} ({}/{})", phase, index + 1, count), double(index) / count);
    };
    args.options.keepLowering = !args.dump.empty();          // --dump interprets the Tile stage
    args.options.compile.keepTileLevel = !args.dump.empty(); // as the Tile level left it
    // … on the run's inputs: every cluster's rows, not a probe's (ClusterProbe.h).
    if (!args.dump.empty()) args.options.compile.clusterProbe = false;
    RunResult r = runProgram(args.options);
    progress.done();
    if (!args.dump.empty() && r.faultMessage.empty()) dumpRunValues(r, {args.dump, args.dumpTiles});
    if (args.json)
        std::cout << jsonText(summaryJson(r), 2) << "\n";
    else
        printSummary(r, args);
    if (!r.faultMessage.empty()) {
        fmt::print(stderr, "{}\n", r.faultMessage);
        return kExitFindings;
    }
    keepUntilExit(std::move(r));
    return kExitOk;
}

} // namespace

void registerRun(CLI::App& app, Action& action) {
    auto args = std::make_shared<RunArgs>();
    RunOptions& o = args->options;
    CLI::App* cmd = app.add_subcommand(
        "run", "Compile and simulate a .pto program; write outputs and the trace file");
    cmd->add_option("file", o.program, "the .pto program")->required();
    cmd->add_option("-o,--output", o.tracePath, "trace file to write (compile stages + run)");
    cmd->add_option("--entry", o.entry, "function to run (default @main or the last)");
    auto* inputs = cmd->add_option("--inputs", o.inputFiles,
                                   "comma-separated .npy files, one per argument in order")
                       ->delimiter(',');
    cmd->add_option("--seed", o.seed,
                    "seed of the random inputs (default 1; argument i uses seed + i). Each "
                    "argument is drawn for the role its uses give it: a mask (added to scores "
                    "before a softmax, or named *mask*) 0 / -inf causal; a dequantisation scale "
                    "(multiplies an integer value, or named *scale*) [0.5, 1) / (127 K), K the "
                    "depth of the int8 matmul; a quantisation scale (divides what is cast to "
                    "i8) [1, 2) / 127; an operand of log/sqrt/rsqrt/reciprocal or a divisor "
                    "[0.5, 1); an i32 index of a gather or scatter_add (at Tile level: loaded "
                    "into the index tile of a gather or tscatter_add) [0, n - 1], n the rows it "
                    "indexes; anything else floats [-1, 1), i8 [-128, 127], i32 [-1000, 1000] "
                    "(docs/VALIDATE.md, Seeded inputs)")
        ->excludes(inputs);
    cmd->add_option("--outputs", o.outputsDir, "directory to write the outputs as .npy");
    cmd->add_option("--arch", o.archFile, "arch config file (default: embedded 910B-like)");
    addArchSetOption(cmd, o.archOverrides, "override an arch parameter: key=value or key=2x");
    cmd->add_flag("--timing-only", o.sim.timingOnly, "skip the numerics (for big shapes)");
    cmd->add_option("--trace", args->traceLevel, "trace level: none, tasks, instructions, full");
    cmd->add_option("--record", args->record,
                    "compile stages in the trace: all (the default: every pass's stage, so "
                    "pto-studio shows each pass's IR, graph and diff), levels (the last stage of "
                    "each level in full, the other passes as stage rows), final (only the parsed "
                    "program and the last Tile, Block, Exec and PTO stages), none (no stages and "
                    "no run)");
    cmd->add_flag("--check-uninitialized", o.sim.checkUninitialized,
                  "fault on reading on-chip memory no instruction wrote");
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
    addFaultOption(cmd, o.compile.fault, kFaultHelp);
    addBindOption(cmd, o.binds);
    cmd->add_option("--tiles-per-task", o.compile.tilesPerTask, "tile chains per task")
        ->check(nonNegativeInteger());
    cmd->add_option("--dump", args->dump,
                    "write every Tensor-level value as .npy plus manifest.json into this directory "
                    "(compare two with pto diff DIR_A DIR_B)");
    cmd->add_flag("--dump-tiles", args->dumpTiles, "with --dump: also every tile, under tiles/");
    cmd->add_flag("--json", args->json, "machine-readable summary");
    addBudgetOptions(cmd, o.compile.budget);
    cmd->callback([args, &action] { action = [args] { return runRun(*args); }; });
}

} // namespace pto::cli
