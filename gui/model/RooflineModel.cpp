// Table model of roofline points per task or per Tensor op, with the roofs of the arch.
#include "gui/model/RooflineModel.h"

#include "profiler/Profile.h"

#include <cmath>

namespace pto::gui {
namespace {

bool sameRoof(const RooflineRoof& a, double flops, double bytes) {
    return std::abs(a.flopsPerCycle - flops) <= 1e-6 * flops &&
           std::abs(a.bytesPerCycle - bytes) <= 1e-6 * bytes;
}

} // namespace

RooflineModel::RooflineModel(QObject* parent) : QAbstractTableModel(parent) {}

RooflineModel::~RooflineModel() = default;

void RooflineModel::setProfile(std::shared_ptr<const prof::Profile> profile) {
    beginResetModel();
    m_profile = std::move(profile);
    rebuild();
    endResetModel();
}

void RooflineModel::setMode(Mode mode) {
    if (mode == m_mode) return;
    beginResetModel();
    m_mode = mode;
    rebuild();
    endResetModel();
}

void RooflineModel::rebuild() {
    m_rows.clear();
    m_roofs.clear();
    if (!m_profile || m_profile->model.measured) return;
    const prof::RunModel& run = m_profile->model;
    const prof::ArchPeaks& peaks = run.peaks;
    if (m_mode == Mode::Tasks) {
        bool aic = false, aiv = false;
        for (std::size_t i = 0; i < run.tasks.size(); ++i) {
            if (!run.tasks[i].ran()) continue;
            m_rows.push_back(i);
            (run.tasks[i].coreType == "AIC" ? aic : aiv) = true;
        }
        if (aic)
            m_roofs.push_back(
                {tr("AIC core"), peaks.cubeFlopsPerCycle, prof::gmPathsTotal(peaks, "AIC")});
        if (aiv)
            m_roofs.push_back(
                {tr("AIV core"), peaks.vectorFlopsPerCycle, prof::gmPathsTotal(peaks, "AIV")});
        return;
    }
    for (std::size_t i = 0; i < run.tensorOps.size(); ++i) {
        const prof::RooflinePoint& p = m_profile->roofline.tensorOps[i];
        if (p.cycles <= 0 || run.tensorOps[i].isLoopTotal()) continue;
        m_rows.push_back(i);
        bool known = false;
        for (const RooflineRoof& roof : m_roofs)
            known = known || sameRoof(roof, p.computeRoof, p.bandwidth);
        if (!known && p.computeRoof > 0 && m_roofs.size() < 6)
            m_roofs.push_back({tr("%1 cores").arg(p.cores), p.computeRoof, p.bandwidth});
    }
}

QString RooflineModel::unavailableReason() const {
    if (!m_profile) return {};
    const prof::RunModel& run = m_profile->model;
    if (m_mode == Mode::TensorOps && !run.recordsInstrCycles() && run.executed())
        return tr("No point per Tensor op: op cycles are not recorded at --trace %1 (pto run "
                  "--trace instructions records them). One point per task is shown from the "
                  "task slices.")
            .arg(QString::fromStdString(run.traceLevel));
    if (!run.measured) return {};
    return tr("No roofline for a measured trace: the profiler files hold no FLOP or byte counts, "
              "and the simulated chip's roofs are not the device's. Each kernel's bound class "
              "comes from its pipe ratios (Findings, pto report).");
}

const prof::RooflinePoint& RooflineModel::point(int row) const {
    const std::size_t i = m_rows.at(static_cast<std::size_t>(row));
    return m_mode == Mode::Tasks ? m_profile->roofline.tasks[i] : m_profile->roofline.tensorOps[i];
}

std::int64_t RooflineModel::entityId(int row) const {
    const std::size_t i = m_rows.at(static_cast<std::size_t>(row));
    return m_mode == Mode::Tasks ? m_profile->model.tasks[i].id : m_profile->model.tensorOps[i].id;
}

std::int64_t RooflineModel::entityStage() const {
    if (!m_profile) return -1;
    return m_mode == Mode::Tasks ? m_profile->model.execStageId : m_profile->model.rootStageId;
}

std::int64_t RooflineModel::entityStage(int row) const {
    if (!m_profile || m_mode == Mode::Tasks) return entityStage();
    return m_profile->model.tensorOps[m_rows.at(static_cast<std::size_t>(row))].stageId;
}

std::pair<std::int64_t, std::int64_t> RooflineModel::timeRange(int row) const {
    const std::size_t i = m_rows.at(static_cast<std::size_t>(row));
    if (m_mode == Mode::Tasks)
        return {m_profile->model.tasks[i].start, m_profile->model.tasks[i].end};
    return {m_profile->model.tensorOps[i].first, m_profile->model.tensorOps[i].last};
}

QString RooflineModel::name(int row) const {
    const std::size_t i = m_rows.at(static_cast<std::size_t>(row));
    if (m_mode == Mode::Tasks) return QString::fromStdString(m_profile->model.tasks[i].name);
    const prof::TensorOpCost& op = m_profile->model.tensorOps[i];
    if (op.loop >= 0) return QString::fromStdString(op.kind + " " + op.name + " in " + op.loopName);
    return QString::fromStdString(op.kind + " " + op.name);
}

bool RooflineModel::plottable(int row) const {
    const prof::RooflinePoint& p = point(row);
    return p.intensity > 0 && p.flopsPerCycle > 0;
}

int RooflineModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RooflineModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RooflineModel::value(int row, int column) const {
    const prof::RooflinePoint& p = point(row);
    switch (column) {
    case Name:
        return name(row);
    case Where: {
        if (m_mode == Mode::TensorOps) return tr("%1 cores").arg(p.cores);
        const prof::TaskRun& task = m_profile->model.tasks[m_rows[static_cast<std::size_t>(row)]];
        const prof::CoreInfo* core = m_profile->model.coreOf(task);
        return core ? QString::fromStdString(core->name) : QString();
    }
    case Flops:
        return p.flops;
    case Bytes:
        return qint64(p.bytes);
    case Cycles:
        return qint64(p.cycles);
    case Intensity:
        return p.intensity;
    case Achieved:
        return p.flopsPerCycle;
    case Roof:
        return p.roofFraction;
    case Region:
        return p.memoryRegion ? tr("memory") : tr("compute");
    default:
        return {};
    }
}

QVariant RooflineModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    if (role == kSortRole) return value(index.row(), index.column());
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Flops && index.column() <= Roof
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    if (role != Qt::DisplayRole) return {};
    const QVariant v = value(index.row(), index.column());
    switch (index.column()) {
    case Flops:
        return QString::number(v.toDouble(), 'g', 6);
    case Intensity:
    case Achieved:
        return QString::number(v.toDouble(), 'f', 3);
    case Roof:
        return QStringLiteral("%1 %").arg(v.toDouble() * 100, 0, 'f', 0);
    default:
        return v.toString();
    }
}

QVariant RooflineModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"Name",   "Ran on",     "FLOPs", "GM bytes", "Cycles",
                                         "FLOP/B", "FLOP/cycle", "Roof",  "Region"};
    if (section < 0 || section >= ColumnCount) return {};
    return tr(kNames[section]);
}

} // namespace pto::gui
