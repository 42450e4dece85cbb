// The profiler on small programs with known answers: bound classes, the double-buffering
// finding and its estimated gain against the simulated one, attribution and storage.
#include "profiler/Profile.h"
#include "profiler/report/Report.h"
#include "simulator/arch/ArchConfig.h"
#include "tests/integration/profiler/ProfilerTraces.h"
#include "tests/support/Process.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceReader.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>

namespace pto {
namespace {

using prof::BoundClass;
using test::makeTrace;
using test::TraceSpec;

const prof::Finding* findRule(const prof::Profile& p, std::string_view rule) {
    for (const auto& f : p.findings)
        if (f.rule == rule) return &f;
    return nullptr;
}

// The verdict of the program's one compute op (matmul / add).
const prof::BoundVerdict& opVerdict(const prof::Profile& p, std::string_view kind) {
    for (std::size_t i = 0; i < p.model.tensorOps.size(); ++i)
        if (p.model.tensorOps[i].kind == kind) return p.bound.tensorOps[i];
    throw std::runtime_error("no such op");
}

class ProfilerKnownAnswers : public ::testing::Test {
protected:
    prof::Profile profile(const std::string& name, const TraceSpec& spec) {
        makeTrace(m_dir.path(), name, spec);
        return prof::analyzeTrace(m_dir / (name + ".db"));
    }
    test::TempDir m_dir{"pto-profiler"};
};

// Runs `sql` on the trace file (a test's own damage to it, or an independent count).
std::map<std::int64_t, std::int64_t> sqlPairs(const std::filesystem::path& trace,
                                              const std::string& sql) {
    sqlite3* db = nullptr;
    std::map<std::int64_t, std::int64_t> rows;
    EXPECT_EQ(sqlite3_open(trace.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
    while (st && sqlite3_step(st) == SQLITE_ROW)
        if (sqlite3_column_count(st) >= 2)
            rows[sqlite3_column_int64(st, 0)] = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rows;
}

// A task's GM transfers are its own usable transfer slices, counted by SQL here: with one kernel
// text shared by many tasks and one slice set aside (a negative duration), no task takes the
// kernel's average (the reads once divided the kernel's slices among its tasks).
TEST_F(ProfilerKnownAnswers, EachTaskCountsItsOwnGmTransfers) {
    std::ifstream in(std::string(PTO_SOURCE_DIR) + "/samples/layer_norm.pto");
    const std::string program{std::istreambuf_iterator<char>(in), {}};
    makeTrace(
        m_dir.path(), "ln",
        {.program = program, .doubleBuffer = false, .timingOnly = true, .shareKernels = true});
    const auto trace = m_dir / "ln.db";
    sqlPairs(trace, "UPDATE slice SET dur = -1 WHERE id = (SELECT s.id FROM slice s JOIN string n "
                    "ON n.id = s.name_id WHERE n.str = 'TLOAD' AND s.task_id = 5 LIMIT 1)");
    const auto kernels = sqlPairs(trace, "SELECT 0, count(DISTINCT block_id) FROM instr");
    const auto tasks = sqlPairs(trace, "SELECT 0, count(DISTINCT task_id) FROM slice");
    ASSERT_LT(kernels.at(0), tasks.at(0)); // shared kernel texts
    const auto expected = sqlPairs(
        trace, "SELECT s.task_id, count(*) FROM slice s JOIN instr i ON i.id = s.instr_id WHERE "
               "s.category = 'instr' AND i.gm_bytes > 0 AND NOT i.flops > 0 AND s.dur >= 0 "
               "GROUP BY s.task_id");
    const prof::RunModel m = prof::analyzeTrace(trace).model;
    for (const prof::TaskRun& t : m.tasks) {
        std::int64_t counted = 0;
        for (std::int64_t n : t.gmTransfersOnPipe) counted += n;
        const auto it = expected.find(t.id);
        EXPECT_EQ(counted, it == expected.end() ? 0 : it->second) << t.name;
    }
    EXPECT_EQ(expected.at(5) + 1, expected.at(4)); // the damaged task: one fewer
}

// A damaged trace whose slice durations add up past 64 bits is refused with the reason (the sums
// once wrapped into negative pipe ratios), not reported.
TEST_F(ProfilerKnownAnswers, DurationsThatOverflowASumAreRefused) {
    makeTrace(m_dir.path(), "add", {.program = test::elementwiseAddProgram()});
    const auto trace = m_dir / "add.db";
    sqlPairs(trace, "DELETE FROM meta WHERE key = 'sim_total_cycles'");
    sqlPairs(trace, "INSERT INTO slice (ts, dur, track_id, name_id, category, depth, instr_id, "
                    "task_id, arg_set_id) SELECT s.ts, 9007199254740000 - s.ts, s.track_id, "
                    "s.name_id, s.category, s.depth, s.instr_id, s.task_id, s.arg_set_id FROM "
                    "slice s, (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c "
                    "WHERE n < 2000) SELECT n FROM c) WHERE s.id = (SELECT min(id) FROM slice "
                    "WHERE category = 'instr')");
    try {
        prof::analyzeTrace(trace);
        ADD_FAILURE() << "a trace whose durations overflow was analysed";
    } catch (const tracedb::TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("integer overflow"), std::string::npos) << e.what();
    }
}

TEST_F(ProfilerKnownAnswers, ElementwiseAddIsMemoryBound) {
    auto p = profile("add", {.program = test::elementwiseAddProgram()});
    EXPECT_EQ(opVerdict(p, "add").cls, BoundClass::Memory) << opVerdict(p, "add").label();
    EXPECT_EQ(p.runBound.cls, BoundClass::Memory) << p.runBound.label();
    for (std::size_t i = 0; i < p.model.tasks.size(); ++i)
        EXPECT_NE(p.bound.tasks[i].cls, BoundClass::Compute) << p.model.tasks[i].name;
    EXPECT_NE(findRule(p, "bandwidth_saturated"), nullptr);
    // Every cycle of the program's instructions belongs to its one op, line 3.
    ASSERT_EQ(p.attribution.ops.size(), 1u);
    EXPECT_EQ(p.model.tensorOps[p.attribution.ops[0].op].srcLine, 3);
    EXPECT_DOUBLE_EQ(p.model.tensorOps[p.attribution.ops[0].op].flops, 1024.0 * 4096);
    EXPECT_EQ(p.model.tensorOps[p.attribution.ops[0].op].gmBytes, 3 * 1024 * 4096 * 2);
}

TEST_F(ProfilerKnownAnswers, LargeMatmulWithGoodTilesIsComputeBound) {
    auto p = profile("mm", {.program = test::largeMatmulProgram(),
                            .overrides = test::fastMemoryArch(),
                            .level = sim::TraceLevel::Instructions,
                            .timingOnly = true});
    const auto& v = opVerdict(p, "matmul");
    EXPECT_EQ(v.cls, BoundClass::Compute) << v.label() << " roof " << v.roofFraction;
    EXPECT_DOUBLE_EQ(p.throughput.cubeFlops, 2.0 * 256 * 256 * 4096);
    for (std::size_t c = 0; c < p.model.cores.size(); ++c) {
        if (p.pipeUtil.cores[c].activeCycles > 0) {
            EXPECT_GT(p.pipeUtil.cores[c].ratio[std::size_t(prof::PipeId::M)], 0.8);
        }
    }
}

// On the default chip each AIC's GM->L1 DMA, not the cube, limits a well-tiled matmul
// (docs/PROFILER.md): the report must say so, and the what-if its advice names must exist.
TEST_F(ProfilerKnownAnswers, AMatmulFedTooSlowlyNamesMte2AndAWhatIfThatExists) {
    auto p = profile("mm_default", {.program = test::wideMatmulProgram(),
                                    .level = sim::TraceLevel::Instructions,
                                    .timingOnly = true});
    const prof::Finding* f = findRule(p, "cube_starved");
    ASSERT_NE(f, nullptr) << prof::renderReport(p, {});
    const std::regex setFlag(R"(--set ([a-z0-9_.]+=[0-9.x]+))");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(f->advice, m, setFlag)) << f->advice;
    sim::ArchConfig arch; // the embedded default
    EXPECT_NO_THROW(sim::applyOverride(arch, m[1].str())) << m[1].str();
    EXPECT_LE(f->gainLow, f->gainCycles);
    EXPECT_LE(f->gainCycles, f->gainHigh);
}

// A run no rule fires on (every AIC busy, compute bound) says which rules were checked — at
// --trace tasks not the rules that need pipe busy times (it said "checked 10 rules"), which it
// names as not evaluated.
TEST_F(ProfilerKnownAnswers, NoFindingsIsExplainedNotBlank) {
    auto p = profile("mm_wide", {.program = test::wideMatmulProgram(),
                                 .overrides = test::fastMemoryArch(),
                                 .level = sim::TraceLevel::Tasks,
                                 .timingOnly = true});
    ASSERT_TRUE(p.findings.empty()) << prof::renderReport(p, {});
    const std::string text = prof::renderReport(p, {});
    EXPECT_NE(text.find("findings: none — no rule met its threshold; checked 6 rules"),
              std::string::npos)
        << text;
    EXPECT_NE(
        text.find(
            "not evaluated: 4 rules — double_buffering, cube_starved, "
            "too_few_tasks, latency_bound (pipe busy times are not recorded at trace level tasks"),
        std::string::npos)
        << text;
    for (const char* rule : {"double_buffering", "cube_starved", "bandwidth_saturated"})
        EXPECT_NE(text.find(rule), std::string::npos) << rule;
    const std::string md = prof::renderReport(p, {.format = prof::ReportFormat::Markdown});
    EXPECT_NE(md.find("None: no rule met its threshold"), std::string::npos) << md;
}

TEST_F(ProfilerKnownAnswers, MatmulWithTinyTilesIsLatencyBound) {
    auto p = profile("tiny", {.program = test::tinyTileMatmulProgram()});
    const auto& v = opVerdict(p, "matmul");
    EXPECT_EQ(v.cls, BoundClass::Latency) << v.label();
    EXPECT_LT(v.roofFraction, 0.5);
    EXPECT_EQ(p.runBound.cls, BoundClass::Latency);
}

TEST_F(ProfilerKnownAnswers, DoubleBufferingFindingPredictsTheSimulatedGain) {
    TraceSpec spec{.program = test::streamingProgram(), .doubleBuffer = false, .tilesPerTask = 8};
    auto without = profile("single", spec);
    const prof::Finding* f = findRule(without, "double_buffering");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->severity, prof::Severity::Info);
    EXPECT_LE(f->gainLow, f->gainCycles);
    EXPECT_LE(f->gainCycles, f->gainHigh);

    spec.doubleBuffer = true;
    auto with = profile("double", spec);
    EXPECT_EQ(findRule(with, "double_buffering"), nullptr);
    double gain = double(without.model.totalCycles - with.model.totalCycles);
    EXPECT_GE(gain, f->gainLow) << "estimate " << f->gainLow << ".." << f->gainHigh;
    EXPECT_LE(gain, f->gainHigh) << "estimate " << f->gainLow << ".." << f->gainHigh;
}

// No task or op moves GM bytes faster than its roof: reads take the read path (MTE2) and
// writes the write path (MTE3, FIXPIPE) at once, so a roof of the read path alone put 48 of
// flash_attention's 144 tasks above 100 % (up to 108 %), and a cast widening f16 to f32 (twice
// the bytes written as read) far above it.
TEST_F(ProfilerKnownAnswers, NoTaskOrOpRunsAboveItsRoof) {
    std::ifstream in(std::string(PTO_SOURCE_DIR) + "/samples/flash_attention.pto");
    const std::string flash((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(flash.empty());
    const std::string widen = R"(func @widen(%x: tensor<256x1024xf16>) -> tensor<256x1024xf32> {
  %y = cast %x : tensor<256x1024xf32>
  return %y
}
)";
    for (const auto& [name, program] : {std::pair{"flash", flash}, std::pair{"widen", widen}}) {
        auto p = profile(name, {.program = program});
        ASSERT_FALSE(p.roofline.tasks.empty()) << name;
        for (std::size_t i = 0; i < p.model.tasks.size(); ++i) {
            const prof::RooflinePoint& r = p.roofline.tasks[i];
            EXPECT_LE(r.roofFraction, 1.0 + 1e-9) << name << " " << p.model.tasks[i].name;
            EXPECT_LE(r.bytesPerCycle, r.bandwidth * (1 + 1e-9)) << name << " " << i;
        }
        for (std::size_t i = 0; i < p.roofline.tensorOps.size(); ++i)
            EXPECT_LE(p.roofline.tensorOps[i].roofFraction, 1.0 + 1e-9)
                << name << " " << p.model.tensorOps[i].kind;
        EXPECT_LE(p.runBound.roofFraction, 1.0 + 1e-9) << name;
    }
}

TEST_F(ProfilerKnownAnswers, MetricsAreStoredOnceAndQueryable) {
    auto p = profile(
        "add", {.program = test::elementwiseAddProgram(), .level = sim::TraceLevel::Instructions});
    auto path = m_dir / "add.db";
    EXPECT_TRUE(prof::storeProfile(path, p));
    EXPECT_FALSE(prof::storeProfile(path, p)); // already stored
    auto reader = tracedb::TraceReader::open(path);
    auto ratios = reader.query("SELECT count(*) FROM metric WHERE analysis = 'pipe_util' AND "
                               "key = 'aiv_mte2_ratio' AND entity = 'core'");
    EXPECT_EQ(std::get<std::int64_t>(ratios.rows[0][0]), 48);
    auto bound = reader.query("SELECT text FROM metric WHERE analysis = 'bound' AND "
                              "entity = 'run' AND key = 'class'");
    ASSERT_EQ(bound.rows.size(), 1u);
    EXPECT_EQ(std::get<std::string>(bound.rows[0][0]), "memory");
    // The stored metrics match the analyses.
    auto total = reader.query("SELECT value FROM metric WHERE analysis = 'throughput' AND key = "
                              "'total_cycles'");
    EXPECT_EQ(std::get<double>(total.rows[0][0]), double(p.model.totalCycles));
}

TEST_F(ProfilerKnownAnswers, CriticalPathAndBubblesAddUp) {
    auto p = profile("add", {.program = test::elementwiseAddProgram()});
    ASSERT_FALSE(p.criticalPath.steps.empty());
    EXPECT_EQ(p.criticalPath.length, p.model.totalCycles);
    for (std::size_t c = 0; c < p.model.cores.size(); ++c) {
        const auto& b = p.bubbles.cores[c];
        // Busy + every idle category covers the run exactly.
        EXPECT_EQ(b.busy + b.scheduler + b.predecessor + b.tail + b.unused, p.model.totalCycles)
            << p.model.cores[c].name;
    }
    // Traced dispatch stalls are the scheduler's share of a core's idle time.
    EXPECT_GT(p.bubbles.total.scheduler, 0);
}

} // namespace
} // namespace pto
