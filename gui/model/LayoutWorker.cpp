// The layout thread: one per process, owning the Graphviz context and the layout caches;
// takes the newest job of each worker, reports progress and hands results back queued.
#include "gui/model/LayoutWorker.h"

#include "gui/model/LayoutCache.h"
#include "gui/model/LayoutEngine.h"
#include "gui/model/WorkerResult.h"

#include <QMetaObject>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace pto::gui {

/// Shared by a worker and its queued jobs; `worker` is cleared when the worker dies.
struct LayoutClientState {
    std::mutex mutex;
    LayoutWorker* worker = nullptr;
    std::atomic<quint64> wanted{0}; ///< the only job id whose result is still wanted
};

namespace {

struct Pending {
    std::shared_ptr<LayoutClientState> client;
    quint64 id = 0;
    LayoutJob job;
    std::filesystem::path trace;
};

/// Runs `fn(worker)` on the worker's thread if the worker still exists.
/// The result of a job that threw; call inside a catch block.
std::shared_ptr<const LayoutResult> failedLayout(std::size_t nodes) noexcept {
    try {
        auto failed = std::make_shared<LayoutResult>();
        failed->error =
            fmt::format("layout of {} nodes failed: {}", nodes, currentErrorText().toStdString());
        return failed;
    } catch (...) {
        return nullptr; // delivered as "no layout"
    }
}

template <typename F> void post(const std::shared_ptr<LayoutClientState>& client, F fn) {
    std::lock_guard lock(client->mutex);
    if (LayoutWorker* w = client->worker)
        QMetaObject::invokeMethod(
            w, [w, fn = std::move(fn)] { fn(*w); }, Qt::QueuedConnection);
}

std::atomic<quint64> g_nextJob{1};

} // namespace

class LayoutThread {
public:
    static LayoutThread& instance() {
        static LayoutThread thread;
        return thread;
    }

    /// Replaces the client's queued job; returns the id of the one dropped (0 when none).
    quint64 submit(Pending pending) {
        quint64 dropped = 0;
        {
            std::lock_guard lock(m_mutex);
            for (auto it = m_queue.begin(); it != m_queue.end(); ++it)
                if (it->client == pending.client) {
                    dropped = it->id;
                    m_queue.erase(it);
                    break;
                }
            m_queue.push_back(std::move(pending));
        }
        m_wake.notify_one();
        return dropped;
    }

    quint64 remove(const std::shared_ptr<LayoutClientState>& client) {
        std::lock_guard lock(m_mutex);
        for (auto it = m_queue.begin(); it != m_queue.end(); ++it)
            if (it->client == client) {
                const quint64 id = it->id;
                m_queue.erase(it);
                return id;
            }
        return 0;
    }

private:
    LayoutThread() : m_thread([this] { run(); }) {}
    ~LayoutThread() {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
            m_queue.clear();
        }
        m_wake.notify_one();
        m_thread.join();
    }

    void run() {
        GraphvizLayout graphviz; // created, used and freed on this thread only
        std::map<std::filesystem::path, std::unique_ptr<LayoutCache>> caches;
        for (;;) {
            Pending p;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
                if (m_stop) return;
                p = std::move(m_queue.front());
                m_queue.pop_front();
            }
            if (p.client->wanted.load() != p.id) { // cancelled after it was taken
                post(p.client, [id = p.id](LayoutWorker& w) { w.drop(id); });
                continue;
            }
            LayoutCache* cache = nullptr;
            std::shared_ptr<const LayoutResult> result;
            try {
                if (!p.trace.empty()) {
                    auto& slot = caches[p.trace];
                    if (!slot) slot = std::make_unique<LayoutCache>(p.trace);
                    cache = slot.get();
                }
                result = layOut(graphviz, cache, p);
            } catch (...) { // out of memory on a huge job, a bad sidecar: report it
                result = failedLayout(p.job.nodes.size());
            }
            const quint64 id = p.id;
            if (p.client->wanted.load() != id)
                post(p.client, [id](LayoutWorker& w) { w.drop(id); });
            else
                post(p.client, [id, result](LayoutWorker& w) { w.deliver(id, result); });
        }
    }

    static std::shared_ptr<const LayoutResult> layOut(GraphvizLayout& graphviz, LayoutCache* cache,
                                                      const Pending& p) {
        const auto start = std::chrono::steady_clock::now();
        const quint64 id = p.id;
        if (cache && !p.job.cacheKey.empty())
            if (auto hit = cache->find(p.job.cacheKey, p.job.nodes.size(), p.job.edges.size())) {
                hit->engine = "cache";
                hit->seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                return std::make_shared<const LayoutResult>(std::move(*hit));
            }
        const bool dot = !p.job.forceLayered && p.job.nodes.size() <= kDotNodeLimit &&
                         p.job.edges.size() <= kDotEdgeLimit;
        const QString phase = QString::fromStdString(
            fmt::format("laying out {} nodes and {} edges with {}", p.job.nodes.size(),
                        p.job.edges.size(), dot ? "Graphviz dot" : "the layered layout"));
        post(p.client, [id, phase](LayoutWorker& w) { emit w.progress(id, phase); });
        LayoutResult result = dot ? graphviz.layout(p.job) : layeredLayout(p.job);
        if (!result.ok && dot) { // dot failed: still show something
            std::string why = result.error;
            result = layeredLayout(p.job);
            result.error = why;
        }
        if (cache && !p.job.cacheKey.empty()) cache->store(p.job.cacheKey, result);
        return std::make_shared<const LayoutResult>(std::move(result));
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Pending> m_queue;
    bool m_stop = false;
    std::thread m_thread;
};

LayoutWorker::LayoutWorker(QObject* parent)
    : QObject(parent), m_state(std::make_shared<LayoutClientState>()) {
    m_state->worker = this;
}

LayoutWorker::~LayoutWorker() {
    LayoutThread::instance().remove(m_state);
    m_state->wanted = 0;
    std::lock_guard lock(m_state->mutex);
    m_state->worker = nullptr;
}

void LayoutWorker::setTrace(const std::filesystem::path& trace) {
    m_trace = trace;
}

quint64 LayoutWorker::submit(LayoutJob job) {
    const quint64 id = g_nextJob++;
    m_active = id;
    m_state->wanted = id;
    // A queued previous job is removed now; a running one reports itself dropped when it ends.
    const quint64 removed = LayoutThread::instance().submit({m_state, id, std::move(job), m_trace});
    if (removed) emit dropped(removed);
    return id;
}

void LayoutWorker::cancel() {
    m_state->wanted = 0;
    const quint64 queued = LayoutThread::instance().remove(m_state);
    m_active = 0;
    if (queued) emit dropped(queued);
}

void LayoutWorker::deliver(quint64 job, std::shared_ptr<const LayoutResult> result) {
    if (job != m_active) return drop(job);
    m_active = 0;
    emit finished(job, std::move(result));
}

void LayoutWorker::drop(quint64 job) {
    if (job == m_active) m_active = 0;
    emit dropped(job);
}

} // namespace pto::gui
