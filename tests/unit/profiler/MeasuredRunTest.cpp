// A measured run built by hand (what `pto import` gives the profiler): its time is the first
// kernel start to the last kernel end however late the kernels start on the file's clock, every
// analysis and finding measures against that, and every rendering says ns and shows no figure
// of the simulated chip model. Exact answers; the real profiler files are in
// tests/integration/import.
#include "profiler/MeasuredRun.h"
#include "profiler/Profile.h"
#include "profiler/RunCompare.h"
#include "profiler/export/HtmlReport.h"
#include "profiler/report/Report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace pto::prof {
namespace {

// The kernels start 1 s after the file's ts 0 (host ops and counters came first): two
// streams, three kernels, 1000 ns from the first start to the last end.
constexpr std::int64_t kFirstStart = 1'000'000'000;

TaskRun kernel(std::int64_t id, int core, const std::string& type, std::int64_t start,
               std::int64_t end, PipeId busiest, double ratio) {
    TaskRun t;
    t.id = id;
    t.name = "kernel" + std::to_string(id);
    t.core = core;
    t.coreType = type;
    t.start = kFirstStart + start;
    t.end = kFirstStart + end;
    t.dispatch = t.start;
    t.busy[std::size_t(busiest)] = std::llround(ratio * double(end - start));
    return t;
}

Profile measuredProfile() {
    RunModel m;
    m.path = "measured.db";
    m.program = "rank0";
    m.measured = true;
    m.peaks.clockHz = 1e9; // pto import: times in ns
    m.cores = {{1, "AIV", 2, "Stream 2 AIV"}, {2, "AIC", 2, "Stream 2 AIC"}};
    m.tasks = {kernel(1, 0, "AIV", 0, 400, PipeId::MTE2, 0.95), // memory bound on MTE2
               kernel(2, 1, "AIC", 100, 700, PipeId::M, 0.3),   // cube under 50 % busy
               kernel(3, 0, "AIV", 500, 1000, PipeId::V, 0.5)};
    setMeasuredRunTime(m);
    return analyze(std::move(m));
}

TEST(MeasuredRun, TheRunIsTheFirstKernelStartToTheLastKernelEnd) {
    const Profile p = measuredProfile();
    EXPECT_EQ(p.model.startCycle, kFirstStart);
    EXPECT_EQ(p.model.totalCycles, 1000);
    EXPECT_EQ(p.model.endCycle(), kFirstStart + 1000);
    EXPECT_EQ(p.model.timeUnit(), "ns");
}

TEST(MeasuredRun, EveryAnalysisMeasuresAgainstTheKernelsRun) {
    const Profile p = measuredProfile();
    // Per stream: busy + scheduler + predecessor + tail + unused = the run.
    for (const CoreBubbles& b : p.bubbles.cores)
        EXPECT_EQ(b.busy + b.scheduler + b.predecessor + b.tail + b.unused, 1000);
    EXPECT_EQ(p.bubbles.cores[0].busy, 900);
    EXPECT_EQ(p.bubbles.cores[0].scheduler, 100); // 400 → 500 between its kernels
    EXPECT_EQ(p.bubbles.cores[1].tail, 300);      // 700 → 1000
    // The path starts at the first kernel, not at the file's ts 0.
    EXPECT_EQ(p.criticalPath.length, 1000);
    EXPECT_LE(p.criticalPath.gapCycles, 1000);
    EXPECT_GE(p.imbalance.tailStart, kFirstStart);
    EXPECT_LE(p.imbalance.tailCycles, 1000);
    for (std::int64_t slack : p.criticalPath.slack) EXPECT_LE(slack, 1000);
    ASSERT_FALSE(p.findings.empty());
    for (const Finding& f : p.findings)
        EXPECT_DOUBLE_EQ(f.gainFraction, f.gainCycles / 1000.0) << f.rule;
}

TEST(MeasuredRun, ReportsSayNanosecondsAndShowNoFigureOfTheChipModel) {
    const Profile p = measuredProfile();
    const nlohmann::json j = reportJson(p);
    const nlohmann::json& s = j["summary"];
    EXPECT_EQ(s["total_ns"], 1000);
    EXPECT_EQ(s["start_ns"], kFirstStart);
    EXPECT_EQ(s["kernels"], 3);
    EXPECT_DOUBLE_EQ(s["kernel_time_us"].get<double>(), 1.5);
    for (const char* key : {"arch", "cube_peak_tflops", "gm_peak_gbps", "aic_cores", "bound",
                            "roof_fraction", "total_cycles"})
        EXPECT_FALSE(s.contains(key)) << key;
    for (const nlohmann::json& f : j["findings"]) {
        EXPECT_TRUE(f.contains("gain_ns")) << f.dump();
        EXPECT_FALSE(f.contains("gain_cycles")) << f.dump();
    }

    const std::string text = renderReport(p, {});
    EXPECT_NE(text.find("  time        1.000 us from the first kernel start to the last end\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  kernels     3 device kernels, 1.500 us of kernel time\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("cycles"), std::string::npos) << text;
    const std::string md = renderReport(p, {.format = ReportFormat::Markdown});
    EXPECT_NE(md.find("| time | 1.000 us from the first kernel start to the last end |"),
              std::string::npos)
        << md;

    const std::string html = renderHtmlReport(p);
    EXPECT_NE(html.find("<th>time</th><td>1.000 us from the first kernel start to the last "
                        "end</td>"),
              std::string::npos);
    for (const char* absent : {"910B", "TFLOP/s", "GB/s", "of the roof", "Roofline", "<polyline",
                               "cycles", "Program ops"})
        EXPECT_EQ(html.find(absent), std::string::npos) << absent;
    EXPECT_NE(html.find(">1000 ns</text>"), std::string::npos); // the kernel timeline's end

    const std::vector<tracedb::MetricRow> rows = profileMetrics(p);
    for (const tracedb::MetricRow& r : rows)
        EXPECT_TRUE(r.analysis != "throughput" && r.analysis != "roofline") << r.analysis;
}

TEST(MeasuredRun, CompareOfTwoMeasuredRunsIsInNanoseconds) {
    const Profile p = measuredProfile();
    const RunComparison c = compareRuns(p, p);
    EXPECT_TRUE(c.measured);
    EXPECT_EQ(c.totalCycles.a, 1000);
    const std::string text = comparisonText(c, "a.db", "b.db");
    EXPECT_NE(text.find("run time   1.000 -> 1.000 us, first kernel start to last end"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("cycles"), std::string::npos) << text;
    const nlohmann::json j = comparisonJson(c, "a.db", "b.db");
    EXPECT_EQ(j["total_ns"]["a"], 1000.0);
    EXPECT_FALSE(j.contains("total_cycles"));
    EXPECT_FALSE(j.contains("gm_bytes"));
    ASSERT_EQ(j["cores"].size(), 2U);
    for (const nlohmann::json& core : j["cores"])
        EXPECT_EQ(core["busy_ns"]["a"], core["core"] == "Stream 2 AIV" ? 900.0 : 600.0) << core;
}

} // namespace
} // namespace pto::prof
