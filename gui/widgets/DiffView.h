// The numerical diff view: the bisection result as a banner, the diff table, and the error
// heatmap of an output whose hot tiles select their tile op and reveal it on the timeline.
#pragma once

#include "gui/model/DiffHeatmap.h"
#include "gui/model/DiffModel.h"
#include "gui/widgets/StudioView.h"

#include <memory>

class QComboBox;
class QLabel;
class QTableView;

namespace pto::gui {

class HeatmapWidget;
class LinkResolver;

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
    HeatmapWidget* heatmapWidget() const { return m_heatmap; }
    QTableView* tableView() const { return m_view; }

protected:
    void documentChanged() override;

private:
    void onTileClicked(int tile);
    void onRowActivated(int row);
    void onSelection(const EntityRef& ref, const QObject* origin);
    void rebuildHeatmap();

    DiffTableModel m_table;
    BisectResult m_bisect;
    HeatmapData m_map;
    std::unique_ptr<TensorData> m_golden;
    std::unique_ptr<LinkResolver> m_links;
    QLabel* m_banner = nullptr;
    QLabel* m_reason = nullptr;
    QLabel* m_diagnosis = nullptr;
    QComboBox* m_outputs = nullptr;
    QLabel* m_note = nullptr;
    QTableView* m_view = nullptr;
    HeatmapWidget* m_heatmap = nullptr;
};

} // namespace pto::gui
