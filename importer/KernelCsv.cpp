// Reader of kernel_details.csv and op_summary_*.csv.
#include "importer/KernelCsv.h"

#include "importer/Csv.h"
#include "importer/ImportError.h"
#include "importer/ModelChecks.h"
#include "importer/Text.h"

#include <fmt/format.h>

#include <array>

namespace pto::importer {
namespace {

// Columns read as args besides the aic_* / aiv_* pipe columns.
constexpr std::array<std::string_view, 17> kArgColumns{"Step Id",
                                                       "Model ID",
                                                       "OP State",
                                                       "Wait Time(us)",
                                                       "Task Wait Time(us)",
                                                       "Block Dim",
                                                       "Mix Block Dim",
                                                       "HF32 Eligible",
                                                       "Input Shapes",
                                                       "Input Data Types",
                                                       "Input Formats",
                                                       "Output Shapes",
                                                       "Output Data Types",
                                                       "Output Formats",
                                                       "Context ID",
                                                       "cube_utilization(%)",
                                                       "Task ID"};

// The columns of one file kind, found by name (the two kinds spell some differently).
struct Columns {
    int name = -1, type = -1, core = -1, start = -1, dur = -1, stream = -1, task = -1;
    std::vector<std::pair<int, std::string>> args; // column → arg key
};

// The two kinds of per-kernel CSV spell their columns differently; the header says which.
struct Kind {
    std::string_view file, name, type, core, dur;
};
constexpr Kind kKernelDetails{"kernel_details.csv", "Name", "Type", "Accelerator Core",
                              "Duration(us)"};
constexpr Kind kOpSummary{"op_summary_*.csv", "Op Name", "OP Type", "Task Type",
                          "Task Duration(us)"};

const Kind& kindOf(const CsvTable& table) {
    const bool details = table.column("Name") >= 0 || table.column("Accelerator Core") >= 0 ||
                         table.column("Duration(us)") >= 0;
    return details ? kKernelDetails : kOpSummary;
}

// "a kernel_details.csv header (it has 'Name') needs Name, Type, Accelerator Core, Start
// Time(us) and Duration(us)".
std::string needs(const Kind& k) {
    return fmt::format("the header is a {} header, which needs the columns {}, {}, {}, Start "
                       "Time(us) and {}",
                       k.file, k.name, k.type, k.core, k.dur);
}

bool isArgColumn(const std::string& header) {
    if (header.starts_with("aic_") || header.starts_with("aiv_") || header == "aicore_time(us)")
        return true;
    for (std::string_view known : kArgColumns)
        if (header == known) return true;
    return false;
}

Columns findColumns(const CsvTable& table, ImportModel& model) {
    Columns c;
    const Kind& kind = kindOf(table);
    const std::string need = needs(kind);
    c.name = table.require(kind.name, need);
    c.type = table.require(kind.type, need);
    c.core = table.require(kind.core, need);
    c.start = table.require("Start Time(us)", need);
    c.dur = table.require(kind.dur, need);
    c.stream = table.column("Stream ID");
    c.task = table.column("Task ID");
    const std::string file = std::filesystem::path(table.name()).filename().string();
    for (std::size_t i = 0; i < table.header().size(); ++i) {
        int index = int(i);
        if (index == c.name || index == c.type || index == c.core || index == c.start ||
            index == c.dur || index == c.stream)
            continue;
        const std::string& header = table.header()[i];
        if (isArgColumn(header))
            c.args.emplace_back(index, argKey(header));
        else
            model.count("import_unknown_column", tracedb::StatSeverity::Info,
                        fmt::format("{}: column '{}' is not read", file, header));
    }
    return c;
}

// A column of per-pipe figures (times, ratios, cycles, bandwidths): a number or N/A.
bool isPipeColumn(std::string_view key) {
    return key.starts_with("aic_") || key.starts_with("aiv_") || key == "aicore_time_us";
}

// An integer column's value as an integer, any other number as a real, else the text.
tracedb::ArgValue argValue(const std::string& key, const std::string& text) {
    if (isIntegerArg(key))
        if (auto integer = parseInt(text)) return *integer;
    if (auto real = parseReal(text)) return *real;
    return std::string(trim(text));
}

} // namespace

std::string coreTypeOf(std::string_view ascend) {
    if (ascend == "AI_CORE") return "AIC";
    if (ascend == "AI_VECTOR_CORE") return "AIV";
    return std::string(ascend);
}

bool isCommunication(std::string_view ascend) {
    return ascend == "HCCL" || ascend == "COMMUNICATION";
}

void readKernelCsv(const std::filesystem::path& path, ImportModel& model) {
    CsvTable table(path);
    Columns c = findColumns(table, model);
    const std::string file = path.filename().string();
    const std::int32_t fileIndex = model.addSourceFile(file, "line");
    DuplicateRows duplicates(file, "line", "a row");
    std::vector<std::string> f;
    while (table.next(f)) {
        ++model.rowsRead;
        const Source source{fileIndex, std::int64_t(table.line())};
        auto start = microsToNanos(f[std::size_t(c.start)]);
        auto dur = microsToNanos(f[std::size_t(c.dur)]);
        if (!start || !dur || *dur < 0) {
            const bool badStart = !start;
            const int column = badStart ? c.start : c.dur;
            model.count(
                "import_row_skipped", tracedb::StatSeverity::DataLoss,
                fmt::format("{}: a row without a valid start time or duration", file), 1,
                fmt::format("line {}: {}", table.line(),
                            badValue(table.header()[std::size_t(column)], f[std::size_t(column)])));
            continue;
        }
        if (duplicates.seen(f, std::int64_t(table.line()))) continue;
        const std::string core(trim(f[std::size_t(c.core)]));
        Args args;
        args.reserve(c.args.size() + 2); // grown by doubling, 40 args held 64 slots
        for (const auto& [index, key] : c.args) {
            const std::string& cell = f[std::size_t(index)];
            if (trim(cell) == "N/A" || trim(cell).empty()) continue;
            if (isPipeColumn(key) && !parseReal(cell)) { // unknown, not 0 and not text
                model.count("import_value_skipped", tracedb::StatSeverity::DataLoss,
                            fmt::format("{}: a pipe figure that is not a number (left out: "
                                        "unknown, not 0)",
                                        file),
                            1,
                            fmt::format("line {}: {}", table.line(),
                                        badValue(table.header()[std::size_t(index)], cell)));
                continue;
            }
            args.emplace_back(key, argValue(key, cell));
        }
        args.emplace_back("op_type", std::string(trim(f[std::size_t(c.type)])));
        args.emplace_back("accelerator_core", core);
        if (isCommunication(core)) {
            std::size_t lane = model.laneOf(Lane{.group = "Communication", .name = "HCCL ops"});
            model.spans.push_back(Span{.lane = lane,
                                       .name = f[std::size_t(c.name)],
                                       .startNs = *start,
                                       .durNs = *dur,
                                       .args = std::move(args),
                                       .source = source});
            continue;
        }
        Kernel k;
        k.name = trim(f[std::size_t(c.name)]);
        k.opType = trim(f[std::size_t(c.type)]);
        k.coreType = coreTypeOf(core);
        if (c.stream >= 0) k.stream = parseInt(f[std::size_t(c.stream)]);
        if (c.task >= 0) k.taskId = parseInt(f[std::size_t(c.task)]);
        k.startNs = *start;
        k.durNs = *dur;
        k.args = std::move(args);
        k.source = source;
        model.kernels.push_back(std::move(k));
    }
    table.countProblems(model);
    duplicates.countIn(model);
}

} // namespace pto::importer
