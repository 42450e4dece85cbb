// Writes a trace file: bulk row inserts into a temp file that commit() renames over the target.
#include "trace_db/TraceWriter.h"

#include "base/AtomicFile.h"
#include "trace_db/DictText.h"
#include "trace_db/ReplaceGuard.h"
#include "trace_db/RowCodec.h"
#include "trace_db/Schema.h"
#include "trace_db/SchemaVersion.h"
#include "trace_db/Sqlite.h"
#include "trace_db/StringInterner.h"
#include "trace_db/TraceFile.h"
#include "trace_db/TrackSummary.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <array>
#include <ctime>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#ifndef PTO_VERSION
#define PTO_VERSION "unknown"
#endif

namespace pto::tracedb {
namespace {

namespace fs = std::filesystem;

/// What `action` returns; its failure to write the file (base's FileWriteError) as a TraceError
/// with the same message, so every error of the trace writer is a TraceError.
template <class F> auto asTraceError(F&& action) {
    try {
        return action();
    } catch (const FileWriteError& e) {
        throw TraceError(e.what());
    }
}

/// One thread at a time uses the connection, so SQLite's per-connection mutex is not needed.
constexpr int kOpenFlags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;

/// Bulk-load settings. Safe only because nobody sees the temp file before commit renames it,
/// and commit fsyncs it first.
constexpr std::string_view kBulkPragmas = "PRAGMA journal_mode = OFF;"
                                          "PRAGMA synchronous = OFF;"
                                          "PRAGMA locking_mode = EXCLUSIVE;"
                                          "PRAGMA temp_store = MEMORY;"
                                          "PRAGMA cache_size = -16384;"; // KiB, i.e. 16 MiB

/// A new trace's page size: a trace is written once in about key order, then read mostly by
/// scans, so pages 4x SQLite's default mean fewer B-tree pages to fill, write and walk. Measured
/// (docs/PERFORMANCE.md): gemm_4096 compile median 0.71 -> 0.55 s, `pto report` of a 150 MB run
/// trace 1.4 -> 1.0 s, point lookups unchanged; 64 KiB pages gain little more but make the
/// smallest trace (one page per table and index) 2.4 MB instead of 0.6 MB. An appended trace
/// keeps the page size it has.
constexpr std::string_view kNewFilePageSize = "PRAGMA page_size = 16384;";

/// Rows ANALYZE samples per index: enough for the planner, cheap on big traces.
constexpr int kAnalysisLimit = 1000;

/// Rows per multi-row INSERT in addAll: one statement execution per 32 rows instead of one
/// per row about doubles the slice insert rate (bench/bench_trace_write.cpp).
constexpr int kRowsPerBatchInsert = 32;

/// Rows whose text the file keeps in table dict: they are stored as their *DataRow (schema 4).
template <typename Row>
constexpr bool kStoredCompact = std::is_same_v<Row, NodeRow> || std::is_same_v<Row, InstrRow>;

/// The single-row and the multi-row INSERT of one table, prepared on first use.
struct InsertStatements {
    std::optional<Statement> single;
    std::optional<Statement> batch;
};

std::string utcNow() {
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                       utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
}

} // namespace

class TraceWriter::Impl {
public:
    explicit Impl(AtomicFile file)
        : m_file(std::move(file)), m_db(m_file.tempPath(), kOpenFlags, m_file.target().string()) {}

    void startNew();
    void startAppend();

    const fs::path& path() const { return m_file.target(); }
    std::int64_t intern(std::string_view text) { return m_strings.intern(text); }
    std::int64_t internDict(std::string_view text) { return m_dict.intern(text); }
    void setMeta(std::string_view key, std::string_view value);
    std::int64_t nextStageId();
    void indexNow(std::string_view table);
    void commit();
    void flushText();
    void removeDiffs(DiffKind kind, std::string_view name);

    template <typename Row> std::int64_t insert(const Row& row);
    template <typename Row> void insertAll(std::span<const Row> rows);

private:
    /// The dict id of `text`, none for empty text (stored as NULL, read back as "").
    std::optional<std::int64_t> dictIdOf(std::string_view text);
    NodeDataRow compact(const NodeRow& row);
    InstrDataRow compact(const InstrRow& row);
    template <typename Row> Statement& insertStatement(int rows);
    template <typename Row> std::int64_t insertOne(const Row& row);
    /// Runs `action`; if it throws, the writer is closed: after a failed insert the file's
    /// content is undefined (journaling is off), so it must never be committed.
    template <typename Action> auto closeOnError(Action action);
    void requireOpen() const;
    void writeMeta(std::string_view key, std::string_view value);
    void preloadStrings();
    void preloadDict();
    void flushStrings();
    void close();

    // Declared first so it is destroyed last: the connection closes before the temp file
    // is removed.
    AtomicFile m_file;
    SqliteDb m_db;
    std::array<InsertStatements, static_cast<std::size_t>(TableId::Count)> m_inserts;
    std::optional<Statement> m_metaInsert;
    std::optional<Statement> m_stringInsert;
    StringInterner m_strings;
    StringInterner m_dict;
    TrackSummary m_trackSummary;
    /// Stages this writer added edges to: their edge_count is set at commit (the stage row is
    /// written before its edges, and every stage said 0).
    std::set<std::int64_t> m_edgeStages;
    void writeEdgeCounts();
    bool m_open = true;
};

void TraceWriter::Impl::startNew() {
    m_db.exec(kNewFilePageSize);
    m_db.exec(kBulkPragmas);
    m_db.exec("BEGIN");
    m_db.exec(fmt::format("PRAGMA application_id = {}", kApplicationId));
    createSchema(m_db);
    writeMeta("schema_version", std::to_string(kSchemaVersion));
    writeMeta("tool_version", PTO_VERSION);
    writeMeta("created_at", utcNow());
}

void TraceWriter::Impl::startAppend() {
    const int version = checkTraceFile(m_db);
    m_db.exec(kBulkPragmas);
    m_db.exec("BEGIN");
    migrateSchema(m_db, version);
    dropFinalizeIndexes(m_db);
    preloadStrings();
    preloadDict();
    m_trackSummary.load(m_db);
}

void TraceWriter::Impl::setMeta(std::string_view key, std::string_view value) {
    requireOpen();
    writeMeta(key, value);
}

std::int64_t TraceWriter::Impl::nextStageId() {
    requireOpen();
    return m_db.queryInt("SELECT coalesce(max(id), 0) + 1 FROM stage");
}

void TraceWriter::Impl::writeMeta(std::string_view key, std::string_view value) {
    if (!m_metaInsert)
        m_metaInsert.emplace(m_db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
    m_metaInsert->bindAll(key, value);
    m_metaInsert->run();
}

void TraceWriter::Impl::commit() {
    requireOpen();
    m_open = false; // done either way: a failure below leaves the temp file to be removed
    flushStrings();
    m_trackSummary.write(m_db);
    writeEdgeCounts();
    finalizeSchema(m_db);
    writeMeta("schema_version", std::to_string(kSchemaVersion));
    m_db.exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion));
    m_db.exec("COMMIT");
    m_db.exec(fmt::format("PRAGMA analysis_limit = {}; ANALYZE", kAnalysisLimit));
    close();
    asTraceError([&] { m_file.commit(); });
}

void TraceWriter::Impl::writeEdgeCounts() {
    Statement update(m_db, "UPDATE stage SET edge_count = (SELECT count(*) FROM edge WHERE "
                           "stage_id = ?1) WHERE id = ?1");
    for (std::int64_t stage : m_edgeStages) {
        update.bindAll(stage);
        update.run();
    }
}

template <typename Row> std::int64_t TraceWriter::Impl::insert(const Row& row) {
    if constexpr (kStoredCompact<Row>) {
        return insert(compact(row));
    } else {
        requireOpen();
        return closeOnError([&] {
            std::int64_t id = insertOne(row);
            if constexpr (std::is_same_v<Row, SliceRow>) m_trackSummary.add(row);
            if constexpr (std::is_same_v<Row, EdgeRow>) m_edgeStages.insert(row.stageId);
            return id;
        });
    }
}

template <typename Row> void TraceWriter::Impl::insertAll(std::span<const Row> rows) {
    if constexpr (kStoredCompact<Row>) {
        std::vector<decltype(compact(rows.front()))> compacted;
        compacted.reserve(rows.size());
        for (const Row& row : rows) compacted.push_back(compact(row));
        insertAll(std::span<const typename decltype(compacted)::value_type>(compacted));
    } else {
        requireOpen();
        closeOnError([&] {
            constexpr auto kBatch = static_cast<std::size_t>(kRowsPerBatchInsert);
            std::size_t at = 0;
            if (rows.size() >= kBatch) {
                Statement& batch = insertStatement<Row>(kRowsPerBatchInsert);
                for (; rows.size() - at >= kBatch; at += kBatch) {
                    for (std::size_t r = 0; r < kBatch; ++r)
                        bindRow(batch, rows[at + r], static_cast<int>(r) * kColumnCount<Row> + 1);
                    batch.run();
                }
            }
            for (; at < rows.size(); ++at) insertOne(rows[at]);
            if constexpr (std::is_same_v<Row, SliceRow>)
                for (const SliceRow& row : rows) m_trackSummary.add(row);
            if constexpr (std::is_same_v<Row, EdgeRow>)
                for (const EdgeRow& row : rows) m_edgeStages.insert(row.stageId);
        });
    }
}

template <typename Row> std::int64_t TraceWriter::Impl::insertOne(const Row& row) {
    Statement& statement = insertStatement<Row>(1);
    bindRow(statement, row);
    statement.run();
    if constexpr (RowCodec<Row>::kHasAutoId)
        return row.id != kAutoId ? row.id : sqlite3_last_insert_rowid(m_db.handle());
    else
        return 0;
}

template <typename Row> Statement& TraceWriter::Impl::insertStatement(int rows) {
    InsertStatements& cached = m_inserts[static_cast<std::size_t>(RowCodec<Row>::kTableId)];
    std::optional<Statement>& slot = rows == 1 ? cached.single : cached.batch;
    if (!slot) slot.emplace(m_db, insertSql<Row>(rows));
    return *slot;
}

template <typename Action> auto TraceWriter::Impl::closeOnError(Action action) {
    try {
        return action();
    } catch (...) {
        m_open = false;
        throw;
    }
}

void TraceWriter::Impl::removeDiffs(DiffKind kind, std::string_view name) {
    requireOpen();
    closeOnError([&] {
        Statement remove(m_db, "DELETE FROM diff WHERE kind = ? AND name = ?");
        remove.bindAll(enumName(kind), name);
        remove.run();
    });
}

std::optional<std::int64_t> TraceWriter::Impl::dictIdOf(std::string_view text) {
    if (text.empty()) return std::nullopt;
    return m_dict.intern(text);
}

NodeDataRow TraceWriter::Impl::compact(const NodeRow& row) {
    return NodeDataRow{.stageId = row.stageId,
                       .id = row.id,
                       .kindDict = dictIdOf(row.kind),
                       .name = row.name,
                       .dtypeDict = dictIdOf(row.dtype),
                       .shapeDict = dictIdOf(row.shape),
                       .spaceDict = dictIdOf(row.space),
                       .coreDict = dictIdOf(row.core),
                       .pipeDict = dictIdOf(row.pipe),
                       .attrsDict = dictIdOf(row.attrs),
                       .groupId = row.groupId,
                       .parentId = row.parentId,
                       .srcLine = row.srcLine,
                       .srcCol = row.srcCol};
}

InstrDataRow TraceWriter::Impl::compact(const InstrRow& row) {
    return InstrDataRow{.id = row.id,
                        .stageId = row.stageId,
                        .blockId = row.blockId,
                        .idx = row.idx,
                        .pipeDict = dictIdOf(row.pipe),
                        .opcodeDict = dictIdOf(row.opcode),
                        .operandsDict = dictIdOf(row.operands),
                        .flagsDict = dictIdOf(row.flags),
                        .tileOpId = row.tileOpId,
                        .tileStageId = row.tileStageId,
                        .srcLine = row.srcLine,
                        .flops = row.flops,
                        .gmBytes = row.gmBytes,
                        .srcDtypeDict = row.srcDtype ? dictIdOf(*row.srcDtype) : std::nullopt};
}

void TraceWriter::Impl::indexNow(std::string_view table) {
    requireOpen();
    closeOnError([&] { finalizeIndexesOf(m_db, table); });
}

void TraceWriter::Impl::requireOpen() const {
    if (!m_open)
        throw TraceError(fmt::format("trace writer for '{}' is closed (committed or failed)",
                                     m_file.target().string()));
}

void TraceWriter::Impl::preloadStrings() {
    Statement select(m_db, "SELECT id, str FROM string");
    while (select.step()) {
        std::int64_t id = 0;
        std::string text;
        select.readAll(id, text);
        m_strings.preload(id, std::move(text));
    }
}

void TraceWriter::Impl::preloadDict() {
    for (auto& [id, text] : readDict(m_db)) m_dict.preload(id, std::move(text));
}

void TraceWriter::Impl::flushStrings() {
    if (!m_stringInsert) m_stringInsert.emplace(m_db, "INSERT INTO string(id, str) VALUES(?, ?)");
    for (const auto& [id, text] : m_strings.takePending()) {
        m_stringInsert->bindAll(id, std::string_view(text));
        m_stringInsert->run();
    }
    Statement dictInsert(m_db, "INSERT INTO dict(id, str) VALUES(?, ?)");
    for (const auto& [id, text] : m_dict.takePending()) {
        dictInsert.bindAll(id, std::string_view(text));
        dictInsert.run();
    }
}

void TraceWriter::Impl::flushText() {
    requireOpen();
    closeOnError([&] { flushStrings(); });
}

void TraceWriter::Impl::close() {
    m_inserts = {};
    m_metaInsert.reset();
    m_stringInsert.reset();
    m_db.close();
}

TraceWriter::TraceWriter(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
TraceWriter::TraceWriter(TraceWriter&& other) noexcept = default;
TraceWriter& TraceWriter::operator=(TraceWriter&& other) noexcept = default;
TraceWriter::~TraceWriter() = default;

TraceWriter TraceWriter::create(const fs::path& path) {
    requireReplaceable(path, "trace file", "meta");
    auto impl = std::make_unique<Impl>(
        asTraceError([&] { return AtomicFile::createEmpty(path, "trace file"); }));
    impl->startNew();
    return TraceWriter(std::move(impl));
}

TraceWriter TraceWriter::append(const fs::path& path) {
    requireExistingFile(path);
    auto impl = std::make_unique<Impl>(
        asTraceError([&] { return AtomicFile::copyOf(path, "trace file"); }));
    impl->startAppend();
    return TraceWriter(std::move(impl));
}

TraceWriter::Impl& TraceWriter::impl() const {
    if (!m_impl) throw TraceError("trace writer was moved from");
    return *m_impl;
}

const fs::path& TraceWriter::path() const {
    return impl().path();
}
void TraceWriter::removeDiffs(DiffKind kind, std::string_view name) {
    impl().removeDiffs(kind, name);
}
void TraceWriter::setMeta(std::string_view key, std::string_view value) {
    impl().setMeta(key, value);
}
std::int64_t TraceWriter::intern(std::string_view text) {
    return impl().intern(text);
}
std::int64_t TraceWriter::internDict(std::string_view text) {
    return impl().internDict(text);
}
std::int64_t TraceWriter::nextStageId() {
    return impl().nextStageId();
}
void TraceWriter::indexNow(std::string_view table) {
    impl().indexNow(table);
}
void TraceWriter::flushText() {
    impl().flushText();
}
void TraceWriter::commit() {
    impl().commit();
}

std::int64_t TraceWriter::add(const StageRow& row) {
    return impl().insert(row);
}
void TraceWriter::add(const NodeRow& row) {
    impl().insert(row);
}
void TraceWriter::add(const NodeDataRow& row) {
    impl().insert(row);
}
void TraceWriter::add(const EdgeRow& row) {
    impl().insert(row);
}
void TraceWriter::add(const BufferRow& row) {
    impl().insert(row);
}
std::int64_t TraceWriter::add(const InstrRow& row) {
    return impl().insert(row);
}
std::int64_t TraceWriter::add(const InstrDataRow& row) {
    return impl().insert(row);
}
std::int64_t TraceWriter::add(const TrackRow& row) {
    return impl().insert(row);
}
std::int64_t TraceWriter::add(const SliceRow& row) {
    return impl().insert(row);
}
void TraceWriter::add(const CounterRow& row) {
    impl().insert(row);
}
std::int64_t TraceWriter::add(const FlowRow& row) {
    return impl().insert(row);
}
void TraceWriter::add(const ArgRow& row) {
    impl().insert(row);
}
std::int64_t TraceWriter::add(const TensorRow& row) {
    return impl().insert(row);
}
std::int64_t TraceWriter::add(const DiffRow& row) {
    return impl().insert(row);
}
void TraceWriter::add(const MetricRow& row) {
    impl().insert(row);
}
void TraceWriter::add(const StatRow& row) {
    impl().insert(row);
}

void TraceWriter::addAll(std::span<const StageRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const NodeRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const NodeDataRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const EdgeRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const BufferRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const InstrRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const InstrDataRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const TrackRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const SliceRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const CounterRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const FlowRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const ArgRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const TensorRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const DiffRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const MetricRow> rows) {
    impl().insertAll(rows);
}
void TraceWriter::addAll(std::span<const StatRow> rows) {
    impl().insertAll(rows);
}

} // namespace pto::tracedb
