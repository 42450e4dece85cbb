// One thread that owns a TraceWriter's inserts: jobs handed to it run there in the order pushed.
#pragma once

#include "trace_db/BoundedQueue.h"

#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace pto::tracedb {

class TraceWriter;

/// The producer side hands over work — a batch of rows to insert, or the formatting of rows
/// and their insert — as jobs through a bounded queue; one thread, which owns the writer from
/// construction until finish(), runs them in push order. So rows pushed by one thread land in
/// each table in the order pushed. push() blocks only while the queue is full — the capacity
/// is in jobs, or in rows when jobs are pushed with their row count — so a producer faster
/// than SQLite waits there rather than piling up rows without bound.
///
/// A job owns what it reads (rows moved in, copies): the producer goes on changing its own
/// data meanwhile.
///
/// If a job throws, the thread stops taking work and drops what is queued; the next push() or
/// finish() rethrows that error on the caller's thread. The writer is then closed (TraceWriter
/// closes itself after a failed insert) and must be dropped without commit, which removes its
/// temp file.
class WriterThread {
public:
    using Job = std::function<void(TraceWriter&)>;
    static constexpr std::size_t kDefaultQueuedJobs = 8;

    /// `capacity`: the weight of jobs queued at most (each job weighs what push was given).
    explicit WriterThread(TraceWriter& writer, std::size_t capacity = kDefaultQueuedJobs);
    /// Calls finish() and swallows its error (call finish() yourself to see it).
    ~WriterThread();
    WriterThread(const WriterThread&) = delete;
    WriterThread& operator=(const WriterThread&) = delete;

    /// Safe from several producer threads at once. `weight`: e.g. the rows the job inserts.
    void push(Job job, std::size_t weight = 1);

    /// Waits until every pushed job has run and stops the thread; afterwards the writer belongs
    /// to the caller again (to add more rows or commit). Idempotent.
    void finish();

private:
    void drain();
    void rethrowIfFailed();

    TraceWriter& m_writer;
    BoundedQueue<Job> m_queue;
    std::mutex m_errorMutex;
    std::exception_ptr m_error;
    std::thread m_thread;
};

} // namespace pto::tracedb
