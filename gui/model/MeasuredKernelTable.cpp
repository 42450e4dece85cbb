// Rows of a measured trace's kernels, built from profiler/report/KernelTable.
#include "gui/model/MeasuredKernelTable.h"

#include "profiler/Profile.h"
#include "profiler/report/KernelTable.h"

#include <QObject>

#include <unordered_map>

namespace pto::gui {
namespace {

RowTable emptyTable() {
    RowTable t;
    t.headers = {QObject::tr("µs"),    QObject::tr("Share"),  QObject::tr("Core"),
                 QObject::tr("Bound"), QObject::tr("Kernel"), QObject::tr("Busiest pipe")};
    t.headerTips = {QObject::tr("Duration of the kernel run, µs"),
                    QObject::tr("Its share of the time of every kernel run"),
                    QObject::tr("Core type it ran on"),
                    QObject::tr("Bound class from the profiler's pipe ratios"),
                    QObject::tr("Kernel name as the profiler recorded it"),
                    QObject::tr("The pipe with the largest busy ratio")};
    return t;
}

TableRow rowOf(const nlohmann::json& k) {
    TableRow row;
    const double micros = k["duration_us"].get<double>();
    const double share = k["share"].get<double>();
    addCell(row, micros, QString::number(micros, 'f', 3));
    addCell(row, share, QStringLiteral("%1 %").arg(100 * share, 0, 'f', 1));
    const QString core = QString::fromStdString(k["core_type"].get<std::string>());
    addCell(row, core, core);
    const QString bound = QString::fromStdString(k["bound"].get<std::string>());
    addCell(row, bound, bound);
    const QString name = QString::fromStdString(k["name"].get<std::string>());
    addCell(row, name, name);
    const QString pipe = QString::fromStdString(prof::busiestPipeText(k));
    addCell(row,
            k["busiest_ratio"].is_null() ? QVariant(-1.0)
                                         : QVariant(k["busiest_ratio"].get<double>()),
            pipe);
    return row;
}

} // namespace

MeasuredKernelTable measuredKernelTable(const prof::Profile& profile) {
    MeasuredKernelTable out;
    out.table = emptyTable();
    if (!profile.model.measured) return out;
    const auto& tasks = profile.model.tasks;
    std::unordered_map<std::int64_t, std::size_t> taskOfId;
    for (std::size_t i = 0; i < tasks.size(); ++i) taskOfId.emplace(tasks[i].id, i);
    for (const nlohmann::json& k : prof::topKernelsJson(profile, int(tasks.size()))) {
        out.table.rows.push_back(rowOf(k));
        const auto it = taskOfId.find(k["id"].get<std::int64_t>());
        out.ranges.emplace_back(it == taskOfId.end() ? -1 : tasks[it->second].start,
                                it == taskOfId.end() ? -1 : tasks[it->second].end);
    }
    return out;
}

} // namespace pto::gui
