// The candidates of a tune file as a table, and their Pareto front (gui/model/TuneModel.h).
#include "gui/model/TuneModel.h"

#include <algorithm>
#include <limits>

namespace pto::gui {

using tracedb::TuneCandidate;
using tracedb::TuneStatus;

std::vector<int64_t> paretoFront(const std::vector<TuneCandidate>& candidates) {
    std::vector<const TuneCandidate*> ok;
    for (const TuneCandidate& c : candidates)
        if (c.status == TuneStatus::Ok && c.cycles && c.onchipBytes) ok.push_back(&c);
    std::sort(ok.begin(), ok.end(), [](const TuneCandidate* a, const TuneCandidate* b) {
        return std::tie(*a->onchipBytes, *a->cycles, a->id) <
               std::tie(*b->onchipBytes, *b->cycles, b->id);
    });
    std::vector<int64_t> front;
    int64_t bestCycles = std::numeric_limits<int64_t>::max();
    for (const TuneCandidate* c : ok)
        if (*c->cycles < bestCycles) {
            bestCycles = *c->cycles;
            front.push_back(c->id);
        }
    return front;
}

TuneTableModel::TuneTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TuneTableModel::setData(tracedb::TuneData data) {
    beginResetModel();
    m_data = std::move(data);
    m_baselineCycles = 0;
    for (const TuneCandidate& c : m_data.candidates)
        if (c.id == 0 && c.cycles) m_baselineCycles = *c.cycles;
    endResetModel();
}

int TuneTableModel::rowOf(int64_t id) const {
    for (size_t i = 0; i < m_data.candidates.size(); ++i)
        if (m_data.candidates[i].id == id) return int(i);
    return -1;
}

int TuneTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_data.candidates.size());
}

int TuneTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : Count;
}

QVariant TuneTableModel::sortValue(const TuneCandidate& c, int column) const {
    constexpr qlonglong kMissing = std::numeric_limits<qlonglong>::max();
    switch (column) {
    case Id:
        return qlonglong(c.id);
    case Cycles:
        return c.cycles ? qlonglong(*c.cycles) : kMissing;
    case Speedup:
        return c.cycles && m_baselineCycles ? double(m_baselineCycles) / double(*c.cycles) : 0.0;
    case Cores:
        return qlonglong(c.coresUsed.value_or(-1));
    case Onchip:
        return c.onchipBytes ? qlonglong(*c.onchipBytes) : kMissing;
    case LowerBound:
        return c.lowerBound ? qlonglong(*c.lowerBound) : kMissing;
    default:
        return displayValue(c, column);
    }
}

QVariant TuneTableModel::displayValue(const TuneCandidate& c, int column) const {
    switch (column) {
    case Id:
        return qlonglong(c.id);
    case Cycles:
        return c.cycles ? QVariant(qlonglong(*c.cycles)) : QVariant();
    case Speedup:
        return c.cycles && m_baselineCycles
                   ? QVariant(QStringLiteral("%1×").arg(
                         double(m_baselineCycles) / double(*c.cycles), 0, 'f', 3))
                   : QVariant();
    case Status:
        return QString::fromUtf8(tracedb::tuneStatusName(c.status));
    case Bound:
        return QString::fromStdString(c.boundClass);
    case Cores:
        return c.coresUsed ? QVariant(qlonglong(*c.coresUsed)) : QVariant();
    case Onchip:
        return c.onchipBytes ? QVariant(QString::number(double(*c.onchipBytes) / 1024.0, 'f', 1))
                             : QVariant();
    case LowerBound:
        return c.lowerBound ? QVariant(qlonglong(*c.lowerBound)) : QVariant();
    case Settings:
        return QString::fromStdString(c.label);
    default:
        return {};
    }
}

QVariant TuneTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const TuneCandidate& c = m_data.candidates[size_t(index.row())];
    if (role == kSortRole) return sortValue(c, index.column());
    if (role == Qt::DisplayRole) return displayValue(c, index.column());
    if (role == Qt::ToolTipRole && !c.error.empty()) return QString::fromStdString(c.error);
    if (role == Qt::TextAlignmentRole && index.column() != Settings && index.column() != Status &&
        index.column() != Bound)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant TuneTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"id",    "cycles",      "speed-up",    "status",  "bound",
                                         "cores", "on-chip KiB", "lower bound", "settings"};
    return section >= 0 && section < Count ? QVariant(tr(kNames[section])) : QVariant();
}

} // namespace pto::gui
