// The diff table of a trace (numerical comparisons by validate) as a Qt table model, and the
// bisection result (first bad stage and op) read from it.
#pragma once

#include "gui/model/SelectionModel.h"
#include "trace_db/TraceReader.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <vector>

namespace pto::gui {

/// The first divergence found by `pto diff --bisect` (diff row of kind `bisect`).
struct BisectResult {
    bool found = false;
    QString stage; ///< pass name, e.g. "expand-tiles" (or "simulator")
    std::int64_t stageId = -1;
    std::int64_t nodeId = -1;
    QString op;       ///< mnemonic and value, e.g. "tload %0"
    QString location; ///< "line 4:8"
    QString tensorOp; ///< the Tensor op it comes from, e.g. "%c = matmul (line 4:8)"
    QString reason;   ///< validate's sentence
    /// One line for the banner: "First divergence: stage expand-tiles, op tload %0 (line 4:8)".
    QString headline() const;
};

/// Reads the `bisect` row of the diff table (found = false when the trace has none).
BisectResult readBisect(const tracedb::TraceReader& reader);

/// One row per diff row, in id order. Columns: kind, name, stage, op, verdict, max_abs,
/// max_rel, mismatches, cosine. Qt::UserRole on any column gives the row's node as a
/// QVariant list {stageId, nodeId} (empty when the row names none).
class DiffTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Kind, Name, Stage, Op, Verdict, MaxAbs, MaxRel, Mismatches, Cosine, kColumns };

    explicit DiffTableModel(QObject* parent = nullptr);

    /// Replaces the rows with those of `reader` (nullptr: empty).
    void load(const tracedb::TraceReader* reader);
    /// The node a row names (None when it names no node).
    EntityRef nodeAt(int row) const;
    /// The first row naming this node, or -1.
    int rowOf(const EntityRef& node) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString kind, name, stage, op, verdict;
        double maxAbs = 0, maxRel = 0, cosine = 1;
        std::int64_t mismatches = 0;
        std::int64_t stageId = -1, nodeId = -1;
    };
    std::vector<Row> m_rows;
};

} // namespace pto::gui
