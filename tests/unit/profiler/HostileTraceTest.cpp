// The profiler on traces someone tampered with: a stage-parent loop ends the provenance walk
// (no endless recursion), and CSV cells that would run as spreadsheet formulas are defused.
#include "profiler/Provenance.h"
#include "profiler/export/CsvExport.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace pto::prof {
namespace {

using tracedb::NodeRow;
using tracedb::StageLevel;
using tracedb::StageRow;

/// Stages 1 ← 2 (a sound chain), 3 → 3 (its own parent) and 4 → 5 → 4 (a loop of two).
void writeLoopedStages(const std::filesystem::path& path) {
    auto writer = tracedb::TraceWriter::create(path);
    auto stage = [&](std::int64_t id, std::optional<std::int64_t> parent) {
        writer.add(StageRow{.id = id,
                            .ord = id,
                            .name = "s" + std::to_string(id),
                            .level = StageLevel::Tile,
                            .parentStageId = parent});
    };
    stage(1, std::nullopt);
    stage(2, 1);
    stage(3, 3);
    stage(4, 5);
    stage(5, 4);
    writer.add(NodeRow{.stageId = 1, .id = 0, .kind = "exp"});
    writer.add(NodeRow{.stageId = 2, .id = 10, .kind = "exp", .parentId = 0});
    writer.add(NodeRow{.stageId = 3, .id = 20, .kind = "exp", .parentId = 20});
    writer.add(NodeRow{.stageId = 4, .id = 30, .kind = "exp", .parentId = 40});
    writer.add(NodeRow{.stageId = 5, .id = 40, .kind = "exp", .parentId = 30});
    writer.commit();
}

TEST(HostileTrace, StageParentLoopsAreCutAndReported) {
    test::TempDir dir;
    auto path = dir / "loop.db";
    writeLoopedStages(path);
    auto reader = tracedb::TraceReader::open(path);
    ProvenanceResolver provenance(reader);
    EXPECT_EQ(provenance.cyclicStages(), (std::vector<std::int64_t>{3, 5}));
    EXPECT_EQ(provenance.rootStage(), 1);
    EXPECT_EQ(provenance.findRoot(2, 10), std::optional<std::int64_t>(0));
    EXPECT_EQ(provenance.findRoot(3, 20), std::nullopt);
    EXPECT_EQ(provenance.rootOf(3, 20), -1);
    EXPECT_EQ(provenance.rootOf(4, 30), -1);
    EXPECT_EQ(provenance.findRoot(5, 40), std::nullopt);
    EXPECT_EQ(provenance.rootOf(2, 10), 0); // the sound chain still resolves
    // The walk to a loop's body op ends on the same cut stages (no loop node anywhere).
    EXPECT_EQ(provenance.loopBodyOf(3, 20), std::nullopt);
    EXPECT_EQ(provenance.loopBodyOf(4, 30), std::nullopt);
    EXPECT_EQ(provenance.loopBodyOf(5, 40), std::nullopt);
    EXPECT_EQ(provenance.loopBodyOf(2, 10), std::nullopt);
}

std::string exportCsv(const tracedb::TraceReader& reader, const std::filesystem::path& out) {
    std::FILE* file = std::fopen(out.c_str(), "wb");
    exportSlicesCsv(reader, file);
    std::fclose(file);
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(HostileTrace, CsvDefusesFormulaTextButKeepsNegativeNumbers) {
    test::TempDir dir;
    auto path = dir / "csv.db";
    {
        auto writer = tracedb::TraceWriter::create(path);
        std::int64_t track = writer.add(tracedb::TrackRow{
            .nameId = writer.intern("@core"), .kind = tracedb::TrackKind::Core, .coreId = -1});
        for (const char* name : {"=1+1", "+2", "-3", "\tx", "plain", "a=b"})
            writer.add(tracedb::SliceRow{.ts = -5,
                                         .dur = 3,
                                         .trackId = track,
                                         .nameId = writer.intern(name),
                                         .category = tracedb::SliceCategory::Task});
        writer.commit();
    }
    std::string csv = exportCsv(tracedb::TraceReader::open(path), dir / "out.csv");
    // id,ts,dur,ts_us,dur_us,track_id,track,core_type,core_id,pipe,name,category,...
    EXPECT_NE(csv.find("\n1,-5,3,-0.0050,0.0030,1,\"'@core\",,-1,,\"'=1+1\",task,"),
              std::string::npos)
        << csv;
    for (const char* cell : {",\"'+2\",", ",\"'-3\",", ",\"'\tx\",", ",plain,", ",a=b,"})
        EXPECT_NE(csv.find(cell), std::string::npos) << cell << "\n" << csv;
}

} // namespace
} // namespace pto::prof
