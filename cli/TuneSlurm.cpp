// `pto tune --slurm`: writes a job-array script, submits it with sbatch, merges the chunk files
// (cli/TuneSlurm.h). Slurm schedules; this file only writes the script and reads the results.
#include "cli/TuneSlurm.h"

#include "base/ShellQuote.h"

#include "cli/Command.h"

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
    if (jobId.empty() || jobId.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument(
            fmt::format("--slurm: sbatch refused the job (exit {}): {}", status, output));
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

tracedb::TuneData mergeChunkDir(const std::string& dir, const std::string& out) {
    const std::map<int, fs::path> files = chunkFiles(dir);
    if (files.empty())
        throw std::invalid_argument(fmt::format("--merge: '{}' holds no chunk-I.db files", dir));
    std::vector<fs::path> inputs;
    const tracedb::TuneCandidate* best = nullptr;
    std::vector<tracedb::TuneData> chunks;
    chunks.reserve(files.size());
    fs::path bestTrace, bestProgram;
    for (const auto& [index, file] : files) {
        inputs.push_back(file);
        chunks.push_back(tracedb::readTuneFile(file));
        const tracedb::TuneData& data = chunks.back();
        const std::string expected = fmt::format("{}/", index);
        const std::string chunk = data.metaOr("chunk");
        if (!chunk.starts_with(expected))
            throw std::invalid_argument(
                fmt::format("--merge: {} says it is chunk '{}'", file.string(), chunk));
        const int total = std::stoi(chunk.substr(expected.size()));
        if (int(files.size()) != total)
            throw std::invalid_argument(fmt::format(
                "--merge: {} holds {} of the {} chunks (a task failed? see {}/chunk-*.log)", dir,
                files.size(), total, dir));
        const tracedb::TuneCandidate* b = data.best();
        if (b && (!best || *b->cycles < *best->cycles ||
                  (*b->cycles == *best->cycles && b->id < best->id))) {
            best = b;
            bestTrace = file.parent_path() / data.metaOr("best_trace");
            bestProgram = file.parent_path() / data.metaOr("best_program");
        }
    }
    std::map<std::string, std::string> extra;
    std::error_code error;
    const std::string stem = stemOf(out);
    if (best && fs::is_regular_file(bestTrace, error)) {
        fs::copy_file(bestTrace, stem + ".best.db", fs::copy_options::overwrite_existing);
        extra["best_trace"] = fs::path(stem + ".best.db").filename().string();
        if (fs::is_regular_file(bestProgram, error)) {
            fs::copy_file(bestProgram, stem + ".best.pto", fs::copy_options::overwrite_existing);
            extra["best_program"] = fs::path(stem + ".best.pto").filename().string();
        }
    }
    tracedb::TuneData merged = tracedb::mergeTuneFiles(inputs, out, extra);
    merged.meta["slurm_dir"] = dir;
    return merged;
}

} // namespace pto::cli
