// Hands batches of slices, counters and flows to one writer thread that inserts them.
#include "trace_db/AsyncSliceSink.h"

#include "trace_db/TraceWriter.h"

#include <span>
#include <utility>

namespace pto::tracedb {

AsyncSliceSink::AsyncSliceSink(TraceWriter& writer, std::size_t maxQueuedBatches)
    : m_writer(writer), m_thread(writer, maxQueuedBatches) {}

void AsyncSliceSink::push(SliceBatch batch) {
    if (batch.empty()) return;
    m_thread.push([batch = std::move(batch)](TraceWriter& writer) {
        writer.addAll(std::span<const SliceRow>(batch.slices));
        writer.addAll(std::span<const CounterRow>(batch.counters));
        writer.addAll(std::span<const FlowRow>(batch.flows));
    });
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
    m_thread.finish();
}

} // namespace pto::tracedb
