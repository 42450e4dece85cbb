// Reads a trace file: typed accessors per table and a read-only SQL query entry point.
#pragma once

#include "trace_db/DictText.h"
#include "trace_db/QueryLimits.h"
#include "trace_db/QueryResult.h"
#include "trace_db/Rows.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pto::tracedb {

enum class TensorData { Skip, Load };

/// The consumer side of the trace file (profiler, GUI, CLI). Opens the file read-only and
/// refuses, with a message naming the file and the reason, anything that is not a finished
/// PTO Studio trace of a schema version this build knows: not a regular file (a FIFO), a
/// table replaced by a view or missing a column, a WAL-mode file with pending changes. Opens
/// with SQLite's immutable URI, so nothing is ever created beside the file; the views of
/// schema.sql are this build's, whatever the file defines (docs/TRACE_SCHEMA.md).
///
/// Threads: each reader has its own connection and may be created and used on any thread,
/// one thread at a time. Open one reader per thread for parallel work.
class TraceReader {
public:
    static TraceReader open(const std::filesystem::path& path);

    TraceReader(TraceReader&& other) noexcept;
    TraceReader& operator=(TraceReader&& other) noexcept;
    ~TraceReader();

    const std::filesystem::path& path() const;
    int schemaVersion() const;

    std::optional<std::string> meta(std::string_view key) const;
    /// Meta clock_hz in Hz, which open() checked against the one rule (trace_db/ClockRate.h);
    /// nullopt when the trace states no clock (compile only).
    std::optional<double> clockHz() const;
    std::vector<std::pair<std::string, std::string>> allMeta() const;
    /// The interned string with this id (nullopt if none).
    std::optional<std::string> stringOf(std::int64_t id) const;
    std::unordered_map<std::int64_t, std::string> strings() const;
    /// The text of table `dict` by id (schema 4; empty for older files), read once: for a
    /// reader that scans node_data or instr_data itself rather than the views node and instr.
    const DictText& dict() const;

    std::vector<StageRow> stages() const;                       ///< by ord
    std::vector<NodeRow> nodes(std::int64_t stageId) const;     ///< by id
    std::vector<EdgeRow> edges(std::int64_t stageId) const;     ///< in insertion order
    std::vector<BufferRow> buffers(std::int64_t stageId) const; ///< by id
    std::vector<InstrRow> instrs() const;                       ///< by stage, block, idx
    std::vector<InstrRow> instrs(std::int64_t stageId, std::int64_t blockId) const;
    std::vector<TrackRow> tracks() const; ///< by id

    /// Slices of a track that overlap [t0, t1) (an instant slice: t0 ≤ ts < t1), by ts, depth.
    std::vector<SliceRow> slices(std::int64_t trackId,
                                 std::int64_t t0 = std::numeric_limits<std::int64_t>::min(),
                                 std::int64_t t1 = std::numeric_limits<std::int64_t>::max()) const;
    /// Samples of a counter track with t0 ≤ ts < t1, by ts.
    std::vector<CounterRow>
    counters(std::int64_t trackId, std::int64_t t0 = std::numeric_limits<std::int64_t>::min(),
             std::int64_t t1 = std::numeric_limits<std::int64_t>::max()) const;
    std::vector<FlowRow> flows() const; ///< by id
    std::vector<ArgRow> args(std::int64_t argSetId) const;

    /// All tensors by id; with TensorData::Skip their `data` is left empty.
    std::vector<TensorRow> tensors(TensorData data = TensorData::Skip) const;
    std::vector<std::byte> tensorData(std::int64_t tensorId) const;
    std::vector<DiffRow> diffs() const;     ///< by id
    std::vector<MetricRow> metrics() const; ///< in insertion order
    std::vector<MetricRow> metrics(std::string_view analysis) const;
    std::vector<StatRow> stats() const; ///< in insertion order

    /// Runs one or more SQL statements and returns the columns and rows of the last one that
    /// has columns. Refused before anything runs, with "pto query is read-only: statement N
    /// ...", when any statement could modify the file, attach a database or set a pragma.
    QueryResult query(std::string_view sql) const;
    /// As above, streaming: onRow sees every row of every statement; returning false stops.
    void query(std::string_view sql, const RowCallback& onRow) const;
    /// The same under limits (for SQL a user typed): when the time budget runs out or
    /// limits.cancel is flipped (from any thread), the running statement is interrupted
    /// mid-way and QueryInterrupted is thrown ("query interrupted after 5.0 s (time limit)").
    QueryResult query(std::string_view sql, const QueryLimits& limits) const;
    void query(std::string_view sql, const RowCallback& onRow, const QueryLimits& limits) const;

    /// PRAGMA quick_check: reads the whole file, so it is not part of open(). Throws
    /// TraceError naming the file and the first problems found ("trace 'x.db' is corrupt: On
    /// tree page 374 cell 3: invalid page number …").
    void verifyIntegrity() const;

    /// Stops the statement running on this reader's connection, if any, with an "interrupted"
    /// TraceError. The one member that may be called from another thread (sqlite3_interrupt),
    /// as long as the reader outlives the call; pto-studio uses it to cancel workers.
    void interrupt() const noexcept;

private:
    class Impl;
    explicit TraceReader(std::unique_ptr<Impl> impl);

    std::unique_ptr<Impl> m_impl;
};

} // namespace pto::tracedb
