// A tune file (`pto tune`, trace_db/TuneDb.h) as a table of candidates, and the Pareto front of
// cycles against on-chip memory.
#pragma once

#include "trace_db/TuneDb.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <vector>

namespace pto::gui {

/// The candidates that no other beats on both cycles and on-chip bytes (ok candidates with a
/// footprint), by on-chip bytes ascending.
std::vector<int64_t> paretoFront(const std::vector<tracedb::TuneCandidate>& candidates);

/// One row per candidate, in id order: id, cycles, speed-up over the program as written,
/// status, bound class, cores used, on-chip KiB, lower bound, settings (the error as tooltip).
class TuneTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Cycles, Speedup, Status, Bound, Cores, Onchip, LowerBound, Settings, Count };
    static constexpr int kSortRole = Qt::UserRole; ///< numbers as numbers (missing: last)

    explicit TuneTableModel(QObject* parent = nullptr);
    void setData(tracedb::TuneData data);
    const tracedb::TuneData& tuneData() const { return m_data; }
    const tracedb::TuneCandidate& candidate(int row) const {
        return m_data.candidates[size_t(row)];
    }
    /// The row of candidate `id`, -1 when there is none.
    int rowOf(int64_t id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant sortValue(const tracedb::TuneCandidate& c, int column) const;
    QVariant displayValue(const tracedb::TuneCandidate& c, int column) const;

    tracedb::TuneData m_data;
    int64_t m_baselineCycles = 0; ///< candidate 0's cycles (0 when it did not run)
};

} // namespace pto::gui
