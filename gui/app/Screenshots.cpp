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

bool waitUntilIdle(int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    settle(150);
    while (workerPool().activeThreadCount() > 0) {
        if (timer.elapsed() > timeoutMs) return false;
        settle(20);
    }
    settle(150); // results handed over by queued signals, then repaints
    return true;
}

QString writeScreenshots(MainWindow& window, const QString& dir, int width, int height) {
    if (!QDir().mkpath(dir)) return QStringLiteral("%1: cannot create the directory").arg(dir);
    window.resize(width, height);
    window.show();
    if (!waitUntilIdle()) return QStringLiteral("the views did not finish loading in 60 s");
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
            dock->resize(width, height);
            dock->raise();
        }
        waitUntilIdle();
        const QString error =
            window.exportView(*view, QDir(dir).filePath(view->viewId() + QStringLiteral(".png")));
        if (dock) dock->setFloating(wasFloating);
        if (!error.isEmpty()) return error;
    }
    return {};
}

} // namespace pto::gui
