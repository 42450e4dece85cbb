// The reader (and append) refuse files that are not finished traces, saying which file and why.
#include "TestTrace.h"

#include "trace_db/SchemaVersion.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <functional>

namespace pto::tracedb {
namespace {

using test::TempDir;

using test::errorOf;
using test::openError;

std::string appendError(const std::filesystem::path& path) {
    return errorOf([&] { TraceWriter::append(path); });
}

void runSql(const std::filesystem::path& path, const char* sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
}

class TraceDbReaderErrors : public ::testing::Test {
protected:
    TempDir m_dir;
    std::filesystem::path m_path = m_dir.file("bad.ptotrace");
};

TEST_F(TraceDbReaderErrors, MissingFile) {
    EXPECT_EQ(openError(m_path), "cannot open trace '" + m_path.string() + "': no such file");
    EXPECT_EQ(appendError(m_path), "cannot open trace '" + m_path.string() + "': no such file");
}

// A symlink loop and a path past PATH_MAX to a trace that exists were "no such file" (in pto and
// pto-studio alike): the reason is what stat(2) said.
TEST_F(TraceDbReaderErrors, APathThatCannotBeFollowedSaysWhy) {
    std::filesystem::create_symlink("l2.ptotrace", m_dir.file("l1.ptotrace"));
    std::filesystem::create_symlink("l1.ptotrace", m_dir.file("l2.ptotrace"));
    const auto loop = m_dir.file("l1.ptotrace");
    EXPECT_EQ(openError(loop),
              "cannot open trace '" + loop.string() + "': too many levels of symbolic links");
    test::writeSampleTrace(m_path);
    std::string longPath = m_dir.path().string();
    while (longPath.size() < 4200) longPath += "/.";
    longPath += "/bad.ptotrace";
    EXPECT_EQ(openError(longPath), "cannot open trace '" + longPath + "': file name too long");
}

TEST_F(TraceDbReaderErrors, Directory) {
    EXPECT_EQ(openError(m_dir.path()),
              "cannot open trace '" + m_dir.path().string() + "': is a directory");
}

TEST_F(TraceDbReaderErrors, TextFile) {
    test::writeBytes(m_path, "x,y\n1,2\nthis is a CSV file, not a trace, long enough to have a "
                             "header-sized prefix of one hundred bytes or more.\n");
    std::string expected =
        "'" + m_path.string() + "' is not a PTO Studio trace (not an SQLite database)";
    EXPECT_EQ(openError(m_path), expected);
    EXPECT_EQ(appendError(m_path), expected);
    EXPECT_EQ(m_dir.entryCount(), 1U); // append left no temp copy behind
}

TEST_F(TraceDbReaderErrors, TruncatedTrace) {
    test::writeSampleTrace(m_path);
    std::string bytes = test::readBytes(m_path);
    test::writeBytes(m_path, bytes.substr(0, bytes.size() / 2));
    std::string error = openError(m_path);
    EXPECT_NE(error.find("trace '" + m_path.string() + "' is corrupt or truncated"),
              std::string::npos)
        << error;
}

TEST_F(TraceDbReaderErrors, NewerSchemaVersion) {
    test::writeSampleTrace(m_path);
    runSql(m_path, "PRAGMA user_version = 99");
    std::string expected = "trace '" + m_path.string() +
                           "' was written by a newer PTO Studio (schema 99); this build reads up "
                           "to " +
                           std::to_string(kSchemaVersion) + " — upgrade";
    EXPECT_EQ(openError(m_path), expected);
    EXPECT_EQ(appendError(m_path), expected);
}

// The header says this build's schema, the meta row a newer one: refused the same way (every
// tool and the GUI opened it with no word).
TEST_F(TraceDbReaderErrors, NewerSchemaVersionInMetaOnly) {
    test::writeSampleTrace(m_path);
    runSql(m_path, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    const std::string expected = "trace '" + m_path.string() +
                                 "' says it has schema 99 (meta schema_version), newer than this "
                                 "build reads (up to " +
                                 std::to_string(kSchemaVersion) + ") — upgrade";
    EXPECT_EQ(openError(m_path), expected);
    EXPECT_EQ(appendError(m_path), expected);
}

TEST_F(TraceDbReaderErrors, UnrelatedSqliteDatabase) {
    runSql(m_path, "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT)");
    EXPECT_EQ(openError(m_path), "'" + m_path.string() +
                                     "' is not a PTO Studio trace (an SQLite database without a "
                                     "meta table)");
}

TEST_F(TraceDbReaderErrors, EmptyFile) {
    test::writeBytes(m_path, "");
    EXPECT_EQ(openError(m_path),
              "'" + m_path.string() + "' is not a PTO Studio trace (empty file)");
}

TEST_F(TraceDbReaderErrors, UnfinishedDatabaseWithMetaTable) {
    runSql(m_path, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)");
    EXPECT_EQ(openError(m_path),
              "'" + m_path.string() + "' is not a PTO Studio trace (schema version 0)");
}

TEST_F(TraceDbReaderErrors, IntegrityCheckPassesOnAGoodTrace) {
    test::writeSampleTrace(m_path);
    EXPECT_NO_THROW(TraceReader::open(m_path).verifyIntegrity());
}

} // namespace
} // namespace pto::tracedb
