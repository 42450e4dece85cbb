// The bottleneck view: findings, pipe utilization per core, cost per Tensor op, roofline.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/StudioView.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

class QLabel;
class QPlainTextEdit;
class QComboBox;
class QTableView;
template <typename T> class QFutureWatcher;

namespace pto::prof {
struct Profile;
}

namespace pto::gui {

class FindingsModel;
class LinkResolver;
class OpCostModel;
class RowTableModel;
class RooflineChart;
class RooflineModel;
class UtilizationModel;

/// The profile is computed in memory on a worker thread with its own reader (the file is
/// never written). Clicking a row or point selects it: an op → its root-stage node, a core →
/// its track, a task → reveal its time range and select its Exec-stage node.
class BottleneckView : public StudioView {
    Q_OBJECT
public:
    explicit BottleneckView(StudioContext& context, QWidget* parent = nullptr);
    ~BottleneckView() override;

    QString viewId() const override { return QStringLiteral("bottleneck"); }
    QString viewTitle() const override { return tr("Bottlenecks"); }

    bool isLoading() const { return m_loading; }
    bool hasPendingWork() const override { return m_loading; }
    /// What the header says (run summary, or why there is nothing to show).
    QString headline() const;
    /// The details pane: the selected finding, or why there is none.
    QString detailsText() const;
    /// The advice to tune the kernel with `pto tune`, with the command for the open program.
    QString tuneHint() const;

    FindingsModel& findings() { return *m_findings; }
    UtilizationModel& utilization() { return *m_utilization; }
    OpCostModel& opCost() { return *m_opCost; }
    RooflineModel& roofline() { return *m_roofline; }
    QTableView* findingsTable() const { return m_findingsTable; }
    QTableView* utilizationTable() const { return m_utilizationTable; }
    QTableView* opTable() const { return m_opTable; }
    /// A measured trace's kernels by time (`pto report`'s top kernels), in place of the ops.
    RowTableModel& kernels() { return *m_kernels; }
    QTableView* kernelTable() const { return m_kernelTable; }
    /// The notes above the utilization and op tables ("" while hidden: the data is there).
    QString pipesNote() const;
    QString opsNote() const;
    RooflineChart* rooflineChart() const { return m_chart; }

signals:
    /// The profile of the current document is shown (or the reason it cannot be).
    void profileLoaded();

protected:
    void documentChanged() override;

private:
    using Result = Loaded<const prof::Profile>;
    void buildLayout();
    void showDetails(const QString& text); // the text and the tune hint
    QWidget* buildFindingsPane();
    QWidget* buildRooflinePane();
    void connectClicks();
    /// Hides the pipe and memory_bound columns of a run without pipe times, with the reason.
    void showPipeColumns();
    /// Shows the kernel table in place of the op table for a measured trace.
    void showKernels(const prof::Profile* profile);
    void showProfile(std::shared_ptr<const prof::Profile> profile, const QString& error);
    void followSelection(const EntityRef& ref, const QObject* origin);
    void selectTaskOrOp(int rooflineRow);

    FindingsModel* m_findings;
    UtilizationModel* m_utilization;
    OpCostModel* m_opCost;
    RooflineModel* m_roofline;
    QLabel* m_header = nullptr;
    QPlainTextEdit* m_details = nullptr;
    QLabel* m_pipesNote = nullptr;
    QLabel* m_opsNote = nullptr;
    QTableView* m_findingsTable = nullptr;
    QTableView* m_utilizationTable = nullptr;
    QTableView* m_opTable = nullptr;
    RowTableModel* m_kernels;
    QTableView* m_kernelTable = nullptr;
    std::vector<std::pair<std::int64_t, std::int64_t>> m_kernelRanges; ///< per kernels() row
    QComboBox* m_pointKind = nullptr;
    RooflineChart* m_chart = nullptr;
    QFutureWatcher<Result>* m_watcher = nullptr;
    WorkerTokens m_tokens; ///< destroyed before m_watcher (a child): waits for the worker
    std::unique_ptr<LinkResolver> m_links;
    bool m_loading = false;
    bool m_hasMatmul = false; ///< the profiled program has a matmul: the tune hint tries cube_tile
    int m_generation = 0;
};

} // namespace pto::gui
