// The SQL console: runs read-only queries off the GUI thread and shows rows, errors, history.
#include "gui/widgets/SqlConsole.h"

#include "gui/model/PlainText.h"
#include "gui/model/SqlConsoleHistory.h"
#include "gui/model/SqlConsoleModel.h"
#include "gui/model/SqlConsoleQuery.h"
#include "gui/model/SqlSchema.h"
#include "gui/model/WorkerPool.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/Theme.h"

#include <QAction>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTextBlock>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace pto::gui {

using ResultPtr = std::shared_ptr<const SqlConsoleResult>;

namespace {
const char* const kTimeLimitKey = "sqlConsole/timeLimitSeconds";
}

SqlConsole::SqlConsole(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_model(new SqlConsoleModel(this)),
      m_history(std::make_unique<SqlConsoleHistory>()),
      m_watcher(new QFutureWatcher<ResultPtr>(this)) {
    buildLayout();
    createActions();
    connect(m_watcher, &QFutureWatcher<ResultPtr>::finished, this,
            [this] { showResult(m_watcher->result()); });
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        m_timedOut = true;
        m_tokens.cancel();
    });
    initialize();
}

// m_tokens interrupts the running query; its worker ends within milliseconds.
SqlConsole::~SqlConsole() = default;

void SqlConsole::buildLayout() {
    m_editor = new QPlainTextEdit(this);
    m_editor->setPlaceholderText(
        tr("SELECT name, count(*) AS n, sum(dur) AS cycles FROM slice_named GROUP BY name "
           "ORDER BY cycles DESC   — Ctrl+Return runs, Up/Down walk the history"));
    m_editor->setFont(QFont(QStringLiteral("monospace")));
    m_editor->installEventFilter(this);
    m_runButton = new QPushButton(tr("Run"), this);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setEnabled(false);
    m_trackButton = new QPushButton(tr("Show as timeline track"), this);
    m_trackButton->setEnabled(false);
    m_trackButton->setToolTip(tr("Needs ts and dur columns (cycles); name and track_id are used "
                                 "when present"));
    m_timeLimit = new QSpinBox(this);
    m_timeLimit->setRange(0, 24 * 3600);
    m_timeLimit->setSuffix(tr(" s"));
    m_timeLimit->setPrefix(tr("time limit "));
    m_timeLimit->setSpecialValueText(tr("no time limit"));
    m_timeLimit->setToolTip(tr("A query running longer is stopped (0: no limit)"));
    m_timeLimit->setValue(QSettings().value(kTimeLimitKey, kDefaultTimeLimitSeconds).toInt());
    connect(m_timeLimit, &QSpinBox::valueChanged, this,
            [](int seconds) { QSettings().setValue(kTimeLimitKey, seconds); });
    m_status = new QLabel(this);
    m_status->setTextFormat(Qt::PlainText); // SQLite's messages quote the user's text
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    connect(m_runButton, &QPushButton::clicked, this, &SqlConsole::runEditor);
    connect(m_cancelButton, &QPushButton::clicked, this, &SqlConsole::cancel);
    connect(m_trackButton, &QPushButton::clicked, this, &SqlConsole::showAsTrack);
    // An id cell selects what it names; another cell of a row naming a slice or an instruction
    // selects that, in every view (the timeline reveals it).
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        if (!m_model->result()) return;
        const SqlConsoleResult& result = *m_model->result();
        EntityRef ref = cellEntity(result, std::size_t(index.row()), index.column());
        if (ref.isNone()) ref = rowEntity(result, std::size_t(index.row()));
        if (!ref.isNone()) selection().select(ref, this);
    });

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_trackButton);
    buttons->addStretch(1);
    buttons->addWidget(m_timeLimit);
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_editor, 1);
    topLayout->addLayout(buttons);
    topLayout->addWidget(m_status);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    m_schema = new QTreeWidget(this);
    m_schema->setHeaderLabels({tr("Table / column"), tr("Type")});
    m_schema->setToolTip(tr("The trace's tables and views (docs/TRACE_SCHEMA.md); double-click "
                            "a name to insert it into the query"));
    connect(m_schema, &QTreeWidget::itemDoubleClicked, this,
            [this](QTreeWidgetItem* item) { insertName(item); });
    auto* sides = new QSplitter(Qt::Horizontal, this);
    sides->addWidget(split);
    sides->addWidget(m_schema);
    sides->setStretchFactor(0, 4);
    sides->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(sides);
}

void SqlConsole::fillSchema() {
    m_schema->clear();
    if (!document()) return;
    for (const SchemaTable& t : readSchema(document()->reader())) {
        auto* table = new QTreeWidgetItem(
            m_schema, {QString::fromStdString(t.name), t.view ? tr("view") : tr("table")});
        for (const SchemaColumn& c : t.columns)
            new QTreeWidgetItem(table,
                                {QString::fromStdString(c.name), QString::fromStdString(c.type)});
    }
    m_schema->resizeColumnToContents(0);
}

void SqlConsole::insertName(QTreeWidgetItem* item) {
    if (!item) return;
    m_editor->insertPlainText(item->text(0));
    m_editor->setFocus();
}

void SqlConsole::createActions() {
    auto* runAction = new QAction(tr("Run SQL query"), this);
    runAction->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    runAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(runAction, &QAction::triggered, this, &SqlConsole::runEditor);
    addAction(runAction);
    auto* cancelAction = new QAction(tr("Cancel SQL query"), this);
    cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    cancelAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(cancelAction, &QAction::triggered, this, &SqlConsole::cancel);
    addAction(cancelAction);
}

QString SqlConsole::statusText() const {
    return m_status->text();
}

void SqlConsole::setStatus(const QString& text, bool error) {
    QPalette pal = m_status->palette();
    pal.setColor(QPalette::WindowText, error ? theme::severityColor(2, palette())
                                             : palette().color(QPalette::WindowText));
    m_status->setPalette(pal);
    m_status->setText(text);
    if (!error) m_status->setToolTip({});
}

void SqlConsole::runEditor() {
    run(m_editor->toPlainText());
}

void SqlConsole::run(const QString& sql) {
    if (m_editor->toPlainText() != sql) m_editor->setPlainText(sql);
    m_editor->setExtraSelections({});
    if (sql.trimmed().isEmpty()) return;
    if (!document()) {
        setStatus(tr("Open a trace first"), true);
        return;
    }
    m_history->add(sql);
    m_running = true;
    m_timedOut = false;
    m_runGeneration = m_documentGeneration;
    m_cancelButton->setEnabled(true);
    m_trackButton->setEnabled(false);
    setStatus(tr("Running..."), false);
    // next() cancels a query still running (its result is never shown: setFuture replaces it)
    // without waiting for it.
    m_watcher->setFuture(QtConcurrent::run(
        &workerPool(), [path = document()->path(), sql, token = m_tokens.next()]() -> ResultPtr {
            const FinishGuard finish(*token);
            try {
                const auto reader = tracedb::TraceReader::open(path);
                return std::make_shared<const SqlConsoleResult>(
                    runConsoleQuery(reader, sql, *token, kMaxRows));
            } catch (...) {
                try {
                    auto failed = std::make_shared<SqlConsoleResult>();
                    failed->sql = sql;
                    failed->error = currentErrorText();
                    return failed;
                } catch (...) {
                    return nullptr; // nothing may escape into the future
                }
            }
        }));
    if (m_timeLimit->value() > 0) m_deadline.start(m_timeLimit->value() * 1000);
}

void SqlConsole::cancel() {
    m_deadline.stop();
    m_tokens.cancel();
}

void SqlConsole::showResult(ResultPtr result) {
    m_running = false;
    m_deadline.stop();
    m_cancelButton->setEnabled(false);
    if (m_runGeneration != m_documentGeneration) { // the trace changed while it ran
        emit queryFinished();
        return;
    }
    if (!result) { // the worker could not even allocate its error report
        m_model->setResult(nullptr);
        setStatus(tr("Error: out of memory"), true);
    } else if (!result->ok()) {
        m_model->setResult(nullptr);
        showError(*result);
    } else {
        m_model->setResult(result);
        QString text = tr("%1 %2 in %3 ms")
                           .arg(result->rows.size())
                           .arg(result->rows.size() == 1 ? tr("row") : tr("rows"))
                           .arg(result->seconds * 1e3, 0, 'f', 1);
        if (result->truncated) text += tr(" — stopped at %1 rows").arg(kMaxRows);
        if (result->cancelled && m_timedOut)
            text += tr(" — stopped at the time limit of %1 s").arg(m_timeLimit->value());
        else if (result->cancelled)
            text += tr(" — cancelled");
        setStatus(text, false);
        m_table->resizeColumnsToContents();
        m_trackButton->setEnabled(hasTimeColumns(result->columns) && !result->rows.empty());
    }
    emit queryFinished();
}

void SqlConsole::showError(const SqlConsoleResult& result) {
    // The reader names the file and what it was doing; the console shows SQLite's words.
    static const QRegularExpression kPrefix(QStringLiteral("^trace '[^']*': (cannot [a-z ]+: )?"));
    QString reason = result.error;
    reason.remove(kPrefix);
    QString text = result.refused ? tr("Refused (the console is read-only): %1").arg(reason)
                                  : tr("Error: %1").arg(reason);
    m_status->setToolTip(plainToolTip(result.error));
    if (result.errorOffset >= 0) {
        const QTextBlock block = m_editor->document()->findBlock(result.errorOffset);
        text += tr(" — at line %1, column %2")
                    .arg(block.blockNumber() + 1)
                    .arg(result.errorOffset - block.position() + 1);
        QTextEdit::ExtraSelection mark;
        mark.cursor = QTextCursor(m_editor->document());
        mark.cursor.setPosition(result.errorOffset);
        mark.cursor.setPosition(result.errorOffset + result.errorLength, QTextCursor::KeepAnchor);
        mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        mark.format.setUnderlineColor(theme::severityColor(2, palette()));
        m_editor->setExtraSelections({mark});
    }
    setStatus(text, true);
}

void SqlConsole::showAsTrack() {
    const SqlConsoleResult* result = m_model->result();
    if (!result) return;
    std::optional<QueryTrack> track = queryTrackOf(*result);
    if (!track) return;
    const QString sent = tr("Sent %1 items to the timeline as track \"%2\"")
                             .arg(track->items.size())
                             .arg(track->title);
    context().showQueryTrack(std::make_shared<const QueryTrack>(std::move(*track)));
    setStatus(sent, false);
}

void SqlConsole::documentChanged() {
    ++m_documentGeneration;
    cancel();
    m_model->setResult(nullptr);
    m_trackButton->setEnabled(false);
    m_editor->setExtraSelections({});
    try {
        fillSchema();
    } catch (const std::exception&) {
        m_schema->clear(); // a damaged file: the console still says why when queried
    }
    setStatus(document() ? tr("Read-only queries on %1")
                               .arg(QString::fromStdString(document()->path().filename().string()))
                         : tr("Open a trace to query it"),
              false);
}

bool SqlConsole::eventFilter(QObject* watched, QEvent* event) {
    if (watched != m_editor || event->type() != QEvent::KeyPress)
        return StudioView::eventFilter(watched, event);
    const auto* key = static_cast<QKeyEvent*>(event);
    const bool enter = key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter;
    if (enter && key->modifiers().testFlag(Qt::ControlModifier)) { // when the action did not
        runEditor();
        return true;
    }
    if (key->modifiers() != Qt::NoModifier) return false;
    const QTextCursor cursor = m_editor->textCursor();
    const QTextDocument* text = m_editor->document();
    if (key->key() == Qt::Key_Up && cursor.blockNumber() == 0) {
        m_editor->setPlainText(m_history->older(m_editor->toPlainText()));
        m_editor->moveCursor(QTextCursor::End);
        return true;
    }
    if (key->key() == Qt::Key_Down && cursor.blockNumber() == text->blockCount() - 1) {
        m_editor->setPlainText(m_history->newer());
        m_editor->moveCursor(QTextCursor::End);
        return true;
    }
    return false;
}

} // namespace pto::gui
