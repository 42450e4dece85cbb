// The tune file (trace_db/TuneDb.h) against real SQLite files: round trip, detection, refusals,
// and the merge of chunk files by ATTACH.
#include "trace_db/TuneDb.h"
#include "tests/support/Process.h"
#include "trace_db/TraceError.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

namespace pto::tracedb {
namespace {

using test::TempDir;

TuneCandidate candidate(int64_t id, std::optional<int64_t> cycles, TuneStatus status) {
    TuneCandidate c;
    c.id = id;
    c.label = "c" + std::to_string(id);
    c.config = "{}";
    c.status = status;
    c.cycles = cycles;
    c.lowerBound = cycles ? std::optional<int64_t>(*cycles / 2) : std::nullopt;
    c.onchipBytes = 1024 * (id + 1);
    if (cycles) c.pipes = {{"MTE2", *cycles / 2, 0.5}, {"M", *cycles / 4, 0.25}};
    if (status != TuneStatus::Ok) c.error = "why";
    return c;
}

TuneData chunk(std::vector<TuneCandidate> candidates, const std::string& hash = "h1") {
    TuneData d;
    d.meta = {{"program_hash", hash}, {"space", "tiles_per_task = 1 | 2"}, {"chunk", "0/2"}};
    d.candidates = std::move(candidates);
    return d;
}

void exec(const std::filesystem::path& file, const char* sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
}

TEST(TuneDbTest, RoundTripsEveryColumnAndSummarises) {
    TempDir dir;
    const auto file = dir / "t.db";
    writeTuneFile(file, chunk({candidate(0, 300, TuneStatus::Ok), candidate(1, 200, TuneStatus::Ok),
                               candidate(2, std::nullopt, TuneStatus::CompileError),
                               candidate(3, std::nullopt, TuneStatus::Pruned)}));
    EXPECT_TRUE(isTuneFile(file));
    const TuneData d = readTuneFile(file);
    ASSERT_EQ(d.candidates.size(), 4u);
    EXPECT_EQ(d.metaOr("format"), "pto-tune");
    EXPECT_EQ(d.metaOr("tune_schema_version"), "1");
    EXPECT_EQ(d.metaOr("best_candidate"), "1");
    EXPECT_EQ(d.metaOr("best_cycles"), "200");
    EXPECT_EQ(d.metaOr("pruned"), "1");
    EXPECT_EQ(d.candidates[2].status, TuneStatus::CompileError);
    EXPECT_EQ(d.candidates[2].error, "why");
    EXPECT_FALSE(d.candidates[2].cycles);
    ASSERT_EQ(d.candidates[1].pipes.size(), 2u);
    EXPECT_EQ(d.candidates[1].pipes[0].pipe, "MTE2");
    EXPECT_EQ(d.candidates[1].pipes[0].busyCycles, 100);
    EXPECT_EQ(d.candidates[1].lowerBound, 100);
    EXPECT_EQ(d.candidates[1].onchipBytes, 2048);
}

TEST(TuneDbTest, RefusesWhatIsNotATuneFileOrTooNew) {
    TempDir dir;
    std::ofstream(dir / "text.db") << "not sqlite";
    EXPECT_FALSE(isTuneFile(dir / "text.db"));
    EXPECT_THROW(readTuneFile(dir / "text.db"), TraceError);
    EXPECT_FALSE(isTuneFile(dir / "missing.db"));
    exec(dir / "other.db", "CREATE TABLE meta(key TEXT, value TEXT);");
    EXPECT_FALSE(isTuneFile(dir / "other.db"));

    const auto file = dir / "t.db";
    writeTuneFile(file, chunk({candidate(0, 10, TuneStatus::Ok)}));
    exec(file, "UPDATE tune_meta SET value = '99' WHERE key = 'tune_schema_version'");
    try {
        readTuneFile(file);
        FAIL() << "a newer tune schema was read";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
    }
    exec(file, "UPDATE tune_meta SET value = '1' WHERE key = 'tune_schema_version';"
               "DROP TABLE candidate_pipe; CREATE VIEW candidate_pipe AS SELECT 1;");
    try {
        readTuneFile(file);
        FAIL() << "a view in a table's place was read";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("'candidate_pipe' is a view"), std::string::npos)
            << e.what();
    }
}

TEST(TuneDbTest, MergesChunksAndRefusesDuplicatesOrAnotherSweep) {
    TempDir dir;
    writeTuneFile(dir / "a.db",
                  chunk({candidate(0, 300, TuneStatus::Ok), candidate(1, 250, TuneStatus::Ok)}));
    writeTuneFile(dir / "b.db", chunk({candidate(2, 150, TuneStatus::Ok),
                                       candidate(3, std::nullopt, TuneStatus::Pruned)}));
    const TuneData merged =
        mergeTuneFiles({dir / "a.db", dir / "b.db"}, dir / "m.db", {{"best_trace", "x.db"}});
    const TuneData read = readTuneFile(dir / "m.db");
    ASSERT_EQ(read.candidates.size(), 4u);
    EXPECT_EQ(read.metaOr("best_candidate"), "2");
    EXPECT_EQ(read.metaOr("pruned"), "1");
    EXPECT_EQ(read.metaOr("chunk"), "");
    EXPECT_EQ(read.metaOr("best_trace"), "x.db");
    EXPECT_EQ(read.candidates[2].pipes.size(), 2u);
    EXPECT_EQ(merged.metaOr("merged_files"), "2");

    EXPECT_THROW(mergeTuneFiles({dir / "a.db", dir / "a.db"}, dir / "dup.db"), TraceError);
    EXPECT_FALSE(std::filesystem::exists(dir / "dup.db"));
    writeTuneFile(dir / "c.db", chunk({candidate(5, 10, TuneStatus::Ok)}, "other"));
    EXPECT_THROW(mergeTuneFiles({dir / "a.db", dir / "c.db"}, dir / "x.db"), TraceError);
    EXPECT_FALSE(std::filesystem::exists(dir / "x.db"));
}

} // namespace
} // namespace pto::tracedb
