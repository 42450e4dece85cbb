// The summary of a measured trace: its facts as JSON and as the rows every renderer shows.
#include "profiler/report/MeasuredSummary.h"

#include <fmt/format.h>

namespace pto::prof {
namespace {

constexpr const char* kSource = "measured on a device (pto import)";
constexpr const char* kNotMeasured =
    "no FLOP or byte counts and no task dependencies in the profiler files, so no throughput, "
    "roofline or critical path; each kernel's bound class comes from its pipe ratios";

} // namespace

nlohmann::json measuredSummaryJson(const Profile& p) {
    const RunModel& m = p.model; // times in ns (RunModel::timeUnit)
    std::int64_t kernelNs = 0;
    for (const TaskRun& t : m.tasks) kernelNs += t.duration();
    return {{"trace", m.path},
            {"program", m.program},
            {"measured", true},
            {"source", kSource},
            {"start_ns", m.startCycle},
            {"total_ns", m.totalCycles},
            {"time_us", double(m.totalCycles) / 1000.0},
            {"kernels", m.tasks.size()},
            {"kernel_time_us", double(kernelNs) / 1000.0},
            {"not_measured", kNotMeasured}};
}

std::vector<SummaryRow> measuredSummaryRows(const nlohmann::json& s) {
    return {{"source", s["source"].get<std::string>()},
            {"time", fmt::format("{:.3f} us from the first kernel start to the last end",
                                 s["time_us"].get<double>())},
            {"kernels",
             fmt::format("{} device kernels, {:.3f} us of kernel time",
                         s["kernels"].get<std::size_t>(), s["kernel_time_us"].get<double>())},
            {"not measured", s["not_measured"].get<std::string>()}};
}

} // namespace pto::prof
