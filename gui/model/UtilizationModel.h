// Pipe busy ratio per core as a table (rows: cores, columns: pipes), for a heat table.
#pragma once

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <vector>

namespace pto::prof {
struct Profile;
}

namespace pto::gui {

/// Columns: core, type, active cycles, one per pipe (S MTE1 MTE2 MTE3 M FIX V, the
/// profiler's order), msprof's memory_bound. A pipe a core type lacks is an empty cell; so is
/// every pipe and memory_bound cell of a run whose trace level holds no pipe times (--trace
/// tasks: a 0 there would read as an idle pipe), which unavailableReason() then explains.
class UtilizationModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Core, Type, Active, FirstPipe };
    static constexpr int kSortRole = Qt::UserRole;
    /// The busy ratio in [0, 1] of a pipe cell (invalid elsewhere and for an idle core).
    static constexpr int kRatioRole = Qt::UserRole + 1;

    explicit UtilizationModel(QObject* parent = nullptr);
    ~UtilizationModel() override;

    void setProfile(std::shared_ptr<const prof::Profile> profile);
    /// Idle cores (no task time) are left out unless shown; the default hides them.
    void setShowIdle(bool show);
    bool showIdle() const { return m_showIdle; }
    /// Cores of the chip (used or not).
    int coreCount() const;
    /// The core's track id (the `core` entity of the metrics); -1 for a bad row.
    std::int64_t trackId(int row) const;
    /// The row of a core track, -1 when none.
    int rowOfTrack(std::int64_t trackId) const;
    int memoryBoundColumn() const;
    /// False for a simulated run recorded without instruction slices (--trace tasks).
    bool pipesRecorded() const;
    /// Why the pipe and memory_bound columns are empty ("" when they are not).
    QString unavailableReason() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant ratioOf(int row, int column) const;
    void rebuild();

    std::shared_ptr<const prof::Profile> m_profile;
    std::vector<std::size_t> m_rows; ///< index into RunModel::cores
    bool m_showIdle = false;
};

} // namespace pto::gui
