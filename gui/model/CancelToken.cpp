// Cancellation of pto-studio's workers (flag, interrupt of their connections, finished mark) and
// the text of a worker's exception.
#include "gui/model/CancelToken.h"

#include "gui/model/WorkerResult.h"
#include "trace_db/TraceReader.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace pto::gui {
namespace {

/// Virtual machine steps between two looks at the flag: a few microseconds of work.
constexpr int kProgressSteps = 1000;
/// How often a cancelled token interrupts its connections again until the worker ends.
constexpr std::chrono::milliseconds kRepeat{5};

int stopWhenSet(void* flag) {
    return static_cast<const std::atomic<bool>*>(flag)->load(std::memory_order_relaxed) ? 1 : 0;
}

} // namespace

CancelToken::Watch::Watch(Watch&& other) noexcept
    : m_token(std::exchange(other.m_token, nullptr)), m_id(other.m_id),
      m_release(std::move(other.m_release)) {}

CancelToken::Watch& CancelToken::Watch::operator=(Watch&& other) noexcept {
    if (this != &other) {
        Watch old(std::move(*this));
        m_token = std::exchange(other.m_token, nullptr);
        m_id = other.m_id;
        m_release = std::move(other.m_release);
    }
    return *this;
}

CancelToken::Watch::~Watch() {
    if (!m_token) return;
    m_token->remove(m_id);
    if (m_release) m_release();
}

void CancelToken::cancel() {
    m_flag.store(true);
    interruptAll();
    // A TraceReader's interrupt misses a statement that starts just after it: repeat it until
    // the worker ends. The helper thread owns a reference, so the token outlives it.
    std::shared_ptr<CancelToken> self = weak_from_this().lock();
    if (!self || m_finished.load() || m_repeating.exchange(true)) return;
    std::thread([self] {
        while (!self->finished()) {
            std::this_thread::sleep_for(kRepeat);
            self->interruptAll();
        }
    }).detach();
}

void CancelToken::interruptAll() {
    std::lock_guard lock(m_mutex);
    for (const auto& [id, interrupt] : m_interrupts) interrupt();
}

void CancelToken::check() const {
    if (cancelled()) throw WorkerCancelled();
}

int CancelToken::add(std::function<void()> interrupt) {
    std::lock_guard lock(m_mutex);
    check(); // under the lock: a cancel() either sees this connection or is seen here
    const int id = m_nextId++;
    m_interrupts.emplace_back(id, std::move(interrupt));
    return id;
}

void CancelToken::remove(int id) {
    std::lock_guard lock(m_mutex);
    std::erase_if(m_interrupts, [id](const auto& entry) { return entry.first == id; });
}

CancelToken::Watch CancelToken::watch(const tracedb::TraceReader& reader) {
    return Watch(this, add([&reader] { reader.interrupt(); }));
}

CancelToken::Watch CancelToken::watch(sqlite3* db) {
    sqlite3_progress_handler(db, kProgressSteps, &stopWhenSet, &m_flag);
    try {
        const int id = add([db] { sqlite3_interrupt(db); });
        return Watch(this, id, [db] { sqlite3_progress_handler(db, 0, nullptr, nullptr); });
    } catch (...) {
        sqlite3_progress_handler(db, 0, nullptr, nullptr);
        throw;
    }
}

QString currentErrorText() {
    try {
        throw;
    } catch (const std::bad_alloc&) {
        return QStringLiteral("out of memory");
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    } catch (...) {
        return QStringLiteral("unknown error");
    }
}

void cancelAndWait(const std::shared_ptr<CancelToken>& token) {
    if (!token) return;
    token->cancel();
    while (!token->finished()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

WorkerTokens::~WorkerTokens() {
    cancel();
    for (const auto& token : m_tokens) cancelAndWait(token);
}

std::shared_ptr<CancelToken> WorkerTokens::next() {
    cancel();
    std::erase_if(m_tokens, [](const auto& token) { return token->finished(); });
    return m_tokens.emplace_back(std::make_shared<CancelToken>());
}

void WorkerTokens::cancel() {
    for (const auto& token : m_tokens) token->cancel();
}

} // namespace pto::gui
