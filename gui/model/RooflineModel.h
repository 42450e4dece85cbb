// Roofline points (one per task or per Tensor op) and the roofs they are measured against.
#pragma once

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <vector>

namespace pto::prof {
struct Profile;
struct RooflinePoint;
} // namespace pto::prof

namespace pto::gui {

/// A roof: flat at `flopsPerCycle` right of the ridge, `bytesPerCycle` × intensity left of it.
struct RooflineRoof {
    QString label;
    double flopsPerCycle = 0;
    double bytesPerCycle = 0;
    double ridge() const { return bytesPerCycle > 0 ? flopsPerCycle / bytesPerCycle : 0; }
};

/// Rows: the tasks that ran (Tasks) or the Tensor ops that ran instructions (TensorOps), in
/// id order; an unrolled loop's body ops stand for it (not its total as well). The chart plots
/// rows with plottable() points on log-log axes. A measured trace (pto import) has no rows and no
/// roofs: its files hold no FLOP or byte counts, and the simulated chip's roofs are not those of
/// the device it ran on (unavailableReason says so).
class RooflineModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Mode { Tasks, TensorOps };
    enum Column {
        Name,
        Where,
        Flops,
        Bytes,
        Cycles,
        Intensity,
        Achieved,
        Roof,
        Region,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole;

    explicit RooflineModel(QObject* parent = nullptr);
    ~RooflineModel() override;

    void setProfile(std::shared_ptr<const prof::Profile> profile);
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }

    const prof::RooflinePoint& point(int row) const;
    /// Task id (Exec-stage node) or Tensor op id (root-stage node) of a row.
    std::int64_t entityId(int row) const;
    /// The stage of entityId's node: the Exec stage (tasks) or the root stage (ops).
    std::int64_t entityStage() const;
    /// The stage of row's entityId: entityStage(), or for an op of an unrolled loop's body the
    /// stage of its copies (prof::TensorOpCost::stageId).
    std::int64_t entityStage(int row) const;
    /// First and last cycle of the row's task or op.
    std::pair<std::int64_t, std::int64_t> timeRange(int row) const;
    QString name(int row) const;
    /// Intensity and achieved FLOP/cycle both > 0 (drawable on log axes).
    bool plottable(int row) const;
    const std::vector<RooflineRoof>& roofs() const { return m_roofs; }
    /// Why there is no roofline for the profile (a measured trace), or no point per Tensor op
    /// (a run without instruction slices, --trace tasks); empty otherwise.
    QString unavailableReason() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void rebuild();
    QVariant value(int row, int column) const;

    std::shared_ptr<const prof::Profile> m_profile;
    Mode m_mode = Mode::Tasks;
    std::vector<std::size_t> m_rows; ///< index into tasks or tensorOps
    std::vector<RooflineRoof> m_roofs;
};

} // namespace pto::gui
