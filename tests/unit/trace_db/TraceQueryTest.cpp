// TraceReader::query runs read-only SQL and refuses, before running anything, what could write.
#include "TestTrace.h"

#include "trace_db/SchemaVersion.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"

#include <gtest/gtest.h>

namespace pto::tracedb {
namespace {

using test::TempDir;

class TraceDbQuery : public ::testing::Test {
protected:
    void SetUp() override { test::writeSampleTrace(m_path); }

    TempDir m_dir;
    std::filesystem::path m_path = m_dir.file("sample.ptotrace");
};

TEST_F(TraceDbQuery, SelectReturnsColumnsAndRows) {
    TraceReader reader = TraceReader::open(m_path);
    QueryResult result = reader.query("SELECT category, count(*) AS n FROM slice "
                                      "GROUP BY category ORDER BY category");
    EXPECT_EQ(result.columns, (std::vector<std::string>{"category", "n"}));
    ASSERT_EQ(result.rows.size(), 4U);
    EXPECT_EQ(result.rows[0][0], SqlValue(std::string("instr")));
    EXPECT_EQ(result.rows[0][1], SqlValue(std::int64_t{8}));
}

TEST_F(TraceDbQuery, ValuesOfEveryType) {
    TraceReader reader = TraceReader::open(m_path);
    QueryResult result =
        reader.query("SELECT NULL, 42, 2.5, 'text', data FROM tensor WHERE name = 'x'");
    ASSERT_EQ(result.rows.size(), 1U);
    const std::vector<SqlValue>& row = result.rows[0];
    EXPECT_TRUE(std::holds_alternative<std::monostate>(row[0]));
    EXPECT_EQ(row[1], SqlValue(std::int64_t{42}));
    EXPECT_EQ(row[2], SqlValue(2.5));
    EXPECT_EQ(row[3], SqlValue(std::string("text")));
    EXPECT_EQ(row[4], SqlValue(BlobSize{4}));
}

TEST_F(TraceDbQuery, SeveralStatementsReturnTheLastResult) {
    TraceReader reader = TraceReader::open(m_path);
    QueryResult result = reader.query("SELECT 1 AS one; SELECT 2 AS two;");
    EXPECT_EQ(result.columns, (std::vector<std::string>{"two"}));
    ASSERT_EQ(result.rows.size(), 1U);
    EXPECT_EQ(result.rows[0][0], SqlValue(std::int64_t{2}));
}

TEST_F(TraceDbQuery, CallbackStreamsAndCanStop) {
    TraceReader reader = TraceReader::open(m_path);
    int seen = 0;
    reader.query("SELECT id FROM slice ORDER BY id",
                 [&](std::span<const std::string> columns, std::span<const SqlValue> row) {
                     EXPECT_EQ(columns[0], "id");
                     EXPECT_TRUE(std::holds_alternative<std::int64_t>(row[0]));
                     return ++seen < 3;
                 });
    EXPECT_EQ(seen, 3);
}

TEST_F(TraceDbQuery, IntrospectionIsAllowed) {
    TraceReader reader = TraceReader::open(m_path);
    EXPECT_FALSE(reader.query("PRAGMA table_info(slice)").rows.empty());
    EXPECT_FALSE(reader.query("SELECT name FROM pragma_table_info('slice')").rows.empty());
    EXPECT_EQ(reader.query("PRAGMA user_version").rows[0][0],
              SqlValue(std::int64_t{kSchemaVersion}));
    EXPECT_EQ(reader.query("SELECT * FROM slice_named WHERE name = 'TEXP'").rows.size(), 2U);
}

TEST_F(TraceDbQuery, SyntaxErrorsAreReportedAsSuch) {
    TraceReader reader = TraceReader::open(m_path);
    try {
        reader.query("SELEC 1");
        FAIL();
    } catch (const TraceError& error) {
        EXPECT_NE(std::string(error.what()).find("syntax error"), std::string::npos);
    }
}

struct RefusedCase {
    const char* sql;
    const char* message;
};

class TraceDbQueryRefuses : public TraceDbQuery,
                            public ::testing::WithParamInterface<RefusedCase> {};

TEST_P(TraceDbQueryRefuses, AndLeavesTheFileUnchanged) {
    std::string before = test::readBytes(m_path);
    {
        TraceReader reader = TraceReader::open(m_path);
        try {
            reader.query(GetParam().sql);
            FAIL() << "ran: " << GetParam().sql;
        } catch (const TraceError& error) {
            EXPECT_EQ(std::string(error.what()), GetParam().message);
        }
        // The reader stays usable after a refusal.
        EXPECT_EQ(reader.query("SELECT count(*) FROM stage").rows[0][0], SqlValue(std::int64_t{5}));
    }
    EXPECT_EQ(test::readBytes(m_path), before);
    EXPECT_EQ(m_dir.entryCount(), 1U);
}

constexpr const char* kModify = "pto query is read-only: statement 1 would modify the file";

INSTANTIATE_TEST_SUITE_P(
    WritingStatements, TraceDbQueryRefuses,
    ::testing::Values(
        RefusedCase{"INSERT INTO meta VALUES('k', 'v')", kModify},
        RefusedCase{"UPDATE slice SET dur = 0", kModify}, RefusedCase{"DELETE FROM slice", kModify},
        RefusedCase{"DROP TABLE slice", kModify}, RefusedCase{"CREATE TABLE t(x)", kModify},
        RefusedCase{"CREATE TEMP TABLE t(x)", kModify},
        RefusedCase{"WITH x AS (SELECT 1) INSERT INTO meta SELECT 'a', 'b' FROM x", kModify},
        RefusedCase{"VACUUM", kModify}, RefusedCase{"VACUUM INTO 'copy.ptotrace'", kModify},
        RefusedCase{"ANALYZE", kModify}, RefusedCase{"REINDEX", kModify},
        RefusedCase{"SELECT 1; DELETE FROM slice",
                    "pto query is read-only: statement 2 would modify the file"},
        RefusedCase{"ATTACH DATABASE ':memory:' AS other",
                    "pto query is read-only: statement 1 would attach or detach a database"},
        RefusedCase{"DETACH DATABASE main",
                    "pto query is read-only: statement 1 would attach or detach a database"},
        RefusedCase{"PRAGMA writable_schema = 1",
                    "pto query is read-only: statement 1 would change setting 'writable_schema'"},
        RefusedCase{"PRAGMA query_only = 0",
                    "pto query is read-only: statement 1 would change setting 'query_only'"},
        RefusedCase{"PRAGMA user_version = 7",
                    "pto query is read-only: statement 1 would change setting 'user_version'"},
        RefusedCase{"PRAGMA optimize", "pto query is read-only: statement 1 runs PRAGMA "
                                       "optimize, which is not a read-only report"}));

} // namespace
} // namespace pto::tracedb
