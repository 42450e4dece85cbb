// Profiler building blocks with exact answers: instruction costs, arch peaks, the concurrency
// step function, and every analysis on a hand-made two-core trace; Chrome export structure.
#include "profiler/ArchPeaks.h"
#include "profiler/InstrCost.h"
#include "profiler/Profile.h"
#include "profiler/RunCompare.h"
#include "profiler/Timeline.h"
#include "profiler/export/ChromeExport.h"
#include "profiler/export/HtmlReport.h"
#include "profiler/graph/StageGraph.h"
#include "tests/support/Process.h"
#include "tests/unit/profiler/SyntheticTrace.h"

#include <fmt/format.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace pto::prof {
namespace {

TEST(InstrCost, TakesTheRecordedColumnsAndCostsNothingWhenNoneWereRecorded) {
    InstrCost load = instrCost("TLOAD", 0.0, 128 * 128 * 2, "f16");
    EXPECT_EQ(load.gmBytes, 128 * 128 * 2);
    InstrCost add = instrCost("TADD", 16.0 * 1024, 0, "f16");
    EXPECT_DOUBLE_EQ(add.flops, 16.0 * 1024);
    EXPECT_DOUBLE_EQ(add.nominalFlops(), add.flops);                   // vector: the f16 rate
    InstrCost old = instrCost("TADD", std::nullopt, std::nullopt, ""); // a schema-1 file
    EXPECT_DOUBLE_EQ(old.flops, 0);
    EXPECT_EQ(old.gmBytes, 0);
}

TEST(ArchPeaks, ParsesUnitsAndTheStoredConfig) {
    double v = 0;
    ASSERT_TRUE(parseQuantity("1.6 TB/s", 1.6e9, v));
    EXPECT_DOUBLE_EQ(v, 1000);
    ASSERT_TRUE(parseQuantity("64 KiB", 1e9, v));
    EXPECT_DOUBLE_EQ(v, 65536);
    ASSERT_TRUE(parseQuantity("1 us", 1.8e9, v));
    EXPECT_DOUBLE_EQ(v, 1800);
    EXPECT_FALSE(parseQuantity("fast", 1e9, v));
    EXPECT_FALSE(parseQuantity("3 parsecs", 1e9, v));
    ArchPeaks p =
        parseArchPeaks(R"({"name":"x","params":{"clock.freq":"2 GHz","core.aic_count":"4",)"
                       R"("hbm.bandwidth":"2 TB/s","l2.bandwidth":"5 TB/s","cube.k0":"32"}})");
    EXPECT_EQ(p.name, "x");
    EXPECT_DOUBLE_EQ(p.clockHz, 2e9);
    EXPECT_EQ(p.aicCores, 4);
    EXPECT_DOUBLE_EQ(p.gmBytesPerCycle, 1000);
    EXPECT_DOUBLE_EQ(p.cubeFlopsPerCycle, 2 * 16 * 32 * 16);
    EXPECT_EQ(parseArchPeaks("not json").aicCores, 24); // defaults, no throw
}

TEST(ConcurrencyProfile, IntegratesTheStepFunction) {
    ConcurrencyProfile c({{0, 10}, {5, 15}, {20, 30}});
    EXPECT_EQ(c.countAt(7), 2);
    EXPECT_EQ(c.countAt(17), 0);
    EXPECT_DOUBLE_EQ(c.integral(0, 30), 30);
    EXPECT_DOUBLE_EQ(c.average(5, 10), 2);
    EXPECT_EQ(c.lastTimeAtLeast(2), 10);
    EXPECT_EQ(c.lastTimeAtLeast(1), 30);
    EXPECT_EQ(c.lastTimeAtLeast(3), -1);
}

class SyntheticProfile : public ::testing::Test {
protected:
    void SetUp() override {
        test::writeSyntheticTrace(path(), test::twoCoreTrace());
        m_profile = analyzeTrace(path());
    }
    std::filesystem::path path() const { return m_dir / "synth.db"; }
    const TaskRun& task(std::int64_t id) const { return *m_profile.model.task(id); }
    std::size_t coreIndex(const std::string& name) const {
        for (std::size_t c = 0; c < m_profile.model.cores.size(); ++c)
            if (m_profile.model.cores[c].name == name) return c;
        throw std::runtime_error("no core " + name);
    }
    test::TempDir m_dir{"pto-profiler-unit"};
    Profile m_profile;
};

TEST_F(SyntheticProfile, LoadsTasksAndCosts) {
    const RunModel& m = m_profile.model;
    EXPECT_EQ(m.totalCycles, 2200);
    ASSERT_EQ(m.tasks.size(), 3u);
    EXPECT_EQ(task(2).start, 1200);
    EXPECT_EQ(task(0).busy[std::size_t(PipeId::MTE2)], 400);
    EXPECT_EQ(task(0).gmBytes, 16 * 64 * 2);
    EXPECT_DOUBLE_EQ(task(0).flops, 16 * 64);
    EXPECT_EQ(m.deps.size(), 1u);
    EXPECT_DOUBLE_EQ(m.peaks.dispatchCycles, 100);
}

// A task no Exec node names (the replicas of a probed cluster) takes its slice's name, the one
// the timeline shows: findings said "task task 143", which no search could find.
TEST(ProfilerTasks, ATaskTheStagesDoNotNameTakesItsSlicesName) {
    test::TempDir dir{"pto-profiler-unit"};
    test::SynthTrace trace = test::twoCoreTrace();
    trace.tasks[1].inExecStage = false;
    test::writeSyntheticTrace(dir / "replica.db", trace);
    const Profile p = analyzeTrace(dir / "replica.db");
    const TaskRun* replica = p.model.task(trace.tasks[1].id);
    ASSERT_NE(replica, nullptr);
    EXPECT_EQ(replica->name, fmt::format("task{}", trace.tasks[1].id));
    EXPECT_EQ(p.model.task(trace.tasks[0].id)->name, fmt::format("task{}", trace.tasks[0].id));
}

TEST_F(SyntheticProfile, PipeRatiosUseMsprofNames) {
    const PipeRatios& r = m_profile.pipeUtil.tasks[0];
    EXPECT_DOUBLE_EQ(r.ratio[std::size_t(PipeId::MTE2)], 0.4);
    EXPECT_DOUBLE_EQ(r.ratio[std::size_t(PipeId::V)], 0.3);
    EXPECT_EQ(msprofRatioName("AIV", PipeId::V), "aiv_vec_ratio");
    EXPECT_EQ(msprofRatioName("AIC", PipeId::M), "aic_mac_ratio");
    EXPECT_EQ(msprofRatioName("AIC", PipeId::FIX), "aic_fixpipe_ratio");
    EXPECT_EQ(msprofRatioName("AIV", PipeId::M), "");
    const PipeRatios& core1 = m_profile.pipeUtil.cores[coreIndex("AIV 1")];
    EXPECT_DOUBLE_EQ(core1.ratio[std::size_t(PipeId::V)], 700.0 / 1500.0);
}

TEST_F(SyntheticProfile, CriticalPathFollowsTheDependency) {
    const CriticalPath& cp = m_profile.criticalPath;
    ASSERT_EQ(cp.steps.size(), 2u);
    EXPECT_EQ(cp.steps[0].task, 0);
    EXPECT_EQ(cp.steps[1].task, 2);
    EXPECT_EQ(cp.steps[1].via, PathLink::Dependency);
    EXPECT_EQ(cp.steps[1].gap, 100);
    EXPECT_EQ(cp.length, 2200);
    EXPECT_EQ(cp.slack[1], 2200 - 600); // task 1 has nothing after it
}

TEST_F(SyntheticProfile, BubblesSplitIdleTime) {
    const CoreBubbles& a0 = m_profile.bubbles.cores[coreIndex("AIV 0")];
    EXPECT_EQ(a0.busy, 1000);
    EXPECT_EQ(a0.scheduler, 100);
    EXPECT_EQ(a0.tail, 1100);
    const CoreBubbles& a1 = m_profile.bubbles.cores[coreIndex("AIV 1")];
    EXPECT_EQ(a1.busy, 1500);
    EXPECT_EQ(a1.predecessor, 500); // 600 → 1100: task 2 waits for task 0
    EXPECT_EQ(a1.scheduler, 200);   // 0 → 100 and 1100 → 1200
    EXPECT_EQ(a1.tail, 0);
}

TEST_F(SyntheticProfile, ImbalanceAndAttribution) {
    ASSERT_EQ(m_profile.imbalance.types.size(), 1u);
    const TypeBalance& b = m_profile.imbalance.types[0];
    EXPECT_EQ(b.used, 2);
    EXPECT_DOUBLE_EQ(b.meanBusy, 1250);
    EXPECT_NEAR(b.imbalance, 0.2, 1e-12);
    const Attribution& a = m_profile.attribution;
    ASSERT_EQ(a.ops.size(), 2u);
    EXPECT_EQ(a.ops[0].cycles, 700); // add: 400 + 300 (first on the tie: program order)
    EXPECT_EQ(m_profile.model.tensorOps[a.ops[0].op].kind, "add");
    EXPECT_EQ(a.ops[1].cycles, 700); // exp: 200 + 500
    EXPECT_DOUBLE_EQ(a.ops[1].share, 0.5);
    EXPECT_EQ(m_profile.model.lineCycles.at(3), 700);
}

TEST_F(SyntheticProfile, MetricsHaveEveryAnalysis) {
    auto rows = profileMetrics(m_profile);
    std::set<std::string> analyses;
    for (const auto& r : rows) analyses.insert(r.analysis);
    for (const char* a : {"pipe_util", "throughput", "roofline", "bound", "critical_path",
                          "bubbles", "imbalance", "attribution"})
        EXPECT_TRUE(analyses.count(a)) << a;
}

TEST_F(SyntheticProfile, CompareFindsTheDelta) {
    RunComparison c = compareRuns(m_profile, m_profile);
    EXPECT_DOUBLE_EQ(c.totalCycles.diff(), 0);
    ASSERT_EQ(c.ops.size(), 2u);
    EXPECT_FALSE(c.ops[0].onlyInA);
    EXPECT_EQ(c.cores.size(), 2u);
}

TEST_F(SyntheticProfile, ChromeExportStructure) {
    auto out = m_dir / "t.json";
    std::FILE* f = std::fopen(out.c_str(), "wb");
    ExportCounts counts = exportChromeJson(tracedb::TraceReader::open(path()), f);
    std::fclose(f);
    EXPECT_EQ(counts.slices, 3 + 4); // tasks + instructions
    EXPECT_EQ(counts.outOfOrder, 0);
    std::ifstream in(out);
    auto doc = nlohmann::json::parse(in);
    int x = 0;
    for (const auto& e : doc["traceEvents"]) {
        if (e["ph"] != "X") continue;
        ++x;
        if (e["args"]["cycle"] == 1200) {
            EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.2); // 1 GHz: 1200 cycles = 1.2 us
            EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 1.0);
        }
    }
    EXPECT_EQ(x, 7);
}

TEST(HtmlAndDot, LabelsAreEscaped) {
    EXPECT_EQ(htmlEscape("<script>alert('x')</script> & \""),
              "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;");
    EXPECT_EQ(dotEscape("a\"b\\N\nc"), "a\\\"b\\\\N\\nc");
}

} // namespace
} // namespace pto::prof

namespace pto::prof {
namespace {

std::array<double, kPipeCount> busy(PipeId pipe, double ratio) {
    std::array<double, kPipeCount> ratios{};
    ratios[std::size_t(pipe)] = ratio;
    return ratios;
}

TEST(BoundClassify, FollowsTheRoofThenTheSaturatedUnitThenLatencyCause) {
    RooflinePoint atRoof;
    atRoof.roofFraction = 0.85;
    atRoof.memoryRegion = true;
    EXPECT_EQ(classify(atRoof, busy(PipeId::MTE2, 0.9)).label(), "memory");
    RooflinePoint below;
    below.roofFraction = 0.3;
    // A vector chain with V saturated is limited by the vector unit, under the nominal roof.
    EXPECT_EQ(classify(below, busy(PipeId::V, 0.95)).label(), "compute");
    EXPECT_EQ(classify(below, busy(PipeId::M, 0.81)).label(), "compute");
    EXPECT_EQ(classify(below, busy(PipeId::S, 0.9)).label(), "latency (compute)");
    EXPECT_EQ(classify(below, busy(PipeId::MTE2, 0.97)).label(), "latency (memory)");
    EXPECT_EQ(classify(below, busy(PipeId::V, 0.6)).label(), "latency (pipeline)");
}

} // namespace
} // namespace pto::prof

namespace pto::prof {
namespace {

TEST(ArchPeaks, MeasuredL2HitsRaiseTheGmRoofUpToL2Bandwidth) {
    ArchPeaks peaks; // 1.6 TB/s HBM, 5 TB/s L2 at 1.8 GHz
    const double hbm = 1.6e12 / 1.8e9, l2 = 5e12 / 1.8e9;
    auto traffic = parseMeasuredTraffic(
        R"({"l2_hit_bytes":300,"l2_miss_bytes":100,"hbm_read_bytes":100,"hbm_write_bytes":100})");
    ASSERT_TRUE(traffic);
    applyMeasuredTraffic(peaks, *traffic);
    // 500 GM bytes, 200 of them through HBM: HBM alone would allow 2.5 × its rate.
    EXPECT_DOUBLE_EQ(peaks.gmBytesPerCycle, std::min(l2, hbm * 2.5));
    EXPECT_DOUBLE_EQ(peaks.gmLatencyCycles, 0.75 * 200 + 0.25 * 500);

    ArchPeaks allHits;
    applyMeasuredTraffic(allHits, {1000, 0, 0});
    EXPECT_DOUBLE_EQ(allHits.gmBytesPerCycle, l2);
    ArchPeaks allMisses;
    applyMeasuredTraffic(allMisses, {0, 1000, 0});
    EXPECT_DOUBLE_EQ(allMisses.gmBytesPerCycle, hbm);
    EXPECT_FALSE(parseMeasuredTraffic("not json"));
    EXPECT_FALSE(parseMeasuredTraffic(R"({"l2_hit_bytes":1})"));
}

} // namespace
} // namespace pto::prof

namespace pto::prof {
namespace {

TEST(InstrCost, CubeRateFollowsTheOperandDtype) {
    const double flops = 2.0 * 16 * 16 * 16;
    auto f16 = instrCost("TMATMUL", flops, 0, "f16");
    auto i8 = instrCost("TMATMUL", flops, 0, "i8");
    auto f32 = instrCost("TMATMUL_ACC", flops, 0, "f32");
    EXPECT_DOUBLE_EQ(f16.nominalFlops(), f16.flops);
    EXPECT_DOUBLE_EQ(i8.nominalFlops(), i8.flops / 2);   // twice the MACs per cycle
    EXPECT_DOUBLE_EQ(f32.nominalFlops(), f32.flops * 4); // a quarter
    EXPECT_DOUBLE_EQ(dtypeRoofScale(i8.flops, i8.nominalFlops()), 2.0);
    EXPECT_DOUBLE_EQ(dtypeRoofScale(0, 0), 1.0);
}

} // namespace
} // namespace pto::prof
