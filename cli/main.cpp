// Entry point of the `pto` command: subcommands, and the mapping of errors to exit codes.
#include "cli/Command.h"
#include "cli/HugePages.h"

#include "compiler/ir/Diagnostics.h"
#include "trace_db/TraceError.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

namespace {

// std::bad_alloc never reaches the user as such: say what ran out and what bounds it.
void printOutOfMemory() {
    fmt::print(stderr,
               "error: out of memory while {} (the host could not allocate what it needed; the "
               "resource budget --max-tile-ops, --max-instrs, --max-gm and --max-memory bounds "
               "what pto plans to allocate: lower it or make the program smaller)\n",
               pto::cli::activity());
}

// Whether everything printed to standard output reached it: a report piped to a full disk
// (`pto report x.db > /dev/full`) lost every line with exit 0; now it is exit 2 with the reason.
bool outputWritten() {
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
    fmt::print(stderr, "error: cannot write the standard output: {}\n", std::strerror(errno));
    return false;
}

} // namespace

int main(int argc, char** argv) {
    using namespace pto::cli;
    reexecWithHugePages(argv);
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
    registerImport(app, action);
    registerCalibrate(app, action);
    registerTune(app, action);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? kExitOk : kExitUsage;
    }
    for (const CLI::App* sub : app.get_subcommands())
        setActivity(fmt::format("running 'pto {}'", sub->get_name()));
    try {
        const int code = action ? action() : kExitUsage;
        return outputWritten() ? code : kExitUsage;
    } catch (const std::bad_alloc&) {
        printOutOfMemory();
    } catch (const std::length_error&) { // a container asked for more than it can hold
        printOutOfMemory();
    } catch (const pto::CompileError& e) {
        fmt::print(stderr, "{}\n", e.what());
    } catch (const pto::tracedb::TraceError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
    }
    return kExitUsage;
}
