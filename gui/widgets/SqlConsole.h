// The SQL console view: read-only queries on the open trace, results, history, query tracks.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/widgets/StudioView.h"

#include <QTimer>

#include <memory>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;
class QTreeWidget;
class QTreeWidgetItem;
template <typename T> class QFutureWatcher;

namespace pto::gui {

class SqlConsoleHistory;
class SqlConsoleModel;
struct SqlConsoleResult;

/// Ctrl+Return runs the editor's text on a worker thread (its own read-only connection);
/// Escape or the Cancel button interrupts it, mid-statement too, and so does the time limit
/// (seconds, 0 = none; kept in QSettings). Running another query or closing the console
/// cancels the running one without waiting for it. Up on the first line / Down on the last
/// line walk the history. Errors appear under the editor with the offending text underlined.
class SqlConsole : public StudioView {
    Q_OBJECT
public:
    static constexpr std::size_t kMaxRows = 200000;
    static constexpr int kDefaultTimeLimitSeconds = 30;

    explicit SqlConsole(StudioContext& context, QWidget* parent = nullptr);
    ~SqlConsole() override;

    QString viewId() const override { return QStringLiteral("sql"); }
    QString viewTitle() const override { return tr("SQL console"); }

    QPlainTextEdit* editor() const { return m_editor; }
    QTableView* table() const { return m_table; }
    SqlConsoleModel& model() { return *m_model; }
    QPushButton* trackButton() const { return m_trackButton; }
    QPushButton* cancelButton() const { return m_cancelButton; }
    QSpinBox* timeLimitBox() const { return m_timeLimit; }
    /// The schema browser beside the editor: tables and views, each with its columns;
    /// double-clicking a name inserts it into the query.
    QTreeWidget* schemaTree() const { return m_schema; }
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
    void fillSchema();
    void insertName(QTreeWidgetItem* item);

    SqlConsoleModel* m_model;
    std::unique_ptr<SqlConsoleHistory> m_history;
    QPlainTextEdit* m_editor = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QPushButton* m_trackButton = nullptr;
    QSpinBox* m_timeLimit = nullptr;
    QTreeWidget* m_schema = nullptr;
    QFutureWatcher<std::shared_ptr<const SqlConsoleResult>>* m_watcher = nullptr;
    WorkerTokens m_tokens; ///< destroyed before m_watcher (a child): stops the worker
    QTimer m_deadline;     ///< the running query's time limit
    bool m_timedOut = false;
    bool m_running = false;
    int m_documentGeneration = 0; ///< bumped per document; a result of an older one is dropped
    int m_runGeneration = 0;
};

} // namespace pto::gui
