// Table model of pipe utilization per core (msprof's ratios) for the bottleneck heat table.
#include "gui/model/UtilizationModel.h"

#include "profiler/Profile.h"

#include <cmath>

namespace pto::gui {
namespace {

constexpr int kPipeColumns = static_cast<int>(prof::kPipeCount);

} // namespace

UtilizationModel::UtilizationModel(QObject* parent) : QAbstractTableModel(parent) {}

UtilizationModel::~UtilizationModel() = default;

void UtilizationModel::setProfile(std::shared_ptr<const prof::Profile> profile) {
    beginResetModel();
    m_profile = std::move(profile);
    rebuild();
    endResetModel();
}

void UtilizationModel::setShowIdle(bool show) {
    if (show == m_showIdle) return;
    beginResetModel();
    m_showIdle = show;
    rebuild();
    endResetModel();
}

void UtilizationModel::rebuild() {
    m_rows.clear();
    if (!m_profile) return;
    for (std::size_t i = 0; i < m_profile->model.cores.size(); ++i)
        if (m_showIdle || m_profile->pipeUtil.cores[i].activeCycles > 0) m_rows.push_back(i);
}

int UtilizationModel::coreCount() const {
    return m_profile ? static_cast<int>(m_profile->model.cores.size()) : 0;
}

std::int64_t UtilizationModel::trackId(int row) const {
    if (row < 0 || row >= rowCount()) return -1;
    return m_profile->model.cores[m_rows[static_cast<std::size_t>(row)]].trackId;
}

int UtilizationModel::rowOfTrack(std::int64_t track) const {
    for (int row = 0; row < rowCount(); ++row)
        if (trackId(row) == track) return row;
    return -1;
}

int UtilizationModel::memoryBoundColumn() const {
    return FirstPipe + kPipeColumns;
}

bool UtilizationModel::pipesRecorded() const {
    return !m_profile || m_profile->model.recordsInstrCycles();
}

QString UtilizationModel::unavailableReason() const {
    if (pipesRecorded()) return {};
    return tr("Pipe busy times are not recorded at --trace %1: this run's trace has no "
              "instruction slices (pto run --trace instructions records them).")
        .arg(QString::fromStdString(m_profile->model.traceLevel));
}

int UtilizationModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_profile) return 0;
    return static_cast<int>(m_rows.size());
}

int UtilizationModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : memoryBoundColumn() + 1;
}

QVariant UtilizationModel::ratioOf(int row, int column) const {
    const std::size_t i = m_rows[static_cast<std::size_t>(row)];
    const auto& core = m_profile->model.cores[i];
    const prof::PipeRatios& ratios = m_profile->pipeUtil.cores[i];
    if (ratios.activeCycles <= 0 || !pipesRecorded()) return {};
    const auto pipe = static_cast<prof::PipeId>(column - FirstPipe);
    if (prof::heldRatioName(m_profile->model, core.type, pipe).empty()) return {};
    return ratios.ratio[static_cast<std::size_t>(pipe)];
}

QVariant UtilizationModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const int row = index.row();
    const int column = index.column();
    const std::size_t i = m_rows[static_cast<std::size_t>(row)];
    const auto& core = m_profile->model.cores[i];
    const prof::PipeRatios& ratios = m_profile->pipeUtil.cores[i];
    const bool pipeColumn = column >= FirstPipe && column < memoryBoundColumn();
    if (role == kRatioRole) return pipeColumn ? ratioOf(row, column) : QVariant();
    if (role == Qt::TextAlignmentRole)
        return column >= Active ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == Qt::ToolTipRole && pipeColumn) {
        const QVariant ratio = ratioOf(row, column);
        if (!ratio.isValid()) return {};
        const auto pipe = prof::pipeIdName(static_cast<prof::PipeId>(column - FirstPipe));
        const std::string_view unit = m_profile->model.timeUnit(); // ns for a measured trace
        return tr("%1, %2: busy %3 % of the %4 %6 the core spent in tasks (%5 %6)")
            .arg(QString::fromStdString(core.name),
                 QString::fromUtf8(pipe.data(), qsizetype(pipe.size())))
            .arg(ratio.toDouble() * 100, 0, 'f', 1)
            .arg(ratios.activeCycles)
            .arg(qint64(std::llround(ratio.toDouble() * double(ratios.activeCycles))))
            .arg(QString::fromUtf8(unit.data(), qsizetype(unit.size())));
    }
    const bool sort = role == kSortRole;
    if (role != Qt::DisplayRole && !sort) return {};
    if (column == Core) return QString::fromStdString(core.name);
    if (column == Type) return QString::fromStdString(core.type);
    if (column == Active)
        return sort ? QVariant(qint64(ratios.activeCycles))
                    : QVariant(QString::number(ratios.activeCycles));
    if (ratios.activeCycles <= 0) return sort ? QVariant(-1.0) : QVariant();
    if (pipeColumn) {
        const QVariant ratio = ratioOf(row, column);
        if (!ratio.isValid()) return sort ? QVariant(-1.0) : QVariant();
        return sort ? ratio
                    : QVariant(QStringLiteral("%1 %").arg(ratio.toDouble() * 100, 0, 'f', 0));
    }
    if (!pipesRecorded()) return sort ? QVariant(-1.0) : QVariant();
    const double memoryBound = ratios.memoryBound();
    return sort ? QVariant(memoryBound) : QVariant(QString::number(memoryBound, 'f', 2));
}

QVariant UtilizationModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
    if (role == Qt::ToolTipRole && section == memoryBoundColumn())
        return tr("msprof memory_bound = MTE2 ratio ÷ max(cube, vector ratio); > 1: memory bound");
    if (role == Qt::ToolTipRole && section >= FirstPipe)
        return tr("busy cycles of the pipe ÷ cycles the core spent in tasks");
    if (role == Qt::ToolTipRole && section == Core)
        return tr("the core (click a row to select it)");
    if (role == Qt::ToolTipRole && section == Type) return tr("AIC (cube) or AIV (vector) core");
    if (role == Qt::ToolTipRole && section == Active)
        return tr("cycles the core spent in tasks (the denominator of every pipe share)");
    if (role != Qt::DisplayRole) return {};
    if (section == Core) return tr("Core");
    if (section == Type) return tr("Type");
    if (section == Active)
        return m_profile && m_profile->model.measured ? tr("Active (ns)") : tr("Active cycles");
    if (section == memoryBoundColumn()) return tr("memory_bound");
    const auto name = prof::pipeIdName(static_cast<prof::PipeId>(section - FirstPipe));
    return QString::fromUtf8(name.data(), static_cast<int>(name.size()));
}

} // namespace pto::gui
