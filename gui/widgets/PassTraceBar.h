// The IR view's pass trace bar (issue 20): traces the selected node through the passes that
// changed it (gui/model/PassTrace, read on a worker) and steps the IR view through exactly the
// stages those passes produced, unchanged passes left out.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/PassTrace.h"
#include "gui/model/SelectionModel.h"
#include "gui/model/WorkerResult.h"

#include <QWidget>

#include <filesystem>
#include <memory>
#include <vector>

template <typename T> class QFutureWatcher;
class QLabel;
class QPushButton;

namespace pto::gui {

class PassTraceBar : public QWidget {
    Q_OBJECT
public:
    explicit PassTraceBar(QWidget* parent = nullptr);
    ~PassTraceBar() override;

    /// The open trace (empty: none); forgets the previous trace's steps.
    void setTracePath(const std::filesystem::path& path);
    /// The shared selection: a node can be traced.
    void setSelection(const EntityRef& ref);
    /// Traces the selected node on a worker; steps() and the first stage follow.
    void traceSelection();
    bool busy() const { return m_busy; }
    const std::vector<PassStep>& steps() const { return m_steps; }
    int current() const { return m_current; }
    /// Shows the previous (-1) or next (+1) changing pass.
    void step(int delta);
    QPushButton* traceButton() const { return m_trace; }
    QString text() const;

signals:
    /// The IR view should show this stage (the output of a pass that changed the node).
    void stageRequested(qint64 stageId);

private:
    using Result = Loaded<std::vector<PassStep>>;
    void showLoaded(const Result& loaded);
    void refresh();

    std::filesystem::path m_path;
    EntityRef m_node;
    std::vector<PassStep> m_steps;
    int m_current = -1;
    bool m_busy = false;
    int m_generation = 0;
    QPushButton* m_trace = nullptr;
    QPushButton* m_previous = nullptr;
    QPushButton* m_next = nullptr;
    QLabel* m_label = nullptr;
    QFutureWatcher<Result>* m_watcher = nullptr;
    WorkerTokens m_tokens; ///< destroyed before m_watcher (a child): waits for the worker
};

} // namespace pto::gui
