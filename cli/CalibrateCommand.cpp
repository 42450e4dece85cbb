// `pto calibrate`: fits the simulator's pipe speeds to measured kernels and writes the proposed
// arch config to a new file (the defaults are never changed).
#include "cli/Command.h"

#include "base/AtomicFile.h"
#include "driver/Session.h"
#include "driver/WhatIf.h"
#include "profiler/Calibrate.h"
#include "profiler/Profile.h"
#include "simulator/arch/ArchConfig.h"
#include "simulator/arch/ParamTable.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include <unistd.h>

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

// The relative error of each pipe when the simulated runs are re-run with `overrides`
// (pto whatif's re-simulation, timing only): what the fit's "after" predicts, checked — a pipe
// whose time is bound by something else (HBM bandwidth, latency) does not follow its rate.
// Empty, with `why`, when a run cannot be re-simulated (no program text in its trace).
std::map<prof::PipeId, double> resimulatedErrors(const CalibrateArgs& args,
                                                 const prof::Profile& real,
                                                 const std::vector<std::string>& overrides,
                                                 std::string& why) {
    const fs::path dir = fs::temp_directory_path() / fmt::format("pto-calibrate-{}", ::getpid());
    fs::create_directories(dir);
    struct Cleanup {
        fs::path dir;
        ~Cleanup() {
            std::error_code ignored;
            fs::remove_all(dir, ignored);
        }
    } cleanup{dir};
    std::vector<std::string> reruns;
    try {
        for (const std::string& path : args.sims) {
            prof::WhatIfOptions options;
            options.overrides = overrides;
            options.timingOnly = true;
            options.outputPath = (dir / fmt::format("{}.db", reruns.size())).string();
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

int runCalibrate(CalibrateArgs args) {
    args.sims = distinctRuns(args.sims);
    const prof::Profile real = measuredTrace(args);
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
    std::string why;
    const std::map<prof::PipeId, double> checked =
        overrides.empty() ? std::map<prof::PipeId, double>{}
                          : resimulatedErrors(args, real, overrides, why);
    std::string text =
        fmt::format("{} simulated/measured pairs (--match {})\n", c.pairs, args.match);
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
    sim::ArchConfig arch = loadArchConfig(args.arch, overrides);
    if (arch.name().find("calibrated") == std::string::npos)
        arch.setName(arch.name() + "-calibrated");
    writeText(args.output, sim::dumpArch(arch));
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
                    "the arch config the simulated runs used (default: embedded 910B-like)");
    cmd->add_option("-o,--output", args->output, "the calibrated arch file to write")->required();
    cmd->callback([args, &action] { action = [args] { return runCalibrate(*args); }; });
}

} // namespace pto::cli
