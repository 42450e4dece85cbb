// The top device kernels of a measured trace by time.
#include "profiler/report/KernelTable.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace pto::prof {

nlohmann::json topKernelsJson(const Profile& p, int top) {
    const auto& tasks = p.model.tasks;
    std::vector<std::size_t> order(tasks.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return tasks[a].duration() > tasks[b].duration();
    });
    double total = 0;
    for (const TaskRun& t : tasks) total += double(t.duration());
    nlohmann::json j = nlohmann::json::array();
    for (std::size_t k = 0; k < order.size() && int(k) < top; ++k) {
        const std::size_t i = order[k];
        const TaskRun& t = tasks[i];
        const BoundVerdict& b = p.bound.tasks[i];
        const CoreInfo* core = p.model.coreOf(t);
        j.push_back(
            {{"id", t.id},
             {"name", t.name},
             {"track", core ? core->name : std::string()},
             {"core_type", t.coreType},
             {"start_us", double(t.start - p.model.startCycle) * 1e6 / p.model.peaks.clockHz},
             {"duration_us", double(t.duration()) * 1e6 / p.model.peaks.clockHz},
             {"share", total > 0 ? double(t.duration()) / total : 0.0},
             {"bound", b.label()},
             {"busiest_pipe", std::string(pipeIdName(b.busiestPipe))},
             {"busiest_ratio", b.busiestRatio}});
        if (t.pipeRatiosMissing) // no ratio in the file: no busiest pipe either
            j.back()["busiest_pipe"] = j.back()["busiest_ratio"] = nullptr;
    }
    return j;
}

std::string busiestPipeText(const nlohmann::json& k) {
    if (k["busiest_pipe"].is_null()) return "-";
    return fmt::format("{} {:.0f}%", k["busiest_pipe"].get<std::string>(),
                       100 * k["busiest_ratio"].get<double>());
}

std::string renderTopKernelsText(const nlohmann::json& kernels) {
    if (kernels.empty()) return {};
    std::string out = "top kernels by time (measured):\n";
    out += fmt::format("  {:>12}  {:>6}  {:<8} {:<20} {}\n", "us", "share", "core", "bound",
                       "kernel (busiest pipe)");
    for (const auto& k : kernels)
        out += fmt::format("  {:>12.3f}  {:>5.1f}%  {:<8} {:<20} {} ({})\n",
                           k["duration_us"].get<double>(), 100 * k["share"].get<double>(),
                           k["core_type"].get<std::string>(), k["bound"].get<std::string>(),
                           k["name"].get<std::string>(), busiestPipeText(k));
    return out + "\n";
}

std::string renderTopKernelsMarkdown(const nlohmann::json& kernels) {
    if (kernels.empty()) return {};
    std::string out = "\n## Top kernels by time (measured)\n\n| us | share | core | bound | kernel "
                      "| busiest pipe |\n|---:|---:|---|---|---|---|\n";
    for (const auto& k : kernels)
        out += fmt::format("| {:.3f} | {:.1f}% | {} | {} | `{}` | {} |\n",
                           k["duration_us"].get<double>(), 100 * k["share"].get<double>(),
                           k["core_type"].get<std::string>(), k["bound"].get<std::string>(),
                           k["name"].get<std::string>(), busiestPipeText(k));
    return out;
}

} // namespace pto::prof
