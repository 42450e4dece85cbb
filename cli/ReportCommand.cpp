// `pto report`: analyze a run's trace, store the results as metrics, print the summary, the
// top ops by cycles and the findings (text, Markdown or JSON).
#include "cli/Command.h"

#include "profiler/Profile.h"
#include "profiler/report/Report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace pto::cli {
namespace {

struct ReportArgs {
    std::string file;
    std::string format = "text";
    int top = 10;
    bool noStore = false;
    bool exitZero = false;
};

int runReport(const ReportArgs& args) {
    prof::ReportOptions options;
    options.topOps = args.top;
    if (args.format == "md" || args.format == "markdown")
        options.format = prof::ReportFormat::Markdown;
    else if (args.format == "json")
        options.format = prof::ReportFormat::Json;
    prof::Profile profile = prof::analyzeTrace(args.file);
    for (const std::string& warning : profile.model.fileWarnings)
        fmt::print(stderr, "warning: trace '{}': {}\n", args.file, warning);
    if (!args.noStore) {
        try {
            prof::storeProfile(args.file, profile);
        } catch (const std::exception& e) { // a read-only file still gets its report
            fmt::print(stderr, "warning: analyses not stored in {}: {}\n", args.file, e.what());
        }
    }
    std::string text = prof::renderReport(profile, options);
    std::fwrite(text.data(), 1, text.size(), stdout);
    bool serious = std::any_of(profile.findings.begin(), profile.findings.end(),
                               [](auto& f) { return f.severity != prof::Severity::Info; });
    return serious && !args.exitZero ? kExitFindings : kExitOk;
}

} // namespace

void registerReport(CLI::App& app, Action& action) {
    auto args = std::make_shared<ReportArgs>();
    CLI::App* cmd = app.add_subcommand(
        "report", "Analyze a run: summary, top ops by cycles, findings with estimated gains "
                  "(exit 1 when a finding is a warning or worse; rules the trace level cannot "
                  "feed are listed as not evaluated — JSON not_evaluated — and do not change "
                  "the exit status)");
    cmd->add_option("file", args->file, "trace file of a run (pto run -o)")->required();
    cmd->add_option("--format", args->format, "text, md or json")
        ->check(CLI::IsMember({"text", "md", "markdown", "json"}));
    cmd->add_option("--top", args->top, "Tensor ops listed by cycles (default 10)")
        ->check(nonNegativeInteger());
    cmd->add_flag("--no-store", args->noStore,
                  "do not write the analyses back into the file as metric rows");
    cmd->add_flag("--exit-zero", args->exitZero, "exit 0 even when there are findings");
    cmd->callback([args, &action] { action = [args] { return runReport(*args); }; });
}

} // namespace pto::cli
