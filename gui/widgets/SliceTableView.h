// The slice table view: every slice of the run in a sortable table, or a pivot of them by
// name, track, core, category or source line with duration statistics; rows click through.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/SlicePivot.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/StudioView.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
template <typename T> class QFutureWatcher;

namespace pto::gui {

/// The table is built on a worker with its own reader; a new grouping or filter (Return)
/// cancels the running one. Clicking a row selects its slice (a group: its longest), so the
/// timeline reveals it and the other views follow.
class SliceTableView : public StudioView {
    Q_OBJECT
public:
    explicit SliceTableView(StudioContext& context, QWidget* parent = nullptr);
    ~SliceTableView() override;

    QString viewId() const override { return QStringLiteral("tables"); }
    QString viewTitle() const override { return tr("Slice table"); }

    /// Rebuilds the table with this grouping and filter (as the controls would).
    void showPivot(SliceGrouping grouping, const QString& filter);
    bool isLoading() const { return m_loading; }
    bool hasPendingWork() const override { return m_loading; }
    QString statusText() const;
    RowTableModel& rows() { return *m_rows; }
    QTableView* table() const { return m_table; }
    QComboBox* groupingBox() const { return m_grouping; }
    QLineEdit* filterBox() const { return m_filter; }

signals:
    void pivotShown();

protected:
    void documentChanged() override;

private:
    using Result = Loaded<SlicePivot>;
    void reload();

    RowTableModel* m_rows;
    QComboBox* m_grouping = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_status = nullptr;
    QTableView* m_table = nullptr;
    QFutureWatcher<Result>* m_watcher = nullptr;
    WorkerTokens m_tokens; ///< destroyed before m_watcher (a child): waits for the worker
    bool m_loading = false;
    int m_generation = 0;
};

} // namespace pto::gui
