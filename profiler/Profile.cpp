// Runs every analysis and rule; turns the results into metric rows and stores them.
#include "profiler/Profile.h"

#include "base/JsonText.h"
#include "profiler/MetricRows.h"
#include "profiler/rules/Rules.h"
#include "trace_db/TraceWriter.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace pto::prof {
namespace {

constexpr const char* kProfilerVersion = "1";

// The whole run as one roofline point against the cores it used (runRooflinePoint).
BoundVerdict classifyRun(const RunModel& m) {
    if (!m.executed()) return {.cls = BoundClass::None}; // no data to classify
    // Per core type (AIC, AIV): a pipe of the cube cores and the same-named pipe of the vector
    // cores are different hardware, so their busy cycles are not pooled — an AIC MTE2 busy 99 %
    // of its tasks' time is a saturated pipe even when the AIVs' MTE2 idles.
    std::array<CoreTypeBusy, 2> busy{}; // AIV, AIC
    for (const TaskRun& t : m.tasks) {
        if (!t.ran()) continue;
        const bool cube = t.coreType == "AIC";
        busy[cube].active += t.duration();
        for (std::size_t i = 0; i < kPipeCount; ++i) busy[cube].busy[i] += t.busy[i];
    }
    const BoundVerdict v = classifyRunTotals(runRooflinePoint(m), busy[1], busy[0]);
    return m.recordsInstrCycles() ? v : withoutPipeTimes(v);
}

void appendFindings(const Profile& p, std::vector<tracedb::MetricRow>& rows) {
    // "gain_cycles", or "gain_ns" for a measured trace (the run's time unit, as in the report).
    const std::string gainKey = fmt::format("gain_{}", p.model.timeUnit());
    for (const Finding& f : p.findings) {
        nlohmann::json j = {{"severity", severityName(f.severity)},
                            {"title", f.title},
                            {"advice", f.advice},
                            {"evidence", f.evidence},
                            {"entity", f.entity},
                            {gainKey, f.gainCycles},
                            {"gain_low", f.gainLow},
                            {"gain_high", f.gainHigh},
                            {"gain_fraction", f.gainFraction}};
        if (f.entityId) j["entity_id"] = *f.entityId;
        rows.push_back({"finding", f.entity, f.entityId, f.rule, f.gainCycles, jsonText(j)});
    }
}

} // namespace

Profile analyze(RunModel model) {
    Profile p;
    p.model = std::move(model);
    const RunModel& m = p.model;
    p.pipeUtil = analyzePipeUtil(m);
    p.throughput = analyzeThroughput(m);
    p.roofline = analyzeRoofline(m);
    p.bound = analyzeBound(m, p.pipeUtil, p.roofline);
    p.criticalPath = analyzeCriticalPath(m);
    p.bubbles = analyzeBubbles(m);
    p.imbalance = analyzeImbalance(m);
    p.attribution = analyzeAttribution(m);
    p.runBound = classifyRun(m);
    p.findings = runRules(p);
    return p;
}

Profile analyzeTrace(const std::filesystem::path& path) {
    auto reader = tracedb::TraceReader::open(path);
    return analyze(loadRunModel(reader));
}

std::vector<tracedb::MetricRow> profileMetrics(const Profile& p) {
    std::vector<tracedb::MetricRow> rows;
    appendMetrics(p.pipeUtil, p.model, rows);
    if (!p.model.measured) { // no FLOP or byte counts: the simulated chip's peaks do not apply
        appendMetrics(p.throughput, rows);
        appendMetrics(p.roofline, p.model, rows);
    }
    appendMetrics(p.bound, p.model, rows);
    MetricList run(rows, "bound");
    run.text("run", std::nullopt, "class", std::string(boundName(p.runBound.cls)));
    if (p.runBound.cause != LatencyCause::None)
        run.text("run", std::nullopt, "cause", std::string(causeName(p.runBound.cause)));
    run.value("run", std::nullopt, "roof_fraction", p.runBound.roofFraction);
    appendMetrics(p.criticalPath, p.model, rows);
    appendMetrics(p.bubbles, p.model, rows);
    appendMetrics(p.imbalance, p.model, rows);
    appendMetrics(p.attribution, p.model, rows);
    appendFindings(p, rows);
    return rows;
}

bool storeProfile(const std::filesystem::path& path, const Profile& profile) {
    {
        auto reader = tracedb::TraceReader::open(path);
        if (reader.meta("profiler_version")) return false;
    }
    auto rows = profileMetrics(profile);
    auto writer = tracedb::TraceWriter::append(path);
    writer.addAll(std::span<const tracedb::MetricRow>(rows));
    writer.setMeta("profiler_version", kProfilerVersion);
    writer.commit();
    return true;
}

} // namespace pto::prof
