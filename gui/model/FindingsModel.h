// The profiler's findings as a table: severity, title, estimated gain and what it is about.
#pragma once

#include "gui/model/SelectionModel.h"

#include <QAbstractTableModel>

#include <memory>

namespace pto::prof {
struct Profile;
struct Finding;
} // namespace pto::prof

namespace pto::gui {

/// One row per finding, by estimated gain (the profiler's order). The evidence and advice are
/// the tooltip of every cell and details(row) for a text pane.
class FindingsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Severity, Title, Gain, GainShare, GainRange, Entity, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole; ///< numbers as numbers

    explicit FindingsModel(QObject* parent = nullptr);
    ~FindingsModel() override;

    /// Shows the findings of `profile` (null: none).
    void setProfile(std::shared_ptr<const prof::Profile> profile);
    const prof::Finding& finding(int row) const;
    /// Title, evidence lines, advice and the gain range as plain text.
    QString details(int row) const;
    /// What the finding names, as the shared selection knows it: a core's track, an Exec-stage
    /// task node or a root-stage Tensor op node (None when it names nothing).
    EntityRef entityOf(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const prof::Profile> m_profile;
};

} // namespace pto::gui
