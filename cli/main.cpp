// Entry point of the `pto` command: subcommands, and the mapping of errors to exit codes.
#include "cli/Command.h"

#include "compiler/ir/Diagnostics.h"
#include "trace_db/TraceError.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
    using namespace pto::cli;
    CLI::App app{"pto — compile, simulate, profile and diff PTO programs for tile-based NPUs"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "pto 0.1.0");
    Action action;
    registerCompile(app, action);
    registerInfo(app, action);
    registerRun(app, action);
    registerArch(app, action);
    registerDiff(app, action);
    registerReport(app, action);
    registerQuery(app, action);
    registerExport(app, action);
    registerWhatif(app, action);
    registerCompare(app, action);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? kExitOk : kExitUsage;
    }
    try {
        return action ? action() : kExitUsage;
    } catch (const pto::CompileError& e) {
        fmt::print(stderr, "{}\n", e.what());
    } catch (const pto::tracedb::TraceError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
    }
    return kExitUsage;
}
