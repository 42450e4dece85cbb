// The whole run of a program as `pto run` does it — load the arch, compile, simulate, record
// everything into one trace file, write the outputs — shared by the CLI, tests and what-if.
#pragma once

#include "compiler/Pipeline.h"
#include "compiler/ir/TensorData.h"
#include "driver/RecordLevel.h"
#include "simulator/Simulator.h"
#include "simulator/arch/ArchConfig.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

struct RunOptions {
    std::string program; // .pto path
    // The program itself when not empty (what-if's re-run of a recorded program): `program`
    // then only names it in errors and in the trace, and no file is read.
    std::string programText;
    std::string entry;                      // function; default @main or the last
    std::vector<ScalarBind> binds;          // --bind: the entry's index arguments
    std::vector<std::string> inputFiles;    // .npy per argument, in order; empty = random
    uint64_t seed = 1;                      // for random inputs (argument i uses seed + i)
    std::string archFile;                   // empty = the embedded 910B-like default
    std::string archText;                   // its text, read earlier; empty = read archFile
    std::vector<std::string> archOverrides; // "hbm.bandwidth=2x", "clock.freq=1.5 GHz"
    CompileOptions compile;                 // its target is replaced by the arch's
    sim::SimOptions sim;
    std::string tracePath;                 // empty = no trace file
    RecordLevel record = RecordLevel::All; // the compile's stages in the trace (--record)
    std::string outputsDir;                // empty = outputs not written as .npy
    // Inputs and outputs up to this size are stored in the trace's tensor table.
    int64_t maxStoredTensorBytes = int64_t(64) << 20;
    // Keep the Tile and Block stages in RunResult::state (the Tile interpreter and --dump
    // read them); without, they are freed before the simulation, which needs only the PTO
    // program (a big program's stages are hundreds of MB).
    bool keepLowering = true;
    // Called as each phase starts ("compiling", "simulating", "writing the trace") with the
    // phase's index and the number of phases; may be empty.
    std::function<void(const std::string& phase, int index, int count)> onPhase;
};

struct RunResult {
    CompileState state;
    sim::ArchConfig arch;
    sim::SimResult sim;
    std::vector<TensorData> inputs; // a timing-only run's unstored inputs hold no bytes
    double flops = 0;    // useful arithmetic of the program (matmul 2·m·n·k, 1 per element op)
    int64_t gmBytes = 0; // bytes moved between GM and the cores
    std::string faultMessage; // a simulation fault; the trace up to it is still written
    int64_t faultCycle = -1;  // the simulated cycle of the fault, when known
    int tileShrink = 0;       // > 0: the default vec tiles were shrunk to fit (TargetInfo)
    double seconds() const { return double(sim.totalCycles.count()) / arch.clockHz(); }
};

// The arch from a file (or the default) with what-if overrides applied.
sim::ArchConfig loadArchConfig(const std::string& file, const std::vector<std::string>& overrides);
// As above from `file`'s text read earlier (`text` empty: read the file).
sim::ArchConfig loadArchConfig(const std::string& file, const std::string& text,
                               const std::vector<std::string>& overrides);

// The program's inputs: read from .npy files (checked against the inputs' types) or random.
// Their total size is checked against options.compile.budget (maxGmBytes), and every file's
// header against its input's type, before any tensor is made or read (BudgetError,
// std::invalid_argument, NpyError). An input above `materialiseUpTo` bytes is not made or read:
// it keeps its dtype and shape and no bytes (a timing-only run reads no data).
std::vector<TensorData> prepareInputs(const CompileState& state, const RunOptions& options,
                                      int64_t materialiseUpTo = INT64_MAX);
// The inputs' total size against budget.maxGmBytes (BudgetError naming the largest input).
void checkInputBudget(const CompileState& state, const ResourceBudget& budget);
// Before simulating state.pto: its instructions against the budget and, with numerics, its GM
// image and the run's host memory (BudgetError).
void checkRunBudget(const CompileState& state, const ResourceBudget& budget, bool numerics);

// Before anything is compiled or written: `dir` (given with `option`, "--outputs DIR") can be
// the directory a run writes into — it is one, or can be created under the nearest existing
// ancestor, which must be a writable directory. Throws std::invalid_argument naming both.
void checkOutputDirectory(std::string_view option, const std::filesystem::path& dir);
// checkOutputDirectory, then creates `dir` (and its parents).
void createOutputDirectory(std::string_view option, const std::filesystem::path& dir);

// Compiles and simulates; --outputs is checked first (checkOutputDirectory) and written before
// the trace is committed, so a failure to write it leaves no trace. Input errors throw
// (CompileError, ArchError, NpyError, std::invalid_argument); a fault of the simulated program is
// returned in faultMessage.
RunResult runProgram(const RunOptions& options);

// Writes the arch facts (arch_config JSON, arch_name) and the producer into trace meta.
void recordArchMeta(tracedb::TraceWriter& writer, const sim::ArchConfig& arch,
                    const std::string& producer);

// Writes the options the program was compiled with as meta 'compile_options', JSON
// {"tiles_per_task": N, "double_buffer": bool, "fault": "KIND:N" or null}, so a what-if can
// compile it the same way.
void recordCompileOptions(tracedb::TraceWriter& writer, const CompileOptions& options);
// The compiler's notes on the program (BlockProgram::notes) as meta `compile_notes`, when there
// are any (`pto report` prints them).
void recordCompileNotes(tracedb::TraceWriter& writer, const std::vector<std::string>& notes);
// Meta `binds` ("t=37 n=4", the run's --bind values) when there are any, so what-if re-runs the
// program with the same numbers.
void recordBinds(tracedb::TraceWriter& writer, std::span<const ScalarBind> binds);

// Stores a run's inputs and outputs in the trace's tensor table (role input/output, value id
// = the Tensor-level argument/result); the data of tensors over `maxBytes` is left out.
void storeRunTensors(tracedb::TraceWriter& writer, const CompileState& state,
                     std::span<const TensorData> inputs, const sim::SimResult& sim,
                     int64_t maxBytes = int64_t(64) << 20);

} // namespace pto
