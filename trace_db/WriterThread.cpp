// One thread that owns a TraceWriter's inserts: jobs handed to it run there in the order pushed.
#include "trace_db/WriterThread.h"

#include "trace_db/TraceError.h"
#include "trace_db/TraceWriter.h"

#include <utility>

namespace pto::tracedb {

WriterThread::WriterThread(TraceWriter& writer, std::size_t capacity)
    : m_writer(writer), m_queue(capacity), m_thread([this] { drain(); }) {}

WriterThread::~WriterThread() {
    try {
        finish();
    } catch (...) {
        // Reported to whoever calls finish(); a destructor must not throw.
    }
}

void WriterThread::push(Job job, std::size_t weight) {
    if (!m_queue.push(std::move(job), weight)) {
        rethrowIfFailed();
        throw TraceError("writer thread of '" + m_writer.path().string() + "' is finished");
    }
}

void WriterThread::finish() {
    m_queue.close();
    if (m_thread.joinable()) m_thread.join();
    rethrowIfFailed();
}

void WriterThread::drain() {
    while (std::optional<Job> job = m_queue.pop()) {
        try {
            (*job)(m_writer);
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

void WriterThread::rethrowIfFailed() {
    std::exception_ptr error;
    {
        std::lock_guard lock(m_errorMutex);
        error = m_error;
    }
    if (error) std::rethrow_exception(error);
}

} // namespace pto::tracedb
