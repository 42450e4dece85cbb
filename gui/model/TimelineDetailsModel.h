// Details of one timeline slice as (field, value) rows: timing, instruction, operands, stall
// reason and other args, flows, and the provenance chain to the Tensor op and source line.
#pragma once

#include "gui/model/LinkResolver.h"

#include <QAbstractTableModel>
#include <QString>

#include <cstdint>
#include <vector>

namespace pto::gui {

struct DetailRow {
    QString field;
    QString value;
};

/// Everything the details panel shows of one slice (read on a worker by the timeline).
struct TimelineDetails {
    std::int64_t sliceId = -1;
    std::int64_t tensorOp = -1;
    NodeKey programOp; ///< the op of the program it ran for (a loop body op, not the loop)
    std::vector<DetailRow> rows;
};

class TimelineDetailsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { FieldColumn, ValueColumn, ColumnCount };

    explicit TimelineDetailsModel(QObject* parent = nullptr);

    /// The details of slice `sliceId` (none for -1). `clockHz` ≤ 0: times in cycles only.
    /// Any thread, with that thread's reader and resolver.
    static TimelineDetails read(const tracedb::TraceReader& reader, LinkResolver& links,
                                std::int64_t sliceId, double clockHz);
    /// Shows slice `sliceId` (-1 clears): read() then setDetails().
    void show(const tracedb::TraceReader& reader, LinkResolver& links, std::int64_t sliceId,
              double clockHz);
    void setDetails(TimelineDetails details);
    void clear();

    std::int64_t sliceId() const { return m_sliceId; }
    std::int64_t tensorOp() const { return m_tensorOp; }
    const std::vector<DetailRow>& rows() const { return m_rows; }
    /// The value of the first row named `field` (empty when absent).
    QString value(const QString& field) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::int64_t m_sliceId = -1;
    std::int64_t m_tensorOp = -1;
    std::vector<DetailRow> m_rows;
};

} // namespace pto::gui
