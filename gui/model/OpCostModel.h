// Cost of each Tensor op of the program (instruction cycles, span, FLOPs, bytes, bound class).
#pragma once

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <vector>

namespace pto::prof {
struct Profile;
}

namespace pto::gui {

/// One row per op of the parsed program (the root stage) that ran instructions, in program
/// order (directives such as vec_tile and ops folded away have no row). A loop that was
/// unrolled is a group: its row holds the total of its body ops, whose rows follow it
/// ("matmul %qk in kv"); shares are of the whole run, so a loop's body ops add up to it.
/// A run recorded without instruction slices (--trace tasks) has no op costs: no rows, and
/// unavailableReason() says why, as `pto report` does; so does a measured trace (no IR).
class OpCostModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Line,
        Op,
        Cycles,
        Share,
        Span,
        Flops,
        Bytes,
        Intensity,
        RoofFraction,
        BoundClass,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole;

    explicit OpCostModel(QObject* parent = nullptr);
    ~OpCostModel() override;

    void setProfile(std::shared_ptr<const prof::Profile> profile);
    /// The op's node id in opStage(row) (the root stage, or the stage of a loop body op's
    /// copies); -1 for a bad row.
    std::int64_t opId(int row) const;
    std::int64_t opStage(int row) const;
    /// Stage of the Tensor ops (RunModel::rootStageId); -1 without a profile.
    std::int64_t rootStage() const;
    /// Why the table is empty although the run executed ("" otherwise).
    QString unavailableReason() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant value(int row, int column) const; ///< sortable value of a cell
    QString text(int row, int column) const;

    std::shared_ptr<const prof::Profile> m_profile;
    std::int64_t m_attributed = 0;
    std::vector<std::size_t> m_rows; ///< index into RunModel::tensorOps
};

} // namespace pto::gui
