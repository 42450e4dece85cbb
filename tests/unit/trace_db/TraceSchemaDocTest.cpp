// Keeps docs/TRACE_SCHEMA.md, schema.sql and the row codecs in step: the doc cannot drift.
#include "TestTrace.h"

#include "trace_db/RowCodec.h"
#include "trace_db/Schema.h"
#include "trace_db/TraceReader.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pto::tracedb {
namespace {

using test::TempDir;

const std::filesystem::path kSourceDir = PTO_SOURCE_DIR;

std::string schemaDoc() {
    return test::readBytes(kSourceDir / "docs" / "TRACE_SCHEMA.md");
}

/// The body of every ```sql fenced block, with the line it starts on.
std::vector<std::pair<int, std::string>> sqlBlocks(const std::string& markdown) {
    std::vector<std::pair<int, std::string>> blocks;
    std::istringstream lines(markdown);
    std::string line;
    std::optional<std::pair<int, std::string>> open;
    for (int number = 1; std::getline(lines, line); ++number) {
        if (!open && line == "```sql") {
            open.emplace(number + 1, "");
        } else if (open && line == "```") {
            blocks.push_back(std::move(*open));
            open.reset();
        } else if (open) {
            open->second += line + "\n";
        }
    }
    EXPECT_FALSE(open.has_value()) << "unclosed ```sql block";
    return blocks;
}

/// The part of the doc under "### `name`", up to the next heading.
std::string docSection(const std::string& doc, const std::string& name) {
    std::size_t start = doc.find("\n### `" + name + "`\n");
    if (start == std::string::npos) return {};
    std::size_t end = doc.find("\n#", start + 1);
    return doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::vector<std::string> firstColumn(const TraceReader& reader, const std::string& sql) {
    std::vector<std::string> values;
    for (const auto& row : reader.query(sql).rows) values.push_back(std::get<std::string>(row[0]));
    return values;
}

class TraceDbSchemaDoc : public ::testing::Test {
protected:
    void SetUp() override { test::writeSampleTrace(m_path); }

    std::vector<std::string> columnsOf(const TraceReader& reader, const std::string& table) {
        return firstColumn(reader, "SELECT name FROM pragma_table_info('" + table + "')");
    }

    TempDir m_dir;
    std::filesystem::path m_path = m_dir.file("sample.ptotrace");
};

TEST_F(TraceDbSchemaDoc, EverySqlExampleRunsAndReturnsRows) {
    std::vector<std::pair<int, std::string>> blocks = sqlBlocks(schemaDoc());
    ASSERT_GE(blocks.size(), 10U);
    TraceReader reader = TraceReader::open(m_path);
    for (const auto& [line, sql] : blocks) {
        SCOPED_TRACE("docs/TRACE_SCHEMA.md:" + std::to_string(line));
        QueryResult result;
        ASSERT_NO_THROW(result = reader.query(sql)) << sql;
        EXPECT_FALSE(result.rows.empty()) << "no rows on the sample trace:\n" << sql;
    }
}

TEST_F(TraceDbSchemaDoc, EveryTableViewAndColumnIsDocumented) {
    std::string doc = schemaDoc();
    TraceReader reader = TraceReader::open(m_path);
    std::vector<std::string> tables =
        firstColumn(reader, "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') "
                            "AND name NOT LIKE 'sqlite_%' ORDER BY name");
    ASSERT_GE(tables.size(), 19U);
    for (const std::string& table : tables) {
        std::string section = docSection(doc, table);
        ASSERT_FALSE(section.empty()) << "no '### `" << table << "`' section";
        for (const std::string& column : columnsOf(reader, table))
            EXPECT_NE(section.find("| `" + column + "` |"), std::string::npos)
                << "column " << table << "." << column << " is not documented";
    }
}

template <typename Row> std::string codecColumns() {
    std::string columns(RowCodec<Row>::kColumns);
    std::erase(columns, ' ');
    return columns;
}

template <typename... Rows> void expectCodecsMatchSchema(const TraceReader& reader) {
    auto check = [&](std::string_view table, const std::string& columns) {
        std::string actual;
        for (const auto& row :
             reader.query("SELECT name FROM pragma_table_info('" + std::string(table) + "')").rows)
            actual += (actual.empty() ? "" : ",") + std::get<std::string>(row[0]);
        EXPECT_EQ(columns, actual) << "RowCodec of table " << table;
    };
    (check(RowCodec<Rows>::kTable, codecColumns<Rows>()), ...);
}

TEST_F(TraceDbSchemaDoc, RowCodecsListEveryColumnInSchemaOrder) {
    TraceReader reader = TraceReader::open(m_path);
    expectCodecsMatchSchema<StageRow, NodeRow, NodeDataRow, EdgeRow, BufferRow, InstrRow,
                            InstrDataRow, TrackRow, SliceRow, CounterRow, FlowRow, ArgRow,
                            TensorRow, DiffRow, MetricRow, StatRow>(reader);
}

TEST(TraceDbSchemaSql, EmbeddedSchemaMatchesTheSourceFile) {
    EXPECT_EQ(schemaSql(), test::readBytes(kSourceDir / "trace_db" / "schema.sql"));
    EXPECT_NE(schemaCreateSql().find("CREATE TABLE slice("), std::string_view::npos);
    EXPECT_EQ(schemaCreateSql().find("CREATE INDEX"), std::string_view::npos);
    EXPECT_NE(schemaFinalizeSql().find("CREATE INDEX IF NOT EXISTS slice_track_ts"),
              std::string_view::npos);
}

} // namespace
} // namespace pto::tracedb
