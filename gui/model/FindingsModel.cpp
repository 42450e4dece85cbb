// Table model of the profiler's findings (severity, gain, evidence) for the bottleneck view.
#include "gui/model/FindingsModel.h"

#include "profiler/report/Report.h"

#include "gui/model/PlainText.h"

#include "profiler/Profile.h"

namespace pto::gui {
namespace {

// The run's time unit: cycles, or ns for a measured trace (gains are in it).
QString unitOf(const prof::Profile* p) {
    if (!p) return QStringLiteral("cycles");
    const std::string_view unit = p->model.timeUnit();
    return QString::fromUtf8(unit.data(), static_cast<qsizetype>(unit.size()));
}

QString entityText(const prof::Finding& f) {
    QString text = QString::fromStdString(f.entity);
    if (f.entityId) text += QStringLiteral(" %1").arg(*f.entityId);
    return text;
}

} // namespace

FindingsModel::FindingsModel(QObject* parent) : QAbstractTableModel(parent) {}

FindingsModel::~FindingsModel() = default;

void FindingsModel::setProfile(std::shared_ptr<const prof::Profile> profile) {
    beginResetModel();
    m_profile = std::move(profile);
    endResetModel();
}

const prof::Finding& FindingsModel::finding(int row) const {
    return m_profile->findings.at(static_cast<std::size_t>(row));
}

EntityRef FindingsModel::entityOf(int row) const {
    const prof::Finding& f = finding(row);
    if (!f.entityId) return {};
    if (f.entity == "core") return EntityRef::track(*f.entityId);
    if (f.entity == "task") return EntityRef::node(m_profile->model.execStageId, *f.entityId);
    if (f.entity == "tensor_op") return EntityRef::node(m_profile->model.rootStageId, *f.entityId);
    return {};
}

QString FindingsModel::details(int row) const {
    if (row < 0 || row >= rowCount()) return {};
    const prof::Finding& f = finding(row);
    QString text = QString::fromStdString(f.title) + QLatin1Char('\n');
    for (const std::string& line : f.evidence)
        text += QStringLiteral("  • %1\n").arg(QString::fromStdString(line));
    text += tr("advice: %1\n").arg(QString::fromStdString(f.advice));
    text += tr("estimated gain: %1").arg(QString::fromStdString(prof::gainText(*m_profile, f)));
    return text;
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_profile) return 0;
    return static_cast<int>(m_profile->findings.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const prof::Finding& f = finding(index.row());
    if (role == Qt::ToolTipRole) return plainToolTip(details(index.row()));
    if (role == kSortRole) {
        switch (index.column()) {
        case Severity:
            return static_cast<int>(f.severity);
        case Gain:
        case GainRange:
            return f.gainCycles;
        case GainShare:
            return f.gainFraction;
        default:
            break;
        }
        role = Qt::DisplayRole;
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Gain && index.column() <= GainRange
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Severity:
        return QString::fromUtf8(prof::severityName(f.severity).data(),
                                 static_cast<int>(prof::severityName(f.severity).size()));
    case Title:
        return QString::fromStdString(f.title);
    case Gain:
        return QString::number(f.gainCycles, 'f', 0);
    case GainShare:
        return QStringLiteral("%1 %").arg(f.gainFraction * 100, 0, 'f', 1);
    case GainRange:
        return QStringLiteral("%1–%2").arg(f.gainLow, 0, 'f', 0).arg(f.gainHigh, 0, 'f', 0);
    case Entity:
        return entityText(f);
    default:
        return {};
    }
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"Severity",     "Finding", "Gain (%1)",
                                         "Gain (% run)", "Range",   "About"};
    if (section < 0 || section >= ColumnCount) return {};
    if (section == Gain) return tr(kNames[section]).arg(unitOf(m_profile.get()));
    return tr(kNames[section]);
}

} // namespace pto::gui
