// The profiler on traces someone tampered with: a stage-parent loop ends the provenance walk
// (no endless recursion), CSV cells that would run as spreadsheet formulas are defused, a
// clock rate that is no positive number refuses the file, and slices with impossible times are
// set aside with a warning.
#include "profiler/Profile.h"
#include "profiler/Provenance.h"
#include "profiler/export/CsvExport.h"
#include "profiler/rules/Rules.h"
#include "tests/support/Process.h"
#include "tests/unit/profiler/SyntheticTrace.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"
#include "trace_db/TraceWriter.h"

#include <fmt/format.h>
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
    // id,ts,dur,ts_us,dur_us,track_id,track,core_type,core_id,pipe,name,category,... (no
    // clock_hz and no arch_config: the default arch's 1.8 GHz, prof::runClockHz)
    EXPECT_NE(csv.find("\n1,-5,3,-0.0028,0.0017,1,\"'@core\",,-1,,\"'=1+1\",task,"),
              std::string::npos)
        << csv;
    for (const char* cell : {",\"'+2\",", ",\"'-3\",", ",\"'\tx\",", ",plain,", ",a=b,"})
        EXPECT_NE(csv.find(cell), std::string::npos) << cell << "\n" << csv;
}

// The clock rate is checked when the file opens, so no reader sees another rate than the next.
TEST(HostileTrace, AClockRateThatIsNoPositiveNumberRefusesTheFile) {
    test::TempDir dir;
    const auto path = dir / "clock.db";
    test::writeSyntheticTrace(path, test::twoCoreTrace());
    EXPECT_EQ(tracedb::TraceReader::open(path).clockHz(), 1e9);
    for (const char* bad : {"0", "-5", "nan", "inf", "1e300", "0.5", "1.8 GHz", ""}) {
        {
            auto writer = tracedb::TraceWriter::append(path);
            writer.setMeta("clock_hz", bad);
            writer.commit();
        }
        try {
            tracedb::TraceReader::open(path);
            ADD_FAILURE() << "clock_hz '" << bad << "' was accepted";
        } catch (const tracedb::TraceError& e) {
            EXPECT_NE(std::string(e.what()).find(
                          fmt::format("trace '{}' has an unusable clock rate: meta clock_hz '{}' ",
                                      path.string(), bad)),
                      std::string::npos)
                << e.what();
        }
        // Put a sound rate back through sqlite3 (the writer refuses the file now).
        ASSERT_EQ(test::runCommand(fmt::format("sqlite3 {} \"UPDATE meta SET value = '1e9' WHERE "
                                               "key = 'clock_hz'\"",
                                               test::shellQuote(path.string())))
                      .exitCode,
                  0);
    }
    EXPECT_EQ(tracedb::TraceReader::open(path).clockHz(), 1e9);
}

// twoCoreTrace with the TADD of task 0 at dur -5000, the TEXP of task 2 ending far past the
// run's 2200 cycles and task 1's task slice before cycle 0: those three are set aside, the rest
// gives the figures it gives without them.
TEST(HostileTrace, SlicesWithImpossibleTimesAreSetAsideAndCounted) {
    test::TempDir dir;
    test::SynthTrace trace = test::twoCoreTrace();
    trace.tasks[0].instrs[1].dur = -5000;
    trace.tasks[2].instrs[0].dur = std::int64_t(9e18);
    trace.tasks[1].start = -100;
    test::writeSyntheticTrace(dir / "bad.db", trace);
    const Profile p = analyzeTrace(dir / "bad.db");
    const RunModel& m = p.model;
    ASSERT_EQ(m.fileWarnings.size(), 1u);
    EXPECT_EQ(m.fileWarnings[0],
              "3 slices set aside, no figure counts them: 1 with a negative duration; 2 starting "
              "before cycle 0 or ending after the run's end at cycle 2200 (meta "
              "sim_total_cycles)");
    EXPECT_EQ(m.task(0)->busy[std::size_t(PipeId::MTE2)], 400);
    EXPECT_EQ(m.task(0)->busy[std::size_t(PipeId::V)], 0);
    EXPECT_FALSE(m.task(1)->ran());
    EXPECT_EQ(m.task(2)->busy[std::size_t(PipeId::V)], 0);
    EXPECT_EQ(m.task(2)->end, 2200);
    for (const PipeRatios& core : p.pipeUtil.cores)
        for (double ratio : core.ratio) EXPECT_LE(ratio, 1.0);
    // The exp op ran only in the TEXP set aside and in task 1, whose task slice is set aside
    // (its instruction still counts: it has a sound time of its own).
    EXPECT_EQ(m.tensorOps[1].cycles(), 200);
}

// Every slice set aside: nothing ran, so there is no bound class and no finding.
TEST(HostileTrace, ARunOfWhichNothingExecutedHasNoBoundAndNoFinding) {
    test::TempDir dir;
    test::SynthTrace trace = test::twoCoreTrace();
    for (test::SynthTask& task : trace.tasks) {
        task.start = task.end = -1;
        for (test::SynthInstr& instr : task.instrs) instr.dur = -1;
    }
    test::writeSyntheticTrace(dir / "none.db", trace);
    const Profile p = analyzeTrace(dir / "none.db");
    EXPECT_FALSE(p.model.executed());
    EXPECT_EQ(p.runBound.cls, BoundClass::None);
    EXPECT_EQ(p.runBound.label(), "none");
    EXPECT_TRUE(p.findings.empty());
    EXPECT_EQ(noFindingsNote(p), "the trace holds no executed instructions (no task or "
                                 "instruction slices), so there is nothing to classify or find");
}

} // namespace
} // namespace pto::prof
