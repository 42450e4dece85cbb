// Builds the timeline's per-file summary: one sequential scan of the slice table (split by id
// range over threads) into per-track pyramids, plus counters and instruction → op links.
#include "gui/model/TimelineLod.h"

#include "gui/model/CancelToken.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/TimelineSliceCache.h"
#include "trace_db/Sqlite.h"
#include "trace_db/TraceFile.h"
#include "trace_db/TraceReader.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string_view>
#include <thread>

namespace pto::gui {
namespace {

using Pyramids = std::unordered_map<std::int64_t, LodPyramid>;

constexpr int kOpenFlags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;

struct StatementDeleter {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using StatementPtr = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

StatementPtr prepare(tracedb::SqliteDb& db, const char* sql) {
    sqlite3_stmt* raw = nullptr;
    if (int rc = sqlite3_prepare_v2(db.handle(), sql, -1, &raw, nullptr); rc != SQLITE_OK)
        db.fail(rc, "preparing the timeline summary");
    return StatementPtr(raw);
}

/// A slice row takes more than this many bytes of the file, so the file's size bounds how
/// many slices it can hold, whatever track_summary claims.
constexpr std::int64_t kMinBytesPerSlice = 8;

Pyramids emptyPyramids(tracedb::SqliteDb& db, std::int64_t fileBytes) {
    Pyramids pyramids;
    // The buckets follow track_summary's slice counts; a forged summary could ask for millions
    // per track, so the counts share what the file can really hold.
    std::int64_t budget = std::max<std::int64_t>(1, fileBytes / kMinBytesPerSlice);
    auto s = prepare(db, "SELECT track_id, slice_count, min_ts, max_end FROM track_summary");
    while (sqlite3_step(s.get()) == SQLITE_ROW) {
        const std::int64_t count =
            std::clamp<std::int64_t>(sqlite3_column_int64(s.get(), 1), 0, budget);
        budget = std::max<std::int64_t>(1, budget - count);
        pyramids.emplace(
            sqlite3_column_int64(s.get(), 0),
            LodPyramid(sqlite3_column_int64(s.get(), 2), sqlite3_column_int64(s.get(), 3), count));
    }
    return pyramids;
}

// How a slice at `depth` of `category` covers its buckets: waits apart from busy time (the
// timeline draws them grey, as it does a wait slice), nested slices not at all.
LodCover coverOf(std::int64_t depth, const unsigned char* category) {
    if (depth != 0) return LodCover::None;
    const bool wait =
        category && std::string_view(reinterpret_cast<const char*>(category)) == "wait";
    return wait ? LodCover::Wait : LodCover::Busy;
}

// Adds the slices with id in [lo, hi) to `pyramids`; returns how many were read.
std::int64_t scanSlices(const std::filesystem::path& path, std::int64_t lo, std::int64_t hi,
                        const std::vector<std::int32_t>& opByInstr, Pyramids& pyramids,
                        CancelToken& cancel) {
    tracedb::SqliteDb db(tracedb::readOnlyUri(path), kOpenFlags, path.string());
    const auto watch = cancel.watch(db.handle());
    // Plain reads through the page cache: a memory map would count the whole table in the
    // process's resident memory, for no measurable gain in this sequential scan.
    auto s = prepare(db, "SELECT ts, dur, track_id, name_id, instr_id, depth, category "
                         "FROM slice WHERE id >= ?1 AND id < ?2");
    sqlite3_bind_int64(s.get(), 1, lo);
    sqlite3_bind_int64(s.get(), 2, hi);
    std::int64_t rows = 0;
    std::int64_t lastTrack = -1;
    LodPyramid* pyramid = nullptr;
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
        const std::int64_t track = sqlite3_column_int64(s.get(), 2);
        if (track != lastTrack) {
            auto it = pyramids.find(track);
            pyramid = it == pyramids.end() ? nullptr : &it->second;
            lastTrack = track;
        }
        ++rows;
        if (!pyramid) continue;
        const std::int64_t instr = sqlite3_column_int64(s.get(), 4);
        const std::int32_t op =
            instr > 0 && std::size_t(instr) < opByInstr.size() ? opByInstr[std::size_t(instr)] : -1;
        const std::int64_t depth = sqlite3_column_int64(s.get(), 5);
        pyramid->add(
            sqlite3_column_int64(s.get(), 0), sqlite3_column_int64(s.get(), 1),
            static_cast<std::int32_t>(sqlite3_column_int64(s.get(), 3)), op,
            coverOf(depth, sqlite3_column_text(s.get(), 6)),
            static_cast<int>(std::clamp<std::int64_t>(depth, 0, TimelineSlice::kMaxDepth)));
        if ((rows & 0xFFFF) == 0 && cancel.cancelled()) return rows;
    }
    if (rc != SQLITE_DONE) db.fail(rc, "reading slices for the timeline summary");
    return rows;
}

// Fills lod.opByInstr, lod.rootStage and lod.bodyOps: each instruction's op of the program.
void readInstrOps(const std::filesystem::path& path, CancelToken& cancel, TimelineLod& lod) {
    const auto reader = tracedb::TraceReader::open(path);
    const auto watch = cancel.watch(reader);
    LinkResolver links(reader);
    lod.rootStage = links.rootStage();
    std::vector<std::int32_t>& ops = lod.opByInstr;
    std::map<NodeKey, std::int32_t> bodyIndex; // body op → its index in the order met
    reader.query("SELECT id FROM instr ORDER BY id", [&](auto, auto row) {
        const auto id = std::get<std::int64_t>(row[0]);
        if (id < 0 || id > (std::int64_t(1) << 28)) return true;
        if (ops.size() <= std::size_t(id)) ops.resize(std::size_t(id) + 1, -1);
        const NodeKey op = links.programOpOfInstr(id);
        if (!op.valid()) return true;
        if (op.stageId == lod.rootStage) {
            ops[std::size_t(id)] = static_cast<std::int32_t>(op.id);
            return true;
        }
        const auto [it, fresh] = bodyIndex.try_emplace(op, std::int32_t(bodyIndex.size()));
        ops[std::size_t(id)] = -2 - it->second;
        return true;
    });
    // Keys in program order (the map's), whatever order the instructions met them in.
    std::vector<std::int32_t> keyOfMet(bodyIndex.size());
    for (const auto& [op, met] : bodyIndex) {
        keyOfMet[std::size_t(met)] = -2 - std::int32_t(lod.bodyOps.size());
        lod.bodyOps.push_back(op);
        lod.loopOfBody.push_back(links.rootOpOf(op));
    }
    for (std::int32_t& key : ops)
        if (key <= -2) key = keyOfMet[std::size_t(-2 - key)];
}

std::unordered_map<std::int64_t, CounterSeries> readCounters(tracedb::SqliteDb& db) {
    std::unordered_map<std::int64_t, CounterSeries> counters;
    auto s = prepare(db, "SELECT track_id, ts, value FROM counter ORDER BY track_id, ts");
    while (sqlite3_step(s.get()) == SQLITE_ROW) {
        CounterSeries& series = counters[sqlite3_column_int64(s.get(), 0)];
        series.ts.push_back(sqlite3_column_int64(s.get(), 1));
        series.value.push_back(sqlite3_column_double(s.get(), 2));
        series.maxValue = std::max(series.maxValue, series.value.back());
    }
    return counters;
}

} // namespace

std::shared_ptr<const TimelineLod> buildTimelineLod(const std::filesystem::path& path,
                                                    CancelToken& cancel, int threads) {
    if (cancel.cancelled()) return nullptr;
    const auto start = std::chrono::steady_clock::now();
    auto lod = std::make_shared<TimelineLod>();
    tracedb::SqliteDb db(tracedb::readOnlyUri(path), kOpenFlags, path.string());
    const auto watch = cancel.watch(db.handle());
    readInstrOps(path, cancel, *lod);
    lod->counters = readCounters(db);
    std::error_code sizeError;
    const auto fileBytes = static_cast<std::int64_t>(std::filesystem::file_size(path, sizeError));
    lod->pyramids = emptyPyramids(db, sizeError ? 0 : fileBytes);
    const std::int64_t maxId = db.queryInt("SELECT coalesce(max(id), 0) FROM slice");
    threads = std::max(1, threads);
    std::vector<Pyramids> parts(static_cast<std::size_t>(threads - 1));
    std::vector<std::int64_t> rows(static_cast<std::size_t>(threads), 0);
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
    const std::int64_t step = maxId / threads + 1;
    auto run = [&](int t, Pyramids& into) {
        try {
            rows[std::size_t(t)] =
                scanSlices(path, t * step, (t + 1) * step, lod->opByInstr, into, cancel);
        } catch (...) {
            errors[std::size_t(t)] = std::current_exception();
        }
    };
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t) {
        parts[std::size_t(t - 1)] = emptyPyramids(db, sizeError ? 0 : fileBytes);
        workers.emplace_back(run, t, std::ref(parts[std::size_t(t - 1)]));
    }
    run(0, lod->pyramids);
    for (auto& worker : workers) worker.join();
    for (const auto& error : errors)
        if (error) std::rethrow_exception(error);
    if (cancel.cancelled()) return nullptr;
    for (auto& [track, pyramid] : lod->pyramids) {
        for (const Pyramids& part : parts)
            if (auto it = part.find(track); it != part.end()) pyramid.merge(it->second);
        pyramid.finish();
    }
    for (std::int64_t n : rows) lod->slicesScanned += n;
    lod->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return lod;
}

} // namespace pto::gui
