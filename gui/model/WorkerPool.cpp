// The pool of pto-studio's workers (see WorkerPool.h for why it is not Qt's global pool).
#include "gui/model/WorkerPool.h"

#include <QThreadPool>

namespace pto::gui {

QThreadPool& workerPool() {
    // Destroyed at exit after the views, whose WorkerTokens have already waited for their
    // workers; the destructor waits for any still queued.
    static QThreadPool pool;
    return pool;
}

} // namespace pto::gui
