// Older trace files still open (docs/TRACE_SCHEMA.md, "Versions and compatibility"): a
// schema-1 file — one without the instr cost columns — reads its costs as not recorded, a
// schema-2 file its tracks without stream or thread, a schema-3 file its plain node and instr
// tables, and appending migrates each.
#include "TestTrace.h"

#include "tests/support/Schema3.h"
#include "trace_db/SchemaVersion.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

namespace pto::tracedb {
namespace {

void runSql(const std::filesystem::path& path, const char* sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
}

// The sample trace as schema 3 wrote it: node and instr plain tables holding their text, no
// dict, node_data or instr_data (the DDL of schema 3's schema.sql).
void makeSchema3(const std::filesystem::path& path) {
    test::writeSampleTrace(path);
    runSql(path, pto::test::kSchema3FromSchema4Sql);
}

/// Every row `sql` selects, as text.
std::string tableText(const TraceReader& reader, const std::string& sql) {
    std::string text;
    reader.query(sql, [&](std::span<const std::string>, std::span<const SqlValue> row) {
        for (const SqlValue& cell : row) {
            if (const auto* i = std::get_if<std::int64_t>(&cell))
                text += std::to_string(*i);
            else if (const auto* d = std::get_if<double>(&cell))
                text += std::to_string(*d);
            else if (const auto* t = std::get_if<std::string>(&cell))
                text += "'" + *t + "'";
            else
                text += std::holds_alternative<std::monostate>(cell) ? "NULL" : "blob";
            text += '|';
        }
        text += '\n';
        return true;
    });
    return text;
}

constexpr const char* kAllNodes = "SELECT * FROM node ORDER BY stage_id, id";
constexpr const char* kAllInstrs = "SELECT * FROM instr ORDER BY id";

// The sample trace as schema 2 wrote it: no track.stream_id, thread_id.
void makeSchema2(const std::filesystem::path& path) {
    makeSchema3(path);
    runSql(path, "ALTER TABLE track DROP COLUMN stream_id; ALTER TABLE track DROP COLUMN "
                 "thread_id; PRAGMA user_version = 2; "
                 "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
}

// The sample trace as schema 1 wrote it: no instr.flops, gm_bytes, src_dtype either.
void makeSchema1(const std::filesystem::path& path) {
    makeSchema2(path);
    runSql(path, "ALTER TABLE instr DROP COLUMN flops; ALTER TABLE instr DROP COLUMN gm_bytes; "
                 "ALTER TABLE instr DROP COLUMN src_dtype; PRAGMA user_version = 1; "
                 "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
}

class TraceDbMigration : public ::testing::Test {
protected:
    test::TempDir m_dir;
    std::filesystem::path m_path = m_dir.file("v1.ptotrace");
};

TEST_F(TraceDbMigration, ASchema1FileOpensWithItsCostsNotRecorded) {
    makeSchema1(m_path);
    TraceReader reader = TraceReader::open(m_path);
    EXPECT_EQ(reader.schemaVersion(), 1);
    auto instrs = reader.instrs();
    ASSERT_FALSE(instrs.empty());
    for (const InstrRow& row : instrs) {
        EXPECT_FALSE(row.opcode.empty());
        EXPECT_FALSE(row.flops.has_value()) << row.opcode;
        EXPECT_FALSE(row.gmBytes.has_value()) << row.opcode;
    }
}

TEST_F(TraceDbMigration, AppendingToASchema1FileMigratesIt) {
    makeSchema1(m_path);
    const std::size_t before = TraceReader::open(m_path).instrs().size();
    TraceWriter writer = TraceWriter::append(m_path);
    InstrRow added{.stageId = 1, .blockId = 1, .idx = 99, .pipe = "V", .opcode = "TADD"};
    added.flops = 1024;
    added.gmBytes = 0;
    added.srcDtype = "f16";
    writer.add(added);
    writer.commit();

    TraceReader reader = TraceReader::open(m_path);
    EXPECT_EQ(reader.schemaVersion(), kSchemaVersion);
    EXPECT_EQ(reader.meta("schema_version"), std::to_string(kSchemaVersion));
    auto instrs = reader.instrs();
    ASSERT_EQ(instrs.size(), before + 1);
    std::size_t recorded = 0;
    for (const InstrRow& row : instrs) {
        if (!row.flops) continue; // the rows written before the migration stay unknown
        ++recorded;
        EXPECT_EQ(*row.flops, 1024);
        EXPECT_EQ(row.srcDtype, "f16");
    }
    EXPECT_EQ(recorded, 1U);
}

TEST_F(TraceDbMigration, ASchema2FileOpensWithItsTracksFromNoStreamOrThread) {
    makeSchema2(m_path);
    TraceReader reader = TraceReader::open(m_path);
    EXPECT_EQ(reader.schemaVersion(), 2);
    auto tracks = reader.tracks();
    ASSERT_FALSE(tracks.empty());
    for (const TrackRow& row : tracks) {
        EXPECT_FALSE(row.streamId.has_value());
        EXPECT_FALSE(row.threadId.has_value());
    }
    EXPECT_FALSE(reader.instrs().empty());
}

TEST_F(TraceDbMigration, AppendingToASchema2FileMigratesItsTracks) {
    makeSchema2(m_path);
    const std::size_t before = TraceReader::open(m_path).tracks().size();
    TraceWriter writer = TraceWriter::append(m_path);
    writer.add(TrackRow{.nameId = writer.intern("Stream 7 AIV"),
                        .kind = TrackKind::Core,
                        .coreType = "AIV",
                        .streamId = 7});
    writer.commit();

    TraceReader reader = TraceReader::open(m_path);
    EXPECT_EQ(reader.schemaVersion(), kSchemaVersion);
    auto tracks = reader.tracks();
    ASSERT_EQ(tracks.size(), before + 1);
    EXPECT_EQ(tracks.back().streamId, 7);
    EXPECT_FALSE(tracks.front().streamId.has_value());
}

TEST_F(TraceDbMigration, ASchema3FileReadsTheRowsItsTablesHold) {
    test::writeSampleTrace(m_path);
    TraceReader current = TraceReader::open(m_path);
    const std::string nodes = tableText(current, kAllNodes);
    const std::string instrs = tableText(current, kAllInstrs);
    const auto instrRows = current.instrs();
    const auto stages = current.stages();
    ASSERT_FALSE(stages.empty());
    const auto nodeRows = current.nodes(stages.front().id);
    ASSERT_FALSE(nodeRows.empty());

    const auto old = m_dir.file("v3.ptotrace");
    makeSchema3(old);
    TraceReader reader = TraceReader::open(old);
    EXPECT_EQ(reader.schemaVersion(), 3);
    EXPECT_EQ(tableText(reader, kAllNodes), nodes);
    EXPECT_EQ(tableText(reader, kAllInstrs), instrs);
    ASSERT_EQ(reader.instrs().size(), instrRows.size());
    EXPECT_EQ(reader.instrs().back().operands, instrRows.back().operands);
    EXPECT_EQ(reader.nodes(stages.front().id).back().attrs, nodeRows.back().attrs);
    EXPECT_TRUE(reader.dict().empty());
}

TEST_F(TraceDbMigration, AppendingToASchema3FileMovesItsTextIntoDict) {
    makeSchema3(m_path);
    std::string nodes, instrs;
    {
        TraceReader reader = TraceReader::open(m_path);
        nodes = tableText(reader, kAllNodes);
        instrs = tableText(reader, kAllInstrs);
    }
    TraceWriter writer = TraceWriter::append(m_path);
    writer.add(NodeRow{.stageId = 1, .id = 999, .kind = "exp", .name = "%late", .dtype = "f16"});
    writer.commit();

    TraceReader reader = TraceReader::open(m_path);
    EXPECT_EQ(reader.schemaVersion(), kSchemaVersion);
    EXPECT_EQ(tableText(reader, kAllInstrs), instrs);
    const std::string after = tableText(reader, "SELECT * FROM node WHERE id != 999 "
                                                "ORDER BY stage_id, id");
    EXPECT_EQ(after, nodes);
    const auto late = reader.query("SELECT kind, name, dtype FROM node WHERE id = 999").rows;
    ASSERT_EQ(late.size(), 1U);
    EXPECT_EQ(std::get<std::string>(late[0][0]), "exp");
    EXPECT_EQ(reader.query("SELECT type FROM sqlite_schema WHERE name = 'instr'").rows.at(0).at(0),
              SqlValue(std::string("view")));
    // each distinct text once: "exp" was already a kind of the sample
    EXPECT_EQ(reader.query("SELECT count(*) FROM dict WHERE str = 'exp'").rows.at(0).at(0),
              SqlValue(std::int64_t(1)));
}

} // namespace
} // namespace pto::tracedb
