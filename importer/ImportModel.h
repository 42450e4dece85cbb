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
};

/// Per-step figures of step_trace_time.csv / analysis.db (microseconds), as metric rows.
struct StepFigures {
    std::int64_t step = 0;
    std::vector<std::pair<std::string, double>> values{};
};

/// A problem counted instead of failing: an unknown column, a row that could not be placed.
struct Problem {
    std::string name{}; ///< import_unknown_column, import_row_skipped, …
    tracedb::StatSeverity severity = tracedb::StatSeverity::Info;
    std::string description{};
};

struct ImportModel {
    std::vector<Kernel> kernels{};
    std::vector<Lane> lanes{};
    std::vector<Span> spans{};
    std::vector<Flow> flows{};
    std::vector<CounterSample> counters{};
    std::vector<StepFigures> stepFigures{};
    std::map<std::string, std::string> meta{}; ///< extra meta keys (source_format, …)
    std::map<std::pair<std::string, std::string>, std::int64_t> problems{}; ///< (name, description)
    std::map<std::string, tracedb::StatSeverity> severities{};              ///< by problem name
    std::int64_t rowsRead = 0; ///< input rows / events looked at (the bench's rate)
    std::map<std::pair<std::string, std::string>, std::size_t> laneIndex{};

    /// The index of `lane`, adding it once.
    std::size_t laneOf(const Lane& lane);
    /// Counts one occurrence of a problem.
    void count(const std::string& name, tracedb::StatSeverity severity,
               const std::string& description, std::int64_t n = 1);
};

} // namespace pto::importer
