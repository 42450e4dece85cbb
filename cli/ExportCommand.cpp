// `pto export`: a trace file as Chrome trace JSON, CSV of slices, DOT/SVG of an IR stage, or a
// self-contained HTML report.
#include "cli/Command.h"

#include "base/AtomicFile.h"
#include "cli/Progress.h"
#include "profiler/ArchPeaks.h"
#include "profiler/MeasuredRun.h"
#include "profiler/RunClock.h"
#include "profiler/RunPresence.h"
#include "profiler/export/ChromeExport.h"
#include "profiler/export/CsvExport.h"
#include "profiler/export/HtmlReport.h"
#include "profiler/graph/StageGraph.h"
#include "trace_db/ReplaceGuard.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>

namespace pto::cli {
namespace {

struct ExportArgs {
    std::string file;
    std::string format = "chrome";
    std::string output;
    std::string stage;
    /// The time window of a chrome or csv export (TimeWindow), when given.
    std::optional<std::string> from, to;
};

/// A Chrome export at least this large gets a warning: Perfetto's UI in a browser typically has
/// about 2 GB of memory for a trace, and its parsed form is larger than the file.
constexpr std::int64_t kLargeChromeBytes = std::int64_t(1) << 30;

// The output file, written beside its target by base's AtomicFile (a unique temp name,
// removed on failure, SIGINT or SIGTERM) and renamed into place when complete. A target that
// exists and is not a regular file (/dev/null, a FIFO, a terminal) is written directly:
// renaming over it would replace the device with a file.
class OutputFile {
public:
    explicit OutputFile(const std::string& path) : m_path(path) {
        if (path.empty() || path == "-") {
            m_file = stdout;
            return;
        }
        std::error_code error;
        const auto status = std::filesystem::status(path, error);
        if (std::filesystem::is_directory(status))
            throw std::runtime_error(
                fmt::format("cannot write '{}': it is a directory; give a file name for -o", path));
        if (!error && std::filesystem::exists(status) &&
            !std::filesystem::is_regular_file(status)) {
            m_file = std::fopen(path.c_str(), "wb");
            if (!m_file) failOpen(path);
            return;
        }
        m_atomic.emplace(AtomicFile::createEmpty(path, "export file"));
        m_file = std::fopen(m_atomic->tempPath().c_str(), "wb");
        if (!m_file) failOpen(path);
    }
    ~OutputFile() {
        if (m_file && m_file != stdout) std::fclose(m_file); // m_atomic removes the temp file
    }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    std::FILE* get() const { return m_file; }
    void commit() {
        if (m_file == stdout) {
            std::fflush(stdout);
            return;
        }
        bool ok = std::fclose(m_file) == 0;
        m_file = nullptr;
        if (!ok) throw std::runtime_error(fmt::format("cannot write '{}'", m_path));
        if (m_atomic) m_atomic->commit();
    }

private:
    [[noreturn]] static void failOpen(const std::string& path) {
        throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }

    std::string m_path;
    std::FILE* m_file = nullptr;
    std::optional<AtomicFile> m_atomic; ///< empty for stdout and non-regular targets
};

void writeAll(std::FILE* file, const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), file) != text.size())
        throw std::runtime_error("cannot write the export (disk full?)");
}

// `--from`/`--to` as cycles of the trace: cycles, or a time in ns, us, ms or s at the run's
// clock (prof::parseQuantity, as arch values are read); any other unit is refused.
std::int64_t parseTimePoint(const std::string& option, const std::string& text, double hz) {
    static constexpr std::string_view kTimeUnits[] = {"", "cycle", "cycles", "ns", "us", "ms", "s"};
    const std::size_t lastDigit = text.find_last_of("0123456789.");
    std::string_view unit = lastDigit == std::string::npos
                                ? std::string_view(text)
                                : std::string_view(text).substr(lastDigit + 1);
    unit.remove_prefix(std::min(unit.find_first_not_of(' '), unit.size()));
    double cycles = 0;
    if (std::find(std::begin(kTimeUnits), std::end(kTimeUnits), unit) != std::end(kTimeUnits) &&
        prof::parseQuantity(text, hz, cycles) && std::isfinite(cycles) && std::abs(cycles) <= 9e18)
        return std::int64_t(std::llround(cycles));
    throw std::invalid_argument(
        fmt::format("{} '{}': expected a time such as 12000 (cycles), 2.5us, 40ns, 1.2ms or 0.5s",
                    option, text));
}

bool isTimeline(const ExportArgs& args) {
    return args.format == "chrome" || args.format == "csv";
}

// An option of another format is refused, not ignored: --from/--to choose a timeline's slices,
// --stage a graph.
void refuseOptionsOfOtherFormats(const ExportArgs& args) {
    if ((args.from || args.to) && !isTimeline(args))
        throw std::invalid_argument(
            fmt::format("--from and --to choose the slices of a chrome or csv export, "
                        "not of --format {}",
                        args.format));
    if (!args.stage.empty() && isTimeline(args))
        throw std::invalid_argument(
            fmt::format("--stage chooses the IR stage of a dot, svg or html export, not of "
                        "--format {} (a timeline of the whole run; --from and --to choose a part)",
                        args.format));
}

// "--from 5ms --to 6ms", as the user gave the window.
std::string windowText(const ExportArgs& args) {
    std::string text = args.from ? "--from " + *args.from : "";
    if (args.to) text += (text.empty() ? "--to " : " --to ") + *args.to;
    return text;
}

// A window that no slice overlaps (a unit typo: --from 5ms of a 6.7 us run) is refused with
// the run's extent, not written as an empty timeline.
void requireSlicesIn(const tracedb::TraceReader& reader, const prof::TimeWindow& window, double hz,
                     const ExportArgs& args) {
    const auto number = [&](const std::string& sql, std::size_t column = 0) {
        const auto rows = reader.query(sql).rows;
        const auto* n = rows.empty() ? nullptr : std::get_if<std::int64_t>(&rows[0][column]);
        return n ? *n : 0;
    };
    if (number(fmt::format("SELECT EXISTS(SELECT 1 FROM slice WHERE ts < {} AND (ts >= {} OR "
                           "ts + max(dur, 0) > {}))",
                           window.to, window.from, window.from)))
        return;
    const std::string extent = "SELECT min(ts), max(ts + max(dur, 0)) FROM slice";
    const std::int64_t start = number(extent, 0), end = number(extent, 1);
    // A measured trace's times are nanoseconds (its clock_hz is 1 GHz), not cycles.
    const bool measured = prof::isMeasuredTrace(reader);
    throw std::invalid_argument(fmt::format(
        "the window {} holds no slice of the run, which spans {} {} to {} ({:.3f} us to {:.3f} "
        "us{}): the export would be empty",
        windowText(args), measured ? "ns" : "cycles", start, end, double(start) / hz * 1e6,
        double(end) / hz * 1e6, measured ? "" : " at the run's clock"));
}

prof::TimeWindow timeWindow(const tracedb::TraceReader& reader, const ExportArgs& args) {
    prof::TimeWindow window;
    if (!args.from && !args.to) return window;
    const double hz = prof::runClockHz(reader);
    if (args.from) window.from = parseTimePoint("--from", *args.from, hz);
    if (args.to) window.to = parseTimePoint("--to", *args.to, hz);
    if (window.from >= window.to)
        throw std::invalid_argument(fmt::format(
            "--from {} is not before --to {}: the window is empty", *args.from, *args.to));
    requireSlicesIn(reader, window, hz, args);
    return window;
}

void warnIfLarge(const prof::ExportCounts& counts) {
    if (counts.bytes < kLargeChromeBytes) return;
    fmt::print(stderr,
               "warning: the Chrome trace is {:.2f} GB ({} slices): Perfetto's UI in a browser "
               "typically has about 2 GB of memory for a trace, and its parsed form is larger "
               "than the file; export a part with --from/--to, or open it through "
               "`trace_processor --httpd`\n",
               double(counts.bytes) / 1e9, counts.slices);
}

// The report with the chosen stage's graph inlined (skipped, with a note, when too large).
std::string htmlReport(const tracedb::TraceReader& reader, const ExportArgs& args) {
    prof::Profile profile = prof::analyze(prof::loadRunModel(reader));
    for (const std::string& warning : profile.model.fileWarnings)
        fmt::print(stderr, "warning: trace '{}': {}\n", args.file, warning);
    prof::HtmlOptions options;
    try {
        auto stage = prof::findStage(reader, args.stage);
        options.graphTitle = "Graph of stage " + stage.name;
        options.graphSvg = prof::stageSvg(reader, stage);
    } catch (const std::invalid_argument& e) {
        options.graphSvg = "<p>" + prof::htmlEscape(e.what()) + "</p>";
    }
    return prof::renderHtmlReport(profile, options);
}

int runExport(const ExportArgs& args) {
    refuseOptionsOfOtherFormats(args);
    if (args.output != "-")
        tracedb::requireNotInput(args.output, args.file, "the trace being exported");
    auto reader = tracedb::TraceReader::open(args.file);
    // An empty timeline with exit 0 would hide a mistaken `pto compile`: refused as html does.
    if (isTimeline(args)) prof::requireRun(reader);
    const prof::TimeWindow window = timeWindow(reader, args);
    OutputFile out(args.output);
    ProgressBar bar("exporting");
    auto progress = [&](double f) { bar.update(f); };
    if (args.format == "chrome") {
        warnIfLarge(prof::exportChromeJson(reader, out.get(), progress, window));
    } else if (args.format == "csv") {
        prof::exportSlicesCsv(reader, out.get(), progress, window);
    } else if (args.format == "dot" || args.format == "svg") {
        auto stage = prof::findStage(reader, args.stage);
        bar.setLabel("laying out");
        std::string text =
            args.format == "dot" ? prof::stageDot(reader, stage) : prof::stageSvg(reader, stage);
        writeAll(out.get(), text);
    } else {
        writeAll(out.get(), htmlReport(reader, args));
    }
    bar.done();
    out.commit();
    return kExitOk;
}

} // namespace

void registerExport(CLI::App& app, Action& action) {
    auto args = std::make_shared<ExportArgs>();
    CLI::App* cmd = app.add_subcommand(
        "export", "Export a trace: Chrome/Perfetto JSON, CSV of slices, DOT/SVG of an IR stage, "
                  "or a self-contained HTML report");
    cmd->add_option("file", args->file, "trace file")->required();
    cmd->add_option("--format", args->format, "chrome, csv, dot, svg or html (default chrome)")
        ->check(CLI::IsMember({"chrome", "csv", "dot", "svg", "html"}));
    cmd->add_option("-o,--output", args->output, "output file (default: standard output)");
    cmd->add_option("--stage", args->stage,
                    "IR stage for dot, svg and the graph of html: a stage name "
                    "(tile.expand-tiles), a level (tensor, tile, block, exec: its last stage) or "
                    "an id (the id pto info lists); default the parsed program");
    auto text = std::make_shared<std::pair<std::string, std::string>>();
    auto* from = cmd->add_option(
        "--from", text->first,
        "chrome and csv: only what overlaps the run from this time on: cycles (12000) or a time "
        "with its unit (2.5us, 40ns, 1.2ms, 0.5s)");
    auto* to =
        cmd->add_option("--to", text->second, "chrome and csv: only what starts before this time");
    cmd->callback([args, text, &action, from, to] {
        if (from->count()) args->from = text->first;
        if (to->count()) args->to = text->second;
        action = [args] { return runExport(*args); };
    });
}

} // namespace pto::cli
