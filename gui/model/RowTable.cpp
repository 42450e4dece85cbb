// The generic read-only row table model (see RowTable.h).
#include "gui/model/RowTable.h"

#include <QBrush>
#include <QColor>

namespace pto::gui {

void addCell(TableRow& row, QVariant value, QString text) {
    row.values.push_back(std::move(value));
    row.texts << std::move(text);
}

RowTableModel::RowTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RowTableModel::setTable(RowTable table) {
    beginResetModel();
    m_table = std::move(table);
    endResetModel();
}

EntityRef RowTableModel::entityOf(int row) const {
    if (row < 0 || row >= rowCount()) return {};
    return m_table.rows[std::size_t(row)].ref;
}

QString RowTableModel::text(int row, int column) const {
    if (row < 0 || row >= rowCount() || column < 0 || column >= columnCount()) return {};
    return m_table.rows[std::size_t(row)].texts.value(column);
}

int RowTableModel::rowOf(const EntityRef& ref) const {
    if (ref.isNone()) return -1;
    for (std::size_t r = 0; r < m_table.rows.size(); ++r)
        if (m_table.rows[r].ref == ref) return int(r);
    return -1;
}

int RowTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_table.rows.size());
}

int RowTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_table.headers.size());
}

QVariant RowTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const TableRow& row = m_table.rows[std::size_t(index.row())];
    const auto column = std::size_t(index.column());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        return row.texts.value(index.column());
    case kSortRole:
        return column < row.values.size() ? row.values[column] : QVariant();
    case Qt::TextAlignmentRole:
        return column < row.values.size() && row.values[column].typeId() != QMetaType::QString
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    case Qt::ForegroundRole:
        for (const DeltaColumn& delta : m_table.deltaColumns) {
            if (delta.column != index.column() || column >= row.values.size()) continue;
            bool number = false;
            const double v = row.values[column].toDouble(&number);
            if (!number || v == delta.neutral || row.texts.value(index.column()) == "-") return {};
            return QBrush(v > delta.neutral ? QColor(0xc0, 0x20, 0x20) : QColor(0x10, 0x80, 0x30));
        }
        return {};
    default:
        return {};
    }
}

QVariant RowTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
    if (role == Qt::DisplayRole) return m_table.headers.value(section);
    if (role == Qt::ToolTipRole) return m_table.headerTips.value(section);
    return {};
}

} // namespace pto::gui
