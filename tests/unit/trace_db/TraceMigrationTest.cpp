// Older trace files still open (docs/TRACE_SCHEMA.md, "Versions and compatibility"): a
// schema-1 file — one without the instr cost columns — reads its costs as not recorded, a
// schema-2 file its tracks without stream or thread, and appending migrates either.
#include "TestTrace.h"

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

// The sample trace as schema 2 wrote it: no track.stream_id, thread_id.
void makeSchema2(const std::filesystem::path& path) {
    test::writeSampleTrace(path);
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

} // namespace
} // namespace pto::tracedb
