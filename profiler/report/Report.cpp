// Renders a profile as text, Markdown or JSON.
#include "profiler/report/Report.h"

#include "base/JsonText.h"
#include "profiler/CompileNotes.h"
#include "profiler/rules/Rules.h"

#include "profiler/report/KernelTable.h"
#include "profiler/report/MeasuredSummary.h"

#include <fmt/format.h>

#include <algorithm>

namespace pto::prof {
namespace {

double us(const Profile& p, double cycles) {
    return cycles * 1e6 / p.model.peaks.clockHz;
}

// A simulated run's summary: time, cores, throughput against the chip's peaks, bound, critical
// path. A measured trace has its own (profiler/report/MeasuredSummary.h): none of these apply.
nlohmann::json summaryJson(const Profile& p) {
    if (p.model.measured) return measuredSummaryJson(p);
    const Throughput& t = p.throughput;
    const RunModel& m = p.model;
    nlohmann::json j = {{"trace", m.path},
                        {"program", m.program},
                        {"arch", m.peaks.name},
                        {"clock_hz", m.peaks.clockHz},
                        {"total_cycles", m.totalCycles},
                        {"time_us", us(p, double(m.totalCycles))},
                        {"tasks", m.tasks.size()},
                        {"aic_used", t.aicUsed},
                        {"aiv_used", t.aivUsed},
                        {"aic_cores", m.peaks.aicCores},
                        {"aiv_cores", m.peaks.aivCores},
                        {"cube_tflops", t.cubeTflops},
                        {"cube_peak_tflops", t.cubePeakTflops},
                        {"vector_tflops", t.vectorTflops},
                        {"vector_peak_tflops", t.vectorPeakTflops},
                        {"gm_gbps", t.gbps},
                        {"gm_peak_gbps", t.peakGbps},
                        {"gm_bytes", t.gmBytes},
                        {"arithmetic_intensity", t.intensity},
                        {"ridge_point", t.ridge},
                        {"bound", p.runBound.label()},
                        {"bound_reason", p.model.executed() ? p.runBound.reason()
                                                            : std::string(m.notExecutedReason())},
                        {"roof_fraction", p.runBound.roofFraction},
                        {"critical_path_tasks", p.criticalPath.steps.size()},
                        {"critical_path_gap_cycles", p.criticalPath.gapCycles},
                        {"tail_cycles", p.imbalance.tailCycles},
                        {"trace_level", m.traceLevel},
                        {"double_buffer", m.doubleBuffer}};
    if (!m.simFault.empty()) j["fault"] = m.simFault;
    return j;
}

nlohmann::json pipesJson(const Profile& p) {
    nlohmann::json j = nlohmann::json::object();
    if (!p.model.recordsInstrCycles()) return j; // --trace tasks: not recorded
    for (std::string type : {"AIC", "AIV"}) {
        std::array<double, kPipeCount> busy{};
        double active = 0;
        for (std::size_t c = 0; c < p.model.cores.size(); ++c) {
            const PipeRatios& r = p.pipeUtil.cores[c];
            if (r.coreType != type || r.activeCycles <= 0) continue;
            active += double(r.activeCycles);
            for (std::size_t i = 0; i < kPipeCount; ++i)
                busy[i] += r.ratio[i] * double(r.activeCycles);
        }
        if (active <= 0) continue;
        for (std::size_t i = 0; i < kPipeCount; ++i) {
            std::string name = heldRatioName(p.model, type, PipeId(i));
            if (!name.empty()) j[name] = busy[i] / active;
        }
    }
    return j;
}

nlohmann::json opJson(const Profile& p, const OpShare& s) {
    const TensorOpCost& op = p.model.tensorOps[s.op];
    const BoundVerdict& b = p.bound.tensorOps[s.op];
    const RooflinePoint& r = p.roofline.tensorOps[s.op];
    nlohmann::json j = {{"id", op.id},
                        {"op", op.kind},
                        {"name", op.name},
                        {"line", op.srcLine},
                        {"cycles", s.cycles},
                        {"share", s.share},
                        {"span_cycles", r.cycles},
                        {"flops", op.flops},
                        {"gm_bytes", op.gmBytes},
                        {"intensity", r.intensity},
                        {"roof_fraction", r.roofFraction},
                        {"bound", b.label()}};
    if (op.loop >= 0) { // an op of an unrolled loop's body: `id` is a node of stage `stage_id`
        const TensorOpCost& loop = p.model.tensorOps[std::size_t(op.loop)];
        j["stage_id"] = op.stageId;
        j["loop"] = op.loopName;
        j["loop_id"] = loop.id;
        j["loop_line"] = loop.srcLine;
    }
    if (op.isLoopTotal()) {
        j["loop"] = op.loopName;
        j["iterations"] = op.iterations;
        j["body_ops"] = op.bodyOps;
    }
    return j;
}

nlohmann::json opsJson(const Profile& p, const std::vector<OpShare>& ops, int top) {
    nlohmann::json j = nlohmann::json::array();
    for (const OpShare& s : ops) {
        if (int(j.size()) >= top) break;
        j.push_back(opJson(p, s));
    }
    return j;
}

// "gain_cycles", or "gain_ns" for a measured trace: keys name the run's time unit.
std::string timeKey(const Profile& p, std::string_view stem) {
    return fmt::format("{}_{}", stem, p.model.timeUnit());
}

nlohmann::json findingsJson(const Profile& p) {
    nlohmann::json j = nlohmann::json::array();
    for (const Finding& f : p.findings) {
        nlohmann::json item = {{"rule", f.rule},
                               {"severity", severityName(f.severity)},
                               {"title", f.title},
                               {"advice", f.advice},
                               {"evidence", f.evidence},
                               {"entity", f.entity},
                               {timeKey(p, "gain"), f.gainCycles},
                               {timeKey(p, "gain_low"), f.gainLow},
                               {timeKey(p, "gain_high"), f.gainHigh},
                               {"gain_fraction", f.gainFraction}};
        if (f.entityId) item["entity_id"] = *f.entityId;
        j.push_back(std::move(item));
    }
    return j;
}

// The rules that could not run for want of records, with why (empty when every rule ran).
nlohmann::json notEvaluatedJson(const Profile& p) {
    nlohmann::json j = nlohmann::json::array();
    for (const UnevaluatedRule& r : unevaluatedRules(p))
        j.push_back({{"rule", r.rule}, {"reason", r.why}});
    return j;
}

std::string gainText(const Profile& p, const nlohmann::json& f) {
    Finding g;
    g.gainCycles = f[timeKey(p, "gain")].get<double>();
    g.gainLow = f[timeKey(p, "gain_low")].get<double>();
    g.gainHigh = f[timeKey(p, "gain_high")].get<double>();
    g.gainFraction = f["gain_fraction"].get<double>();
    return gainText(p, g);
}

// The run's bound class and roof fraction, "memory (92% of roof)" (`roof` words the roof); a run
// of which nothing executed has neither.
std::string boundText(const nlohmann::json& s, std::string_view roof) {
    const std::string bound = s["bound"].get<std::string>();
    const std::string reason = s.value("bound_reason", std::string());
    if (bound == "none") return "none: " + reason;
    return fmt::format("{} ({}{:.0f}% of {})", bound, reason.empty() ? "" : reason + "; ",
                       100 * s["roof_fraction"].get<double>(), roof);
}

// The summary of a simulated run: time, cores, throughput against the roof, bound, critical path.
std::string simulatedSummaryText(const nlohmann::json& s) {
    std::string out;
    auto line = [&]<typename... Args>(fmt::format_string<Args...> f, Args&&... args) {
        out += fmt::format(f, std::forward<Args>(args)...);
        out += '\n';
    };
    line("{} (@{}) on {}", s["trace"].get<std::string>(), s["program"].get<std::string>(),
         s["arch"].get<std::string>());
    line("  time        {} cycles = {:.3f} us", s["total_cycles"].get<std::int64_t>(),
         s["time_us"].get<double>());
    if (s.contains("fault"))
        line("  fault       the run stopped here: {}", s["fault"].get<std::string>());
    line("  tasks       {} on {}/{} AIC and {}/{} AIV cores", s["tasks"].get<std::size_t>(),
         s["aic_used"].get<int>(), s["aic_cores"].get<int>(), s["aiv_used"].get<int>(),
         s["aiv_cores"].get<int>());
    line("  cube        {:.3f} of {:.1f} TFLOP/s", s["cube_tflops"].get<double>(),
         s["cube_peak_tflops"].get<double>());
    line("  vector      {:.3f} of {:.1f} TFLOP/s", s["vector_tflops"].get<double>(),
         s["vector_peak_tflops"].get<double>());
    line("  GM          {:.1f} of {:.1f} GB/s ({} bytes, {:.2f} FLOP/B; ridge {:.1f})",
         s["gm_gbps"].get<double>(), s["gm_peak_gbps"].get<double>(),
         s["gm_bytes"].get<std::int64_t>(), s["arithmetic_intensity"].get<double>(),
         s["ridge_point"].get<double>());
    line("  bound       {}", boundText(s, "the roof of the cores used"));
    line("  crit. path  {} tasks, {} cycles in gaps; tail {} cycles",
         s["critical_path_tasks"].get<std::size_t>(),
         s["critical_path_gap_cycles"].get<std::int64_t>(), s["tail_cycles"].get<std::int64_t>());
    return out;
}

// The summary of a measured trace: the profiler files hold times and pipe ratios, no FLOP or
// byte counts and no task dependencies, so throughput, roof and critical path are not shown.
std::string measuredSummaryText(const nlohmann::json& s) {
    std::string out =
        fmt::format("{} (@{})\n", s["trace"].get<std::string>(), s["program"].get<std::string>());
    for (const SummaryRow& row : measuredSummaryRows(s))
        out += fmt::format("  {:<11} {}\n", row.label, row.value);
    return out;
}

// "matmul %qk", "matmul %qk in kv" for an op of a loop's body, "for "kv", 4 iterations" for
// a loop (the total of its body ops).
std::string opText(const nlohmann::json& op) {
    std::string text = op["op"].get<std::string>() + " " + op["name"].get<std::string>();
    if (op.contains("body_ops")) {
        const auto iterations = op["iterations"].get<std::int64_t>();
        text = fmt::format("for \"{}\"", op["loop"].get<std::string>());
        if (iterations > 0)
            text += fmt::format(", {} iteration{}", iterations, iterations == 1 ? "" : "s");
    } else if (op.contains("loop")) {
        text += " in " + op["loop"].get<std::string>();
    }
    return text;
}

// The op column is `width` wide (the top ops' stays 22, as it always was).
std::string opRowsText(const nlohmann::json& ops, std::string_view title, std::size_t width) {
    if (ops.empty()) return {}; // --top 0: no table, not a header alone
    std::string out = fmt::format("{}:\n", title);
    out += fmt::format("  {:>5}  {:<{}} {:>12} {:>6}  {:>6}  {}\n", "line", "op", width, "cycles",
                       "share", "roof", "bound");
    for (const auto& op : ops)
        out += fmt::format("  {:>5}  {:<{}} {:>12} {:>5.1f}%  {:>5.0f}%  {}\n",
                           op["line"].get<std::int64_t>(), opText(op), width,
                           op["cycles"].get<std::int64_t>(), 100 * op["share"].get<double>(),
                           100 * op["roof_fraction"].get<double>(), op["bound"].get<std::string>());
    return out + "\n";
}

std::string topOpsText(const nlohmann::json& j) {
    constexpr std::size_t kOpWidth = 22;
    std::string out = opRowsText(j["top_ops"], "top ops by cycles", kOpWidth);
    if (j.contains("loops")) {
        std::size_t width = kOpWidth; // "for "kv", 128 iterations" is wider
        for (const auto& loop : j["loops"]) width = std::max(width, opText(loop).size());
        out += opRowsText(j["loops"],
                          "loops (each the total of its body ops, listed as \"… in LOOP\" above)",
                          width);
    }
    return out;
}

std::string renderText(const Profile& p, const nlohmann::json& j) {
    const auto& s = j["summary"];
    const bool measured = s.value("measured", false);
    std::string out = measured ? measuredSummaryText(s) : simulatedSummaryText(s);
    auto line = [&]<typename... Args>(fmt::format_string<Args...> f, Args&&... args) {
        out += fmt::format(f, std::forward<Args>(args)...);
        out += '\n';
    };
    std::string pipes;
    for (auto& [k, v] : j["pipes"].items())
        pipes += fmt::format(" {}={:.0f}%", k, 100 * v.get<double>());
    if (!pipes.empty())
        line("  pipes      {}", pipes);
    else if (!measured && p.model.executed()) // a run of which nothing executed has no pipes
        line("  pipes       not recorded at this trace level (pto run --trace instructions)");
    if (!p.model.recordsInstrCycles() && p.model.executed())
        line("  ops         not recorded at this trace level (pto run --trace instructions)");
    line("");
    if (j.contains("top_kernels")) out += renderTopKernelsText(j["top_kernels"]);
    if (!measured) out += topOpsText(j); // a measured trace has no IR, so no Tensor ops
    if (j["findings"].empty())
        line("findings: none — {}", noFindingsNote(p));
    else
        line("findings:");
    for (const auto& f : j["findings"]) {
        line("  [{}] {}: {}", f["severity"].get<std::string>(), f["rule"].get<std::string>(),
             f["title"].get<std::string>());
        for (const auto& e : f["evidence"]) line("      - {}", e.get<std::string>());
        line("      advice: {}", f["advice"].get<std::string>());
        line("      estimated gain: {}", gainText(p, f));
    }
    if (const std::string note = notEvaluatedNote(p); !note.empty())
        line("not evaluated: {}", note);
    if (j.contains("compile_notes")) {
        line("compiler notes:");
        for (const auto& n : j["compile_notes"]) line("  {}", n.get<std::string>());
    }
    return out;
}

std::string mdEscape(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>' || c == '[' ||
            c == ']' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

std::string topOpsMarkdown(const nlohmann::json& j) {
    std::string out;
    if (j["top_ops"].empty()) // --trace tasks: not recorded; --top 0: no table
        return j["summary"].value("trace_level", "") == "tasks"
                   ? "\n## Top ops by cycles\n\nNot recorded at this trace level (pto run "
                     "--trace instructions).\n"
                   : "";
    out += "\n## Top ops by cycles\n\n| line | op | cycles | share | roof | bound "
           "|\n|---:|---|---:|---:|---:|---|\n";
    auto rows = [&](const nlohmann::json& ops) {
        for (const auto& op : ops)
            out += fmt::format("| {} | {} | {} | {:.1f}% | {:.0f}% | {} |\n",
                               op["line"].get<std::int64_t>(), mdEscape(opText(op)),
                               op["cycles"].get<std::int64_t>(), 100 * op["share"].get<double>(),
                               100 * op["roof_fraction"].get<double>(),
                               op["bound"].get<std::string>());
    };
    rows(j["top_ops"]);
    if (j.contains("loops")) {
        out += "\n## Loops\n\nEach the total of its body ops (listed as \"… in LOOP\" above).\n\n"
               "| line | loop | cycles | share | roof | bound |\n|---:|---|---:|---:|---:|---|\n";
        rows(j["loops"]);
    }
    return out;
}

// The summary rows of a simulated run's Markdown report: arch, time, cores, throughput, bound.
std::string simulatedRowsMarkdown(const nlohmann::json& s) {
    std::string out = fmt::format("| arch | {} |\n", mdEscape(s["arch"].get<std::string>()));
    out += fmt::format("| time | {} cycles = {:.3f} us |\n", s["total_cycles"].get<std::int64_t>(),
                       s["time_us"].get<double>());
    if (s.contains("fault"))
        out += fmt::format("| fault | {} |\n", mdEscape(s["fault"].get<std::string>()));
    out += fmt::format("| tasks | {} on {}/{} AIC, {}/{} AIV |\n", s["tasks"].get<std::size_t>(),
                       s["aic_used"].get<int>(), s["aic_cores"].get<int>(),
                       s["aiv_used"].get<int>(), s["aiv_cores"].get<int>());
    out += fmt::format("| cube | {:.3f} of {:.1f} TFLOP/s |\n", s["cube_tflops"].get<double>(),
                       s["cube_peak_tflops"].get<double>());
    out += fmt::format("| vector | {:.3f} of {:.1f} TFLOP/s |\n", s["vector_tflops"].get<double>(),
                       s["vector_peak_tflops"].get<double>());
    out += fmt::format("| GM | {:.1f} of {:.1f} GB/s ({} bytes, {:.2f} FLOP/B; ridge {:.1f}) |\n",
                       s["gm_gbps"].get<double>(), s["gm_peak_gbps"].get<double>(),
                       s["gm_bytes"].get<std::int64_t>(), s["arithmetic_intensity"].get<double>(),
                       s["ridge_point"].get<double>());
    out += fmt::format("| bound | {} |\n", boundText(s, "roof"));
    return out;
}

std::string renderMarkdown(const Profile& p, const nlohmann::json& j) {
    const auto& s = j["summary"];
    std::string out =
        fmt::format("# Profile of {} (@{})\n\n", mdEscape(s["trace"].get<std::string>()),
                    mdEscape(s["program"].get<std::string>()));
    out += "| metric | value |\n|---|---|\n";
    if (s.value("measured", false))
        for (const SummaryRow& row : measuredSummaryRows(s))
            out += fmt::format("| {} | {} |\n", row.label, mdEscape(row.value));
    else
        out += simulatedRowsMarkdown(s);
    for (auto& [k, v] : j["pipes"].items())
        out += fmt::format("| {} | {:.1f}% |\n", mdEscape(k), 100 * v.get<double>());
    if (j.contains("top_kernels")) out += renderTopKernelsMarkdown(j["top_kernels"]);
    if (!s.value("measured", false)) out += topOpsMarkdown(j);
    out += "\n## Findings\n\n";
    if (j["findings"].empty()) out += fmt::format("None: {}.\n", noFindingsNote(p));
    for (const auto& f : j["findings"]) {
        out += fmt::format("### [{}] {}\n\n{}\n\n", f["severity"].get<std::string>(),
                           mdEscape(f["rule"].get<std::string>()),
                           mdEscape(f["title"].get<std::string>()));
        for (const auto& e : f["evidence"])
            out += fmt::format("- {}\n", mdEscape(e.get<std::string>()));
        out += fmt::format("\n**Advice:** {}\n\n**Estimated gain:** {}\n\n",
                           mdEscape(f["advice"].get<std::string>()), gainText(p, f));
    }
    if (const std::string note = notEvaluatedNote(p); !note.empty())
        out += fmt::format("\n**Not evaluated:** {}.\n", mdEscape(note));
    if (j.contains("compile_notes")) {
        out += "## Compiler notes\n\n";
        for (const auto& n : j["compile_notes"])
            out += fmt::format("- {}\n", mdEscape(n.get<std::string>()));
    }
    return out;
}

} // namespace

nlohmann::json reportJson(const Profile& p, int topOps) {
    nlohmann::json j = {{"summary", summaryJson(p)},
                        {"pipes", pipesJson(p)},
                        {"top_ops", opsJson(p, p.attribution.ops, topOps)},
                        {"findings", findingsJson(p)},
                        {"rules_checked", checkedRules(p)},
                        {"not_evaluated", notEvaluatedJson(p)}};
    if (!p.attribution.loops.empty()) j["loops"] = opsJson(p, p.attribution.loops, topOps);
    if (p.model.measured) j["top_kernels"] = topKernelsJson(p, topOps);
    if (!p.model.compileNotes.empty()) j["compile_notes"] = groupedNotes(p.model.compileNotes);
    if (!p.model.fileWarnings.empty()) j["file_warnings"] = p.model.fileWarnings;
    return j;
}

std::string renderReport(const Profile& p, const ReportOptions& options) {
    nlohmann::json j = reportJson(p, options.topOps);
    switch (options.format) {
    case ReportFormat::Json:
        return jsonText(j, 2) + "\n";
    case ReportFormat::Markdown:
        return renderMarkdown(p, j);
    default:
        return renderText(p, j);
    }
}

std::string gainText(const Profile& p, const Finding& f) {
    const std::string_view unit = p.model.timeUnit();
    return fmt::format("{:.0f} {} ({:.1f}% of the run; range {:.0f}–{:.0f} {}, {:.2f}–{:.2f} us)",
                       f.gainCycles, unit, 100 * f.gainFraction, f.gainLow, f.gainHigh, unit,
                       us(p, f.gainLow), us(p, f.gainHigh));
}

} // namespace pto::prof
