// The compare view: the open run next to a baseline run (a what-if, another tile config, the
// build before a change, or a measured trace): summaries, delta tables, roofline arrows and
// the two timelines one above the other.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/StudioView.h"

#include <memory>

class QLabel;
class QSplitter;
class QTabWidget;
class QTableView;
template <typename T> class QFutureWatcher;

namespace pto::gui {

class RowTableModel;
struct RunPairComparison;
class RooflineChart;
class RooflineModel;
class TimelineView;

/// Both runs are profiled on a worker thread, each with its own reader. Rows of the tables
/// click through to the open run (an op selects its root-stage node, a core its track); the
/// timelines keep the same cycle range. With no baseline the view says how to choose one.
class CompareView : public StudioView {
    Q_OBJECT
public:
    explicit CompareView(StudioContext& context, QWidget* parent = nullptr);
    ~CompareView() override;

    QString viewId() const override { return QStringLiteral("compare"); }
    QString viewTitle() const override { return tr("Compare runs"); }

    /// The comparison is being computed (the timelines may still load after it is shown).
    bool isLoading() const { return m_loading; }
    /// The comparison or one of the two timelines is loading.
    bool hasPendingWork() const override;
    /// The headline: both runs' totals and the change, or why there is nothing to compare.
    QString headline() const;
    /// The side-by-side bottleneck summaries (baseline, open run).
    QString baselineSummary() const;
    QString currentSummary() const;
    /// True when one run is measured and the other simulated (the kernel table is shown).
    bool simVsReal() const { return m_simVsReal; }

    RowTableModel& opDeltas() { return *m_ops; }
    RowTableModel& coreDeltas() { return *m_cores; }
    RowTableModel& kernelPairs() { return *m_kernels; }
    QTableView* opTable() const { return m_opTable; }
    QTableView* coreTable() const { return m_coreTable; }
    QTableView* kernelTable() const { return m_kernelTable; }
    RooflineChart* rooflineChart() const { return m_chart; }
    QTabWidget* tabs() const { return m_tabs; }
    /// The timelines of the open run and of the baseline (made with the first baseline).
    TimelineView* currentTimeline() const { return m_currentTimeline; }
    TimelineView* baselineTimeline() const { return m_baselineTimeline; }

signals:
    /// The comparison of the current pair is shown (or the reason it cannot be).
    void comparisonLoaded();

protected:
    void documentChanged() override;

private:
    using Result = Loaded<const RunPairComparison>;
    void buildLayout();
    QTableView* addTable(RowTableModel* model, const QString& title);
    QWidget* buildTimelines();
    void reload();
    void showComparison(const Result& loaded);
    void showTimelines();
    void syncTimelines(TimelineView& from, TimelineView& to);

    RowTableModel* m_ops;
    RowTableModel* m_cores;
    RowTableModel* m_kernels;
    RooflineModel* m_roofline;
    QLabel* m_header = nullptr;
    QLabel* m_baselineSummary = nullptr;
    QLabel* m_currentSummary = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableView* m_opTable = nullptr;
    QTableView* m_coreTable = nullptr;
    QTableView* m_kernelTable = nullptr;
    RooflineChart* m_chart = nullptr;
    QSplitter* m_timelines = nullptr;
    StudioContext m_baselineContext; ///< the baseline's own document for its timeline
    TimelineView* m_currentTimeline = nullptr;
    TimelineView* m_baselineTimeline = nullptr;
    QFutureWatcher<Result>* m_watcher = nullptr;
    WorkerTokens m_tokens; ///< destroyed before m_watcher (a child): waits for the worker
    bool m_loading = false;
    bool m_simVsReal = false;
    bool m_syncing = false;
    int m_generation = 0;
};

} // namespace pto::gui
