// Headless `pto-studio --screenshot DIR FILE`: a PNG of every view (and the window) in DIR.
#pragma once

#include <QString>

namespace pto::gui {

class MainWindow;

/// Lets background work of the views finish (the global thread pool idle and events
/// processed, at most `timeoutMs`); returns false on timeout.
bool waitUntilIdle(int timeoutMs = 60000);

/// Writes DIR/window.png of the whole window; then for each view floats its dock at
/// `width`×`height`, waits until idle, writes DIR/<viewId>.png through exportWidget and docks
/// it back. Returns an empty string on success, else what failed (the files written so far
/// stay; each file is whole or absent).
QString writeScreenshots(MainWindow& window, const QString& dir, int width = 1400,
                         int height = 860);

} // namespace pto::gui
