// Reader of ascend_pytorch_profiler_N.db, msprof_N.db and analysis.db.
#include "importer/ProfilerDb.h"

#include "importer/ImportError.h"
#include "importer/KernelCsv.h"
#include "importer/ModelChecks.h"
#include "importer/SourceDb.h"
#include "importer/Text.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace pto::importer {
namespace {

using tracedb::StatSeverity;

class DbReader {
public:
    DbReader(SourceDb& db, ImportModel& model)
        : m_db(db), m_model(model),
          m_taskDuplicates(std::filesystem::path(db.name()).filename().string(), "TASK rowid",
                           "a TASK row") {}

    void read() {
        bool timeline = m_db.hasTable("TASK");
        bool steps = m_db.hasTable("StepTraceTime");
        if (!timeline && !steps)
            throw ImportError(fmt::format("{}: no table TASK (kernels) or StepTraceTime (steps); "
                                          "expected a torch_npu or msprof profiler database",
                                          m_db.name()));
        if (m_db.hasTable("STRING_IDS"))
            m_db.forEach("SELECT id, value FROM STRING_IDS",
                         [&](const DbRow& r) { m_strings[r.integer(0)] = r.text(1); });
        if (timeline) {
            m_taskText = rowText("TASK", "t");
            readKernels();
            readOtherTasks();
            m_taskDuplicates.countIn(m_model);
            readPmu();
            readCommunication();
            readApi("PYTORCH_API", "PyTorch");
            readApi("CANN_API", "CANN");
            readFlows();
            readSteps();
            for (Pending& p : m_kernels) m_model.kernels.push_back(std::move(p.kernel));
        }
        if (steps) readStepFigures();
        countUnreadTables();
    }

private:
    struct Pending {
        std::int64_t connection = -1;
        Kernel kernel;
    };

    // A row's [start, end) from two integer columns (startNs, endNs), or nullopt, counted
    // with the row id and the values, when they are not times.
    std::optional<std::pair<std::int64_t, std::int64_t>>
    interval(const DbRow& r, int from, const std::string& table, std::int64_t rowid) {
        auto start = integerOf(r, from), end = integerOf(r, from + 1);
        if (start && end && validNanos(*start) && validNanos(*end) && *end >= *start)
            return std::pair(*start, *end - *start);
        m_model.count("import_row_skipped", StatSeverity::DataLoss,
                      fmt::format("{}: a {} row whose startNs and endNs are not integer times "
                                  "(end at or after start)",
                                  shortName(), table),
                      1,
                      fmt::format("{} rowid {}: startNs = {}, endNs = {}", table, rowid,
                                  shown(r, from), shown(r, from + 1)));
        return std::nullopt;
    }

    // SQL giving the whole row of `table` (alias `alias`) as one text, each cell quoted with
    // its type ('5', 5 and 5.0 differ): two rows are identical when their texts are.
    std::string rowText(const std::string& table, const std::string& alias) {
        std::string sql;
        m_db.forEach("SELECT name FROM pragma_table_info('" + table + "')", [&](const DbRow& r) {
            std::string name = r.text(0), quoted;
            for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
            sql +=
                (sql.empty() ? "" : " || ',' || ") + fmt::format("quote({}.\"{}\")", alias, quoted);
        });
        return sql.empty() ? "''" : sql;
    }

    // Whether a TASK row is identical to an earlier one (counted, dropped by the caller).
    bool repeatedTask(const DbRow& r, int textColumn, std::int64_t rowid) {
        return m_taskDuplicates.seen(r.text(textColumn), rowid);
    }

    // A number cell, or a text cell holding one; nullopt for NULL, a blob or other text.
    static std::optional<double> numberOf(const DbRow& r, int column) {
        if (r.isInteger(column) || r.isReal(column)) return r.real(column);
        if (r.isText(column)) return parseReal(r.text(column));
        return std::nullopt;
    }

    // An integer cell, or a text cell holding one (some exports store times as text); nullopt
    // for NULL, a real, a blob or other text ('abc' is no time, not 0).
    static std::optional<std::int64_t> integerOf(const DbRow& r, int column) {
        if (r.isInteger(column)) return r.integer(column);
        if (r.isText(column)) return parseInt(r.text(column));
        return std::nullopt;
    }

    // A cell as the message shows it: 'abc' for text, NULL, or the number.
    static std::string shown(const DbRow& r, int column) {
        if (r.isNull(column)) return "NULL";
        if (r.isInteger(column)) return std::to_string(r.integer(column));
        std::string text = r.text(column).substr(0, 40);
        std::int64_t replaced = 0;
        return "'" + validUtf8(text, replaced) + "'";
    }

    // The STRING_IDS text of an id column; an id with no text is counted (the names shown
    // would be "(unnamed)").
    std::string str(const DbRow& r, int column, std::string_view what) {
        if (r.isNull(column)) return {};
        auto it = m_strings.find(r.integer(column));
        if (it != m_strings.end()) return it->second;
        m_model.count("import_string_missing", StatSeverity::DataLoss,
                      fmt::format("{}: a name id with no text in STRING_IDS (the name is left "
                                  "empty)",
                                  shortName()),
                      1, fmt::format("{} {}", what, r.integer(column)));
        return {};
    }

    Source source(const std::string& table, std::int64_t rowid) {
        auto [it, fresh] = m_sourceOf.emplace(table, 0);
        if (fresh) it->second = m_model.addSourceFile(shortName(), table + " rowid");
        return Source{it->second, rowid};
    }

    // `alias.name`, or NULL when this export's table lacks the column (it varies by version).
    std::string column(const std::string& table, const std::string& alias,
                       const std::string& name) {
        return m_db.hasColumn(table, name) ? alias + "." + name : "NULL";
    }

    void readKernels() {
        if (!m_db.hasTable("COMPUTE_TASK_INFO"))
            throw ImportError(fmt::format(
                "{}: no table COMPUTE_TASK_INFO; expected one beside TASK", m_db.name()));
        m_db.forEach(
            "SELECT t.startNs, t.endNs, " + column("TASK", "t", "streamId") + ", " +
                column("TASK", "t", "taskId") + ", " + column("TASK", "t", "connectionId") +
                ", c.name, c.opType, c.taskType, " + column("COMPUTE_TASK_INFO", "c", "blockDim") +
                ", " + column("COMPUTE_TASK_INFO", "c", "mixBlockDim") + ", " +
                column("COMPUTE_TASK_INFO", "c", "inputShapes") + ", " +
                column("COMPUTE_TASK_INFO", "c", "inputDataTypes") + ", " +
                column("COMPUTE_TASK_INFO", "c", "outputShapes") + ", " +
                column("COMPUTE_TASK_INFO", "c", "outputDataTypes") + ", " +
                column("COMPUTE_TASK_INFO", "c", "waitNs") + ", t.globalTaskId, t.rowid, " +
                m_taskText +
                " FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId ORDER "
                "BY t.startNs, t.rowid",
            [&](const DbRow& r) {
                ++m_model.rowsRead;
                auto time = interval(r, 0, "TASK", r.integer(16));
                if (!time || repeatedTask(r, 17, r.integer(16))) return;
                Kernel k;
                k.name = str(r, 5, "COMPUTE_TASK_INFO name");
                k.opType = str(r, 6, "COMPUTE_TASK_INFO opType");
                std::string core = str(r, 7, "COMPUTE_TASK_INFO taskType");
                k.coreType = coreTypeOf(core);
                k.stream = r.integer(2);
                k.taskId = r.integer(3);
                k.startNs = time->first;
                k.durNs = time->second;
                k.source = source("TASK", r.integer(16));
                k.args = {{"op_type", k.opType},
                          {"accelerator_core", core},
                          {"block_dim", r.integer(8)},
                          {"mix_block_dim", r.integer(9)},
                          {"input_shapes", str(r, 10, "inputShapes")},
                          {"input_data_types", str(r, 11, "inputDataTypes")},
                          {"output_shapes", str(r, 12, "outputShapes")},
                          {"output_data_types", str(r, 13, "outputDataTypes")},
                          {"wait_time_us", r.real(14) / 1000.0},
                          {"task_id", r.integer(3)}};
                m_indexOfTask[r.integer(15)] = m_kernels.size();
                m_kernels.push_back(Pending{.connection = r.integer(4), .kernel = std::move(k)});
            });
    }

    // TASK rows that are not compute tasks (copies, waits, event records, and AI-core tasks
    // without a COMPUTE_TASK_INFO row): slices of their stream's "Ascend Hardware" lane, named by
    // their task type, as trace_view.json shows them.
    void readOtherTasks() {
        const std::string sql =
            "SELECT t.startNs, t.endNs, t.taskType, " + column("TASK", "t", "streamId") + ", " +
            column("TASK", "t", "taskId") + ", t.rowid, " + m_taskText +
            " FROM TASK t WHERE NOT EXISTS (SELECT 1 FROM COMPUTE_TASK_INFO c WHERE "
            "c.globalTaskId = t.globalTaskId) ORDER BY t.startNs, t.rowid";
        m_db.forEach(sql, [&](const DbRow& r) {
            ++m_model.rowsRead;
            auto time = interval(r, 0, "TASK", r.integer(5));
            if (!time || repeatedTask(r, 6, r.integer(5))) return;
            const std::int64_t stream = r.integer(3);
            const std::size_t lane =
                m_model.laneOf(Lane{.group = "Ascend Hardware",
                                    .name = fmt::format("Stream {}", stream),
                                    .threadId = std::nullopt,
                                    .streamId = stream,
                                    .bindKey = fmt::format("stream:{}", stream)});
            const std::string type = str(r, 2, "TASK taskType");
            m_model.spans.push_back(Span{.lane = lane,
                                         .name = type,
                                         .startNs = time->first,
                                         .durNs = time->second,
                                         .args = {{"task_type", type}, {"task_id", r.integer(4)}},
                                         .source = source("TASK", r.integer(5))});
        });
    }

    // Times in the PMU table are nanoseconds; the args carry microseconds like the CSV's. A
    // value that is not a number is left out: unknown, not 0 ('x' read as a real is 0.0).
    void readPmu() {
        if (!m_db.hasTable("TASK_PMU_INFO")) return;
        const std::string sql = "SELECT globalTaskId, name, value, rowid FROM TASK_PMU_INFO";
        m_db.forEach(sql, [&](const DbRow& r) {
            auto it = m_indexOfTask.find(r.integer(0));
            if (it == m_indexOfTask.end()) return;
            std::string key = str(r, 1, "TASK_PMU_INFO name");
            if (key.empty()) return;
            auto number = numberOf(r, 2);
            if (!number) return skipValue(r, key);
            double value = *number;
            if (key.ends_with("_time")) {
                key += "_us";
                value /= 1000.0;
            }
            auto& args = m_kernels[it->second].kernel.args;
            if (isIntegerArg(key) && std::trunc(value) == value && std::fabs(value) < 0x1p53)
                args.emplace_back(key, std::int64_t(value)); // aic_total_cycles, …
            else
                args.emplace_back(key, value);
        });
    }

    // A TASK_PMU_INFO value that is not a number (column 2 of `r`, its rowid in column 3).
    void skipValue(const DbRow& r, const std::string& key) {
        m_model.count(
            "import_value_skipped", StatSeverity::DataLoss,
            fmt::format("{}: a pipe figure that is not a number (left out: unknown, not 0)",
                        shortName()),
            1, fmt::format("TASK_PMU_INFO rowid {}: {} = {}", r.integer(3), key, shown(r, 2)));
    }

    void readCommunication() {
        if (!m_db.hasTable("COMMUNICATION_OP")) return;
        std::size_t lane = m_model.laneOf(Lane{.group = "Communication", .name = "HCCL ops"});
        m_db.forEach("SELECT opName, startNs, endNs, opType, rowid FROM COMMUNICATION_OP",
                     [&](const DbRow& r) {
                         ++m_model.rowsRead;
                         auto time = interval(r, 1, "COMMUNICATION_OP", r.integer(4));
                         if (!time) return;
                         m_model.spans.push_back(
                             Span{.lane = lane,
                                  .name = str(r, 0, "COMMUNICATION_OP opName"),
                                  .startNs = time->first,
                                  .durNs = time->second,
                                  .args = {{"op_type", str(r, 3, "opType")}},
                                  .source = source("COMMUNICATION_OP", r.integer(4))});
                     });
    }

    void readApi(const std::string& table, const std::string& group) {
        if (!m_db.hasTable(table)) return;
        m_db.forEach(
            "SELECT startNs, endNs, globalTid, name, connectionId, rowid FROM " + table,
            [&](const DbRow& r) {
                ++m_model.rowsRead;
                auto time = interval(r, 0, table, r.integer(5));
                if (!time) return;
                std::int64_t tid = r.integer(2) & 0xffffffff;
                Lane lane{.group = group,
                          .name = fmt::format("Thread {}", tid),
                          .threadId = tid,
                          .streamId = std::nullopt,
                          .bindKey = fmt::format("{}:{}", group, tid)};
                std::size_t index = m_model.laneOf(lane);
                m_model.spans.push_back(Span{.lane = index,
                                             .name = str(r, 3, table + " name"),
                                             .startNs = time->first,
                                             .durNs = time->second,
                                             .args = {},
                                             .source = source(table, r.integer(5))});
                if (!r.isNull(4))
                    m_launches.push_back({group, r.integer(4), FlowEnd{lane.bindKey, time->first}});
            });
    }

    // PyTorch ops name a CONNECTION_IDS set; CANN calls the TASK connection id directly.
    void readFlows() {
        std::unordered_map<std::int64_t, std::vector<std::int64_t>> idsOf;
        if (m_db.hasTable("CONNECTION_IDS"))
            m_db.forEach("SELECT id, connectionId FROM CONNECTION_IDS",
                         [&](const DbRow& r) { idsOf[r.integer(0)].push_back(r.integer(1)); });
        std::unordered_map<std::int64_t, std::vector<std::size_t>> kernelsOf;
        for (std::size_t i = 0; i < m_kernels.size(); ++i)
            kernelsOf[m_kernels[i].connection].push_back(i);
        for (const Launch& launch : m_launches) {
            std::vector<std::int64_t> connections{launch.connection};
            if (launch.group == "PyTorch") {
                auto it = idsOf.find(launch.connection);
                connections = it == idsOf.end() ? std::vector<std::int64_t>{} : it->second;
            }
            for (std::int64_t c : connections)
                if (auto it = kernelsOf.find(c); it != kernelsOf.end())
                    for (std::size_t k : it->second) {
                        const Kernel& kernel = m_kernels[k].kernel;
                        m_model.flows.push_back(
                            Flow{.out = launch.from,
                                 .in = FlowEnd{fmt::format("stream:{}", kernel.stream.value_or(-1)),
                                               kernel.startNs}});
                    }
        }
    }

    void readSteps() {
        if (!m_db.hasTable("STEP_TIME")) return;
        std::size_t lane = m_model.laneOf(Lane{.group = "Steps", .name = "Steps"});
        m_db.forEach("SELECT id, startNs, endNs, rowid FROM STEP_TIME", [&](const DbRow& r) {
            auto time = interval(r, 1, "STEP_TIME", r.integer(3));
            if (!time) return;
            m_model.spans.push_back(Span{.lane = lane,
                                         .name = fmt::format("Step {}", r.integer(0)),
                                         .startNs = time->first,
                                         .durNs = time->second,
                                         .args = {},
                                         .source = source("STEP_TIME", r.integer(3))});
        });
    }

    void readStepFigures() {
        std::vector<std::string> columns;
        m_db.forEach("SELECT name FROM pragma_table_info('StepTraceTime')",
                     [&](const DbRow& r) { columns.push_back(r.text(0)); });
        m_db.forEach("SELECT * FROM StepTraceTime", [&](const DbRow& r) {
            ++m_model.rowsRead;
            StepFigures step;
            for (std::size_t i = 0; i < columns.size(); ++i) {
                if (columns[i] == "step")
                    step.step = r.integer(int(i));
                else if (!r.isNull(int(i)))
                    step.values.emplace_back(columns[i], r.real(int(i)));
            }
            m_model.stepFigures.push_back(std::move(step));
        });
    }

    void countUnreadTables() {
        static const std::set<std::string> kRead{
            "TASK",     "COMPUTE_TASK_INFO", "TASK_PMU_INFO", "COMMUNICATION_OP", "PYTORCH_API",
            "CANN_API", "CONNECTION_IDS",    "STEP_TIME",     "STRING_IDS",       "StepTraceTime"};
        m_db.forEach("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name",
                     [&](const DbRow& r) {
                         std::string table = r.text(0);
                         if (!kRead.count(table) && !table.starts_with("sqlite_"))
                             m_model.count(
                                 "import_unknown_table", StatSeverity::Info,
                                 fmt::format("{}: table '{}' is not read", shortName(), table));
                     });
    }

    std::string shortName() const { return std::filesystem::path(m_db.name()).filename().string(); }

    struct Launch {
        std::string group;
        std::int64_t connection = 0;
        FlowEnd from;
    };

    SourceDb& m_db;
    ImportModel& m_model;
    std::unordered_map<std::int64_t, std::string> m_strings;
    DuplicateRows m_taskDuplicates;
    std::string m_taskText;                         ///< SQL of a TASK row as one text (rowText)
    std::map<std::string, std::int32_t> m_sourceOf; ///< table → its ImportModel::sourceFiles index
    std::vector<Pending> m_kernels;
    std::unordered_map<std::int64_t, std::size_t> m_indexOfTask;
    std::vector<Launch> m_launches;
};

} // namespace

void readProfilerDb(const std::filesystem::path& path, ImportModel& model) {
    SourceDb db(path);
    DbReader(db, model).read();
}

} // namespace pto::importer
