// Hands batches of slices, counters and flows to one writer thread that inserts them.
#pragma once

#include "trace_db/Rows.h"
#include "trace_db/WriterThread.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
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

/// The simulator's path into the trace: it pushes batches (moved, one lock per batch) to a
/// WriterThread, which owns the writer's connection until finish() and inserts them in push
/// order. So rows of one track pushed by one thread land in the order pushed.
/// A full queue blocks the producer rather than growing without bound.
///
/// Slices that flows refer to need ids known to the producer: set SliceRow::id yourself
/// (unique, ≥ 1) for those. Names: intern() is safe to call from the producer thread.
///
/// If an insert fails, the next push() or finish() throws that TraceError; the writer must
/// then be dropped without commit.
class AsyncSliceSink {
public:
    static constexpr std::size_t kDefaultQueuedBatches = WriterThread::kDefaultQueuedJobs;

    explicit AsyncSliceSink(TraceWriter& writer,
                            std::size_t maxQueuedBatches = kDefaultQueuedBatches);
    /// Finishes and swallows the error (call finish() yourself to see it).
    ~AsyncSliceSink() = default;
    AsyncSliceSink(const AsyncSliceSink&) = delete;
    AsyncSliceSink& operator=(const AsyncSliceSink&) = delete;

    void push(SliceBatch batch);
    void push(std::vector<SliceRow> slices);
    std::int64_t intern(std::string_view text);

    /// Waits until every pushed batch is written and stops the thread; afterwards the writer
    /// belongs to the caller again (to add more rows or commit). Idempotent.
    void finish();

private:
    TraceWriter& m_writer;
    WriterThread m_thread;
};

} // namespace pto::tracedb
