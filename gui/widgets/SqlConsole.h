// The SQL console view: read-only queries on the open trace, results, history, query tracks.
#pragma once

#include "gui/widgets/StudioView.h"

#include <atomic>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;
template <typename T> class QFutureWatcher;

namespace pto::gui {

class SqlConsoleHistory;
class SqlConsoleModel;
struct SqlConsoleResult;

/// Ctrl+Return runs the editor's text on a worker thread (its own read-only connection);
/// Escape or the Cancel button stops it between rows. Up on the first line / Down on the last
/// line walk the history. Errors appear under the editor with the offending text underlined.
class SqlConsole : public StudioView {
    Q_OBJECT
public:
    static constexpr std::size_t kMaxRows = 200000;

    explicit SqlConsole(StudioContext& context, QWidget* parent = nullptr);
    ~SqlConsole() override;

    QString viewId() const override { return QStringLiteral("sql"); }
    QString viewTitle() const override { return tr("SQL console"); }

    QPlainTextEdit* editor() const { return m_editor; }
    QTableView* table() const { return m_table; }
    SqlConsoleModel& model() { return *m_model; }
    QPushButton* trackButton() const { return m_trackButton; }
    QString statusText() const;
    bool isRunning() const { return m_running; }

    /// Runs `sql` (as if typed and Ctrl+Return pressed).
    void run(const QString& sql);
    void runEditor();
    void cancel();

signals:
    void queryFinished();

protected:
    void documentChanged() override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildLayout();
    void createActions();
    void showResult(std::shared_ptr<const SqlConsoleResult> result);
    void showError(const SqlConsoleResult& result);
    void setStatus(const QString& text, bool error);
    void showAsTrack();

    SqlConsoleModel* m_model;
    std::unique_ptr<SqlConsoleHistory> m_history;
    QPlainTextEdit* m_editor = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QPushButton* m_trackButton = nullptr;
    QFutureWatcher<std::shared_ptr<const SqlConsoleResult>>* m_watcher = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_running = false;
    int m_documentGeneration = 0; ///< bumped per document; a result of an older one is dropped
    int m_runGeneration = 0;
};

} // namespace pto::gui
