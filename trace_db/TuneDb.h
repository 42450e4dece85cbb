// The tuning database `pto tune` writes (one SQLite file per sweep, or per chunk of a sweep):
// its schema, writer, reader and the merge of chunk files by ATTACH (docs/TRACE_SCHEMA.md,
// "Tuning database").
#pragma once

// A tune file is not a trace: it holds one row per candidate configuration of one program
// (its settings as JSON, its status, cycles, lower bound, bound class, per-pipe busy time)
// and a key/value table `tune_meta` (format = "pto-tune", tune_schema_version, the program,
// the space, the best candidate). Its schema has a version of its own (kTuneSchemaVersion),
// independent of the trace schema. Readers detect it by its tables (isTuneFile), so a viewer
// can open either kind of file through one "Open" action.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pto::tracedb {

inline constexpr int kTuneSchemaVersion = 1;
inline constexpr const char* kTuneFormat = "pto-tune";

/// What became of a candidate.
enum class TuneStatus { Ok, CompileError, SimError, Pruned };
const char* tuneStatusName(TuneStatus s); ///< "ok", "compile_error", "sim_error", "pruned"
std::optional<TuneStatus> parseTuneStatus(const std::string& name);

struct TunePipeBusy {
    std::string pipe;        ///< "MTE2", "M", …
    int64_t busyCycles = 0;  ///< summed over the cores of the run
    double busyFraction = 0; ///< busyCycles ÷ the cycles the cores spent in tasks
};

struct TuneCandidate {
    int64_t id = 0;     ///< position in the space's enumeration (0 = the program as written)
    std::string label;  ///< short: "cube_tile=[64,64],[64,256],[128,128] tiles_per_task=2"
    std::string config; ///< JSON object of the settings (docs/USER_GUIDE.md, "Tuning")
    TuneStatus status = TuneStatus::Ok;
    std::string error;                 ///< why it failed or was pruned
    std::optional<int64_t> cycles;     ///< simulated run time (ok only)
    std::optional<int64_t> lowerBound; ///< analytic lower bound of the cycles (compiled ones)
    std::string boundClass;            ///< "memory", "compute", "latency (pipeline)", …
    std::optional<int64_t> tasks;
    std::optional<int64_t> coresUsed;
    std::optional<int64_t> instructions;
    std::optional<double> flops;
    std::optional<int64_t> gmBytes;
    std::optional<int64_t> onchipBytes; ///< largest on-chip footprint of one block function
    double compileMs = 0;
    double simMs = 0;
    std::vector<TunePipeBusy> pipes;
};

struct TuneData {
    std::map<std::string, std::string> meta;
    std::vector<TuneCandidate> candidates; ///< by id
    std::string metaOr(const std::string& key, const std::string& fallback = {}) const;
    /// The ok candidate with the fewest cycles (lowest id on a tie), or null.
    const TuneCandidate* best() const;
};

/// Writes `data` as a new tune file at `path` (atomically: the file appears whole or not at
/// all). `tune_schema_version` and `format` are set by the writer. Throws TraceError.
void writeTuneFile(const std::filesystem::path& path, const TuneData& data);

/// Reads a tune file; throws TraceError naming the file when it is missing, not SQLite, not a
/// tune file, of a newer tune schema or lacks a table or column of the schema.
TuneData readTuneFile(const std::filesystem::path& path);

/// True when `path` is an SQLite file with a `tune_meta` table whose format is "pto-tune".
/// Never throws.
bool isTuneFile(const std::filesystem::path& path);

/// Merges chunk files into one tune file at `out` by SQLite ATTACH: the candidates and their
/// pipes of every input, in id order. Meta comes from the first input (without `chunk`);
/// `best_candidate`, `best_cycles`, `pruned` and `candidates_done` are recomputed. Inputs of
/// another program or space than the first, a candidate id present twice, or a file that is
/// not a tune file are errors (TraceError naming the file). Returns the merged data.
/// `extraMeta` is added to the merged meta (the kept best trace's name).
TuneData mergeTuneFiles(const std::vector<std::filesystem::path>& inputs,
                        const std::filesystem::path& out,
                        const std::map<std::string, std::string>& extraMeta = {});

} // namespace pto::tracedb
