// Limits on user SQL (TraceReader::query): a wall-clock budget and a cancel switch that stop a
// statement mid-way, through SQLite's progress handler.
#pragma once

#include "trace_db/TraceError.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace pto::tracedb {

/// A stop switch for a running TraceReader::query that any thread may flip at any time (it
/// touches only an atomic flag, never the connection, so it is safe even while the query
/// finishes or the reader closes). Copies share one switch.
class QueryCancel {
public:
    QueryCancel() : m_flag(std::make_shared<std::atomic<bool>>(false)) {}
    void cancel() const { m_flag->store(true, std::memory_order_relaxed); }
    bool cancelled() const { return m_flag->load(std::memory_order_relaxed); }
    /// Arms the switch again for the next query.
    void reset() const { m_flag->store(false, std::memory_order_relaxed); }

private:
    std::shared_ptr<std::atomic<bool>> m_flag;
};

/// What stops a query before it ends by itself. The progress handler runs every
/// kProgressSteps SQLite virtual-machine steps, so an aggregate over an endless recursive CTE
/// stops within milliseconds, rows or not.
struct QueryLimits {
    static constexpr int kProgressSteps = 1000;
    /// Wall-clock budget of the whole query() call (including the row callback); zero or
    /// negative means none.
    std::chrono::milliseconds timeout{0};
    /// Checked with the timeout; nullopt when nobody can cancel.
    std::optional<QueryCancel> cancel;
    /// Refuse SQL of more than one statement that returns rows, before anything runs ("pto
    /// query prints one result: statement 2 returns rows too …"): a printer of one header
    /// would put the second result's rows under the first's columns.
    bool oneResultSet = false;

    bool active() const { return timeout.count() > 0 || cancel.has_value(); }
};

/// Thrown by TraceReader::query when a limit stopped it.
class QueryInterrupted : public TraceError {
public:
    enum class Reason { Timeout, Cancelled };
    QueryInterrupted(Reason reason, double seconds, const std::string& message)
        : TraceError(message), m_reason(reason), m_seconds(seconds) {}
    Reason reason() const { return m_reason; }
    /// How long the query had run when it was stopped.
    double seconds() const { return m_seconds; }

private:
    Reason m_reason;
    double m_seconds;
};

} // namespace pto::tracedb
