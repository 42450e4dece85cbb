// Hands batches of slices, counters and flows to one writer thread that inserts them.
#include "trace_db/AsyncSliceSink.h"

#include "trace_db/TraceError.h"
#include "trace_db/TraceWriter.h"

#include <utility>

namespace pto::tracedb {

AsyncSliceSink::AsyncSliceSink(TraceWriter& writer, std::size_t maxQueuedBatches)
    : m_writer(writer), m_queue(maxQueuedBatches), m_thread([this] { drain(); }) {}

AsyncSliceSink::~AsyncSliceSink() {
    try {
        finish();
    } catch (...) {
        // Reported to whoever calls finish(); a destructor must not throw.
    }
}

void AsyncSliceSink::push(SliceBatch batch) {
    if (batch.empty()) return;
    if (!m_queue.push(std::move(batch))) {
        rethrowIfFailed();
        throw TraceError("slice sink for '" + m_writer.path().string() + "' is finished");
    }
}

void AsyncSliceSink::push(std::vector<SliceRow> slices) {
    SliceBatch batch;
    batch.slices = std::move(slices);
    push(std::move(batch));
}

std::int64_t AsyncSliceSink::intern(std::string_view text) {
    return m_writer.intern(text);
}

void AsyncSliceSink::finish() {
    m_queue.close();
    if (m_thread.joinable()) m_thread.join();
    rethrowIfFailed();
}

void AsyncSliceSink::drain() {
    while (std::optional<SliceBatch> batch = m_queue.pop()) {
        try {
            m_writer.addAll(std::span<const SliceRow>(batch->slices));
            m_writer.addAll(std::span<const CounterRow>(batch->counters));
            m_writer.addAll(std::span<const FlowRow>(batch->flows));
        } catch (...) {
            {
                std::lock_guard lock(m_errorMutex);
                m_error = std::current_exception();
            }
            // Stop taking work: producers get the error on their next push.
            m_queue.close();
            m_queue.clear();
            return;
        }
    }
}

void AsyncSliceSink::rethrowIfFailed() {
    std::exception_ptr error;
    {
        std::lock_guard lock(m_errorMutex);
        error = m_error;
    }
    if (error) std::rethrow_exception(error);
}

} // namespace pto::tracedb
