// `pto whatif`: re-simulate a traced run with changed arch parameters and show the change
// per Tensor op and per core.
#include "cli/Command.h"

#include "base/JsonText.h"
#include "cli/Progress.h"
#include "driver/WhatIf.h"

#include <fmt/format.h>

#include <iostream>

namespace pto::cli {
namespace {

struct WhatifArgs {
    std::string file;
    std::vector<std::string> overrides;
    std::string output;
    bool timingOnly = false;
    bool json = false;
    ResourceBudget budget;
};

int runWhatif(const WhatifArgs& args) {
    prof::WhatIfOptions options;
    options.overrides = args.overrides;
    options.outputPath = args.output;
    options.timingOnly = args.timingOnly;
    options.budget = args.budget;
    setActivity(fmt::format("re-running {}", args.file));
    ProgressBar progress("what-if");
    int phases = 0;
    options.onPhase = [&](const std::string& phase) { progress.phase(phase, phases++ / 3.0); };
    prof::WhatIfResult r = prof::runWhatIf(args.file, options);
    progress.done();
    std::string changed = fmt::format("{} with {}", args.file, fmt::join(args.overrides, ", "));
    if (args.json) {
        auto j = prof::comparisonJson(r.comparison, args.file, changed);
        j["overrides"] = args.overrides;
        j["notes"] = r.notes;
        std::cout << jsonText(j, 2) << "\n";
    } else {
        std::cout << prof::comparisonText(r.comparison, args.file, changed);
        for (const auto& note : r.notes) std::cout << "note: " << note << "\n";
    }
    return kExitOk;
}

} // namespace

void registerWhatif(CLI::App& app, Action& action) {
    auto args = std::make_shared<WhatifArgs>();
    CLI::App* cmd = app.add_subcommand(
        "whatif", "Re-simulate a traced run with changed arch parameters and compare");
    cmd->add_option("file", args->file, "trace file of a run (pto run -o)")->required();
    addArchSetOption(cmd, args->overrides, "arch change: key=value or key=2x (repeatable)")
        ->required();
    cmd->add_option("-o,--output", args->output, "keep the changed run's trace in this file");
    cmd->add_flag("--timing-only", args->timingOnly, "skip the numerics (timing is the same)");
    cmd->add_flag("--json", args->json, "machine-readable output");
    addBudgetOptions(cmd, args->budget);
    cmd->callback([args, &action] { action = [args] { return runWhatif(*args); }; });
}

} // namespace pto::cli
