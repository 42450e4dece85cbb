// Main window of pto-studio: builds the docks from studioViews() and opens trace files.
#include "gui/app/MainWindow.h"

#include "gui/app/LayoutBarrier.h"
#include "gui/app/ShortcutsDialog.h"
#include "gui/app/Views.h"
#include "gui/model/EntityReference.h"
#include "gui/model/TuneModel.h"
#include "gui/widgets/GraphViewCanvas.h"
#include "gui/widgets/StudioView.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TuneView.h"
#include "gui/widgets/ViewExport.h"
#include "trace_db/TuneDb.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTextDocument>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

#include <fmt/format.h>

namespace pto::gui {
namespace {

const char* const kGeometryKey = "mainWindow/geometry";
const char* const kStateKey = "mainWindow/state";
const char* const kReopenKey = "mainWindow/reopenLastFile";

/// A modal message whose text is shown literally: file names and reasons come from the file
/// system and the trace, and a QMessageBox would render text that looks like HTML as HTML.
void showPlainMessage(QWidget* parent, QMessageBox::Icon icon, const QString& title,
                      const QString& text, const QString& details) {
    QMessageBox box(icon, title, text, QMessageBox::Ok, parent);
    box.setObjectName(QStringLiteral("plainMessage"));
    box.setTextFormat(Qt::PlainText);
    if (!details.isEmpty())
        box.setInformativeText(Qt::convertFromPlainText(details, Qt::WhiteSpaceNormal));
    box.exec();
}

constexpr int kDockStateVersion = 1;

QString localFileOf(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) return {};
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile()) return url.toLocalFile();
    return {};
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("PTO Studio"));
    setObjectName(QStringLiteral("mainWindow"));
    setDockNestingEnabled(true);
    setAcceptDrops(true);
    m_status = new QLabel(this);
    m_status->setTextFormat(Qt::PlainText); // program and arch names come from the trace
    statusBar()->addWidget(m_status, 1);
    connect(&m_context, &StudioContext::viewFailed, this, [this](const QString& what) {
        m_viewProblems << what;
        updateStatus();
    });
    createViews();
    createMenus();
    connect(&m_context, &StudioContext::documentChanged, this, &MainWindow::updateStatus);
    updateStatus();
    // 1400×900 where it fits; on a smaller screen nine tenths of what it has.
    const QSize available = screen() ? screen()->availableGeometry().size() : QSize(1400, 900);
    resize(QSize(1400, 900).boundedTo(available * 0.9));
}

void MainWindow::createViews() {
    // Default layout: the views of one dock area share it as tabs, the first one in front.
    std::map<Qt::DockWidgetArea, QDockWidget*> firstOfArea;
    for (const ViewEntry& entry : studioViews()) {
        StudioView* view = entry.make(m_context, this);
        auto* dock = new QDockWidget(view->viewTitle(), this);
        dock->setObjectName(view->viewId() + QStringLiteral("Dock"));
        dock->setWidget(new LayoutBarrier(view)); // the view's relayouts stay in its dock
        addDockWidget(entry.area, dock);
        if (auto first = firstOfArea.find(entry.area); first != firstOfArea.end())
            tabifyDockWidget(first->second, dock);
        else
            firstOfArea.emplace(entry.area, dock);
        m_views.push_back(view);
        if (auto* tune = qobject_cast<TuneView*>(view)) // double-click opens a candidate's trace
            connect(tune, &TuneView::traceRequested, this,
                    [this](const QString& p) { openFile(p); });
    }
    for (const auto& [area, dock] : firstOfArea) m_frontDocks.push_back(dock);
}

void MainWindow::createMenus() {
    createFileMenu();
    createEditMenu();
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());
    createHelpMenu();
}

void MainWindow::createFileMenu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open trace"), QString(), tr("PTO traces (*.db *.sqlite);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    file->addAction(
        tr("Open &baseline for comparison..."), QKeySequence(Qt::CTRL | Qt::Key_B), this, [this] {
            const QString path =
                QFileDialog::getOpenFileName(this, tr("Open baseline trace"), QString(),
                                             tr("PTO traces (*.db *.sqlite);;All files (*)"));
            if (!path.isEmpty()) openBaseline(path);
        });
    file->addAction(tr("&Clear baseline"), this, [this] { openBaseline(QString()); });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    refreshRecentMenu();
    QAction* reopen = file->addAction(tr("Reopen last file at start"));
    reopen->setCheckable(true);
    reopen->setChecked(QSettings().value(kReopenKey, false).toBool());
    connect(reopen, &QAction::toggled, this, [](bool on) { QSettings().setValue(kReopenKey, on); });
    file->addSeparator();
    file->addAction(tr("&Export view as PNG/SVG..."), QKeySequence(Qt::CTRL | Qt::Key_E), this,
                    &MainWindow::exportActiveView);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence(Qt::CTRL | Qt::Key_Q), this, &QWidget::close);
}

void MainWindow::createEditMenu() {
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(
        tr("&Copy reference to the selection"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C),
        this, [this] {
            QApplication::clipboard()->setText(selectionReference());
            statusBar()->showMessage(
                tr("Copied %1 (open it with pto-studio '%1')").arg(selectionReference()), 5000);
        });
    edit->addAction(tr("&Go to slice by id..."), QKeySequence(Qt::CTRL | Qt::Key_G), this, [this] {
        bool ok = false;
        const qint64 id = QInputDialog::getInt(this, tr("Go to slice"), tr("Slice id:"), 0, 0,
                                               std::numeric_limits<int>::max(), 1, &ok);
        if (!ok) return;
        const QString error = goToSlice(id);
        if (!error.isEmpty())
            showPlainMessage(this, QMessageBox::Warning, tr("Go to slice"), error, {});
    });
}

bool MainWindow::exists(const EntityRef& ref) const {
    const TraceDocument* doc = m_context.document();
    if (!doc) return false;
    auto count = [&](const std::string& sql) {
        const auto r = doc->reader().query(sql);
        return !r.rows.empty() && std::get<std::int64_t>(r.rows[0][0]) > 0;
    };
    switch (ref.kind) {
    case EntityRef::Kind::Slice:
        return count(fmt::format("SELECT count(*) FROM slice WHERE id = {}", ref.id));
    case EntityRef::Kind::Instr:
        return count(fmt::format("SELECT count(*) FROM instr WHERE id = {}", ref.id));
    case EntityRef::Kind::Track:
        return count(fmt::format("SELECT count(*) FROM track WHERE id = {}", ref.id));
    case EntityRef::Kind::Node:
        return count(fmt::format("SELECT count(*) FROM node WHERE stage_id = {} AND id = {}",
                                 ref.stageId, ref.id));
    case EntityRef::Kind::None:
        return true;
    }
    return false;
}

QString MainWindow::goToSlice(qint64 id) {
    if (!m_context.document()) return tr("No trace open");
    if (!exists(EntityRef::slice(id)))
        return tr("This trace has no slice %1 (slice ids are the slice table's `id`)").arg(id);
    m_context.selection().select(EntityRef::slice(id));
    if (QDockWidget* dock = dockOf(view(QStringLiteral("timeline")))) dock->raise();
    return {};
}

QString MainWindow::selectionReference() const {
    const TraceDocument* doc = m_context.document();
    if (!doc) return {};
    return formatReference(QString::fromStdString(std::filesystem::absolute(doc->path()).string()),
                           m_context.selection().current());
}

QString MainWindow::openReference(const QString& text, bool quiet) {
    const std::optional<EntityReference> reference =
        QFileInfo::exists(text) ? std::optional(EntityReference{text, {}}) : parseReference(text);
    if (!reference) return openFile(text, quiet); // names the missing file
    if (QString error = openFile(reference->path, quiet); !error.isEmpty()) return error;
    if (reference->ref.isNone()) return {};
    QString error;
    try {
        if (exists(reference->ref))
            m_context.selection().select(reference->ref);
        else
            error = tr("%1 has no such entity: %2").arg(reference->path, text);
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
    }
    if (!error.isEmpty() && !quiet)
        showPlainMessage(this, QMessageBox::Warning, tr("Cannot show the reference"), error, {});
    return error;
}

void MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence(Qt::CTRL | Qt::Key_Slash), this,
                    &MainWindow::showShortcuts);
    help->addAction(tr("&About PTO Studio"), this, [this] {
        QMessageBox::about(this, tr("About PTO Studio"),
                           tr("pto-studio views PTO Studio trace files: the IR stages of a "
                              "compile and the cycle-level run of the simulated NPU."));
    });
}

void MainWindow::refreshRecentMenu() {
    m_recentMenu->clear();
    for (const QString& path : m_recent.files())
        m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

QString MainWindow::openTuneFile(const QString& path, bool quiet) {
    auto* tune = qobject_cast<TuneView*>(view(QStringLiteral("tune")));
    const QString reason = tune ? tune->openTuneFile(path) : tr("no tune view");
    if (!reason.isEmpty()) {
        if (!quiet) showOpenError(path, reason);
        return reason;
    }
    m_context.setTuneFile(path, static_cast<int>(tune->model().tuneData().candidates.size()));
    if (QDockWidget* dock = dockOf(tune)) {
        dock->show();
        raiseDock(dock);
    }
    m_recent.add(path);
    refreshRecentMenu();
    return {};
}

QString MainWindow::openFile(const QString& path, bool quiet) {
    if (tracedb::isTuneFile(path.toStdString())) return openTuneFile(path, quiet);
    try {
        auto document = TraceDocument::open(path.toStdString());
        m_viewProblems.clear();
        m_context.setDocument(std::move(document));
    } catch (const std::exception& error) {
        const QString reason = QString::fromStdString(error.what());
        if (!QFileInfo::exists(path)) {
            m_recent.remove(path);
            refreshRecentMenu();
        }
        if (!quiet) showOpenError(path, reason);
        return reason;
    }
    m_recent.add(path);
    refreshRecentMenu();
    return {};
}

QString MainWindow::openBaseline(const QString& path, bool quiet) {
    if (path.isEmpty()) {
        m_context.setBaseline(nullptr);
        return {};
    }
    try {
        m_context.setBaseline(TraceDocument::open(path.toStdString()));
    } catch (const std::exception& error) {
        const QString reason = QString::fromStdString(error.what());
        if (!quiet) showOpenError(path, reason);
        return reason;
    }
    if (QDockWidget* dock = dockOf(view(QStringLiteral("compare")))) raiseDock(dock);
    return {};
}

void MainWindow::raiseDock(QDockWidget* dock) {
    if (isVisible())
        dock->raise();
    else
        m_frontDocks.push_back(dock); // raised at the first show, after the defaults
}

void MainWindow::showOpenError(const QString& path, const QString& reason) {
    showPlainMessage(this, QMessageBox::Critical, tr("Cannot open trace"),
                     tr("Cannot open %1").arg(QFileInfo(path).fileName()),
                     reason + tr("\n\nPTO Studio opens the SQLite trace files "
                                 "written by `pto run` and `pto compile`."));
}

StudioView* MainWindow::view(const QString& id) const {
    for (StudioView* view : m_views)
        if (view->viewId() == id) return view;
    return nullptr;
}

QDockWidget* MainWindow::dockOf(const StudioView* view) const {
    QWidget* holder = view ? view->parentWidget() : nullptr; // the LayoutBarrier
    return holder ? qobject_cast<QDockWidget*>(holder->parentWidget()) : nullptr;
}

void MainWindow::saveLayout() const {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState(kDockStateVersion));
}

bool MainWindow::restoreLayout() {
    QSettings settings;
    const QByteArray geometry = settings.value(kGeometryKey).toByteArray();
    const QByteArray state = settings.value(kStateKey).toByteArray();
    if (!geometry.isEmpty()) restoreGeometry(geometry);
    const bool restored = !state.isEmpty() && restoreState(state, kDockStateVersion);
    if (restored) m_frontDocks.clear(); // the saved layout says which tabs are in front
    return restored;
}

bool MainWindow::reopenLastFile() {
    if (!QSettings().value(kReopenKey, false).toBool() || m_recent.files().isEmpty()) return false;
    return openFile(m_recent.files().front(), true).isEmpty();
}

StudioView* MainWindow::activeView() const {
    for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
        if (auto* view = qobject_cast<StudioView*>(w)) return view;
    for (StudioView* view : m_views)
        if (view->isVisible()) return view;
    return m_views.empty() ? nullptr : m_views.front();
}

QString MainWindow::exportView(StudioView& view, const QString& path) {
    QWidget* target = view.exportTarget();
    return exportWidget(target ? *target : view, path);
}

void MainWindow::exportActiveView() {
    StudioView* target = activeView();
    if (!target) return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export %1").arg(target->viewTitle()), target->viewId() + QStringLiteral(".png"),
        tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty()) return;
    const QString error = exportView(*target, path);
    if (!error.isEmpty())
        showPlainMessage(this, QMessageBox::Warning, tr("Export failed"), error, {});
    else
        statusBar()->showMessage(tr("Exported %1 to %2").arg(target->viewTitle(), path), 5000);
}

std::vector<std::pair<QString, QString>> MainWindow::shortcuts() const {
    std::vector<std::pair<QString, QString>> list;
    for (const QAction* action : findChildren<QAction*>()) {
        if (action->shortcuts().isEmpty()) continue;
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        QString name = action->text().remove(QLatin1Char('&'));
        if (name.isEmpty()) name = action->toolTip();
        list.emplace_back(name, keys.join(QStringLiteral(", ")));
    }
    for (const auto& [what, key] : TimelineCanvas::keyHelp())
        list.emplace_back(tr("Timeline: %1").arg(what), key);
    for (const auto& [what, key] : GraphViewCanvas::keyHelp())
        list.emplace_back(tr("Graph: %1").arg(what), key);
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    return list;
}

void MainWindow::showShortcuts() {
    ShortcutsDialog dialog(shortcuts(), this);
    dialog.exec();
}

QString MainWindow::statusText() const {
    return m_status->text();
}

QString MainWindow::tuneStatus() const {
    const auto* tune = qobject_cast<const TuneView*>(view(QStringLiteral("tune")));
    const QString program =
        tune ? QString::fromStdString(tune->model().tuneData().metaOr("program")) : QString();
    return tr("%1  |  tune file: %2 candidates of %3  |  double-click a candidate in the Tuning "
              "view to open its trace")
        .arg(m_context.tuneFile())
        .arg(m_context.tuneCandidates())
        .arg(program);
}

void MainWindow::updateStatus() {
    const TraceDocument* document = m_context.document();
    if (!document) {
        m_status->setText(m_context.tuneFile().isEmpty()
                              ? tr("No trace open — File→Open or drop a trace file here")
                              : tuneStatus());
        setWindowTitle(m_context.tuneFile().isEmpty()
                           ? QStringLiteral("PTO Studio")
                           : QStringLiteral("%1 — PTO Studio")
                                 .arg(QFileInfo(m_context.tuneFile()).fileName()));
        return;
    }
    const TraceSummary& summary = document->summary();
    QString text = QString::fromStdString(document->path().string());
    text += tr("  |  program: %1").arg(QString::fromStdString(summary.program));
    if (!summary.arch.empty())
        text += tr("  |  arch: %1").arg(QString::fromStdString(summary.arch));
    if (summary.hasRun() && summary.measured)
        text += tr("  |  measured: %1 µs from the first kernel start to the last end on %2 %3")
                    .arg(document->micros(summary.totalCycles), 0, 'f', 2)
                    .arg(summary.coreCount)
                    .arg(summary.coreCount == 1 ? tr("stream track") : tr("stream tracks"));
    else if (summary.hasRun())
        // The cores the run used, of the chip's ("on 72 cores" was every core of the chip).
        text += tr("  |  %1 cycles (%2 µs) on %3 of %4 %5%6")
                    .arg(summary.totalCycles)
                    .arg(document->micros(summary.totalCycles), 0, 'f', 2)
                    .arg(summary.coresUsed)
                    .arg(summary.coreCount)
                    .arg(summary.coreCount == 1 ? tr("core") : tr("cores"))
                    .arg(summary.stoppedByFault
                             ? tr("  |  STOPPED BY A FAULT: the trace holds the run up to it "
                                  "(Bottlenecks shows the fault)")
                             : QString());
    else
        text += tr("  |  compile only: %1 IR stages, no simulated run").arg(summary.stageCount);
    if (!m_viewProblems.isEmpty())
        text += tr("  |  cannot show: %1").arg(m_viewProblems.join(QStringLiteral("; ")));
    m_status->setText(text);
    setWindowTitle(QStringLiteral("%1 — PTO Studio")
                       .arg(QString::fromStdString(document->path().filename().string())));
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    for (QDockWidget* dock : m_frontDocks) dock->raise(); // takes effect once shown
    m_frontDocks.clear();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveLayout();
    m_context.closing();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!localFileOf(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = localFileOf(event->mimeData());
    if (path.isEmpty()) return;
    event->acceptProposedAction();
    openFile(path);
}

} // namespace pto::gui
