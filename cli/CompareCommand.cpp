// `pto compare`: per-op and per-core deltas between two traced runs, or a simulated run next to
// a measured one (`pto import`) with `--match`.
#include "cli/Command.h"

#include "base/JsonText.h"
#include "profiler/MeasuredRun.h"
#include "profiler/RunCompare.h"
#include "profiler/SimVsReal.h"

#include <fmt/format.h>

#include <iostream>

namespace pto::cli {
namespace {

struct CompareArgs {
    std::string a, b;
    std::string match; ///< "type", or a measured kernel name / type
    std::string shape; ///< measured first-output shape filter ("32,4096")
    bool json = false;
};

// Simulated run next to measured kernels; either argument order.
int runSimVsReal(const CompareArgs& args, const prof::Profile& a, const prof::Profile& b) {
    if (a.model.measured == b.model.measured) {
        fmt::print(stderr,
                   "error: --match pairs a simulated run with a measured trace (pto import), but "
                   "'{}' and '{}' are both {}\n",
                   args.a, args.b, a.model.measured ? "measured" : "simulated");
        return kExitUsage;
    }
    const bool aIsSim = !a.model.measured;
    const prof::Profile& sim = aIsSim ? a : b;
    const prof::Profile& real = aIsSim ? b : a;
    const std::string& simPath = aIsSim ? args.a : args.b;
    const std::string& realPath = aIsSim ? args.b : args.a;
    prof::MatchSpec spec;
    if (args.match != "type") spec.kernel = args.match;
    if (!args.shape.empty()) {
        const std::optional<std::string> shape = prof::parseShapeFilter(args.shape);
        if (!shape) {
            fmt::print(stderr, "error: --shape '{}' is not a shape such as 32,4096 or 32x4096\n",
                       args.shape);
            return kExitUsage;
        }
        spec.outputShape = *shape;
    }
    const prof::SimRealComparison c = prof::compareSimToReal(sim, simPath, real, realPath, spec);
    if (!spec.kernel.empty() && c.pairs.front().realCount == 0) {
        fmt::print(stderr,
                   "error: no measured kernel of '{}' is named or typed '{}'{} (pto report {} "
                   "lists them)\n",
                   realPath, spec.kernel,
                   spec.outputShape.empty() ? "" : " with first output " + spec.outputShape,
                   realPath);
        return kExitUsage;
    }
    if (args.json)
        std::cout << jsonText(prof::simRealJson(c, simPath, realPath), 2) << "\n";
    else
        std::cout << prof::simRealText(c, simPath, realPath);
    return kExitOk;
}

int runCompare(const CompareArgs& args) {
    prof::Profile a = prof::analyzeTrace(args.a);
    prof::Profile b = prof::analyzeTrace(args.b);
    if (!args.match.empty() || a.model.measured != b.model.measured) {
        CompareArgs withMatch = args;
        if (withMatch.match.empty()) withMatch.match = "type";
        return runSimVsReal(withMatch, a, b);
    }
    if (!args.shape.empty()) {
        fmt::print(stderr, "error: --shape filters measured kernels and needs --match\n");
        return kExitUsage;
    }
    prof::RunComparison c = prof::compareRuns(a, b);
    if (args.json)
        std::cout << jsonText(prof::comparisonJson(c, args.a, args.b), 2) << "\n";
    else
        std::cout << prof::comparisonText(c, args.a, args.b);
    return kExitOk;
}

} // namespace

void registerCompare(CLI::App& app, Action& action) {
    auto args = std::make_shared<CompareArgs>();
    CLI::App* cmd = app.add_subcommand(
        "compare", "Per-op and per-core deltas of two runs (B vs A), or a simulated run next to "
                   "a measured trace (--match)");
    cmd->add_option("a", args->a, "trace file of run A (the baseline)")->required();
    cmd->add_option("b", args->b, "trace file of run B")->required();
    cmd->add_option("--match", args->match,
                    "simulated vs measured (one trace from pto import): 'type' pairs each "
                    "Tensor op with the measured kernels of its op type (the default when one "
                    "trace is measured); any other value pairs the whole simulated run with the "
                    "measured kernels of that name or type");
    cmd->add_option("--shape", args->shape,
                    "only measured kernels whose first output has this shape, e.g. 32,4096");
    cmd->add_flag("--json", args->json, "machine-readable output");
    cmd->callback([args, &action] { action = [args] { return runCompare(*args); }; });
}

} // namespace pto::cli
