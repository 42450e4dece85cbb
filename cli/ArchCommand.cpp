// `pto arch`: print the effective hardware description (default, a file, and overrides).
#include "cli/Command.h"

#include "driver/Session.h"

#include <fmt/format.h>

namespace pto::cli {
namespace {

struct ArchArgs {
    std::string file;
    std::vector<std::string> overrides;
    bool json = false;
    bool dump = true;
};

int runArch(const ArchArgs& args) {
    sim::ArchConfig arch = loadArchConfig(args.file, args.overrides);
    fmt::print("{}", args.json ? sim::archJson(arch) + "\n" : sim::dumpArch(arch));
    return kExitOk;
}

} // namespace

void registerArch(CLI::App& app, Action& action) {
    auto args = std::make_shared<ArchArgs>();
    CLI::App* cmd = app.add_subcommand("arch", "Print the effective hardware description");
    cmd->add_flag("--dump", args->dump,
                  "print every parameter with its unit, help and source (the default)");
    cmd->add_option("--arch", args->file, "arch config file (default: embedded 910B-like)");
    addArchSetOption(cmd, args->overrides, "override a parameter: key=value or key=2x");
    cmd->add_flag("--json", args->json, "the config as JSON");
    cmd->callback([args, &action] { action = [args] { return runArch(*args); }; });
}

} // namespace pto::cli
