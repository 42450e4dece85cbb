// `pto import`: which files of the input to read, reading them, merging and writing.
#include "importer/Importer.h"

#include "importer/Csv.h"
#include "importer/ImportError.h"
#include "importer/InputFiles.h"
#include "importer/KernelCsv.h"
#include "importer/ModelChecks.h"
#include "importer/ProfilerDb.h"
#include "importer/StepCsv.h"
#include "importer/TextBesideDb.h"
#include "importer/TraceViewJson.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace pto::importer {
namespace {

namespace fs = std::filesystem;

bool startsWith(const fs::path& p, std::string_view prefix, std::string_view ext) {
    std::string name = p.filename().string();
    return name.starts_with(prefix) && p.extension() == ext;
}

// The files of `dir` named prefix*ext, sorted; ImportError for one that is not a file.
std::vector<fs::path> allMatching(const fs::path& dir, std::string_view prefix,
                                  std::string_view ext) {
    std::vector<fs::path> found;
    for (const fs::path& entry : listFolder(dir))
        if (startsWith(entry, prefix, ext)) found.push_back(existingFile(entry));
    return found;
}

fs::path firstMatching(const fs::path& dir, std::string_view prefix, std::string_view ext) {
    std::vector<fs::path> found = allMatching(dir, prefix, ext);
    return found.empty() ? fs::path() : found.front();
}

// The text files beside a profiler .db, compared with it (importer/TextBesideDb.h).
std::vector<fs::path> textFiles(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const char* name : {"trace_view.json", "kernel_details.csv", "step_trace_time.csv"})
        if (fs::path file = existingFile(dir / name); !file.empty()) files.push_back(file);
    for (const fs::path& file : allMatching(dir, "op_summary", ".csv")) files.push_back(file);
    return files;
}

InputPlan planFolder(fs::path dir) {
    if (pathKind(dir / "ASCEND_PROFILER_OUTPUT") == PathKind::Folder)
        dir /= "ASCEND_PROFILER_OUTPUT";
    InputPlan plan;
    plan.profilerDb = firstMatching(dir, "ascend_pytorch_profiler", ".db");
    if (plan.profilerDb.empty()) plan.profilerDb = firstMatching(dir, "msprof_", ".db");
    plan.analysisDb = existingFile(dir / "analysis.db");
    if (!plan.profilerDb.empty()) {
        plan.format = "profiler db";
        plan.notRead = textFiles(dir);
        return plan;
    }
    plan.traceView = existingFile(dir / "trace_view.json");
    plan.kernelCsv = existingFile(dir / "kernel_details.csv");
    if (plan.kernelCsv.empty()) plan.kernelCsv = firstMatching(dir, "op_summary", ".csv");
    plan.stepCsv = existingFile(dir / "step_trace_time.csv");
    if (plan.traceView.empty() && plan.kernelCsv.empty() && plan.analysisDb.empty() &&
        plan.stepCsv.empty())
        throw ImportError(fmt::format(
            "{}: no profiler output here; expected an ASCEND_PROFILER_OUTPUT folder holding "
            "trace_view.json, kernel_details.csv, op_summary_*.csv, step_trace_time.csv or a "
            "profiler .db",
            dir.string()));
    plan.format = "profiler text";
    return plan;
}

// A CSV is read by what its header holds, whatever its name.
InputPlan planCsv(const fs::path& file) {
    InputPlan plan;
    CsvTable table(file);
    if (table.column("Start Time(us)") >= 0) {
        plan.kernelCsv = file;
        plan.format = "kernel csv";
    } else if (table.column("Step") >= 0 && table.column("Computing") >= 0) {
        plan.stepCsv = file;
        plan.format = "step csv";
    } else {
        throw ImportError(fmt::format(
            "{}:1: the header has neither 'Start Time(us)' (kernel_details.csv, op_summary.csv) "
            "nor 'Step' and 'Computing' (step_trace_time.csv); expected one of those files",
            file.string()));
    }
    return plan;
}

// Kernels of trace_view.json and rows of kernel_details.csv are the same device tasks. A
// row finds its kernel by stream and start time; a row without a stream (level 0 writes no
// Stream ID column), or whose stream finds none, by start time, the kernel of the same name
// first. Each kernel is claimed once.
class KernelMatcher {
public:
    explicit KernelMatcher(const std::vector<Kernel>& kernels) : m_kernels(kernels) {
        m_taken.assign(kernels.size(), false);
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            m_byStream.emplace(std::pair(kernels[i].stream.value_or(-1), kernels[i].startNs), i);
            m_byStart.emplace(kernels[i].startNs, i);
        }
    }

    /// The index of the kernel `row` stands for, claimed; nullopt when there is none.
    std::optional<std::size_t> claim(const Kernel& row) {
        std::optional<std::size_t> at;
        if (row.stream)
            if (auto it = m_byStream.find({*row.stream, row.startNs});
                it != m_byStream.end() && !m_taken[it->second])
                at = it->second;
        if (!at) at = byStart(row);
        if (at) m_taken[*at] = true;
        return at;
    }

private:
    std::optional<std::size_t> byStart(const Kernel& row) const {
        auto [from, to] = m_byStart.equal_range(row.startNs);
        std::optional<std::size_t> free;
        for (auto it = from; it != to; ++it) {
            if (m_taken[it->second]) continue;
            if (m_kernels[it->second].name == row.name) return it->second;
            if (!row.stream && !free) free = it->second; // a row with a stream keeps to its name
        }
        return free;
    }

    const std::vector<Kernel>& m_kernels;
    std::vector<bool> m_taken;
    std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> m_byStream;
    std::multimap<std::int64_t, std::size_t> m_byStart;
};

// What the trace_view kernel knows and the row does not (level 0 rows have no stream, and
// 'N/A' for the core type).
void fillFrom(Kernel& row, const Kernel& timeline) {
    if (!row.stream) row.stream = timeline.stream;
    if (!row.taskId) row.taskId = timeline.taskId;
    if (row.coreType.empty() || row.coreType == "N/A") row.coreType = timeline.coreType;
}

// The details model's files appended to the timeline's; its sources moved along.
void moveSources(ImportModel& timeline, ImportModel& details) {
    const auto offset = std::int32_t(timeline.sourceFiles.size());
    for (SourceFile& f : details.sourceFiles) timeline.sourceFiles.push_back(std::move(f));
    for (Kernel& k : details.kernels)
        if (k.source.file >= 0) k.source.file += offset;
    for (Span& s : details.spans)
        if (s.source.file >= 0) s.source.file += offset;
}

void countUnmatched(ImportModel& timeline, std::size_t kernels, std::size_t rowsUnmatched,
                    const std::string& firstRow) {
    if (kernels == 0) return;
    if (rowsUnmatched > 0)
        timeline.count("import_row_unmatched", tracedb::StatSeverity::DataLoss,
                       "a kernel_details.csv row that matches no trace_view.json kernel by stream "
                       "and start or by start and name (both kept: the kernel may be counted "
                       "twice)",
                       std::int64_t(rowsUnmatched), firstRow);
}

void mergeKernels(ImportModel& timeline, ImportModel& details) {
    moveSources(timeline, details);
    const std::size_t timelineKernels = timeline.kernels.size();
    KernelMatcher matcher(timeline.kernels);
    std::size_t matched = 0, unmatched = 0;
    std::string firstUnmatched;
    for (Kernel& k : details.kernels) {
        if (auto at = matcher.claim(k)) {
            fillFrom(k, timeline.kernels[*at]);
            timeline.kernels[*at] = std::move(k);
            ++matched;
            continue;
        }
        if (unmatched++ == 0)
            firstUnmatched =
                fmt::format("{}: '{}' at {} ns", timeline.where(k.source), k.name, k.startNs);
        timeline.kernels.push_back(std::move(k));
    }
    countUnmatched(timeline, timelineKernels, unmatched, firstUnmatched);
    if (timelineKernels > matched)
        timeline.count("import_kernel_without_details", tracedb::StatSeverity::Info,
                       "a trace_view.json kernel with no kernel_details.csv row at its stream and "
                       "start (kept without pipe figures)",
                       std::int64_t(timelineKernels - matched));
    timeline.countAll(details);
    for (Span& s : details.spans) {
        Lane lane = details.lanes[s.lane];
        s.lane = timeline.laneOf(lane);
        timeline.spans.push_back(std::move(s));
    }
    timeline.rowsRead += details.rowsRead;
}

} // namespace

InputPlan planImport(const fs::path& path) {
    switch (pathKind(path)) {
    case PathKind::Folder:
        return planFolder(path);
    case PathKind::Missing:
        throw ImportError(fmt::format("{}: no such file or folder", path.string()));
    case PathKind::DanglingLink:
        existingFile(path); // throws, naming the link's target
        break;
    case PathKind::Other:
        throw ImportError(fmt::format("{}: not a regular file or folder", path.string()));
    case PathKind::File:
        break;
    }
    InputPlan plan;
    std::string ext = path.extension().string();
    if (ext == ".json") {
        plan.traceView = path;
        plan.format = "trace_view json";
    } else if (ext == ".csv") {
        plan = planCsv(path);
    } else if (ext == ".db") {
        (path.filename() == "analysis.db" ? plan.analysisDb : plan.profilerDb) = path;
        plan.format = "profiler db";
    } else {
        throw ImportError(fmt::format(
            "{}: not a file pto import reads; expected an ASCEND_PROFILER_OUTPUT folder, "
            "trace_view.json, kernel_details.csv, op_summary_*.csv, step_trace_time.csv or a "
            "profiler .db",
            path.string()));
    }
    return plan;
}

ImportModel readInputs(const InputPlan& plan) {
    ImportModel model;
    if (!plan.profilerDb.empty()) readProfilerDb(plan.profilerDb, model);
    if (!plan.notRead.empty()) checkTextBesideDb(plan.profilerDb, plan.notRead, model);
    if (!plan.analysisDb.empty()) readProfilerDb(plan.analysisDb, model);
    if (!plan.traceView.empty()) readTraceViewJson(plan.traceView, model);
    if (!plan.kernelCsv.empty()) {
        ImportModel details;
        readKernelCsv(plan.kernelCsv, details);
        mergeKernels(model, details);
    }
    if (!plan.stepCsv.empty()) readStepCsv(plan.stepCsv, model);
    dropTimesOutsideTheRun(model);
    replaceInvalidUtf8(model);
    model.meta["source_format"] = plan.format;
    return model;
}

ImportSummary importProfile(const fs::path& input, const fs::path& output) {
    InputPlan plan = planImport(input);
    ImportModel model = readInputs(plan);
    if (model.kernels.empty() && model.stepFigures.empty()) { // nothing any analysis reads
        std::int64_t skipped = 0;
        std::string first, empty;
        for (const auto& [key, counted] : model.problems) {
            if (key.first == "import_file_empty" && empty.empty()) empty = key.second + "; ";
            if (key.first != "import_row_skipped") continue;
            skipped += counted.n;
            if (first.empty() && !counted.first.empty())
                first = fmt::format(", the first at {}", counted.first);
        }
        throw ImportError(fmt::format(
            "{}: no device kernels or step times ({}{} input rows read, {} skipped for a missing "
            "or invalid time{}); give a folder or file with kernels: kernel_details.csv, "
            "trace_view.json, op_summary*.csv or a profiler .db with TASK rows (docs/IMPORT.md)",
            input.string(), empty, model.rowsRead, skipped, first));
    }
    model.meta["source_path"] = fs::absolute(input).lexically_normal().string();
    model.meta["entry"] = input.filename().string();
    return writeMeasuredTrace(model, output);
}

} // namespace pto::importer
