// Writes a trace file: bulk row inserts into a temp file that commit() renames over the target.
#pragma once

#include "trace_db/Rows.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>

namespace pto::tracedb {

/// The producer side of the trace file (compiler, simulator, validate, profiler).
///
/// Everything goes to "<path>.tmp-<pid>-<n>" (AtomicFile) in one transaction with journaling
/// off; commit() builds the indexes and summaries, stamps the schema version and renames the
/// file over `path`. A writer destroyed without commit (an exception), or ended by SIGINT,
/// SIGTERM or SIGHUP, removes its temp file; one killed outright leaves it for the next writer
/// of `path` to remove. `path` holds the previous file or nothing, never a half-written trace.
///
/// Threads: one thread at a time uses a writer (it may move between threads); intern() alone
/// may be called from any thread at any time. While a WriterThread (an AsyncSliceSink, a
/// StageRecorder's) drains into the writer, only that thread touches it until its finish().
///
/// Errors throw TraceError naming the file and the reason.
class TraceWriter {
public:
    /// Starts a new trace that will replace `path` on commit.
    static TraceWriter create(const std::filesystem::path& path);
    /// Adds to an existing trace (e.g. the simulator's run after the compiler's stages). The
    /// file is checked as TraceReader::open does; the original stays untouched until commit.
    static TraceWriter append(const std::filesystem::path& path);

    TraceWriter(TraceWriter&& other) noexcept;
    TraceWriter& operator=(TraceWriter&& other) noexcept;
    ~TraceWriter();

    const std::filesystem::path& path() const;

    /// Inserts or replaces one meta key (see docs/TRACE_SCHEMA.md for the known keys).
    /// schema_version, tool_version and created_at are set by the writer.
    void setMeta(std::string_view key, std::string_view value);
    /// The id of `text` in table `string`, adding it once. Thread-safe.
    std::int64_t intern(std::string_view text);
    /// The id of `text` in table `dict` (the repeated text of nodes and instructions), adding
    /// it once. Thread-safe.
    std::int64_t internDict(std::string_view text);
    /// The id the next StageRow added with kAutoId gets (one more than the highest so far), so
    /// a producer can number its stages before they are inserted on a WriterThread.
    std::int64_t nextStageId();
    /// Builds the indexes commit() would build on `table` now; rows added later are indexed as
    /// they are inserted. For a producer whose table is (nearly) complete long before commit —
    /// on a WriterThread, that work then overlaps the producer's instead of delaying commit.
    void indexNow(std::string_view table);

    // One row per call, or a batch. Rows whose table has an `id` column return it (the one
    // given, or the one assigned when the row's id is kAutoId).
    std::int64_t add(const StageRow& row);
    void add(const NodeRow& row); ///< its text interned into `dict`, as a NodeDataRow
    void add(const NodeDataRow& row);
    void add(const EdgeRow& row);
    void add(const BufferRow& row);
    std::int64_t add(const InstrRow& row); ///< its text interned, as an InstrDataRow
    std::int64_t add(const InstrDataRow& row);
    std::int64_t add(const TrackRow& row);
    std::int64_t add(const SliceRow& row);
    void add(const CounterRow& row);
    std::int64_t add(const FlowRow& row);
    void add(const ArgRow& row);
    std::int64_t add(const TensorRow& row);
    std::int64_t add(const DiffRow& row);
    void add(const MetricRow& row);
    void add(const StatRow& row);

    void addAll(std::span<const StageRow> rows);
    void addAll(std::span<const NodeRow> rows);
    void addAll(std::span<const NodeDataRow> rows);
    void addAll(std::span<const EdgeRow> rows);
    void addAll(std::span<const BufferRow> rows);
    void addAll(std::span<const InstrRow> rows);
    void addAll(std::span<const InstrDataRow> rows);
    void addAll(std::span<const TrackRow> rows);
    void addAll(std::span<const SliceRow> rows);
    void addAll(std::span<const CounterRow> rows);
    void addAll(std::span<const FlowRow> rows);
    void addAll(std::span<const ArgRow> rows);
    void addAll(std::span<const TensorRow> rows);
    void addAll(std::span<const DiffRow> rows);
    void addAll(std::span<const MetricRow> rows);
    void addAll(std::span<const StatRow> rows);

    /// Deletes the diff rows of `kind` named `name` (an earlier comparison of the same value,
    /// which a new one replaces).
    void removeDiffs(DiffKind kind, std::string_view name);

    /// Inserts the names and dict texts interned so far, which commit() would otherwise insert:
    /// a recorder's writer thread does it while the caller goes on (no intern() or
    /// internDict() may run meanwhile).
    void flushText();

    /// Finishes the file and renames it over path(). The writer is closed afterwards.
    void commit();

private:
    class Impl;
    explicit TraceWriter(std::unique_ptr<Impl> impl);
    Impl& impl() const;

    std::unique_ptr<Impl> m_impl;
};

} // namespace pto::tracedb
