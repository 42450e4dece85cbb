// The compiler's entry points: load a .pto file and lower it through every pass.
#pragma once

#include "compiler/CompileState.h"
#include "compiler/PassManager.h"
#include "compiler/StageRecorder.h"
#include "compiler/ir/BindScalars.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace pto {

namespace tracedb {
class TraceWriter;
}

// Reads and parses a program and selects its entry function (@main, else the last one). A
// `.pto` file at Tensor level starts the lowering at the top; one written at Tile level starts
// at the Tile passes; a `.ptoasm` PTO listing is complete already (state.kind == Pto).
// Throws CompileError (with file:line:col) for unreadable files and malformed programs.
// `binds` give the entry's index arguments their numbers (`--bind t=37`): the entry is
// specialised as it is loaded, so every stage sees the numbers (compiler/ir/BindScalars.h);
// an index argument left unbound is an error. A Tile-level program's loops are unrolled as it
// is loaded, after `budget` admitted the ops that makes (checkUnrollBudget; BudgetError).
CompileState loadProgram(const std::string& path, const std::string& entry = {},
                         std::span<const ScalarBind> binds = {}, const ResourceBudget& budget = {});
// The text of a .pto program or .ptoasm listing. Only a regular file is read (a directory,
// FIFO, socket or device such as /dev/zero is refused before a byte is read, without blocking:
// base/RegularFile.h, the rule of .npy inputs), and at most kMaxSourceBytes or
// budget.maxMemoryBytes, whichever is less. Throws CompileError naming the path.
inline constexpr int64_t kMaxSourceBytes = int64_t(256) << 20; // 256 MiB
std::string readProgramFile(const std::string& path, const ResourceBudget& budget = {});
// loadProgram of `path`'s text already in memory: a `.ptoasm` name is a listing (refusing
// `binds`), anything else .pto text.
CompileState loadProgramSource(const std::string& text, const std::string& path,
                               const std::string& entry = {},
                               std::span<const ScalarBind> binds = {},
                               const ResourceBudget& budget = {});
// .pto text already in memory.
CompileState loadProgramText(const std::string& text, const std::string& file,
                             const std::string& entry = {}, std::span<const ScalarBind> binds = {},
                             const ResourceBudget& budget = {});

// Selects the entry function of a module already built (e.g. by the C++ builder API).
CompileState loadModule(Module module, const std::string& entry = {},
                        std::span<const ScalarBind> binds = {}, const ResourceBudget& budget = {});

// Parses a PTO listing (hand-written kernels and tasks) into a state at the PTO level.
CompileState loadPtoListing(const std::string& text, const std::string& file);
bool isPtoListingPath(const std::string& path);

struct ProgramInput {
    std::string name;
    Type type;
};
// The inputs a program takes: the entry's arguments, or a PTO listing's GM inputs.
std::vector<ProgramInput> programInputs(const CompileState& state);

// Runs the whole lowering, Tensor level to PTO instructions, in order; passes that start below
// the level the state is at are skipped. Returns false if the pass manager's stop-after point
// ended it early.
bool lowerToPto(PassManager& pm);

// A compile's recording handed back still running (its writer thread inserting the last
// stages' rows): the trace writer is the recording's until finish() returned or it is gone.
// pto run simulates meanwhile (docs/PERFORMANCE.md, issue 17).
using PendingRecording = std::unique_ptr<StageRecorder>;

// The whole compile as the tools run it: a pass manager over `state` with the given options,
// `observers` attached, and — with `trace` — the program meta and every stage recorded into
// it within `limits` (the caller commits the writer). With `pending`, a successful compile
// leaves its recording running there instead of waiting for it. Returns the time of every
// pass that ran.
std::vector<PassTiming> compileProgram(CompileState& state, const CompileOptions& options,
                                       tracedb::TraceWriter* trace = nullptr,
                                       const PassManagerOptions& pmOptions = {},
                                       std::span<StageObserver* const> observers = {},
                                       const RecordLimits& limits = {},
                                       PendingRecording* pending = nullptr);

// The FLOPs of the compiled program's Tensor ops (countFlops), every iteration of a loop lowered
// through a window counted (state.tensor holds the window's iterations only); of a PTO listing,
// which has no Tensor program, its executed instructions' (countFlops of the PtoProgram).
double programFlops(const CompileState& state);

} // namespace pto
