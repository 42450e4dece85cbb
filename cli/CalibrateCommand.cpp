// `pto calibrate`: fits the simulator's pipe speeds to measured kernels and writes the proposed
// arch config to a new file (the defaults are never changed).
#include "cli/Command.h"

#include "base/AtomicFile.h"
#include "base/ScratchDir.h"
#include "driver/Session.h"
#include "driver/WhatIf.h"
#include "profiler/Calibrate.h"
#include "profiler/Profile.h"
#include "simulator/arch/ArchConfig.h"
#include "simulator/arch/ParamTable.h"
#include "trace_db/ReplaceGuard.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

namespace pto::cli {
namespace {

namespace fs = std::filesystem;

struct CalibrateArgs {
    std::string real;
    std::vector<std::string> sims;
    std::string match = "type", shape, arch, output;
};

// Scales outside this range are not applied: they say the pairing is wrong, not the model.
constexpr double kMinScale = 0.02, kMaxScale = 50;

// The arch parameters that set each pipe's speed, and whether they are rates (divided by the
// scale) or cycle counts (multiplied by it).
struct PipeParams {
    std::vector<std::string> keys;
    bool rates = true;
};

// MTE2 and MTE3 move data on both core types through different paths: only the paths of the
// core types whose simulated tasks were fitted change (vector kernels say nothing of GM→L1).
std::vector<std::string> pathsOf(const prof::PipeFit& f, const char* aicPath, const char* aivPath) {
    std::vector<std::string> keys;
    if (f.onAic) keys.push_back(aicPath);
    if (f.onAiv) keys.push_back(aivPath);
    return keys;
}

PipeParams paramsOf(const prof::PipeFit& f) {
    using prof::PipeId;
    switch (f.pipe) {
    case PipeId::M:
        return {{"cost.tmatmul.slope", "cost.tmatmul_acc.slope"}, false};
    case PipeId::MTE2:
        return {pathsOf(f, "dma.gm_to_l1.rate", "dma.gm_to_ub.rate"), true};
    case PipeId::MTE1:
        return {{"dma.l1_to_l0a.rate", "dma.l1_to_l0b.rate"}, true};
    case PipeId::FIX:
        return {{"dma.l0c_to_gm.rate", "dma.l0c_to_l1.rate"}, true};
    case PipeId::MTE3:
        return {pathsOf(f, "dma.l1_to_gm.rate", "dma.ub_to_gm.rate"), true};
    case PipeId::V: { // every vector instruction's per-repeat slope
        PipeParams p{{}, false};
        for (const sim::ParamSpec& spec : sim::ParamTable::get().specs())
            if (spec.key.starts_with("cost.t") && spec.key.ends_with(".slope") &&
                !spec.key.starts_with("cost.tmatmul"))
                p.keys.push_back(spec.key);
        return p;
    }
    default:
        return {{}, true}; // S: the simulator has no scalar-pipe time to scale
    }
}

// The measured trace calibrate fits to (args.real), profiled once.
prof::Profile measuredTrace(const CalibrateArgs& args) {
    prof::Profile real = prof::analyzeTrace(args.real);
    if (!real.model.measured)
        throw std::runtime_error(fmt::format(
            "'{}' is a simulated run; calibrate needs a measured trace first (pto import)",
            args.real));
    return real;
}

// Every simulated op paired with the measured kernels of `real`, over the simulated traces
// `sims` (args.sims, or their re-runs with the calibrated parameters).
std::vector<prof::KernelPair> pairAll(const CalibrateArgs& args, const prof::Profile& real,
                                      const std::vector<std::string>& sims) {
    prof::MatchSpec spec;
    if (args.match != "type") spec.kernel = args.match;
    if (!args.shape.empty()) {
        const std::optional<std::string> shape = prof::parseShapeFilter(args.shape);
        if (!shape)
            throw std::runtime_error(
                fmt::format("--shape '{}' is not a shape such as 32,4096 or 32x4096", args.shape));
        spec.outputShape = *shape;
    }
    std::vector<prof::KernelPair> pairs;
    for (const std::string& path : sims) {
        const prof::Profile sim = prof::analyzeTrace(path);
        if (sim.model.measured)
            throw std::runtime_error(fmt::format(
                "'{}' is a measured trace; give simulated runs after the measured one", path));
        for (prof::KernelPair& p : prof::compareSimToReal(sim, path, real, args.real, spec).pairs)
            if (p.realCount > 0) pairs.push_back(std::move(p));
    }
    return pairs;
}

// The relative error of each pipe when the simulated runs are re-run on `archText`, the arch
// file calibrate writes (pto whatif's re-simulation, timing only): what the fit's "after"
// predicts, checked — a pipe whose time is bound by something else (HBM bandwidth, latency) does
// not follow its rate. Empty, with `why`, when a run cannot be re-simulated (no program text in
// its trace).
std::map<prof::PipeId, double> resimulatedErrors(const CalibrateArgs& args,
                                                 const prof::Profile& real,
                                                 const std::string& archText, std::string& why) {
    const ScratchDir scratch("pto-calibrate");
    const fs::path archFile = scratch.path() / "calibrated.arch";
    std::ofstream(archFile, std::ios::binary) << archText;
    std::vector<std::string> reruns;
    try {
        for (const std::string& path : args.sims) {
            prof::WhatIfOptions options;
            options.archFile = archFile.string();
            options.timingOnly = true;
            options.outputPath = (scratch.path() / fmt::format("{}.db", reruns.size())).string();
            prof::runWhatIf(path, options);
            reruns.push_back(options.outputPath);
        }
    } catch (const std::exception& e) {
        why = e.what();
        return {};
    }
    std::map<prof::PipeId, double> errors;
    for (const prof::PipeFit& f : prof::calibrate(pairAll(args, real, reruns)).pipes)
        errors[f.pipe] = f.residualBefore;
    return errors;
}

std::string describeFit(const prof::PipeFit& f, const PipeParams& params, bool applied,
                        const std::map<prof::PipeId, double>& checked) {
    std::string out = fmt::format(
        "  {:<5} {:>3} pair{}  measured = {:.3f} x simulated; relative error {:.1f}% -> {:.1f}%",
        prof::pipeIdName(f.pipe), f.pairs, f.pairs == 1 ? " " : "s", f.scale,
        100 * f.residualBefore, 100 * f.residualAfter);
    if (params.keys.empty()) return out + " (no parameter to change)\n";
    if (!applied) return out + " (not applied: implausible scale)\n";
    if (auto it = checked.find(f.pipe); it != checked.end()) {
        out += fmt::format(" predicted, {:.1f}% re-simulated", 100 * it->second);
        // Halfway or less from the old error towards the predicted one: the time did not follow.
        if (it->second > (f.residualBefore + f.residualAfter) / 2)
            out += " (the pipe's time did not follow the parameter: bound by HBM bandwidth or "
                   "latency? see pto whatif)";
    }
    const std::string keys =
        params.keys.size() > 2
            ? fmt::format("cost.t*.slope of {} vector instructions", params.keys.size())
            : params.keys[0] + (params.keys.size() > 1 ? ", " + params.keys[1] : "");
    return out + fmt::format("\n        {} x {:.4g}\n", keys, params.rates ? 1 / f.scale : f.scale);
}

void writeText(const std::string& path, const std::string& text) {
    AtomicFile file = AtomicFile::createEmpty(path, "arch file");
    std::FILE* out = std::fopen(file.tempPath().c_str(), "wb");
    if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", path));
    const bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if (std::fclose(out) != 0 || !ok)
        throw std::runtime_error(fmt::format("cannot write '{}'", path));
    file.commit();
}

// `x` as printed with `decimals` decimals, without a "-0.000" for a value that rounds to zero.
double printable(double x, int decimals) {
    return std::abs(x) < 0.5 * std::pow(10.0, -decimals) ? 0.0 : x;
}

// args.sims with a run given twice (by any path to the same file) kept once: its pairs would
// weigh double in the fit.
std::vector<std::string> distinctRuns(const std::vector<std::string>& sims) {
    std::vector<std::string> out;
    std::vector<fs::path> seen;
    for (const std::string& path : sims) {
        std::error_code error;
        fs::path canonical = fs::weakly_canonical(path, error);
        if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) continue;
        seen.push_back(std::move(canonical));
        out.push_back(path);
    }
    return out;
}

// The first parameter on which `a` and `b` differ ("cost.tmatmul.slope = 4.18 vs 1") and how
// many do; "" when they agree (names aside, values compared in base units).
std::string archDifference(const sim::ArchConfig& a, const sim::ArchConfig& b) {
    const sim::ParamTable& table = sim::ParamTable::get();
    std::string first;
    int count = 0;
    for (int i = 0; i < table.size(); ++i) {
        const double x = a.base(i), y = b.base(i);
        if (std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y))) continue;
        if (count++ == 0)
            first = fmt::format("{} = {} vs {}", table.spec(i).key, sim::formatQuantity(a.value(i)),
                                sim::formatQuantity(b.value(i)));
    }
    if (count > 1) first += fmt::format("; {} parameters differ", count);
    return first;
}

// The arch the simulated runs were made on, as their traces record it (meta arch_config and
// arch_name), with the run it was read from; nullopt when no trace records one. Runs made on
// different arches are refused: one calibrated file cannot scale both.
std::optional<std::pair<sim::ArchConfig, std::string>>
recordedArch(const std::vector<std::string>& sims) {
    std::optional<std::pair<sim::ArchConfig, std::string>> first;
    for (const std::string& path : sims) {
        std::vector<std::string> notes;
        const std::optional<sim::ArchConfig> arch =
            prof::recordedArchConfig(tracedb::TraceReader::open(path), notes);
        if (!arch) continue;
        if (!first) {
            first.emplace(*arch, path);
            continue;
        }
        if (const std::string diff = archDifference(first->first, *arch); !diff.empty())
            throw std::invalid_argument(fmt::format(
                "the simulated runs used different arches: '{}' ran on '{}', '{}' on '{}' ({}); "
                "re-run them with one --arch and calibrate again",
                first->second, first->first.name(), path, arch->name(), diff));
    }
    return first;
}

// The arch calibrate scales: the one the simulated runs recorded; --arch, when given, must be
// that arch (the fit says how far the runs were from the measurement, so it only holds for the
// arch they ran on). Runs that record no arch (older traces) take --arch or the default.
sim::ArchConfig baseArch(const CalibrateArgs& args) {
    const auto recorded = recordedArch(args.sims);
    if (args.arch.empty()) return recorded ? recorded->first : sim::ArchConfig();
    sim::ArchConfig given = loadArchConfig(args.arch, {});
    if (!recorded) return given;
    if (const std::string diff = archDifference(recorded->first, given); !diff.empty())
        throw std::invalid_argument(fmt::format(
            "--arch '{}' is not the arch the simulated runs used: '{}' ran on '{}', the file is "
            "'{}' ({}); leave --arch out to calibrate the arch the runs recorded, or re-run them "
            "with --arch {}",
            args.arch, recorded->second, recorded->first.name(), given.name(), diff, args.arch));
    return given;
}

constexpr std::string_view kArchFileHeader = "# PTO Studio arch config.";

// Whether `path` is an arch file calibrate wrote: dumpArch's header and a calibrated name.
bool isCalibratedArchFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    if (!std::getline(in, line) || !line.starts_with(kArchFileHeader)) return false;
    while (std::getline(in, line))
        if (line.starts_with("name = ")) return line.find("calibrated") != std::string::npos;
    return false;
}

// -o must not be a file calibrate reads (by any path to it), nor an existing file that is not
// an arch file calibrate wrote: a mistyped output never destroys a trace or a hand-made arch.
void refuseToReplace(const CalibrateArgs& args) {
    std::vector<std::pair<std::string, std::string>> inputs{{args.real, "the measured trace"}};
    for (const std::string& sim : args.sims) inputs.emplace_back(sim, "a simulated run");
    if (!args.arch.empty()) inputs.emplace_back(args.arch, "the --arch file");
    for (const auto& [path, role] : inputs)
        tracedb::requireNotInput(args.output, path, role + " of this calibrate");
    std::error_code error;
    if (!fs::exists(args.output, error)) return;
    std::string why;
    if (!fs::is_regular_file(args.output, error))
        why = "not a regular file";
    else if (fs::file_size(args.output, error) > 0 && !isCalibratedArchFile(args.output))
        why = "not an arch file with a calibrated name written by pto calibrate";
    if (!why.empty())
        throw std::invalid_argument(
            fmt::format("'{}' exists and is not a calibrated arch file ({}): it is not replaced; "
                        "remove it or give another output path",
                        args.output, why));
}

// `base` with the fitted changes, named "<base>-calibrated".
sim::ArchConfig calibratedArch(sim::ArchConfig base, const std::vector<std::string>& overrides) {
    for (const std::string& o : overrides) sim::applyOverride(base, o);
    if (base.name().find("calibrated") == std::string::npos)
        base.setName(base.name() + "-calibrated");
    return base;
}

int runCalibrate(CalibrateArgs args) {
    args.sims = distinctRuns(args.sims);
    refuseToReplace(args);
    const prof::Profile real = measuredTrace(args);
    const sim::ArchConfig base = baseArch(args);
    const std::vector<prof::KernelPair> pairs = pairAll(args, real, args.sims);
    if (pairs.empty()) {
        fmt::print(stderr,
                   "error: no simulated op matched a measured kernel of '{}' (--match {}{}); see "
                   "pto compare SIM {} --match ...\n",
                   args.real, args.match, args.shape.empty() ? "" : " --shape " + args.shape,
                   args.real);
        return kExitUsage;
    }
    const prof::Calibration c = prof::calibrate(pairs);
    std::vector<std::string> overrides;
    auto applied = [](const prof::PipeFit& f) {
        return f.scale >= kMinScale && f.scale <= kMaxScale;
    };
    for (const prof::PipeFit& f : c.pipes) {
        const PipeParams params = paramsOf(f);
        if (applied(f))
            for (const std::string& key : params.keys)
                overrides.push_back(
                    fmt::format("{}={:.6g}x", key, params.rates ? 1 / f.scale : f.scale));
    }
    const std::string archText =
        overrides.empty() ? std::string() : sim::dumpArch(calibratedArch(base, overrides));
    std::string why;
    const std::map<prof::PipeId, double> checked =
        overrides.empty() ? std::map<prof::PipeId, double>{}
                          : resimulatedErrors(args, real, archText, why);
    std::string text = fmt::format("{} simulated/measured pairs (--match {}); the runs' arch: {}\n",
                                   c.pairs, args.match, base.name());
    for (const prof::PipeFit& f : c.pipes) text += describeFit(f, paramsOf(f), applied(f), checked);
    if (!why.empty()) text += fmt::format("  (not re-simulated to check: {})\n", why);
    if (c.time)
        text += fmt::format("  kernel time: measured = {:.2f} us + {:.3f} x simulated (a fixed "
                            "cost per kernel; reported, not applied)\n",
                            printable(c.time->overheadUs, 2), printable(c.time->slope, 3));
    else
        text += "  kernel time: one simulated size only, so no fixed per-kernel cost is fitted\n";
    if (overrides.empty()) {
        fmt::print(stderr,
                   "{}error: nothing to calibrate: no pipe is busy in both a simulated op and its "
                   "measured kernels with a plausible scale (a run traced at --trace tasks has no "
                   "pipe times); no file written\n",
                   text);
        return kExitUsage;
    }
    writeText(args.output, archText);
    text += fmt::format("wrote {} ({} parameters changed); use it with pto run --arch {}\n",
                        args.output, overrides.size(), args.output);
    fmt::print("{}", text);
    return kExitOk;
}

} // namespace

void registerCalibrate(CLI::App& app, Action& action) {
    auto args = std::make_shared<CalibrateArgs>();
    CLI::App* cmd = app.add_subcommand(
        "calibrate", "Fit the simulator's pipe speeds to measured kernels; write an arch file");
    cmd->add_option("real", args->real, "measured trace (pto import)")->required();
    cmd->add_option("sims", args->sims, "simulated runs of the same kernels (pto run)")->required();
    cmd->add_option("--match", args->match,
                    "pairing as in pto compare: 'type' (default) or a measured kernel name/type");
    cmd->add_option("--shape", args->shape, "only measured kernels with this first output shape");
    cmd->add_option("--arch", args->arch,
                    "the arch config the simulated runs used (default: the one their traces "
                    "record; refused when it differs from it)");
    cmd->add_option("-o,--output", args->output, "the calibrated arch file to write")->required();
    cmd->callback([args, &action] { action = [args] { return runCalibrate(*args); }; });
}

} // namespace pto::cli
