// Cancellation shared by the GUI thread and one worker: a flag, the SQLite connections the worker
// has open (so cancelling also stops the statement running on them) and whether it has ended.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

struct sqlite3;

namespace pto::tracedb {
class TraceReader;
}

namespace pto::gui {

/// Thrown by CancelToken::check() and watch() once the token is cancelled.
struct WorkerCancelled : std::runtime_error {
    WorkerCancelled() : std::runtime_error("cancelled") {}
};

/// A worker polls cancelled() between steps and watches every connection it opens; cancel()
/// (any thread) then also interrupts the statement running on them, so a single long step (a
/// big GROUP BY, an endless view in a hostile file) ends within milliseconds instead of never.
/// Raw connections get a progress handler that reads the flag (no race with a statement that
/// starts just after cancel()); a TraceReader is interrupted through TraceReader::interrupt(),
/// which only reaches a running statement, so a token held by a shared_ptr keeps interrupting
/// (every few milliseconds, from a helper thread) until the worker says it has finished.
class CancelToken : public std::enable_shared_from_this<CancelToken> {
public:
    CancelToken() = default;
    CancelToken(const CancelToken&) = delete;
    CancelToken& operator=(const CancelToken&) = delete;

    /// Registration of one connection, undone by the destructor (before the connection closes).
    class Watch {
    public:
        Watch() = default;
        Watch(CancelToken* token, int id, std::function<void()> release = {})
            : m_token(token), m_id(id), m_release(std::move(release)) {}
        Watch(Watch&& other) noexcept;
        Watch& operator=(Watch&& other) noexcept;
        ~Watch();

    private:
        CancelToken* m_token = nullptr;
        int m_id = 0;
        std::function<void()> m_release; ///< run on the worker's thread when the watch ends
    };

    /// Sets the flag and interrupts the statements running on the watched connections, again
    /// and again until the worker has finished (when the token is owned by a shared_ptr).
    void cancel();
    bool cancelled() const { return m_flag.load(std::memory_order_relaxed); }
    const std::atomic<bool>& flag() const { return m_flag; }
    /// Throws WorkerCancelled when cancelled.
    void check() const;

    /// Watches `reader` (which must outlive the Watch); throws WorkerCancelled when already
    /// cancelled.
    [[nodiscard]] Watch watch(const tracedb::TraceReader& reader);
    /// Watches a raw connection (which must outlive the Watch): while watched, a progress
    /// handler stops any statement on it once the token is cancelled.
    [[nodiscard]] Watch watch(sqlite3* db);

    /// Set by the worker as its last act (runGuarded and the loaders do it).
    void finish() { m_finished.store(true); }
    bool finished() const { return m_finished.load(); }

private:
    int add(std::function<void()> interrupt);
    void remove(int id);
    void interruptAll();

    std::atomic<bool> m_flag{false};
    std::atomic<bool> m_finished{false};
    std::atomic<bool> m_repeating{false}; ///< the helper thread that interrupts again runs
    std::mutex m_mutex;
    int m_nextId = 1;
    std::vector<std::pair<int, std::function<void()>>> m_interrupts;
};

/// Marks a token finished when the worker's scope ends, however it ends.
class FinishGuard {
public:
    explicit FinishGuard(CancelToken& token) : m_token(token) {}
    ~FinishGuard() { m_token.finish(); }
    FinishGuard(const FinishGuard&) = delete;
    FinishGuard& operator=(const FinishGuard&) = delete;

private:
    CancelToken& m_token;
};

/// The owner's side (a view on the GUI thread): the token of its current worker and of the
/// workers it replaced that have not finished yet. Destruction cancels them all and waits for
/// them (milliseconds: their connections are interrupted), so no worker outlives its owner.
/// Call next() only right before starting the worker that will use the token.
class WorkerTokens {
public:
    WorkerTokens() = default;
    WorkerTokens(const WorkerTokens&) = delete;
    WorkerTokens& operator=(const WorkerTokens&) = delete;
    ~WorkerTokens();

    /// Cancels every running worker and returns the token of the next one.
    std::shared_ptr<CancelToken> next();
    /// Cancels every running worker without waiting.
    void cancel();

private:
    std::vector<std::shared_ptr<CancelToken>> m_tokens;
};

/// Cancels `token` and blocks until its worker has finished (milliseconds: its connections
/// are interrupted). Returns at once when there is no token.
void cancelAndWait(const std::shared_ptr<CancelToken>& token);

} // namespace pto::gui
