// What a pto-studio worker hands to the GUI thread: a value, or the error text, or "cancelled";
// the wrapper that makes sure no exception ever leaves a worker; and the result as the view that
// started it receives it (Loaded: which request it answers, how long it took).
#pragma once

#include "gui/model/CancelToken.h"

#include <QElapsedTimer>
#include <QString>

#include <memory>
#include <utility>

namespace pto::gui {

template <typename T> struct WorkerResult {
    std::shared_ptr<T> value; ///< set on success only
    QString error;            ///< why it failed (empty on success or when cancelled)
    bool cancelled = false;
    bool ok() const { return value != nullptr; }
};

/// The text of the exception being handled; call inside a catch block. std::bad_alloc reads
/// "out of memory", anything not derived from std::exception "unknown error".
QString currentErrorText();

/// Runs `work()` (returning a T) and catches everything it throws into the result, so a
/// QFuture of it never stores an exception (QFuture::waitForFinished and result() would rethrow
/// it on the GUI thread). A cancelled token turns any outcome into `cancelled`. Marks the token
/// finished as the worker's last act.
template <typename T, typename F> WorkerResult<T> runGuarded(CancelToken& token, F&& work) {
    const FinishGuard finish(token);
    WorkerResult<T> result;
    try {
        token.check();
        result.value = std::make_shared<T>(std::forward<F>(work)());
    } catch (...) {
        result.error = currentErrorText();
    }
    if (token.cancelled()) {
        result.value.reset();
        result.error.clear();
        result.cancelled = true;
    }
    return result;
}

/// A worker's result as its view receives it: the view's generation when the worker started
/// (a view drops the results of requests it has replaced), the value or why there is none, and
/// the worker's wall time.
template <typename T> struct Loaded {
    int generation = 0;
    std::shared_ptr<T> value; ///< null on error or when cancelled
    QString error;            ///< why there is no value ("cancelled" when cancelled)
    double seconds = 0;       ///< the worker's wall time
};

/// runGuarded, timed, answering request `generation`.
template <typename T, typename F>
Loaded<T> runLoaded(int generation, CancelToken& token, F&& work) {
    QElapsedTimer timer;
    timer.start();
    WorkerResult<T> result = runGuarded<T>(token, std::forward<F>(work));
    return {generation, std::move(result.value),
            result.cancelled ? QStringLiteral("cancelled") : result.error,
            double(timer.nsecsElapsed()) * 1e-9};
}

} // namespace pto::gui
