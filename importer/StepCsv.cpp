// Reader of step_trace_time.csv.
#include "importer/StepCsv.h"

#include "importer/Csv.h"
#include "importer/Text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace pto::importer {
namespace {

// The columns torch_npu writes besides Step; others are read too (a newer profiler's), but
// counted, so that a header cut short ("Communicatio") is seen.
constexpr std::array<std::string_view, 9> kStepColumns{
    "Computing",  "Communication(Not Overlapped)",
    "Overlapped", "Communication",
    "Free",       "Stage",
    "Bubble",     "Communication(Not Overlapped and Exclude Receive)",
    "Preparing",
};

void countUnknownColumns(const CsvTable& table, int stepColumn, ImportModel& model) {
    const std::string file = std::filesystem::path(table.name()).filename().string();
    for (std::size_t i = 0; i < table.header().size(); ++i) {
        const std::string& header = table.header()[i];
        if (int(i) == stepColumn ||
            std::find(kStepColumns.begin(), kStepColumns.end(), header) != kStepColumns.end())
            continue;
        model.count("import_unknown_column", tracedb::StatSeverity::Info,
                    fmt::format("{}: column '{}' is not one pto import knows (read as the step "
                                "figure '{}_us')",
                                file, header, argKey(header)));
    }
}

} // namespace

void readStepCsv(const std::filesystem::path& path, ImportModel& model) {
    CsvTable table(path);
    int stepColumn = table.require("Step", "a step_trace_time.csv header needs the column Step");
    countUnknownColumns(table, stepColumn, model);
    std::vector<std::string> f;
    while (table.next(f)) {
        ++model.rowsRead;
        StepFigures step;
        auto id = parseInt(f[std::size_t(stepColumn)]);
        if (!id) {
            model.count(
                "import_row_skipped", tracedb::StatSeverity::DataLoss,
                fmt::format("{}: a row whose Step is not a number", path.filename().string()), 1,
                fmt::format("line {}: {}", table.line(),
                            badValue("Step", f[std::size_t(stepColumn)])));
            continue;
        }
        step.step = *id;
        for (std::size_t i = 0; i < f.size(); ++i)
            if (int(i) != stepColumn)
                if (auto value = parseReal(f[i]))
                    step.values.emplace_back(argKey(table.header()[i]), *value);
        model.stepFigures.push_back(std::move(step));
    }
    table.countProblems(model);
}

} // namespace pto::importer
