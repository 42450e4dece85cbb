// `pto import`: Ascend profiler output (torch_npu, msprof) → a measured trace file.
#include "cli/Command.h"

#include "importer/ImportError.h"
#include "importer/Importer.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

namespace pto::cli {
namespace {

struct ImportArgs {
    std::string input;
    std::string output;
};

int runImport(const ImportArgs& args) {
    setActivity(fmt::format("importing '{}'", args.input));
    importer::ImportSummary s;
    try {
        s = importer::importProfile(args.input, args.output);
    } catch (const importer::ImportError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return kExitUsage;
    } catch (const std::filesystem::filesystem_error& e) { // a path the importer did not check
        fmt::print(stderr, "error: {}: {}\n", e.path1().string(), e.code().message());
        return kExitUsage;
    }
    fmt::print("{}: {} device kernels ({:.3f} ms of kernel time) on {} tracks, {} other slices, "
               "{} launch flows, {} counter samples from {} input rows\n",
               args.output, s.kernels, double(s.kernelNs) / 1e6, s.kernelTracks, s.spans, s.flows,
               s.counters, s.rowsRead);
    for (const std::string& line : s.said) fmt::print(stderr, "{}\n", line);
    const std::string stats = fmt::format("pto query {} \"SELECT * FROM stats\"", args.output);
    if (s.problems > 0)
        fmt::print("{} problem{} counted (the warnings above) and {} notes: {}\n", s.problems,
                   s.problems == 1 ? "" : "s", s.notes, stats);
    else if (s.notes > 0)
        fmt::print("no problems; {} notes (input pto import does not read by design: event and "
                   "flow kinds, columns, tables): {}\n",
                   s.notes, stats);
    return kExitOk;
}

} // namespace

void registerImport(CLI::App& app, Action& action) {
    auto args = std::make_shared<ImportArgs>();
    CLI::App* cmd = app.add_subcommand(
        "import", "Read Ascend profiler output into a measured trace file (docs/IMPORT.md)");
    cmd->add_option("input", args->input,
                    "an ASCEND_PROFILER_OUTPUT folder, trace_view.json, kernel_details.csv, "
                    "op_summary_*.csv, step_trace_time.csv or a profiler .db")
        ->required();
    cmd->add_option("-o,--output", args->output, "trace file to write")->required();
    cmd->callback([args, &action] { action = [args] { return runImport(*args); }; });
}

} // namespace pto::cli
