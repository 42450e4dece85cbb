// The tables of the compare view: per-op and per-core deltas of two runs, and simulated ops
// next to measured kernels, as sortable rows that each name what a click selects.
#pragma once

#include "gui/model/SelectionModel.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <QVariant>

#include <vector>

namespace pto::prof {
struct Profile;
struct RunComparison;
struct SimRealComparison;
} // namespace pto::prof

namespace pto::gui {

/// One row: a sortable value and a text per column, and what a click selects.
struct CompareRow {
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

struct CompareTable {
    QStringList headers;
    QStringList headerTips;
    std::vector<DeltaColumn> deltaColumns;
    std::vector<CompareRow> rows;
};

/// Per Tensor op: span and instruction cycles of the baseline and the current run, the change,
/// and the bound class of each. A click selects the op in the current run's root stage.
CompareTable opDeltaTable(const prof::RunComparison& c, const prof::Profile& current);
/// Per core busy in either run: busy cycles and tasks of each, the change. A click selects the
/// core's track in the current run.
CompareTable coreDeltaTable(const prof::RunComparison& c, const prof::Profile& current);
/// Per simulated op (or the whole run): the measured kernels paired with it, both times, their
/// ratio and each pipe's busy fraction side by side. A click selects the simulated op when
/// `selectSimOps` (the open trace is the simulated one).
CompareTable simRealTable(const prof::SimRealComparison& c, const prof::Profile& sim,
                          bool selectSimOps);

/// A read-only view of a CompareTable; sorts through kSortRole (numbers as numbers).
class CompareTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kSortRole = Qt::UserRole;

    explicit CompareTableModel(QObject* parent = nullptr);

    void setTable(CompareTable table);
    const CompareTable& table() const { return m_table; }
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
    CompareTable m_table;
};

} // namespace pto::gui
