// Hands batches of slices, counters and flows to one writer thread that inserts them.
#pragma once

#include "trace_db/BoundedQueue.h"
#include "trace_db/Rows.h"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace pto::tracedb {

class TraceWriter;

/// Rows a producer collected since its last push; they are inserted in this order
/// (slices, then counters, then flows).
struct SliceBatch {
    std::vector<SliceRow> slices;
    std::vector<CounterRow> counters;
    std::vector<FlowRow> flows;

    bool empty() const { return slices.empty() && counters.empty() && flows.empty(); }
};

/// The simulator's path into the trace: it pushes batches (moved, one lock per batch) into a
/// bounded queue, and one thread, which owns the writer's connection until finish(), inserts
/// them in push order. So rows of one track pushed by one thread land in the order pushed.
/// A full queue blocks the producer rather than growing without bound.
///
/// Slices that flows refer to need ids known to the producer: set SliceRow::id yourself
/// (unique, ≥ 1) for those. Names: intern() is safe to call from the producer thread.
///
/// If an insert fails, the next push() or finish() throws that TraceError; the writer must
/// then be dropped without commit.
class AsyncSliceSink {
public:
    static constexpr std::size_t kDefaultQueuedBatches = 8;

    explicit AsyncSliceSink(TraceWriter& writer,
                            std::size_t maxQueuedBatches = kDefaultQueuedBatches);
    /// Calls finish() and swallows its error (call finish() yourself to see it).
    ~AsyncSliceSink();
    AsyncSliceSink(const AsyncSliceSink&) = delete;
    AsyncSliceSink& operator=(const AsyncSliceSink&) = delete;

    void push(SliceBatch batch);
    void push(std::vector<SliceRow> slices);
    std::int64_t intern(std::string_view text);

    /// Waits until every pushed batch is written and stops the thread; afterwards the writer
    /// belongs to the caller again (to add more rows or commit). Idempotent.
    void finish();

private:
    void drain();
    void rethrowIfFailed();

    TraceWriter& m_writer;
    BoundedQueue<SliceBatch> m_queue;
    std::mutex m_errorMutex;
    std::exception_ptr m_error;
    std::thread m_thread;
};

} // namespace pto::tracedb
