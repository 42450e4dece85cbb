// Writes an ImportModel as a measured trace file.
#include "importer/TraceBuilder.h"

#include "trace_db/TraceWriter.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace pto::importer {
namespace {

using namespace tracedb;

// A written slice, for binding flow ends.
struct Placed {
    std::int64_t start = 0, end = 0, depth = 0, id = 0;
};

std::int64_t originOf(const ImportModel& m) {
    std::int64_t origin = std::numeric_limits<std::int64_t>::max();
    for (const Kernel& k : m.kernels) origin = std::min(origin, k.startNs);
    for (const Span& s : m.spans) origin = std::min(origin, s.startNs);
    for (const CounterSample& c : m.counters) origin = std::min(origin, c.ns);
    return origin == std::numeric_limits<std::int64_t>::max() ? 0 : origin;
}

// Depth of each slice of one track: how many earlier slices still cover its start.
template <typename Get>
void assignDepths(std::vector<std::size_t>& order, Get get, std::vector<std::int64_t>& depth) {
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        auto [sa, da] = get(a);
        auto [sb, db] = get(b);
        return sa != sb ? sa < sb : da > db;
    });
    std::vector<std::int64_t> ends;
    for (std::size_t i : order) {
        auto [start, dur] = get(i);
        while (!ends.empty() && ends.back() <= start && !(ends.back() == start && dur == 0))
            ends.pop_back();
        depth[i] = std::int64_t(ends.size());
        ends.push_back(start + dur);
    }
}

// Info stats `pto import` prints besides every warning: files or kernels it did not use.
bool isNote(const std::string& stat) {
    return stat == "import_file_not_read" || stat == "import_kernel_without_details";
}

class Builder {
public:
    Builder(ImportModel& model, const std::filesystem::path& output)
        : m_model(model), m_writer(TraceWriter::create(output)), m_origin(originOf(model)) {}

    ImportSummary build() {
        writeMeta();
        std::int64_t chip = addTrack(TrackRow{
            .nameId = m_writer.intern("Device"), .kind = TrackKind::Chip, .sortIndex = 10});
        writeKernels(chip);
        writeSpans();
        writeFlows();
        writeCounters();
        writeStepFigures();
        writeStats();
        m_writer.addAll(std::span<const SliceRow>(m_slices));
        flushArgs();
        m_writer.addAll(std::span<const FlowRow>(m_flows));
        m_writer.commit();
        return m_summary;
    }

private:
    void writeMeta() {
        m_writer.setMeta("trace_source", "measured");
        m_writer.setMeta("clock_hz", "1000000000");
        m_writer.setMeta("time_origin_ns", std::to_string(m_origin));
        for (const auto& [key, value] : m_model.meta) m_writer.setMeta(key, value);
    }

    std::int64_t addTrack(TrackRow row) {
        row.id = ++m_trackId;
        m_writer.add(row);
        return row.id;
    }

    // Moves `args` into rows, written a batch at a time: a 94 MiB kernel_details.csv has 11.4 M
    // args, which held as a second copy beside the model's took 1.3 GB.
    std::int64_t argSet(Args&& args) {
        if (args.empty()) return 0;
        std::int64_t set = ++m_argSetId;
        for (auto& [key, value] : args)
            m_args.push_back(ArgRow{set, std::move(key), std::move(value)});
        Args().swap(args);
        if (m_args.size() >= kArgBatch) flushArgs();
        return set;
    }

    void flushArgs() {
        m_writer.addAll(std::span<const ArgRow>(m_args));
        m_args.clear();
    }

    std::int64_t addSlice(std::int64_t track, const std::string& name, std::int64_t startNs,
                          std::int64_t durNs, std::int64_t depth, std::optional<std::int64_t> task,
                          Args&& args) {
        SliceRow row{.id = std::int64_t(m_slices.size()) + 1,
                     .ts = startNs - m_origin,
                     .dur = durNs,
                     .trackId = track,
                     .nameId = m_writer.intern(name.empty() ? "(unnamed)" : name),
                     .category = SliceCategory::Task,
                     .depth = depth,
                     .taskId = task};
        if (std::int64_t set = argSet(std::move(args))) row.argSetId = set;
        m_slices.push_back(row);
        return row.id;
    }

    void writeKernels(std::int64_t chip) {
        std::vector<Kernel>& ks = m_model.kernels;
        std::stable_sort(ks.begin(), ks.end(),
                         [](const Kernel& a, const Kernel& b) { return a.startNs < b.startNs; });
        std::map<std::pair<std::int64_t, std::string>, std::vector<std::size_t>> byTrack;
        for (std::size_t i = 0; i < ks.size(); ++i)
            byTrack[{ks[i].stream.value_or(-1), ks[i].coreType}].push_back(i);
        std::vector<std::int64_t> depth(ks.size(), 0), trackOf(ks.size(), 0);
        std::int64_t sort = 0;
        for (auto& [key, members] : byTrack) {
            const auto& [stream, core] = key;
            const std::string kind = core.empty() ? std::string() : " " + core;
            std::string name = stream >= 0 ? fmt::format("Stream {}{}", stream, kind)
                                           : fmt::format("No stream{}", kind);
            TrackRow row{.parentId = chip,
                         .nameId = m_writer.intern(name),
                         .kind = TrackKind::Core,
                         .coreType = core,
                         .sortIndex = sort++};
            if (stream >= 0) row.coreId = stream, row.streamId = stream;
            std::int64_t track = addTrack(row);
            for (std::size_t i : members) trackOf[i] = track;
            assignDepths(
                members, [&](std::size_t i) { return std::pair(ks[i].startNs, ks[i].durNs); },
                depth);
        }
        for (std::size_t i = 0; i < ks.size(); ++i) {
            std::int64_t id = addSlice(trackOf[i], ks[i].name, ks[i].startNs, ks[i].durNs, depth[i],
                                       std::int64_t(i) + 1, std::move(ks[i].args));
            m_bound[fmt::format("stream:{}", ks[i].stream.value_or(-1))].push_back(
                Placed{ks[i].startNs, ks[i].startNs + ks[i].durNs, depth[i], id});
            m_summary.kernelNs += ks[i].durNs;
        }
        m_summary.kernels = std::int64_t(ks.size());
        m_summary.kernelTracks = std::int64_t(byTrack.size());
    }

    static std::int64_t groupOrder(const std::string& group) {
        if (group == "Steps") return 0;
        if (group == "Python" || group == "PyTorch") return 20;
        if (group == "CANN") return 30;
        if (group == "Ascend Hardware") return 40;
        if (group == "Communication" || group == "HCCL") return 50;
        return 60;
    }

    void writeSpans() {
        std::vector<std::vector<std::size_t>> ofLane(m_model.lanes.size());
        for (std::size_t i = 0; i < m_model.spans.size(); ++i)
            ofLane[m_model.spans[i].lane].push_back(i);
        std::vector<std::int64_t> depth(m_model.spans.size(), 0);
        for (std::size_t lane = 0; lane < m_model.lanes.size(); ++lane) {
            const Lane& l = m_model.lanes[lane];
            std::string name = l.group == l.name ? l.name : l.group + " · " + l.name;
            std::int64_t track = addTrack(TrackRow{.nameId = m_writer.intern(name),
                                                   .kind = TrackKind::Task,
                                                   .sortIndex = groupOrder(l.group),
                                                   .streamId = l.streamId,
                                                   .threadId = l.threadId});
            auto& members = ofLane[lane];
            assignDepths(
                members,
                [&](std::size_t i) {
                    return std::pair(m_model.spans[i].startNs, m_model.spans[i].durNs);
                },
                depth);
            for (std::size_t i : members) {
                Span& s = m_model.spans[i];
                std::int64_t id = addSlice(track, s.name, s.startNs, s.durNs, depth[i],
                                           std::nullopt, std::move(s.args));
                if (!l.bindKey.empty())
                    m_bound[l.bindKey].push_back(
                        Placed{s.startNs, s.startNs + s.durNs, depth[i], id});
            }
        }
        m_summary.spans = std::int64_t(m_model.spans.size());
    }

    // The latest-starting slice bound to the key that covers ns: the deepest one there.
    std::optional<std::int64_t> bind(const FlowEnd& end) {
        auto it = m_bound.find(end.key);
        if (it == m_bound.end()) return std::nullopt;
        const auto& placed = it->second;
        auto at = std::upper_bound(placed.begin(), placed.end(), end.ns,
                                   [](std::int64_t ns, const Placed& p) { return ns < p.start; });
        for (int steps = 0; at != placed.begin() && steps < 4096; ++steps) {
            --at;
            if (at->start <= end.ns && end.ns <= at->end) return at->id;
        }
        return std::nullopt;
    }

    void writeFlows() {
        for (auto& [key, placed] : m_bound)
            std::stable_sort(placed.begin(), placed.end(),
                             [](const Placed& a, const Placed& b) { return a.start < b.start; });
        for (const Flow& f : m_model.flows) {
            auto out = bind(f.out);
            auto in = bind(f.in);
            if (!out || !in) {
                m_model.count("import_flow_unplaced", StatSeverity::Info,
                              "a launch flow whose host op or device task is not in the input");
                continue;
            }
            m_flows.push_back(FlowRow{.id = std::int64_t(m_flows.size()) + 1,
                                      .sliceOut = *out,
                                      .sliceIn = *in,
                                      .kind = FlowKind::Dep});
        }
        m_summary.flows = std::int64_t(m_flows.size());
    }

    void writeCounters() {
        std::unordered_map<std::string, std::int64_t> tracks;
        std::vector<CounterRow> rows;
        rows.reserve(m_model.counters.size());
        for (const CounterSample& c : m_model.counters) {
            auto [it, fresh] = tracks.emplace(c.track, 0);
            if (fresh)
                it->second = addTrack(TrackRow{.nameId = m_writer.intern(c.track),
                                               .kind = TrackKind::Counter,
                                               .sortIndex = 70});
            rows.push_back(
                CounterRow{.ts = c.ns - m_origin, .trackId = it->second, .value = c.value});
        }
        m_writer.addAll(std::span<const CounterRow>(rows));
        m_summary.counters = std::int64_t(rows.size());
    }

    void writeStepFigures() {
        std::vector<MetricRow> rows;
        for (const StepFigures& step : m_model.stepFigures)
            for (const auto& [key, value] : step.values)
                rows.push_back(MetricRow{.analysis = "step_trace",
                                         .entity = "step",
                                         .entityId = step.step,
                                         .key = key + "_us",
                                         .value = value});
        m_writer.addAll(std::span<const MetricRow>(rows));
    }

    void writeStats() {
        std::vector<StatRow> rows;
        for (const auto& [what, counted] : m_model.problems) {
            const StatSeverity severity = m_model.severities[what.first];
            std::string text = counted.first.empty() ? what.second
                                                     : fmt::format("{} (the first at {})",
                                                                   what.second, counted.first);
            if (severity != StatSeverity::Info || isNote(what.first))
                m_summary.said.push_back(
                    fmt::format("{}: {}{}", severity == StatSeverity::Info ? "note" : "warning",
                                text, counted.n > 1 ? fmt::format(" — {} times", counted.n) : ""));
            rows.push_back(StatRow{.name = what.first,
                                   .severity = severity,
                                   .value = counted.n,
                                   .description = std::move(text)});
            (severity == StatSeverity::Info ? m_summary.notes : m_summary.problems) += counted.n;
        }
        rows.push_back(StatRow{.name = "import_rows_read",
                               .severity = StatSeverity::Info,
                               .value = m_model.rowsRead,
                               .description = "input rows and events pto import read"});
        m_summary.rowsRead = m_model.rowsRead;
        m_writer.addAll(std::span<const StatRow>(rows));
    }

    ImportModel& m_model;
    TraceWriter m_writer;
    std::int64_t m_origin;
    std::int64_t m_trackId = 0;
    std::int64_t m_argSetId = 0;
    std::vector<SliceRow> m_slices;
    static constexpr std::size_t kArgBatch = 1 << 16;
    std::vector<ArgRow> m_args; ///< args not yet written (at most kArgBatch and one set)
    std::vector<FlowRow> m_flows;
    std::map<std::string, std::vector<Placed>> m_bound;
    ImportSummary m_summary;
};

} // namespace

ImportSummary writeMeasuredTrace(ImportModel& model, const std::filesystem::path& output) {
    return Builder(model, output).build();
}

} // namespace pto::importer
