// `pto tune --slurm`: the sweep as a Slurm job array (sbatch), one task per chunk of the
// candidates, each writing its own tune file; `pto tune --merge DIR` joins them.
#pragma once

#include "driver/Tuner.h"
#include "trace_db/TuneDb.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace pto::cli {

struct SlurmOptions {
    std::string partition;
    int maxParallel = 0; ///< array tasks running at once (sbatch --array=…%N); 0 = no limit
    int chunks = 0;      ///< array tasks; 0 = one per candidate up to 64
    bool noWait = false; ///< print the job id and return instead of waiting and merging
};

void addSlurmOptions(CLI::App* cmd, bool& useSlurm, SlurmOptions& options);

/// Writes the job script into <out stem>.slurm/, submits it with `sbatch --parsable`
/// (`--wait` unless noWait), then merges the chunk files into `out` and returns the result;
/// nullopt with noWait (the job id and the merge command are printed). Throws
/// std::invalid_argument with a clear message when sbatch is not on PATH or refuses the job,
/// std::runtime_error when a task failed.
std::optional<tracedb::TuneData> runSlurmSweep(const SlurmOptions& slurm, const TuneSpace& space,
                                               const std::string& out, const TuneOptions& options,
                                               const std::string& bestTrace);

/// "tune.db" → "tune": the stem of the files kept beside a tune file.
std::string stemOf(const std::string& out);

/// Before a sweep or merge runs: throws TraceError unless `out` may be written as a tune file
/// and (with `keepsBest`) <stem>.best.db as a trace and <stem>.best.pto as a text file — each
/// absent, or a file of that kind — in a directory that exists.
void checkTuneOutputs(const std::string& out, bool keepsBest);

/// Before `--candidate N -o trace.db` runs: the trace and its program file may be written.
void checkRerunOutputs(const std::string& trace, const std::string& program);

/// Merges every chunk-I.db of `dir` into `out`, keeping the overall best candidate's trace as
/// <out stem>.best.db. Throws (TraceError, std::invalid_argument) before writing anything when
/// a chunk is missing (named by its index), of another split of the candidates, or of another
/// sweep, or when an output may not be written.
tracedb::TuneData mergeChunkDir(const std::string& dir, const std::string& out);

} // namespace pto::cli
