// Main window of pto-studio: builds the docks from studioViews() and opens trace files.
#include "gui/app/MainWindow.h"

#include "gui/app/Views.h"
#include "gui/widgets/StudioView.h"
#include "trace_db/TraceError.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace pto::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("PTO Studio"));
    setDockNestingEnabled(true);
    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);
    createViews();
    createMenus();
    connect(&m_context, &StudioContext::documentChanged, this, &MainWindow::updateStatus);
    updateStatus();
    resize(1400, 900);
}

void MainWindow::createViews() {
    for (const ViewEntry& entry : studioViews()) {
        StudioView* view = entry.make(m_context, this);
        auto* dock = new QDockWidget(view->viewTitle(), this);
        dock->setObjectName(view->viewId() + QStringLiteral("Dock"));
        dock->setWidget(view);
        addDockWidget(entry.area, dock);
        m_views.push_back(view);
    }
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open trace"), QString(), tr("PTO traces (*.db *.sqlite);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    refreshRecentMenu();
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());
}

void MainWindow::refreshRecentMenu() {
    m_recentMenu->clear();
    for (const QString& path : m_recent.files())
        m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

QString MainWindow::openFile(const QString& path, bool quiet) {
    try {
        m_context.setDocument(TraceDocument::open(path.toStdString()));
    } catch (const std::exception& error) {
        const QString reason = QString::fromStdString(error.what());
        if (!quiet) QMessageBox::critical(this, tr("Cannot open trace"), reason);
        return reason;
    }
    m_recent.add(path);
    refreshRecentMenu();
    return {};
}

StudioView* MainWindow::view(const QString& id) const {
    for (StudioView* view : m_views)
        if (view->viewId() == id) return view;
    return nullptr;
}

void MainWindow::updateStatus() {
    const TraceDocument* document = m_context.document();
    if (!document) {
        m_status->setText(tr("No trace open"));
        setWindowTitle(QStringLiteral("PTO Studio"));
        return;
    }
    const TraceSummary& summary = document->summary();
    QString text = QString::fromStdString(document->path().string());
    text += QStringLiteral("  |  program: %1").arg(QString::fromStdString(summary.program));
    if (!summary.arch.empty())
        text += QStringLiteral("  |  arch: %1").arg(QString::fromStdString(summary.arch));
    if (summary.hasRun())
        text += QStringLiteral("  |  %1 cycles (%2 µs)")
                    .arg(summary.totalCycles)
                    .arg(document->micros(summary.totalCycles), 0, 'f', 2);
    m_status->setText(text);
    setWindowTitle(QStringLiteral("%1 — PTO Studio")
                       .arg(QString::fromStdString(document->path().filename().string())));
}

} // namespace pto::gui
