// `pto compare`: per-op and per-core deltas between two traced runs.
#include "cli/Command.h"

#include "profiler/RunCompare.h"

#include <iostream>

namespace pto::cli {
namespace {

struct CompareArgs {
    std::string a, b;
    bool json = false;
};

int runCompare(const CompareArgs& args) {
    prof::Profile a = prof::analyzeTrace(args.a);
    prof::Profile b = prof::analyzeTrace(args.b);
    prof::RunComparison c = prof::compareRuns(a, b);
    if (args.json)
        std::cout << prof::comparisonJson(c, args.a, args.b).dump(2) << "\n";
    else
        std::cout << prof::comparisonText(c, args.a, args.b);
    return kExitOk;
}

} // namespace

void registerCompare(CLI::App& app, Action& action) {
    auto args = std::make_shared<CompareArgs>();
    CLI::App* cmd =
        app.add_subcommand("compare", "Per-op and per-core deltas of two runs (B vs A)");
    cmd->add_option("a", args->a, "trace file of run A (the baseline)")->required();
    cmd->add_option("b", args->b, "trace file of run B")->required();
    cmd->add_flag("--json", args->json, "machine-readable output");
    cmd->callback([args, &action] { action = [args] { return runCompare(*args); }; });
}

} // namespace pto::cli
