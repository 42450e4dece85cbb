// Two stages side by side: pick each stage, select a node in either list and the nodes it maps
// to in the other stage are highlighted (through provenance); follows the shared selection.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/LinkWorker.h"
#include "gui/model/StageCompareModel.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/StudioView.h"

#include <memory>

class QComboBox;
class QLabel;
class QListView;
template <typename T> class QFutureWatcher;

namespace pto::gui {

/// A picked stage's node ids and the mapping of the selection are read on a worker
/// (readStageSides); the lists keep what they show until the answer arrives.
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
    /// True while a picked stage or the selection's mapping is being read.
    bool isLoading() const { return m_loading; }
    bool hasPendingWork() const override { return m_loading; }
    /// The line under the lists: the hint, "Reading…", or why the stages cannot be read.
    QString statusText() const;

signals:
    /// The answer of the latest request is shown (both lists and their highlights).
    void sidesShown();

protected:
    void documentChanged() override;

private:
    using Result = Loaded<StageSides>;
    /// What the status line says when idle: how to use the view, or why it is empty (a
    /// measured trace has no IR; a trace may hold no stages).
    QString hint() const;
    void onStagePicked(bool left, int row);
    void onNodeClicked(bool left, const QModelIndex& index);
    /// Asks the worker for the sides still to read and the current selection's mapping.
    void request();
    void showSides(const Result& loaded);

    StageListModel m_stages;
    StageNodeListModel m_left;
    StageNodeListModel m_right;
    std::shared_ptr<LinkWorker> m_worker; ///< of the open document
    std::array<std::int64_t, 2> m_picked{-1, -1};
    std::array<bool, 2> m_idsPending{false, false}; ///< a picked stage not listed yet
    QComboBox* m_leftPicker = nullptr;
    QComboBox* m_rightPicker = nullptr;
    QListView* m_leftList = nullptr;
    QListView* m_rightList = nullptr;
    QLabel* m_status = nullptr;
    QFutureWatcher<Result>* m_watcher = nullptr;
    WorkerTokens m_tokens; ///< destroyed before m_watcher (a child): waits for the worker
    bool m_loading = false;
    int m_generation = 0;
};

} // namespace pto::gui
