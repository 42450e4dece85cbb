// What `pto import` read from Ascend profiler output, before it becomes a trace file: device
// kernels, other slices (host ops, device tasks), launch flows, counters, steps and the
// problems counted on the way (docs/IMPORT.md).
#pragma once

#include "trace_db/Rows.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pto::importer {

using Args = std::vector<std::pair<std::string, tracedb::ArgValue>>;

/// Where a kernel, slice or sample came from, for messages: an index into
/// ImportModel::sourceFiles and the line, event or row number there (see ImportModel::where).
struct Source {
    std::int32_t file = -1;
    std::int64_t at = 0;
};

/// One device kernel (a compute task): its real start and duration in nanoseconds since the
/// epoch, the stream it ran on and the per-pipe times and ratios the profiler measured.
struct Kernel {
    std::string name{};
    std::string opType{};
    std::string coreType{}; ///< AIC, AIV, MIX_AIC, MIX_AIV, AI_CPU, DSA_SQE, … or AI_CORE (unsplit)
    std::optional<std::int64_t> stream{};
    std::optional<std::int64_t> taskId{}; ///< the device's task id (not unique over a run)
    std::int64_t startNs = 0;
    std::int64_t durNs = 0;
    Args args{};
    Source source{};
};

/// Where a slice sits when it is not a kernel: a lane (one track) of a group of lanes.
struct Lane {
    std::string group{}; ///< "Python", "CANN", "Ascend Hardware", "HCCL", …
    std::string name{};  ///< "Thread 3096504", "Stream 2", "Plane 0"
    std::optional<std::int64_t> threadId{};
    std::optional<std::int64_t> streamId{};
    std::string bindKey{}; ///< the FlowEnd::key of flows that end on this lane's slices
};

/// A host op, a device task that is not a kernel, a communication op or a step.
struct Span {
    std::size_t lane = 0; ///< index into ImportModel::lanes
    std::string name{};
    std::int64_t startNs = 0;
    std::int64_t durNs = 0;
    Args args{};
    Source source{};
};

/// One end of a flow: the deepest slice bound to `key` ("stream:2", "thread:3096504") that
/// covers `ns`.
struct FlowEnd {
    std::string key{};
    std::int64_t ns = 0;
};

struct Flow {
    FlowEnd out{}; ///< the host op that launched
    FlowEnd in{};  ///< the device kernel or task
};

struct CounterSample {
    std::string track{}; ///< "HBM 0/Read Read(MB/s)"
    std::int64_t ns = 0;
    double value = 0;
    Source source{};
};

/// Per-step figures of step_trace_time.csv / analysis.db (microseconds), as metric rows.
struct StepFigures {
    std::int64_t step = 0;
    std::vector<std::pair<std::string, double>> values{};
};

/// How often one problem (a stat name and description) occurred, and where first: "line 17:
/// Duration(us) = '-3'". The stat's description names that first place.
struct Counted {
    std::int64_t n = 0;
    std::string first{};
};

/// A file read, and how its places are named: "line" (kernel_details.csv:17), "event"
/// (trace_view.json: event 12), or a table's rows ("TASK rowid" → x.db: TASK rowid 5).
struct SourceFile {
    std::string name{};
    std::string unit{};
};

struct ImportModel {
    std::vector<Kernel> kernels{};
    std::vector<Lane> lanes{};
    std::vector<Span> spans{};
    std::vector<Flow> flows{};
    std::vector<CounterSample> counters{};
    std::vector<StepFigures> stepFigures{};
    std::map<std::string, std::string> meta{}; ///< extra meta keys (source_format, …)
    std::map<std::pair<std::string, std::string>, Counted> problems{}; ///< (name, description)
    std::map<std::string, tracedb::StatSeverity> severities{};         ///< by problem name
    std::vector<SourceFile> sourceFiles{};
    std::int64_t rowsRead = 0; ///< input rows / events looked at (the bench's rate)
    std::map<std::pair<std::string, std::string>, std::size_t> laneIndex{};

    /// The index of `lane`, adding it once.
    std::size_t laneOf(const Lane& lane);
    /// Counts one occurrence of a problem; `first` (where and what) is kept from the first.
    void count(const std::string& name, tracedb::StatSeverity severity,
               const std::string& description, std::int64_t n = 1, const std::string& first = {});
    /// Adds problems counted in another model (its first places kept when they come first).
    void countAll(const ImportModel& other);
    /// Registers a file read; its index goes into Source::file.
    std::int32_t addSourceFile(const std::string& name, const std::string& unit);
    /// "kernel_details.csv:17", "trace_view.json: event 12", "x.db: TASK rowid 5", or "".
    std::string where(const Source& source) const;
};

} // namespace pto::importer
