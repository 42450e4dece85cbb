// Slice write rate: TraceWriter and AsyncSliceSink against raw sqlite3 inserts of the same rows.
#include "trace_db/AsyncSliceSink.h"
#include "trace_db/RowCodec.h"
#include "trace_db/Schema.h"
#include "trace_db/TraceWriter.h"

#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace pto::tracedb;

constexpr std::int64_t kSlices = std::int64_t{1} << 20;
constexpr std::size_t kBatchRows = 8192;
constexpr int kTracks = 64;
constexpr int kNames = 24;

/// Instruction slices as the simulator makes them: many pipe tracks, growing time, a few
/// dozen names, every slice tied to an instruction.
std::vector<SliceRow> makeSlices(std::int64_t count) {
    std::vector<SliceRow> slices(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
        SliceRow& row = slices[static_cast<std::size_t>(i)];
        row.ts = i * 7;
        row.dur = 20 + (i * 13) % 500;
        row.trackId = 1 + i % kTracks;
        row.nameId = 1 + (i * 5) % kNames;
        row.category = SliceCategory::Instr;
        row.instrId = 1 + i % 4096;
    }
    return slices;
}

const std::vector<SliceRow>& sampleSlices() {
    static const std::vector<SliceRow> slices = makeSlices(kSlices);
    return slices;
}

std::filesystem::path scratchFile(const char* name) {
    return std::filesystem::temp_directory_path() /
           (std::string("pto-bench-") + std::to_string(::getpid()) + "-" + name);
}

void finishRun(benchmark::State& state, const std::filesystem::path& path) {
    state.SetItemsProcessed(state.iterations() * kSlices);
    state.counters["MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    std::filesystem::remove(path);
}

/// Times `insert(writer)`; with the argument commit:1 also create and commit (indexes, track
/// summary, ANALYZE, fsync, rename), i.e. the whole cost of the file.
template <typename Insert>
void timeWriter(benchmark::State& state, const char* name, Insert insert) {
    const bool withCommit = state.range(0) != 0;
    std::filesystem::path path = scratchFile(name);
    for (auto _ : state) {
        if (!withCommit) state.PauseTiming();
        TraceWriter writer = TraceWriter::create(path);
        if (!withCommit) state.ResumeTiming();
        insert(writer);
        if (!withCommit) state.PauseTiming();
        writer.commit();
        if (!withCommit) state.ResumeTiming();
    }
    finishRun(state, path);
}

/// TraceWriter::addAll from one thread.
void BM_TraceWriterAddAll(benchmark::State& state) {
    timeWriter(state, "writer.db", [](TraceWriter& writer) {
        writer.addAll(std::span<const SliceRow>(sampleSlices()));
    });
}

/// The simulator's path: this thread copies batches and pushes them, the sink's thread inserts.
void BM_AsyncSliceSink(benchmark::State& state) {
    timeWriter(state, "sink.db", [](TraceWriter& writer) {
        const std::vector<SliceRow>& slices = sampleSlices();
        AsyncSliceSink sink(writer);
        for (std::size_t at = 0; at < slices.size(); at += kBatchRows) {
            std::size_t end = std::min(slices.size(), at + kBatchRows);
            sink.push(std::vector<SliceRow>(slices.begin() + static_cast<std::ptrdiff_t>(at),
                                            slices.begin() + static_cast<std::ptrdiff_t>(end)));
        }
        sink.finish();
    });
}

void check(int rc, sqlite3* db) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db));
}

/// The baseline: the same table, pragmas and rows through one raw single-row prepared
/// statement in one transaction; no indexes, no commit-time work, no fsync.
void BM_RawSqliteInsert(benchmark::State& state) {
    const std::vector<SliceRow>& slices = sampleSlices();
    std::filesystem::path path = scratchFile("raw.db");
    std::string insert = insertSql<SliceRow>();
    for (auto _ : state) {
        std::filesystem::remove(path);
        sqlite3* db = nullptr;
        check(sqlite3_open_v2(path.c_str(), &db,
                              SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                              nullptr),
              db);
        check(sqlite3_exec(db,
                           "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
                           "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -65536; BEGIN",
                           nullptr, nullptr, nullptr),
              db);
        check(sqlite3_exec(db, std::string(schemaCreateSql()).c_str(), nullptr, nullptr, nullptr),
              db);
        sqlite3_stmt* stmt = nullptr;
        check(sqlite3_prepare_v2(db, insert.c_str(), -1, &stmt, nullptr), db);
        for (const SliceRow& row : slices) {
            sqlite3_bind_null(stmt, 1);
            sqlite3_bind_int64(stmt, 2, row.ts);
            sqlite3_bind_int64(stmt, 3, row.dur);
            sqlite3_bind_int64(stmt, 4, row.trackId);
            sqlite3_bind_int64(stmt, 5, row.nameId);
            sqlite3_bind_text(stmt, 6, "instr", 5, SQLITE_STATIC);
            sqlite3_bind_int64(stmt, 7, row.depth);
            sqlite3_bind_int64(stmt, 8, *row.instrId);
            sqlite3_bind_null(stmt, 9);
            sqlite3_bind_null(stmt, 10);
            check(sqlite3_step(stmt), db);
            sqlite3_reset(stmt);
        }
        sqlite3_finalize(stmt);
        check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db);
        sqlite3_close(db);
    }
    finishRun(state, path);
}

BENCHMARK(BM_RawSqliteInsert)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TraceWriterAddAll)
    ->ArgName("commit")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_AsyncSliceSink)
    ->ArgName("commit")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
