// `pto tune`: compiles and simulates (timing only) every candidate of a search space on local
// threads, prunes by an analytic lower bound, and gathers the results as a tune file's rows.
#pragma once

// The simulator is deterministic — the same program, options and arch give the same cycles on
// every run — so each candidate is simulated once (no repeats, no medians). A candidate that
// does not compile is a row with status compile_error and the compiler's message; one whose
// simulation faults is sim_error. Before simulating, a candidate's lower bound is computed from
// its compiled instructions (driver/TuneBound.h); when it exceeds the best cycles found so far
// the candidate is skipped (status pruned, counted). Which candidates are pruned depends on
// the order results arrive, the best never is.

#include "compiler/CompileState.h"
#include "compiler/ir/BindScalars.h"
#include "driver/TuneSpace.h"
#include "simulator/engine/SimOptions.h"
#include "trace_db/TuneDb.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct TuneOptions {
    std::string program; ///< .pto path
    std::string entry;
    std::vector<ScalarBind> binds;
    std::string archFile; ///< read once; its text is kept in the tune file (meta arch_text)
    std::vector<std::string> archOverrides; ///< applied to every candidate, before its own
    CompileOptions compile;                 ///< base options (budget, fuse, …)
    int threads = 0;                        ///< 0 = the hardware's threads
    bool prune = true;
    /// Run only chunk `first` of `second` (contiguous ranges of candidate ids): a Slurm task.
    std::optional<std::pair<int, int>> chunk;
    /// Called after each candidate with the number done and the number to do.
    std::function<void(size_t done, size_t total)> onProgress;
};

/// Runs the sweep; the returned data holds every candidate of the chunk (or the space) in id
/// order and the meta of the sweep (program, program_text, program_hash, space, entry, binds,
/// arch, threads, elapsed_s, …). Throws for input errors (CompileError when the program as
/// written cannot even be parsed, TuneSpaceError, ArchError).
tracedb::TuneData runTune(const TuneSpace& space, const TuneOptions& options);

/// One candidate as a program file and run options: the options of the sweep stored in
/// `data`'s meta with candidate `id`'s settings applied. Writes the candidate's program text
/// to `programPath` and the full trace of its run (timing only, at `level`) to `tracePath`.
/// Returns the simulated cycles.
int64_t runTuneCandidate(const tracedb::TuneData& data, int64_t id, const std::string& programPath,
                         const std::string& tracePath, sim::TraceLevel level);

/// The program text of candidate `id` of a tune file: the program as written with the
/// candidate's directives (driver/TuneApply.h).
std::string tuneCandidateText(const tracedb::TuneData& data, int64_t id);

/// What `pto tune --apply` prints and `<out>.best.pto` holds: tuneCandidateText and, when the
/// candidate needs run options the text cannot hold, a last line
/// `// tuned candidate #N also needs: pto run FILE <flags>` (last, so every line of the program
/// keeps its number).
std::string tuneCandidateProgram(const tracedb::TuneData& data, int64_t id);

/// "" unless the sweep's arch file now differs from the text the tune file keeps (or is gone):
/// then a sentence saying so, for the `--arch` of tuneCandidateFlags.
std::string tuneArchWarning(const tracedb::TuneData& data);

/// The `pto run` options candidate `id` ran with that its program text does not hold
/// (`--no-double-buffer --tiles-per-task 2 --set 'hbm.bandwidth=2x'`, the sweep's --bind,
/// --arch …); "" when the text alone reproduces it.
std::string tuneCandidateFlags(const tracedb::TuneData& data, int64_t id);

} // namespace pto
