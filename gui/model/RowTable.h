// A read-only table of rows built on a worker (sortable values, texts, what a click selects),
// shown by one model: the compare view's delta tables and the slice table use it.
#pragma once

#include "gui/model/SelectionModel.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <QVariant>

#include <vector>

namespace pto::gui {

/// One row: a sortable value and a text per column, and what a click selects.
struct TableRow {
    std::vector<QVariant> values;
    QStringList texts;
    EntityRef ref;
};

/// A column of changes: a cell whose value is above `neutral` reads red (slower, more), below
/// it green.
struct DeltaColumn {
    int column = 0;
    double neutral = 0;
};

struct RowTable {
    QStringList headers;
    QStringList headerTips;
    std::vector<DeltaColumn> deltaColumns;
    std::vector<TableRow> rows;
};

/// Appends a column's sortable value and its text to a row.
void addCell(TableRow& row, QVariant value, QString text);

/// A read-only view of a RowTable; sorts through kSortRole (numbers as numbers).
class RowTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kSortRole = Qt::UserRole;

    explicit RowTableModel(QObject* parent = nullptr);

    void setTable(RowTable table);
    const RowTable& table() const { return m_table; }
    EntityRef entityOf(int row) const;
    /// The text of a cell (for tests and copying).
    QString text(int row, int column) const;
    /// The first row whose entity is `ref`, -1 for none.
    int rowOf(const EntityRef& ref) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    RowTable m_table;
};

} // namespace pto::gui
