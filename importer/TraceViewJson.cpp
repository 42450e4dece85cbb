// Reader of trace_view.json.
#include "importer/TraceViewJson.h"

#include "base/JsonText.h"
#include "importer/ImportError.h"
#include "importer/InputFiles.h"
#include "importer/KernelCsv.h"
#include "importer/ModelChecks.h"
#include "importer/Text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>

namespace pto::importer {
namespace {

using Json = nlohmann::json;
using tracedb::StatSeverity;

constexpr std::string_view kHardware = "Ascend Hardware";

struct Names {
    std::map<std::int64_t, std::string> process;
    std::map<std::int64_t, std::string> label;
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> thread;
};

std::optional<std::int64_t> intOf(const Json& v) {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number()) return std::int64_t(v.get<double>());
    if (v.is_string()) return parseInt(v.get_ref<const std::string&>());
    return std::nullopt;
}

std::optional<std::int64_t> nanosOf(const Json& v) {
    if (v.is_string()) return microsToNanos(v.get_ref<const std::string&>());
    if (v.is_number()) return microsToNanos(fmt::format("{:.6f}", v.get<double>()));
    return std::nullopt;
}

std::string textOf(const Json& v) {
    return v.is_string() ? v.get<std::string>() : std::string();
}

// Bytes that are not UTF-8 (in a kernel's name, say) are replaced by U+FFFD before parsing and
// counted, as in the CSV and .db forms: the JSON parser refuses them, and with them the file.
std::string utf8Text(std::string text, const std::filesystem::path& path, ImportModel& model) {
    const std::size_t first = firstInvalidUtf8(text);
    if (first == std::string::npos) return text;
    std::int64_t replaced = 0;
    text = validUtf8(text, replaced);
    model.count("import_invalid_utf8", StatSeverity::DataLoss,
                fmt::format("{}: a name or text holding bytes that are not UTF-8 (each "
                            "replaced by U+FFFD)",
                            path.filename().string()),
                replaced, fmt::format("byte {}", first));
    return text;
}

Json parseFile(const std::filesystem::path& path, ImportModel& model) {
    const std::string text = utf8Text(readFileText(path), path, model);
    try {
        Json doc = Json::parse(text);
        if (doc.is_object() && doc.contains("traceEvents")) doc = std::move(doc["traceEvents"]);
        if (!doc.is_array())
            throw ImportError(fmt::format("{}: byte 0: expected a JSON array of trace events or an "
                                          "object with \"traceEvents\"",
                                          path.string()));
        return doc;
    } catch (const Json::parse_error& e) {
        std::string what = e.what();
        what = what.substr(0, what.find("; last read"));
        if (auto bracket = what.find("] "); bracket != std::string::npos)
            what = what.substr(bracket + 2);
        throw ImportError(fmt::format("{}: byte {}: not valid JSON ({}); expected a JSON array "
                                      "of trace events",
                                      path.string(), e.byte, what));
    }
}

Names readNames(const Json& events) {
    Names names;
    for (const Json& e : events) {
        if (!e.is_object() || textOf(e.value("ph", Json())) != "M") continue;
        auto pid = intOf(e.value("pid", Json()));
        const Json& args = e.contains("args") ? e["args"] : Json();
        if (!pid || !args.is_object()) continue;
        std::string what = textOf(e.value("name", Json()));
        if (what == "process_name")
            names.process[*pid] = textOf(args.value("name", Json()));
        else if (what == "process_labels")
            names.label[*pid] = textOf(args.value("labels", Json()));
        else if (what == "thread_name")
            if (auto tid = intOf(e.value("tid", Json())))
                names.thread[{*pid, *tid}] = textOf(args.value("name", Json()));
    }
    return names;
}

Args argsOf(const Json& e) {
    Args args;
    if (!e.contains("args") || !e["args"].is_object()) return args;
    for (const auto& [key, value] : e["args"].items()) {
        if (key == "Call stack") continue; // long text, not needed per slice
        if (value.is_number_integer())
            args.emplace_back(argKey(key), value.get<std::int64_t>());
        else if (value.is_number())
            args.emplace_back(argKey(key), value.get<double>());
        else if (value.is_string())
            args.emplace_back(argKey(key), value.get<std::string>());
    }
    return args;
}

class EventReader {
public:
    EventReader(const Names& names, ImportModel& model, std::string file)
        : m_names(names), m_model(model), m_file(std::move(file)),
          m_fileIndex(model.addSourceFile(m_file, "event")),
          m_duplicates(m_file, "event", "an event") {}

    /// Reads the `index`th event (1-based, the place named in messages).
    void read(const Json& e, std::int64_t index) {
        ++m_model.rowsRead;
        m_source = Source{m_fileIndex, index};
        if (!e.is_object()) return skip("an event that is not a JSON object");
        std::string ph = textOf(e.value("ph", Json()));
        if (ph == "M") return;
        if (m_duplicates.seen(jsonText(e), index)) return;
        auto pid = intOf(e.value("pid", Json()));
        auto tid = intOf(e.value("tid", Json()));
        auto ts = nanosOf(e.value("ts", Json()));
        if ((ph == "X" || ph == "C") && (!pid || !ts)) return lost(e, ph, pid, !pid ? "pid" : "ts");
        if (!pid || !ts) return skip(fmt::format("a '{}' event without a pid or a valid ts", ph));
        if (ph == "X") return complete(e, *pid, tid.value_or(0), *ts);
        if (ph == "C") return counter(e, *ts);
        if (ph == "s" || ph == "f") return flowEnd(e, ph, *pid, tid.value_or(0), *ts);
        skip(fmt::format("a '{}' event (pto import reads X, C, s, f and M events)", ph));
    }

    void finish() {
        finishFlows();
        m_duplicates.countIn(m_model);
    }

private:
    void finishFlows() {
        for (auto& [id, ends] : m_flows) {
            if (ends.first.key.empty() || ends.second.key.empty()) {
                m_model.count("import_flow_unmatched", StatSeverity::Info,
                              fmt::format("{}: a launch flow with only one end", m_file));
                continue;
            }
            m_model.flows.push_back(Flow{.out = ends.first, .in = ends.second});
        }
    }

    bool isHardware(std::int64_t pid) const {
        auto it = m_names.process.find(pid);
        return it != m_names.process.end() && it->second == kHardware;
    }

    std::string bindKey(std::int64_t pid, std::int64_t tid) const {
        return isHardware(pid) ? fmt::format("stream:{}", tid) : fmt::format("pid:{}:{}", pid, tid);
    }

    void skip(const std::string& what) {
        m_model.count("import_event_skipped", StatSeverity::Info,
                      fmt::format("{}: {}", m_file, what));
    }

    bool isKernelEvent(const Json& e, std::optional<std::int64_t> pid) const {
        if (!pid || !isHardware(*pid) || !e.contains("args") || !e["args"].is_object())
            return false;
        return isKernelTaskType(textOf(e["args"].value("Task Type", Json())));
    }

    // A slice ('X') or counter sample ('C') whose `field` (pid, ts or dur) is not a valid
    // value: a row without a valid time, as in the CSV and .db forms (data_loss), named by its
    // event, name and value.
    void lost(const Json& e, const std::string& ph, std::optional<std::int64_t> pid,
              std::string_view field) {
        const std::string key(field);
        std::string value = e.contains(key) ? e[key].dump() : "(none)";
        if (value.size() > 40) value = value.substr(0, 40) + "…";
        const std::string_view what =
            isKernelEvent(e, pid) ? "a kernel event without a valid ts or dur"
            : ph == "X"           ? "an 'X' event (a slice) without a valid pid, ts or dur"
                                  : "a 'C' event (a counter sample) without a valid pid or ts";
        m_model.count("import_row_skipped", StatSeverity::DataLoss,
                      fmt::format("{}: {}", m_file, what), 1,
                      fmt::format("event {}: '{}' {} = {}", m_source.at,
                                  textOf(e.value("name", Json())), field, value));
    }

    void complete(const Json& e, std::int64_t pid, std::int64_t tid, std::int64_t ts) {
        auto dur = nanosOf(e.value("dur", Json()));
        if (!dur || *dur < 0) return lost(e, "X", pid, "dur");
        std::string name = textOf(e.value("name", Json()));
        Args args = argsOf(e);
        if (isHardware(pid)) {
            std::string taskType;
            if (e.contains("args") && e["args"].is_object())
                taskType = textOf(e["args"].value("Task Type", Json()));
            if (isKernelTaskType(taskType)) {
                Kernel k{.name = name,
                         .opType = "",
                         .coreType = taskType == "AI_CORE" ? taskType : coreTypeOf(taskType),
                         .stream = tid,
                         .taskId = std::nullopt,
                         .startNs = ts,
                         .durNs = *dur,
                         .args = std::move(args),
                         .source = m_source};
                if (e["args"].contains("Task Id")) k.taskId = intOf(e["args"]["Task Id"]);
                m_model.kernels.push_back(std::move(k));
                return;
            }
        }
        std::string process =
            m_names.process.count(pid) ? m_names.process.at(pid) : fmt::format("Process {}", pid);
        auto thread = m_names.thread.find({pid, tid});
        Lane lane{.group = process,
                  .name = thread != m_names.thread.end() ? thread->second
                                                         : fmt::format("Thread {}", tid)};
        bool cpu = m_names.label.count(pid) && m_names.label.at(pid) == "CPU";
        if (cpu) lane.threadId = tid;
        if (isHardware(pid)) lane.streamId = tid;
        if (name.starts_with("ProfilerStep#")) {
            std::size_t steps = m_model.laneOf(Lane{.group = "Steps", .name = "Steps"});
            m_model.spans.push_back(Span{.lane = steps,
                                         .name = "Step " + name.substr(13),
                                         .startNs = ts,
                                         .durNs = *dur,
                                         .args = {},
                                         .source = m_source});
        }
        lane.bindKey = bindKey(pid, tid);
        std::size_t index = m_model.laneOf(lane);
        m_model.spans.push_back(Span{.lane = index,
                                     .name = name,
                                     .startNs = ts,
                                     .durNs = *dur,
                                     .args = std::move(args),
                                     .source = m_source});
    }

    void counter(const Json& e, std::int64_t ts) {
        std::string name = textOf(e.value("name", Json()));
        if (!e.contains("args") || !e["args"].is_object()) return skip("a 'C' event without args");
        for (const auto& [key, value] : e["args"].items())
            if (value.is_number())
                m_model.counters.push_back(CounterSample{.track = name + " " + key,
                                                         .ns = ts,
                                                         .value = value.get<double>(),
                                                         .source = m_source});
    }

    void flowEnd(const Json& e, const std::string& ph, std::int64_t pid, std::int64_t tid,
                 std::int64_t ts) {
        std::string cat = textOf(e.value("cat", Json()));
        if (cat != "async_npu" && cat != "HostToDevice") {
            m_model.count("import_flow_skipped", StatSeverity::Info,
                          fmt::format("{}: a '{}' flow end (only host → device launch flows, "
                                      "async_npu and HostToDevice, are imported)",
                                      m_file, cat));
            return;
        }
        std::string id = cat + ":" + (e.contains("id") ? e["id"].dump() : std::string());
        FlowEnd end{.key = bindKey(pid, tid), .ns = ts};
        auto& ends = m_flows[id];
        (ph == "s" ? ends.first : ends.second) = end;
    }

    const Names& m_names;
    ImportModel& m_model;
    std::string m_file;
    std::int32_t m_fileIndex;
    DuplicateRows m_duplicates;
    Source m_source{};
    std::map<std::string, std::pair<FlowEnd, FlowEnd>> m_flows;
};

} // namespace

bool isKernelTaskType(std::string_view t) {
    return t == "AI_CORE" || t == "AI_VECTOR_CORE" || t == "MIX_AIC" || t == "MIX_AIV" ||
           t == "AI_CPU" || t == "DSA_SQE" || t == "KERNEL_AICORE" || t == "KERNEL_AIVEC" ||
           t == "KERNEL_AICPU";
}

void readTraceViewJson(const std::filesystem::path& path, ImportModel& model) {
    Json events = parseFile(path, model);
    Names names = readNames(events);
    EventReader reader(names, model, path.filename().string());
    std::int64_t index = 0;
    for (const Json& e : events) reader.read(e, ++index);
    reader.finish();
}

} // namespace pto::importer
