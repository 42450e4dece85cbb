// The numerical diff view: the bisection result as a banner, the diff table, and the error
// heatmap of an output whose hot tiles select their tile op and reveal it on the timeline.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/DiffHeatmap.h"
#include "gui/model/DiffModel.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/StudioView.h"

#include <memory>

class QComboBox;
class QLabel;
class QTableView;
template <typename T> class QFutureWatcher;

namespace pto::gui {

class HeatmapWidget;
class LinkResolver;
class LinkWorker;

class DiffView : public StudioView {
    Q_OBJECT
public:
    explicit DiffView(StudioContext& context, QWidget* parent = nullptr);
    ~DiffView() override;

    QString viewId() const override { return QStringLiteral("diff"); }
    QString viewTitle() const override { return tr("Numerical diff"); }

    /// Compares the current output with a golden .npy; returns "" or the reason it failed.
    QString loadGolden(const QString& npyPath);

    const BisectResult& bisect() const { return m_bisect; }
    QString bannerText() const;
    /// The verdict area's diagnosis lines (the error pattern of the current output).
    QString diagnosisText() const;
    const DiffTableModel& table() const { return m_table; }
    const HeatmapData& heatmap() const { return m_map; }
    /// The heatmap of the chosen output is being built (on a worker: it reads the output).
    bool isLoading() const { return m_loading; }
    bool hasPendingWork() const override { return m_loading; }
    HeatmapWidget* heatmapWidget() const { return m_heatmap; }
    QTableView* tableView() const { return m_view; }

protected:
    void documentChanged() override;

private:
    void onTileClicked(int tile);
    void onRowActivated(int row);
    void onSelection(const EntityRef& ref, const QObject* origin);
    /// Builds the chosen output's heatmap on a worker.
    void rebuildHeatmap();
    void showHeatmap(const Loaded<HeatmapData>& loaded);
    /// Shows m_map: heatmap, diagnosis and the note on its hottest tile.
    void applyHeatmap();

    DiffTableModel m_table;
    BisectResult m_bisect;
    HeatmapData m_map;
    std::shared_ptr<const TensorData> m_golden; ///< shared with the heatmap's worker
    std::unique_ptr<LinkResolver> m_links;
    std::shared_ptr<LinkWorker> m_linkWorker; ///< reads outputs for the heatmap
    QLabel* m_banner = nullptr;
    QLabel* m_reason = nullptr;
    QLabel* m_diagnosis = nullptr;
    QComboBox* m_outputs = nullptr;
    QLabel* m_note = nullptr;
    QTableView* m_view = nullptr;
    HeatmapWidget* m_heatmap = nullptr;
    QFutureWatcher<Loaded<HeatmapData>>* m_watcher = nullptr;
    WorkerTokens m_tokens; ///< destroyed before m_watcher (a child): waits for the worker
    int m_generation = 0;
    bool m_loading = false;
};

} // namespace pto::gui
