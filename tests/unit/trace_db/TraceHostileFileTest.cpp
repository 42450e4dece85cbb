// A trace is a shared file: the reader refuses FIFOs, views in place of tables and foreign
// layouts quickly and by name, ignores the file's own views, and creates nothing beside it.
#include "TestTrace.h"

#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <functional>
#include <set>

namespace pto::tracedb {
namespace {

using test::TempDir;
using Clock = std::chrono::steady_clock;

using test::errorOf;
using test::openError;

/// Runs SQL on the file with a plain read-write connection, as a tampering user would.
void tamper(const std::filesystem::path& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
}

std::int64_t countOf(const TraceReader& reader, const std::string& sql) {
    return std::get<std::int64_t>(reader.query(sql).rows.at(0).at(0));
}

std::set<std::string> entries(const std::filesystem::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        names.insert(entry.path().filename().string());
    return names;
}

class TraceDbHostileFile : public ::testing::Test {
protected:
    void SetUp() override { test::writeSampleTrace(m_path); }
    TempDir m_dir;
    std::filesystem::path m_path = m_dir.file("run.ptotrace");
};

TEST_F(TraceDbHostileFile, FifoIsRefusedWithoutBlocking) {
    auto fifo = m_dir.file("fifo.ptotrace");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto start = Clock::now();
    EXPECT_EQ(openError(fifo),
              "cannot open trace '" + fifo.string() + "': not a regular file (a FIFO)");
    EXPECT_EQ(errorOf([&] { TraceWriter::append(fifo); }),
              "cannot open trace '" + fifo.string() + "': not a regular file (a FIFO)");
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
}

TEST_F(TraceDbHostileFile, EndlessRecursiveViewInPlaceOfATableIsRefusedByName) {
    tamper(m_path, "DROP TABLE slice; CREATE VIEW slice AS WITH RECURSIVE c(x) AS (SELECT 1 "
                   "UNION ALL SELECT x+1 FROM c) SELECT x AS id, x AS ts, 1 AS dur, 1 AS "
                   "track_id, 1 AS name_id, 'instr' AS category, 0 AS depth, NULL AS instr_id, "
                   "NULL AS task_id, NULL AS arg_set_id FROM c");
    auto start = Clock::now();
    EXPECT_EQ(openError(m_path), "trace '" + m_path.string() +
                                     "' is not a usable PTO Studio trace: table 'slice' is a "
                                     "view, not a table (a trace is read from tables only)");
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
    // Appending (pto report storing its metrics) checks the same way.
    EXPECT_NE(errorOf([&] { TraceWriter::append(m_path); }).find("'slice' is a view"),
              std::string::npos);
}

TEST_F(TraceDbHostileFile, MissingTableAndMissingColumnAreNamed) {
    tamper(m_path, "ALTER TABLE stage DROP COLUMN pass_micros");
    EXPECT_EQ(openError(m_path), "trace '" + m_path.string() +
                                     "' is not a usable PTO Studio trace: table 'stage' has no "
                                     "column 'pass_micros'");
    auto other = m_dir.file("other.ptotrace");
    test::writeSampleTrace(other);
    tamper(other, "DROP TABLE flow");
    EXPECT_NE(openError(other).find("table 'flow' is missing"), std::string::npos);
}

TEST_F(TraceDbHostileFile, GeneratedColumnIsRefused) {
    tamper(m_path, "ALTER TABLE meta ADD COLUMN big AS (upper(value))");
    EXPECT_NE(openError(m_path).find("table 'meta' has a generated or hidden column 'big'"),
              std::string::npos);
}

TEST_F(TraceDbHostileFile, ExtraPlainColumnsAreAccepted) {
    tamper(m_path, "ALTER TABLE tensor ADD COLUMN note TEXT");
    EXPECT_NO_THROW(TraceReader::open(m_path).stages());
}

TEST_F(TraceDbHostileFile, TheFilesOwnViewsAreShadowedByTheSchemas) {
    const auto expected = TraceReader::open(m_path).query("SELECT count(*) FROM provenance");
    tamper(m_path, "DROP VIEW provenance; CREATE VIEW provenance AS WITH RECURSIVE c(x) AS "
                   "(SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x AS stage_id FROM c");
    TraceReader reader = TraceReader::open(m_path);
    auto start = Clock::now();
    const auto got = reader.query("SELECT count(*) FROM provenance");
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
    ASSERT_EQ(got.rows.size(), 1u);
    EXPECT_EQ(got.rows, expected.rows);
    EXPECT_GT(std::get<std::int64_t>(got.rows[0][0]), 0);
}

TEST_F(TraceDbHostileFile, ReadingCreatesNoFileBesideTheTrace) {
    const auto before = entries(m_dir.path());
    {
        TraceReader reader = TraceReader::open(m_path);
        reader.query("SELECT count(*) FROM slice_named");
        EXPECT_EQ(entries(m_dir.path()), before);
    }
    EXPECT_EQ(entries(m_dir.path()), before);
}

TEST_F(TraceDbHostileFile, WalModeTraceIsReadWithoutCreatingWalOrShm) {
    const std::int64_t slices = countOf(TraceReader::open(m_path), "SELECT count(*) FROM slice");
    tamper(m_path, "PRAGMA journal_mode = WAL"); // closing the last connection removes -wal/-shm
    const auto before = entries(m_dir.path());
    ASSERT_EQ(before.size(), 1u);
    TraceReader reader = TraceReader::open(m_path);
    EXPECT_EQ(countOf(reader, "SELECT count(*) FROM slice"), slices);
    EXPECT_EQ(entries(m_dir.path()), before);
}

TEST_F(TraceDbHostileFile, WalModeTraceWithPendingChangesIsRefusedWithAFix) {
    tamper(m_path, "PRAGMA journal_mode = WAL");
    sqlite3* writer = nullptr; // stays open, so its changes stay in "-wal"
    ASSERT_EQ(sqlite3_open(m_path.c_str(), &writer), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(writer, "INSERT INTO meta VALUES('note', 'x')", nullptr, nullptr, nullptr),
        SQLITE_OK);
    std::string error = openError(m_path);
    sqlite3_close(writer);
    EXPECT_NE(error.find("is in SQLite WAL mode and '" + m_path.string() + "-wal' holds"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("PRAGMA wal_checkpoint(TRUNCATE)"), std::string::npos) << error;
}

TEST_F(TraceDbHostileFile, PathsNeedingUriEscapesOpen) {
    auto odd = m_dir.file("a b%20?c#d.ptotrace");
    std::filesystem::copy_file(m_path, odd);
    EXPECT_EQ(TraceReader::open(odd).stages().size(), TraceReader::open(m_path).stages().size());
}

} // namespace
} // namespace pto::tracedb
