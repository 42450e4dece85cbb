// Reader of step_trace_time.csv.
#include "importer/StepCsv.h"

#include "importer/Csv.h"
#include "importer/Text.h"

#include <fmt/format.h>

namespace pto::importer {

void readStepCsv(const std::filesystem::path& path, ImportModel& model) {
    CsvTable table(path);
    int stepColumn = table.require("Step", "a step_trace_time.csv header needs the column Step");
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
    table.countRagged(model);
}

} // namespace pto::importer
