// The run model of a measured trace: kernel names and measured pipe ratios as busy cycles.
#include "profiler/MeasuredRun.h"

#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

namespace pto::prof {

bool isMeasuredTrace(const tracedb::TraceReader& reader) {
    return reader.meta("trace_source").value_or("") == "measured";
}

std::optional<PipeId> pipeOfRatioKey(std::string_view key) {
    static const std::unordered_map<std::string_view, PipeId> kPipes{
        {"aic_mac_ratio", PipeId::M},     {"aic_scalar_ratio", PipeId::S},
        {"aic_mte1_ratio", PipeId::MTE1}, {"aic_mte2_ratio", PipeId::MTE2},
        {"aic_mte3_ratio", PipeId::MTE3}, {"aic_fixpipe_ratio", PipeId::FIX},
        {"aiv_vec_ratio", PipeId::V},     {"aiv_scalar_ratio", PipeId::S},
        {"aiv_mte1_ratio", PipeId::MTE1}, {"aiv_mte2_ratio", PipeId::MTE2},
        {"aiv_mte3_ratio", PipeId::MTE3}};
    auto it = kPipes.find(key);
    return it == kPipes.end() ? std::nullopt : std::optional(it->second);
}

void loadMeasuredKernels(const tracedb::TraceReader& reader, RunModel& m) {
    std::unordered_map<std::int64_t, std::array<double, kPipeCount>> ratios;
    std::int64_t impossible = 0; // a ratio that is no fraction of the kernel's time
    forEachRow(reader,
               "SELECT s.task_id, st.str, a.key, a.real_value FROM slice s "
               "JOIN string st ON st.id = s.name_id "
               "LEFT JOIN args a ON a.arg_set_id = s.arg_set_id AND a.key LIKE '%_ratio' "
               "WHERE s.category = 'task' AND s.task_id IS NOT NULL",
               [&](auto row) {
                   std::int64_t id = cellInt(row[0]);
                   auto it =
                       std::lower_bound(m.tasks.begin(), m.tasks.end(), id,
                                        [](const TaskRun& t, std::int64_t v) { return t.id < v; });
                   if (it == m.tasks.end() || it->id != id) return;
                   it->name = cellText(row[1]);
                   auto pipe = pipeOfRatioKey(cellText(row[2]));
                   if (!pipe || cellNull(row[3])) return;
                   const double value = cellReal(row[3]);
                   // The profiler's ratios are fractions; a little over 1 is its rounding.
                   if (!(value >= 0 && value <= 1.01)) return void(++impossible);
                   m.measuredRatioKeys.insert(cellText(row[2]));
                   double& r = ratios[id][std::size_t(*pipe)];
                   r = std::max(r, std::min(value, 1.0));
               });
    for (TaskRun& t : m.tasks) {
        auto it = ratios.find(t.id);
        t.pipeRatiosMissing = it == ratios.end();
        if (it == ratios.end()) continue;
        for (std::size_t p = 0; p < kPipeCount; ++p)
            t.busy[p] = std::llround(it->second[p] * double(t.duration()));
    }
    if (impossible > 0)
        m.fileWarnings.push_back(fmt::format(
            "{} pipe ratio{} outside [0, 1] or not a number set aside (a kernel's *_ratio is a "
            "fraction of its time)",
            impossible, impossible == 1 ? "" : "s"));
    m.hasInstrSlices = false;
    setMeasuredRunTime(m);
}

void setMeasuredRunTime(RunModel& m) {
    std::optional<std::int64_t> first, last;
    for (const TaskRun& t : m.tasks) {
        if (!t.ran()) continue;
        first = std::min(first.value_or(t.start), t.start);
        last = std::max(last.value_or(t.end), t.end);
    }
    m.startCycle = first.value_or(0);
    m.totalCycles = last ? *last - *first : 0;
}

} // namespace pto::prof
