// Two stages side by side: pick each stage, select a node in either list and the nodes it maps
// to in the other stage are highlighted (through provenance); follows the shared selection.
#pragma once

#include "gui/model/StageCompareModel.h"
#include "gui/widgets/StudioView.h"

#include <memory>

class QComboBox;
class QListView;

namespace pto::gui {

class StageCompareView : public StudioView {
    Q_OBJECT
public:
    explicit StageCompareView(StudioContext& context, QWidget* parent = nullptr);
    ~StageCompareView() override;

    QString viewId() const override { return QStringLiteral("stages"); }
    QString viewTitle() const override { return tr("Stage comparison"); }

    void setStages(std::int64_t left, std::int64_t right);
    const StageNodeListModel& leftNodes() const { return m_left; }
    const StageNodeListModel& rightNodes() const { return m_right; }
    QListView* leftList() const { return m_leftList; }
    QListView* rightList() const { return m_rightList; }

protected:
    void documentChanged() override;

private:
    void onStagePicked(bool left, int row);
    void onNodeClicked(bool left, const QModelIndex& index);
    void onSelection(const EntityRef& ref, const QObject* origin);
    /// Highlights, on both sides, what (stage, node) maps to.
    void highlight(NodeKey source);

    StageListModel m_stages;
    StageNodeListModel m_left;
    StageNodeListModel m_right;
    std::unique_ptr<LinkResolver> m_links;
    std::unique_ptr<StageMapper> m_mapper;
    QComboBox* m_leftPicker = nullptr;
    QComboBox* m_rightPicker = nullptr;
    QListView* m_leftList = nullptr;
    QListView* m_rightList = nullptr;
};

} // namespace pto::gui
