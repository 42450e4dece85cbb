// `pto diff`: two tensors, a run's outputs against goldens, or a whole compile bisected stage by
// stage (validate/); exit 0 pass, 1 mismatch, 2 usage or input error.
#include "cli/Command.h"

#include "base/JsonText.h"
#include "compiler/ir/ShapeInference.h"
#include "driver/Bisect.h"
#include "validate/DumpDiff.h"
#include "validate/GoldenDiff.h"
#include "validate/TensorCompare.h"
#include "validate/TensorFile.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pto::cli {
namespace {

struct DiffArgs {
    std::vector<std::string> files;
    std::string golden;
    std::string bisect;
    std::vector<std::string> inputs;
    std::optional<uint64_t> seed;
    FaultSpec fault;
    std::vector<ScalarBind> binds;
    std::string output;
    std::optional<double> rtol;
    std::optional<double> atol;
    std::string standard = "allclose";
    bool json = false;
    bool noStore = false;
    bool noDiagnosis = false;
    std::string tile;            // RxC: a uniform tiling for two-file diagnosis
    std::string reductionLength; // two files: the golden is a K-term reduction (text: checked)
    ResourceBudget budget;       // --bisect
    CLI::App* cmd = nullptr;     // which flags were given (CLI::App::count)
};

enum class Mode : uint8_t { TwoFiles, Trees, Golden, Bisect };

std::string_view modeName(Mode m) {
    switch (m) {
    case Mode::TwoFiles:
        return "two .npy files";
    case Mode::Trees:
        return "two dump trees";
    case Mode::Golden:
        return "RUN.db --golden DIR";
    case Mode::Bisect:
        return "--bisect";
    }
    return "?";
}

/// A flag that only one mode reads, and what that mode is called in the usage error.
struct ModeFlag {
    const char* name;
    Mode mode;
    const char* usage; // "pto diff --bisect FILE.pto"
};

constexpr const char* kBisectUsage = "pto diff --bisect FILE.pto";
constexpr ModeFlag kModeFlags[] = {
    {"--inputs", Mode::Bisect, kBisectUsage},
    {"--seed", Mode::Bisect, kBisectUsage},
    {"--bind", Mode::Bisect, kBisectUsage},
    {"--fault", Mode::Bisect, kBisectUsage},
    {"--output", Mode::Bisect, kBisectUsage},
    {"--max-tile-ops", Mode::Bisect, kBisectUsage},
    {"--max-instrs", Mode::Bisect, kBisectUsage},
    {"--max-gm", Mode::Bisect, kBisectUsage},
    {"--max-memory", Mode::Bisect, kBisectUsage},
    {"--no-store", Mode::Golden, "pto diff RUN.db --golden DIR"},
    {"--tile", Mode::TwoFiles, "pto diff A.npy B.npy"},
    {"--reduction-length", Mode::TwoFiles, "pto diff A.npy B.npy"},
};

/// A flag of another mode is a usage error (before, it was silently ignored: `--fault` on two
/// files ran a plain comparison, `-o` wrote nothing); so is an empty --rtol / --atol.
void checkFlagsOf(Mode mode, const DiffArgs& a) {
    for (const ModeFlag& f : kModeFlags)
        if (f.mode != mode && a.cmd->count(f.name) > 0)
            throw std::invalid_argument(
                fmt::format("{} belongs to `{}`; it does nothing when comparing {}",
                            std::string_view(f.name) == "--output" ? "-o/--output" : f.name,
                            f.usage, modeName(mode)));
    for (const auto& [flag, value] : {std::pair{"--rtol", &a.rtol}, std::pair{"--atol", &a.atol}})
        if (a.cmd->count(flag) > 0 && !*value)
            throw std::invalid_argument(fmt::format("{} '': must be a finite number >= 0", flag));
}

// --reduction-length as typed: a number beyond int64 is refused as written (CLI11 would clamp
// it to INT64_MAX), then the range every K is held to.
int64_t parseReductionLength(const std::string& text) {
    int64_t k = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
    if (ec != std::errc() || end != text.data() + text.size())
        throw std::invalid_argument(
            fmt::format("--reduction-length {}: not an integer from 1 to {}", text, kMaxElements));
    checkReductionLength(k, "--reduction-length");
    return k;
}

ComparePolicy policyOf(const DiffArgs& a) {
    ComparePolicy p;
    p.overrides = {a.rtol, a.atol};
    checkOverrides(p.overrides);
    auto s = parseStandard(a.standard);
    if (!s)
        throw std::invalid_argument(
            fmt::format("unknown --standard '{}' (allclose, ascend or msprobe)", a.standard));
    p.standard = *s;
    if (!a.reductionLength.empty()) {
        p.cls = ToleranceClass::Accumulation;
        p.k = parseReductionLength(a.reductionLength);
    }
    return p;
}

// "RxC" of --tile, checked: two positive integers.
std::pair<int64_t, int64_t> parseTile(const std::string& text) {
    int64_t r = 0, c = 0;
    char x = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%" SCNd64 "%c%" SCNd64 "%c", &r, &x, &c, &extra) != 3 ||
        x != 'x' || r <= 0 || c <= 0)
        throw std::invalid_argument(fmt::format(
            "--tile '{}': expected ROWSxCOLS with two positive integers, e.g. 16x64", text));
    return {r, c};
}

nlohmann::json withDiagnosis(nlohmann::json j, const std::optional<Diagnosis>& d) {
    if (d) j["diagnosis"] = diagnosisJson(*d);
    return j;
}

int diffTwoFiles(const DiffArgs& a) {
    const TensorFile actual(a.files[0]);
    const TensorFile golden(a.files[1]);
    const ComparePolicy policy = policyOf(a);
    std::optional<TileLayout> layout;
    if (!a.tile.empty()) {
        const auto [rows, cols] = view2d(golden.view().shape);
        const auto [tr, tc] = parseTile(a.tile);
        layout = uniformTiles(rows, cols, tr, tc);
    }
    const TensorComparison c =
        compareTensors(a.files[0] + " vs " + a.files[1], actual.view(), golden.view(), policy);
    std::optional<Diagnosis> d;
    if (!c.verdict.passed && !a.noDiagnosis)
        d = diagnoseComparison(c, actual.view(), golden.view(), policy,
                               layout ? &*layout : nullptr);
    if (a.json)
        std::cout << jsonText(withDiagnosis(comparisonJson(c), d), 2) << "\n";
    else
        std::cout << formatComparison(c) << (d ? formatDiagnosis(*d) : "");
    return c.verdict.passed ? kExitOk : kExitFindings;
}

int diffDumpTrees(const DiffArgs& a) {
    DumpDiffReport r = diffDumpTrees(a.files[0], a.files[1], policyOf(a), !a.noDiagnosis);
    if (a.json)
        std::cout << jsonText(dumpDiffJson(r), 2) << "\n";
    else
        std::cout << formatDumpDiff(r);
    return r.passed() ? kExitOk : kExitFindings;
}

int diffRunOutputs(const DiffArgs& a) {
    const std::vector<OutputComparison> results =
        diffTraceOutputs(a.files[0], a.golden, policyOf(a), !a.noDiagnosis);
    bool passed = true;
    nlohmann::json j = nlohmann::json::array();
    std::vector<tracedb::DiffRow> rows;
    for (const OutputComparison& r : results) {
        passed &= r.comparison.verdict.passed;
        nlohmann::json detail = {{"golden_file", r.golden.string()}, {"producer", r.producer}};
        if (r.diagnosis) detail["diagnosis"] = diagnosisJson(*r.diagnosis);
        rows.push_back(tensorDiffRow(r.comparison, r.stageId, r.nodeId, detail));
        if (a.json) {
            nlohmann::json c = withDiagnosis(comparisonJson(r.comparison), r.diagnosis);
            c["golden_file"] = r.golden.string();
            c["producer"] = r.producer;
            j.push_back(c);
        } else {
            std::cout << formatComparison(r.comparison)
                      << (r.diagnosis ? formatDiagnosis(*r.diagnosis) : "");
        }
    }
    if (!a.noStore) storeDiffRows(a.files[0], rows);
    if (a.json)
        std::cout << jsonText(nlohmann::json{{"passed", passed}, {"outputs", j}}, 2) << "\n";
    return passed ? kExitOk : kExitFindings;
}

int diffBisect(const DiffArgs& a) {
    BisectOptions o;
    o.program = a.bisect;
    o.inputFiles = a.inputs;
    if (a.seed) o.seed = *a.seed;
    o.fault = a.fault;
    o.binds = a.binds;
    o.tracePath = a.output;
    o.policy = policyOf(a);
    o.budget = a.budget;
    const BisectReport report = bisectProgram(o);
    if (a.json)
        std::cout << jsonText(bisectJson(report), 2) << "\n";
    else
        std::cout << formatBisect(report);
    return report.passed() ? kExitOk : kExitFindings;
}

/// Two positional operands: both directories (dump trees) or both files; one of each is a
/// usage error naming the directory (before, the file was blamed for not being a dump tree).
Mode pairMode(const DiffArgs& a) {
    const bool dirA = std::filesystem::is_directory(a.files[0]);
    const bool dirB = std::filesystem::is_directory(a.files[1]);
    if (dirA != dirB)
        throw std::invalid_argument(fmt::format(
            "{} is a directory and {} is not: a file and a directory cannot be compared (give "
            "two .npy files or two dump trees)",
            dirA ? a.files[0] : a.files[1], dirA ? a.files[1] : a.files[0]));
    return dirA ? Mode::Trees : Mode::TwoFiles;
}

Mode modeOf(const DiffArgs& a) {
    if (!a.bisect.empty()) {
        if (!a.files.empty() || !a.golden.empty())
            throw std::invalid_argument("--bisect takes a .pto file and no other positional "
                                        "files or --golden");
        return Mode::Bisect;
    }
    if (a.cmd->count("--golden") > 0) {
        if (a.files.size() != 1)
            throw std::invalid_argument(
                "pto diff RUN.db --golden DIR takes exactly one trace file");
        return Mode::Golden;
    }
    if (a.files.size() != 2)
        throw std::invalid_argument(fmt::format(
            "pto diff takes two .npy files (actual, golden), two dump directories, a trace with "
            "--golden DIR, or --bisect FILE.pto; got {} file(s)",
            a.files.size()));
    return pairMode(a);
}

int runDiff(const DiffArgs& a) {
    const Mode mode = modeOf(a);
    checkFlagsOf(mode, a);
    switch (mode) {
    case Mode::Bisect:
        return diffBisect(a);
    case Mode::Golden:
        return diffRunOutputs(a);
    case Mode::Trees:
        return diffDumpTrees(a);
    case Mode::TwoFiles:
        break;
    }
    return diffTwoFiles(a);
}

} // namespace

void registerDiff(CLI::App& app, Action& action) {
    auto args = std::make_shared<DiffArgs>();
    CLI::App* cmd = args->cmd = app.add_subcommand(
        "diff", "Compare tensors: A.npy B.npy (B golden), dump trees DIR_A DIR_B (pto run --dump), "
                "RUN.db --golden DIR, or --bisect FILE.pto");
    cmd->add_option("files", args->files, "A.npy B.npy, or a trace file with --golden");
    cmd->add_option("--golden", args->golden, "directory of golden <output>.npy files");
    cmd->add_option("--bisect", args->bisect,
                    "evaluate every stage of this .pto program and find the first divergence");
    auto* inputs = cmd->add_option("--inputs", args->inputs,
                                   "comma-separated .npy inputs for --bisect, one per argument")
                       ->delimiter(',');
    cmd->add_option("--seed", args->seed,
                    "seed of random inputs for --bisect (default 1; drawn per argument role as pto "
                    "run --seed does)")
        ->excludes(inputs);
    addBindOption(cmd, args->binds);
    addFaultOption(cmd, args->fault,
                   "plant a defect for --bisect, KIND[:N] (the N-th candidate) of");
    cmd->add_option("-o,--output", args->output, "trace file for --bisect (stages, run, diffs)");
    cmd->add_option("--rtol", args->rtol, "relative tolerance (replaces the policy's)");
    cmd->add_option("--atol", args->atol, "absolute tolerance (replaces the policy's)");
    cmd->add_option("--standard", args->standard,
                    "verdict standard: allclose (torch.testing, default), ascend, msprobe");
    cmd->add_flag("--no-store", args->noStore, "with --golden: do not add diff rows to the trace");
    cmd->add_flag("--no-diagnosis", args->noDiagnosis,
                  "do not name the error pattern of a failing comparison");
    cmd->add_option("--tile", args->tile,
                    "two files: diagnose with a uniform ROWSxCOLS tiling of the 2-D view (a "
                    "run's trace gives its own)");
    cmd->add_option("--reduction-length", args->reductionLength,
                    "two files: the golden is a K-term reduction (accumulation tolerance and "
                    "the accumulation-vs-defect diagnosis)");
    cmd->add_flag("--json", args->json, "machine-readable output");
    addBudgetOptions(cmd, args->budget);
    cmd->callback([args, &action] { action = [args] { return runDiff(*args); }; });
}

} // namespace pto::cli
