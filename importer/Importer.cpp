// `pto import`: which files of the input to read, reading them, merging and writing.
#include "importer/Importer.h"

#include "importer/Csv.h"
#include "importer/ImportError.h"
#include "importer/KernelCsv.h"
#include "importer/ProfilerDb.h"
#include "importer/StepCsv.h"
#include "importer/TraceViewJson.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace pto::importer {
namespace {

namespace fs = std::filesystem;

bool startsWith(const fs::path& p, std::string_view prefix, std::string_view ext) {
    std::string name = p.filename().string();
    return name.starts_with(prefix) && p.extension() == ext;
}

fs::path firstMatching(const fs::path& dir, std::string_view prefix, std::string_view ext) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.is_regular_file() && startsWith(entry.path(), prefix, ext))
            found.push_back(entry.path());
    std::sort(found.begin(), found.end());
    return found.empty() ? fs::path() : found.front();
}

InputPlan planFolder(fs::path dir) {
    if (fs::is_directory(dir / "ASCEND_PROFILER_OUTPUT")) dir /= "ASCEND_PROFILER_OUTPUT";
    InputPlan plan;
    plan.profilerDb = firstMatching(dir, "ascend_pytorch_profiler", ".db");
    if (plan.profilerDb.empty()) plan.profilerDb = firstMatching(dir, "msprof_", ".db");
    if (fs::is_regular_file(dir / "analysis.db")) plan.analysisDb = dir / "analysis.db";
    if (!plan.profilerDb.empty()) {
        plan.format = "profiler db";
        return plan;
    }
    if (fs::is_regular_file(dir / "trace_view.json")) plan.traceView = dir / "trace_view.json";
    if (fs::is_regular_file(dir / "kernel_details.csv"))
        plan.kernelCsv = dir / "kernel_details.csv";
    else
        plan.kernelCsv = firstMatching(dir, "op_summary", ".csv");
    if (fs::is_regular_file(dir / "step_trace_time.csv"))
        plan.stepCsv = dir / "step_trace_time.csv";
    if (plan.traceView.empty() && plan.kernelCsv.empty() && plan.analysisDb.empty())
        throw ImportError(fmt::format(
            "{}: no profiler output here; expected an ASCEND_PROFILER_OUTPUT folder holding "
            "trace_view.json, kernel_details.csv, op_summary_*.csv or a profiler .db",
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

// Kernels of trace_view.json and rows of kernel_details.csv are the same device tasks: a
// kernel_details row replaces the trace_view kernel of its stream and start time (it carries
// the core type and the pipe figures); the trace_view kernels left keep what they have.
void mergeKernels(ImportModel& timeline, ImportModel& details) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> at;
    for (std::size_t i = 0; i < timeline.kernels.size(); ++i)
        at[{timeline.kernels[i].stream.value_or(-1), timeline.kernels[i].startNs}] = i;
    const std::size_t timelineKernels = timeline.kernels.size();
    std::size_t matched = 0;
    for (Kernel& k : details.kernels) {
        auto it = at.find({k.stream.value_or(-1), k.startNs});
        if (it != at.end()) {
            timeline.kernels[it->second] = std::move(k);
            ++matched;
        } else {
            timeline.kernels.push_back(std::move(k));
        }
    }
    const std::size_t unmatched = timelineKernels - std::min(matched, timelineKernels);
    if (unmatched > 0)
        timeline.count("import_kernel_without_details", tracedb::StatSeverity::Info,
                       "a trace_view.json kernel with no kernel_details.csv row at its stream and "
                       "start (kept without pipe figures)",
                       std::int64_t(unmatched));
    for (auto& [key, n] : details.problems) timeline.problems[key] += n;
    for (auto& [name, severity] : details.severities) timeline.severities[name] = severity;
    for (Span& s : details.spans) {
        Lane lane = details.lanes[s.lane];
        s.lane = timeline.laneOf(lane);
        timeline.spans.push_back(std::move(s));
    }
    timeline.rowsRead += details.rowsRead;
}

} // namespace

InputPlan planImport(const fs::path& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) return planFolder(path);
    if (!fs::exists(path, ec))
        throw ImportError(fmt::format("{}: no such file or folder", path.string()));
    if (!fs::is_regular_file(path, ec))
        throw ImportError(fmt::format("{}: not a regular file or folder", path.string()));
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
    if (!plan.analysisDb.empty()) readProfilerDb(plan.analysisDb, model);
    if (!plan.traceView.empty()) readTraceViewJson(plan.traceView, model);
    if (!plan.kernelCsv.empty()) {
        ImportModel details;
        readKernelCsv(plan.kernelCsv, details);
        mergeKernels(model, details);
    }
    if (!plan.stepCsv.empty()) readStepCsv(plan.stepCsv, model);
    model.meta["source_format"] = plan.format;
    return model;
}

ImportSummary importProfile(const fs::path& input, const fs::path& output) {
    InputPlan plan = planImport(input);
    ImportModel model = readInputs(plan);
    if (model.kernels.empty() && model.stepFigures.empty()) { // nothing any analysis reads
        std::int64_t skipped = 0;
        for (const auto& [key, n] : model.problems)
            if (key.first == "import_row_skipped") skipped += n;
        throw ImportError(fmt::format(
            "{}: no device kernels or step times ({} input rows read, {} skipped for a missing or "
            "invalid time); give a folder or file with kernels: kernel_details.csv, "
            "trace_view.json, op_summary*.csv or a profiler .db with TASK rows (docs/IMPORT.md)",
            input.string(), model.rowsRead, skipped));
    }
    model.meta["source_path"] = fs::absolute(input).lexically_normal().string();
    model.meta["entry"] = input.filename().string();
    return writeMeasuredTrace(model, output);
}

} // namespace pto::importer
