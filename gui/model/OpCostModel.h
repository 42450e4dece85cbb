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
/// order (directives such as vec_tile and ops folded away have no row).
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
    /// The op's node id in the root stage; -1 for a bad row.
    std::int64_t opId(int row) const;
    int rowOfOp(std::int64_t opId) const;
    /// Stage of the Tensor ops (RunModel::rootStageId); -1 without a profile.
    std::int64_t rootStage() const;

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
