// `pto tune --slurm`: writes a job-array script, submits it with sbatch, merges the chunk files
// (cli/TuneSlurm.h). Slurm schedules; this file only writes the script and reads the results.
#include "cli/TuneSlurm.h"

#include "base/ShellQuote.h"

#include "cli/Command.h"
#include "trace_db/ReplaceGuard.h"
#include "trace_db/TraceError.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <stdexcept>
#include <sys/wait.h>

namespace pto::cli {
namespace {

namespace fs = std::filesystem;

// The first `name` on PATH that is an executable file, or "".
std::string findOnPath(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    size_t begin = 0;
    while (begin <= dirs.size()) {
        size_t end = dirs.find(':', begin);
        if (end == std::string::npos) end = dirs.size();
        const fs::path candidate = fs::path(dirs.substr(begin, end - begin)) / name;
        std::error_code error;
        if (end > begin && fs::is_regular_file(candidate, error) &&
            access(candidate.c_str(), X_OK) == 0)
            return candidate.string();
        begin = end + 1;
    }
    return {};
}

// Runs a shell command, returning its exit status and standard output.
std::pair<int, std::string> capture(const std::string& command) {
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error(fmt::format("cannot run '{}'", command));
    std::string output;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, output};
}

// The `pto tune` line one array task runs.
std::string taskCommand(int chunks, const TuneOptions& o, const std::string& bestTrace) {
    std::string cmd = fmt::format(
        "exec {} tune {} --space \"$DIR/space.spec\" --chunk \"$SLURM_ARRAY_TASK_ID/{}\" "
        "-o \"$DIR/chunk-$SLURM_ARRAY_TASK_ID.db\" --best-trace {}",
        shellQuote(fs::read_symlink("/proc/self/exe").string()),
        shellQuote(fs::absolute(o.program).string()), chunks, shellQuote(bestTrace));
    if (!o.entry.empty()) cmd += " --entry " + shellQuote(o.entry);
    for (const ScalarBind& b : o.binds)
        cmd += " --bind " + shellQuote(fmt::format("{}={}", b.name, b.value));
    if (!o.archFile.empty()) cmd += " --arch " + shellQuote(fs::absolute(o.archFile).string());
    for (const std::string& s : o.archOverrides) cmd += " --set " + shellQuote(s);
    if (!o.prune) cmd += " --no-prune";
    if (o.threads > 0) cmd += fmt::format(" --threads {}", o.threads);
    return cmd;
}

std::string jobScript(const SlurmOptions& slurm, const std::string& dir, int chunks,
                      const TuneOptions& o, const std::string& bestTrace) {
    std::string s =
        "#!/bin/sh\n# pto tune as a Slurm job array: one task per chunk of candidates\n";
    s += "#SBATCH --job-name=pto-tune\n";
    s += fmt::format("#SBATCH --array=0-{}{}\n", chunks - 1,
                     slurm.maxParallel > 0 ? fmt::format("%{}", slurm.maxParallel) : "");
    s += fmt::format("#SBATCH --output={}/chunk-%a.log\n", dir);
    if (!slurm.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", slurm.partition);
    if (o.threads > 0) s += fmt::format("#SBATCH --cpus-per-task={}\n", o.threads);
    s += fmt::format("DIR={}\n", shellQuote(dir));
    s += taskCommand(chunks, o, bestTrace) + "\n";
    return s;
}

void writeText(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", path.string()));
}

// chunk-I.db files of `dir` by I (the kept best traces, chunk-I.best.db, are not chunks).
std::map<int, fs::path> chunkFiles(const std::string& dir) {
    static const std::regex pattern(R"(chunk-(\d+)\.db)");
    std::map<int, fs::path> files;
    std::error_code error;
    if (!fs::is_directory(dir, error))
        throw std::invalid_argument(fmt::format("--merge: '{}' is not a directory", dir));
    for (const auto& entry : fs::directory_iterator(dir)) {
        std::smatch m;
        const std::string name = entry.path().filename().string();
        if (std::regex_match(name, m, pattern)) files[std::stoi(m[1])] = entry.path();
    }
    return files;
}

} // namespace

std::string stemOf(const std::string& out) {
    return out.size() > 3 && out.ends_with(".db") ? out.substr(0, out.size() - 3) : out;
}

void addSlurmOptions(CLI::App* cmd, bool& useSlurm, SlurmOptions& options) {
    auto* slurm = cmd->add_flag("--slurm", useSlurm,
                                "run the sweep as a Slurm job array (sbatch), then merge");
    cmd->add_option("--partition", options.partition, "Slurm partition")->needs(slurm);
    cmd->add_option("--max-parallel", options.maxParallel,
                    "array tasks running at once (sbatch --array=…%N)")
        ->check(positiveInteger())
        ->needs(slurm);
    cmd->add_option("--chunks", options.chunks,
                    "array tasks (default: one per candidate, at most 64)")
        ->check(positiveInteger())
        ->needs(slurm);
    cmd->add_flag("--no-wait", options.noWait,
                  "print the job id and return (merge later with --merge)")
        ->needs(slurm);
}

std::optional<tracedb::TuneData> runSlurmSweep(const SlurmOptions& slurm, const TuneSpace& space,
                                               const std::string& out, const TuneOptions& options,
                                               const std::string& bestTrace) {
    const std::string sbatch = findOnPath("sbatch");
    if (sbatch.empty())
        throw std::invalid_argument(
            "--slurm: 'sbatch' is not on PATH, so Slurm is not installed or not set up here "
            "(Debian: apt-get install slurm-client, and a slurm.conf naming the controller); run "
            "without --slurm to tune on this machine's threads");
    const std::string dir = fs::absolute(stemOf(out) + ".slurm").lexically_normal().string();
    std::error_code error;
    const bool made = !fs::exists(dir, error);
    fs::create_directories(dir);
    for (const auto& [index, file] : chunkFiles(dir)) fs::remove(file); // an earlier sweep's
    const int count = int(space.candidateCount());
    const int chunks = std::min(count, slurm.chunks > 0 ? slurm.chunks : 64);
    writeText(fs::path(dir) / "space.spec", space.text);
    const fs::path script = fs::path(dir) / "tune.sbatch";
    writeText(script, jobScript(slurm, dir, chunks, options, bestTrace));

    const auto [status, output] =
        capture(fmt::format("{} --parsable{} {} 2>&1", shellQuote(sbatch),
                            slurm.noWait ? "" : " --wait", shellQuote(script.string())));
    const std::string jobId = output.substr(0, output.find_first_of(";\n"));
    if (jobId.empty() || jobId.find_first_not_of("0123456789") != std::string::npos) {
        // Nothing was submitted: no file is left behind (docs/USER_GUIDE.md).
        if (made) {
            fs::remove_all(dir, error);
        } else {
            fs::remove(script, error);
            fs::remove(fs::path(dir) / "space.spec", error);
        }
        throw std::invalid_argument(
            fmt::format("--slurm: sbatch refused the job (exit {}): {}", status, output));
    }
    if (slurm.noWait) {
        fmt::print("submitted Slurm job array {} ({} tasks, {} candidates; script {})\n"
                   "when it has finished: pto tune --merge {} -o {}\n",
                   jobId, chunks, count, script.string(), dir, out);
        return std::nullopt;
    }
    if (status != 0)
        fmt::print(stderr, "warning: Slurm job {} ended with exit {} (logs: {}/chunk-*.log)\n",
                   jobId, status, dir);
    return mergeChunkDir(dir, out);
}

namespace {

// A text output (a candidate's program) may replace a regular file only.
void requireTextOutput(const fs::path& path) {
    std::error_code error;
    if (fs::exists(path, error) && !fs::is_regular_file(path, error))
        throw tracedb::TraceError(fmt::format("'{}' exists and is not a regular file: it is not "
                                              "replaced; remove it or give another output path",
                                              path.string()));
}

void requireOutputDirectory(const fs::path& path) {
    std::error_code error;
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    if (!fs::is_directory(dir, error))
        throw tracedb::TraceError(fmt::format("cannot write '{}': the directory '{}' does not "
                                              "exist",
                                              path.string(), dir.string()));
}

struct ChunkId {
    int index = 0;
    int count = 0;
};

// "I/N" of a chunk file's meta; throws naming the file when it is not that file's chunk.
ChunkId chunkIdOf(const fs::path& file, int index, const tracedb::TuneData& data) {
    const std::string chunk = data.metaOr("chunk");
    ChunkId id;
    char slash = 0;
    if (std::sscanf(chunk.c_str(), "%d%c%d", &id.index, &slash, &id.count) != 3 || slash != '/' ||
        id.index != index || id.count < 1)
        throw std::invalid_argument(
            fmt::format("--merge: {} says it is chunk '{}'", file.string(), chunk));
    return id;
}

// The split most chunk files share (on a tie, that of the lowest index).
int splitOf(const std::map<int, ChunkId>& ids) {
    std::map<int, int> votes;
    for (const auto& [index, id] : ids) ++votes[id.count];
    int best = ids.begin()->second.count;
    for (const auto& [count, n] : votes)
        if (n > votes[best]) best = count;
    return best;
}

// Every chunk 0 … N-1 of one split is there, and no chunk of another split.
void checkChunkSet(const std::string& dir, const std::map<int, fs::path>& files,
                   const std::map<int, ChunkId>& ids) {
    const int split = splitOf(ids);
    std::vector<std::string> ours;
    for (const auto& [index, id] : ids)
        if (id.count == split) ours.push_back(fmt::format("{}/{}", index, split));
    for (const auto& [index, id] : ids)
        if (id.count != split)
            throw std::invalid_argument(fmt::format(
                "--merge: {} is chunk {}/{}, of another split of the candidates than the others "
                "({}): remove it, or merge the directory of its own sweep",
                files.at(index).string(), id.index, id.count, fmt::join(ours, ", ")));
    std::vector<int> missing;
    for (int i = 0; i < split; ++i)
        if (!ids.count(i)) missing.push_back(i);
    if (missing.empty()) return;
    std::vector<std::string> names;
    for (int i : missing) names.push_back(fmt::format("chunk-{}.db", i));
    throw std::invalid_argument(fmt::format(
        "--merge: {} {} of {} {} missing in {} ({}; a task failed? see its chunk-I.log)",
        missing.size() == 1 ? "chunk" : "chunks", fmt::join(missing, ", "), split,
        missing.size() == 1 ? "is" : "are", dir, fmt::join(names, ", ")));
}

// Chunks of one sweep only: the same program, options and space as the first.
void checkSameSweep(const std::vector<fs::path>& inputs,
                    const std::vector<tracedb::TuneData>& chunks) {
    for (size_t i = 1; i < chunks.size(); ++i)
        for (const char* key : {"program_hash", "space"})
            if (chunks[i].metaOr(key) != chunks[0].metaOr(key))
                throw tracedb::TraceError(fmt::format(
                    "cannot merge '{}': its {} differs from that of '{}' (another sweep)",
                    inputs[i].string(), key, inputs[0].string()));
}

// The chunk holding the best candidate of all (fewest cycles, then lowest id), or -1.
int bestChunk(const std::vector<tracedb::TuneData>& chunks) {
    int at = -1;
    const tracedb::TuneCandidate* best = nullptr;
    for (size_t i = 0; i < chunks.size(); ++i) {
        const tracedb::TuneCandidate* b = chunks[i].best();
        if (b && (!best || *b->cycles < *best->cycles ||
                  (*b->cycles == *best->cycles && b->id < best->id))) {
            best = b;
            at = int(i);
        }
    }
    return at;
}

// Copies the best chunk's kept trace and program beside `out`; the meta naming them.
std::map<std::string, std::string>
copyBest(const fs::path& chunkFile, const tracedb::TuneData& chunk, const std::string& out) {
    const std::string stem = stemOf(out);
    std::map<std::string, std::string> extra;
    std::error_code error;
    const fs::path trace = chunkFile.parent_path() / chunk.metaOr("best_trace");
    const fs::path program = chunkFile.parent_path() / chunk.metaOr("best_program");
    if (chunk.metaOr("best_trace").empty() || !fs::is_regular_file(trace, error)) return extra;
    fs::copy_file(trace, stem + ".best.db", fs::copy_options::overwrite_existing);
    extra["best_trace"] = fs::path(stem + ".best.db").filename().string();
    if (!chunk.metaOr("best_program").empty() && fs::is_regular_file(program, error)) {
        fs::copy_file(program, stem + ".best.pto", fs::copy_options::overwrite_existing);
        extra["best_program"] = fs::path(stem + ".best.pto").filename().string();
    } else if (const tracedb::TuneCandidate* best = chunk.best()) {
        fmt::print(stderr,
                   "warning: --merge: {} is not there, so {}.best.pto is not written (pto tune "
                   "{} --candidate {} -o best.db writes the best program again)\n",
                   program.string(), stem, out, best->id);
    }
    return extra;
}

} // namespace

void checkTuneOutputs(const std::string& out, bool keepsBest) {
    requireOutputDirectory(out);
    tracedb::requireReplaceable(out, "tune file", "tune_meta");
    if (!keepsBest) return;
    const std::string stem = stemOf(out);
    tracedb::requireReplaceable(stem + ".best.db", "trace file", "meta");
    requireTextOutput(stem + ".best.pto");
}

void checkRerunOutputs(const std::string& trace, const std::string& program) {
    requireOutputDirectory(trace);
    tracedb::requireReplaceable(trace, "trace file", "meta");
    requireTextOutput(program);
}

tracedb::TuneData mergeChunkDir(const std::string& dir, const std::string& out) {
    const std::map<int, fs::path> files = chunkFiles(dir);
    if (files.empty())
        throw std::invalid_argument(fmt::format("--merge: '{}' holds no chunk-I.db files", dir));
    std::vector<fs::path> inputs;
    std::vector<tracedb::TuneData> chunks;
    std::map<int, ChunkId> ids;
    for (const auto& [index, file] : files) {
        inputs.push_back(file);
        chunks.push_back(tracedb::readTuneFile(file));
        ids[index] = chunkIdOf(file, index, chunks.back());
    }
    checkChunkSet(dir, files, ids);
    checkSameSweep(inputs, chunks);
    const int best = bestChunk(chunks);
    checkTuneOutputs(out, best >= 0);
    const std::string stem = stemOf(out);
    std::map<std::string, std::string> extra;
    if (best >= 0) extra = copyBest(inputs[size_t(best)], chunks[size_t(best)], out);
    tracedb::TuneData merged;
    try {
        merged = tracedb::mergeTuneFiles(inputs, out, extra);
    } catch (const std::exception&) { // nothing of a failed merge is left behind
        std::error_code error;
        if (extra.count("best_trace")) fs::remove(stem + ".best.db", error);
        if (extra.count("best_program")) fs::remove(stem + ".best.pto", error);
        throw;
    }
    merged.meta["slurm_dir"] = dir;
    return merged;
}

} // namespace pto::cli
