// Entry point of the `pto` command: subcommands, and the mapping of errors to exit codes.
#include "cli/Command.h"
#include "cli/HugePages.h"

#include "compiler/ir/Diagnostics.h"
#include "trace_db/TraceError.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

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

// Edit distance of two short words (insertions, deletions, substitutions, transpositions).
std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                                d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// `pto expotr x.db` made CLI11 say "A subcommand is required": name the word and the nearest
// subcommand. False when the first argument is an option or a subcommand.
bool refusedUnknownSubcommand(const CLI::App& app, int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return false;
    const std::string word = argv[1];
    std::string nearest;
    std::size_t best = 3; // suggest within two edits
    for (const CLI::App* sub : app.get_subcommands({})) {
        if (sub->get_name() == word) return false;
        if (std::size_t d = editDistance(word, sub->get_name()); d < best)
            best = d, nearest = sub->get_name();
    }
    fmt::print(stderr, "error: '{}' is not a pto subcommand{} (pto --help lists them)\n", word,
               nearest.empty() ? std::string() : fmt::format("; did you mean '{}'?", nearest));
    return true;
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

    if (refusedUnknownSubcommand(app, argc, argv)) return kExitUsage;
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
        // The excerpt shows where an error of an op the compiler made (a composite's parts,
        // `cast %0` of an rms_norm) comes from in the user's text.
        fmt::print(stderr, "{}\n{}", e.what(), pto::sourceExcerpt(e.file(), e.loc()));
    } catch (const pto::tracedb::TraceError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
    }
    return kExitUsage;
}
