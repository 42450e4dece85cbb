// Headless `pto-studio --screenshot DIR FILE`: a PNG of every view (and the window) in DIR.
#pragma once

#include <QDeadlineTimer>
#include <QString>
#include <QStringList>

namespace pto::gui {

class MainWindow;

struct ScreenshotOptions {
    int width = 1400; ///< of each view's picture (the floated dock)
    int height = 860;
    /// The views' loading may take this long in all; then the run gives up.
    int timeoutSeconds = 120;
};

/// Lets the views finish their work for the open document: the worker pool idle, no view
/// with hasPendingWork() (threads of their own included: the timeline's summary, the graph's
/// layout) and the results' queued hand-overs and repaints processed. Returns the titles of
/// the views still busy when `deadline` passed; empty when everything finished.
QStringList waitUntilIdle(const MainWindow& window, QDeadlineTimer deadline);

/// Checks the open trace and baseline as the headless mode must before drawing them: the whole
/// file (PRAGMA quick_check: a damaged page anywhere, which the views would each meet only when
/// they read it). Returns the reason, or an empty string.
QString checkOpenTraces(MainWindow& window);

/// Checks the open traces (checkOpenTraces), shows the window and waits until idle; a trace
/// that failed to load (a damaged file, or a view that could not read it) or views still busy
/// at the time limit end it there, before anything is written. Then writes DIR/window.png of
/// the whole window, and for each view floats its dock at the options' size, waits until idle,
/// writes DIR/<viewId>.png through exportWidget and docks it back. Returns an empty string on
/// success, else what failed (the files written so far stay; each file is whole or absent).
QString writeScreenshots(MainWindow& window, const QString& dir,
                         const ScreenshotOptions& options = {});

} // namespace pto::gui
