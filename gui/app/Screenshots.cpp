// Writes a PNG of each dock of the main window for docs and demos, without a display.
#include "gui/app/Screenshots.h"

#include "gui/app/MainWindow.h"
#include "gui/model/WorkerPool.h"
#include "gui/widgets/StudioView.h"
#include "gui/widgets/ViewExport.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QImage>
#include <QPixmap>
#include <QSaveFile>
#include <QThread>
#include <QThreadPool>

#include <chrono>
#include <exception>

namespace pto::gui {
namespace {

void settle(int ms) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < ms) {
        QApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
}

/// The views with work pending, by title; "background workers" for work on the pool that no
/// view owns up to.
QStringList busyViews(const MainWindow& window) {
    QStringList busy;
    for (const StudioView* view : window.views())
        if (view->hasPendingWork()) busy << view->viewTitle();
    if (busy.isEmpty() && workerPool().activeThreadCount() > 0)
        busy << QStringLiteral("background workers");
    return busy;
}

/// The whole window is large: 8-bit palette and maximum compression keep it commit-sized.
QString writeCompactPng(QWidget& widget, const QString& path) {
    const QImage image = widget.grab().toImage().convertToFormat(
        QImage::Format_Indexed8, Qt::ThresholdDither | Qt::AutoColor);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG", 0) || !file.commit())
        return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

} // namespace

QStringList waitUntilIdle(const MainWindow& window, QDeadlineTimer deadline) {
    settle(150);
    for (;;) {
        for (QStringList busy = busyViews(window); !busy.isEmpty(); busy = busyViews(window)) {
            if (deadline.hasExpired()) return busy;
            settle(20);
        }
        settle(150); // results handed over by queued signals, then repaints
        // A hand-over may start more work (a stage read → its layout): idle only if none did.
        if (busyViews(window).isEmpty()) return {};
    }
}

QString checkOpenTraces(MainWindow& window) {
    const StudioContext& context = window.context();
    for (const TraceDocument* document : {context.document(), context.baseline()}) {
        if (!document) continue;
        try {
            document->reader().verifyIntegrity();
        } catch (const std::exception& error) {
            return QString::fromStdString(error.what());
        }
    }
    return {};
}

QString writeScreenshots(MainWindow& window, const QString& dir, const ScreenshotOptions& options) {
    if (QString problem = checkOpenTraces(window); !problem.isEmpty()) return problem;
    const QDeadlineTimer deadline(std::chrono::seconds(options.timeoutSeconds));
    auto timedOut = [&](const QStringList& busy) {
        return QStringLiteral("the views did not finish loading in %1 s (still loading: %2); "
                              "--screenshot-timeout SECONDS allows longer")
            .arg(options.timeoutSeconds)
            .arg(busy.join(QStringLiteral(", ")));
    };
    window.resize(options.width, options.height);
    window.show();
    if (const QStringList busy = waitUntilIdle(window, deadline); !busy.isEmpty())
        return timedOut(busy);
    // Pictures of error views are no pictures of the trace: a view that could not read it
    // fails the run as a file that does not open does.
    if (!window.viewProblems().isEmpty())
        return QStringLiteral("cannot show the trace: %1")
            .arg(window.viewProblems().join(QStringLiteral("; ")));
    if (!QDir().mkpath(dir)) return QStringLiteral("%1: cannot create the directory").arg(dir);
    // The whole window first: floating the docks below reorders their tabs.
    if (QString error = writeCompactPng(window, QDir(dir).filePath(QStringLiteral("window.png")));
        !error.isEmpty())
        return error;
    for (StudioView* view : window.views()) {
        QDockWidget* dock = window.dockOf(view);
        const bool wasFloating = dock && dock->isFloating();
        if (dock) {
            dock->show();
            dock->setFloating(true);
            dock->resize(options.width, options.height);
            dock->raise();
        }
        if (const QStringList busy = waitUntilIdle(window, deadline); !busy.isEmpty()) {
            if (dock) dock->setFloating(wasFloating);
            return timedOut(busy);
        }
        const QString error =
            window.exportView(*view, QDir(dir).filePath(view->viewId() + QStringLiteral(".png")));
        if (dock) dock->setFloating(wasFloating);
        if (!error.isEmpty()) return error;
    }
    return {};
}

} // namespace pto::gui
