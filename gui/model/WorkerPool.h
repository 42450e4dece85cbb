// The thread pool pto-studio's workers run on, kept apart from Qt's global pool, which the
// GUI thread itself waits on while it paints.
#pragma once

class QThreadPool;

namespace pto::gui {

/// The pool for every QtConcurrent::run of the views (stage reads, profiles, SQL queries...).
/// Never QThreadPool::globalInstance(): Qt's raster engine splits big fills and image
/// conversions into jobs on the global pool and the painting (GUI) thread waits for them, so a
/// worker that takes seconds there froze every repaint for seconds (issue 19: 4–7 s at
/// "open trace" with no CPU used by the GUI thread). Same thread count as the global pool.
QThreadPool& workerPool();

} // namespace pto::gui
