// Renders the HTML report: tables and hand-written SVG charts, no scripts, no external files.
#include "profiler/export/HtmlReport.h"

#include "profiler/report/KernelTable.h"
#include "profiler/report/MeasuredSummary.h"
#include "profiler/report/Report.h"
#include "profiler/rules/Rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pto::prof {
namespace {

constexpr std::string_view kStyle = R"(
body{font-family:Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
.finding{border-left:4px solid #999;padding:4px 12px;margin:10px 0;background:#fafafa}
.critical{border-color:#c0392b}.warning{border-color:#e67e22}.info{border-color:#2980b9}
.sev{font-weight:bold;text-transform:uppercase;font-size:12px}
svg text{font-family:Helvetica,Arial,sans-serif}
)";

std::string esc(std::string_view s) {
    return htmlEscape(s);
}

std::string us(const Profile& p, double cycles) {
    return fmt::format("{:.3f} us", cycles * 1e6 / p.model.peaks.clockHz);
}

std::string summaryTable(const Profile& p) {
    const Throughput& t = p.throughput;
    std::string rows;
    auto row = [&](std::string_view k, const std::string& v) {
        rows += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", esc(k), esc(v));
    };
    row("trace", p.model.path);
    row("program", "@" + p.model.program);
    if (p.model.measured) { // what the profiler files hold, as `pto report` shows it
        for (const SummaryRow& r : measuredSummaryRows(measuredSummaryJson(p)))
            row(r.label, r.value);
        return "<table>\n" + rows + "</table>\n";
    }
    row("arch", p.model.peaks.name);
    row("time",
        fmt::format("{} cycles = {}", p.model.totalCycles, us(p, double(p.model.totalCycles))));
    row("tasks", fmt::format("{} on {}/{} AIC and {}/{} AIV cores", p.model.tasks.size(), t.aicUsed,
                             p.model.peaks.aicCores, t.aivUsed, p.model.peaks.aivCores));
    row("cube", fmt::format("{:.3f} of {:.1f} TFLOP/s ({:.1f}%)", t.cubeTflops, t.cubePeakTflops,
                            100 * t.cubeUtilization));
    row("vector", fmt::format("{:.3f} of {:.1f} TFLOP/s ({:.1f}%)", t.vectorTflops,
                              t.vectorPeakTflops, 100 * t.vectorUtilization));
    row("GM bandwidth", fmt::format("{:.1f} of {:.1f} GB/s ({:.1f}%), {} bytes", t.gbps, t.peakGbps,
                                    100 * t.bandwidthUtilization, t.gmBytes));
    row("arithmetic intensity", fmt::format("{:.2f} FLOP/B (ridge {:.1f})", t.intensity, t.ridge));
    const std::string reason = p.runBound.reason();
    row("bound",
        fmt::format("{}{} at {:.0f}% of the roof", p.runBound.label(),
                    reason.empty() ? "" : " (" + reason + ")", 100 * p.runBound.roofFraction));
    row("critical path", fmt::format("{} tasks, {} cycles in gaps", p.criticalPath.steps.size(),
                                     p.criticalPath.gapCycles));
    row("tail",
        fmt::format("{} cycles with fewer than half the used cores busy", p.imbalance.tailCycles));
    return "<table>\n" + rows + "</table>\n";
}

// The rules that could not run on this trace (a --trace tasks run has no pipe times); "" when
// every rule ran.
std::string notEvaluatedHtml(const Profile& p) {
    const std::string note = notEvaluatedNote(p);
    return note.empty() ? "" : fmt::format("<p><b>Not evaluated:</b> {}.</p>\n", esc(note));
}

std::string findingsHtml(const Profile& p) {
    if (p.findings.empty())
        return fmt::format("<p>No findings: {}.</p>\n", esc(noFindingsNote(p))) +
               notEvaluatedHtml(p);
    std::string out;
    for (const Finding& f : p.findings) {
        std::string sev(severityName(f.severity));
        out +=
            fmt::format("<div class=\"finding {}\"><span class=\"sev\">{}</span> <b>{}</b>: {}<ul>",
                        sev, sev, esc(f.rule), esc(f.title));
        for (const auto& e : f.evidence) out += fmt::format("<li>{}</li>", esc(e));
        const std::string_view unit = p.model.timeUnit();
        out += fmt::format("</ul><p><b>Advice:</b> {}</p><p><b>Estimated gain:</b> {:.0f} {} "
                           "({:.1f}% of the run), range {:.0f}&ndash;{:.0f} {}</p></div>\n",
                           esc(f.advice), f.gainCycles, unit, 100 * f.gainFraction, f.gainLow,
                           f.gainHigh, unit);
    }
    return out + notEvaluatedHtml(p);
}

// A run traced at --trace tasks: no op has instruction cycles (chart and table say so).
constexpr std::string_view kOpsNotRecorded =
    "<p>Op cycles are not recorded at this trace level (pto run --trace instructions).</p>\n";

// Horizontal bars: the top ops by instruction cycles.
std::string opsChart(const Profile& p) {
    std::size_t n = std::min<std::size_t>(p.attribution.ops.size(), 12);
    if (n == 0 && !p.model.recordsInstrCycles()) return std::string(kOpsNotRecorded);
    if (n == 0) return "<p>No instruction cycles attributed.</p>\n";
    int rowH = 22, labelW = 260, barW = 560, h = int(n) * rowH + 10;
    double maxCycles = double(std::max<std::int64_t>(p.attribution.ops[0].cycles, 1));
    std::string svg =
        fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                    "role=\"img\" aria-label=\"top ops by cycles\">\n",
                    labelW + barW + 120, h);
    for (std::size_t i = 0; i < n; ++i) {
        const OpShare& s = p.attribution.ops[i];
        const TensorOpCost& op = p.model.tensorOps[s.op];
        int y = int(i) * rowH + 5;
        double w = barW * double(s.cycles) / maxCycles;
        std::string label = fmt::format("line {}: {} {}", op.srcLine, op.kind, op.name);
        if (op.loop >= 0) label += " in " + op.loopName;
        svg +=
            fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{}</text>"
                        "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#4a90d9\">"
                        "<title>{}</title></rect><text x=\"{:.1f}\" y=\"{}\" font-size=\"11\">{} "
                        "({:.1f}%)</text>\n",
                        labelW - 6, y + 14, esc(label), labelW, y, w, rowH - 6, esc(label),
                        labelW + w + 4, y + 14, s.cycles, 100 * s.share);
    }
    return svg + "</svg>\n";
}

// Width of the core name column: 70 px, or wide enough for a measured trace's stream tracks
// ("Stream 2 MIX_AIV") at about 0.6 em per character.
int coreLabelWidth(const Profile& p, int fontPx) {
    std::size_t longest = 0;
    if (p.model.measured)
        for (const CoreInfo& core : p.model.cores) longest = std::max(longest, core.name.size());
    return std::max(70, int(double(longest) * 0.6 * fontPx) + 10);
}

// Pipe busy ratio per used core, one coloured cell per pipe.
std::string pipeHeatmap(const Profile& p) {
    std::vector<std::size_t> used;
    for (std::size_t c = 0; c < p.model.cores.size(); ++c)
        if (p.pipeUtil.cores[c].activeCycles > 0) used.push_back(c);
    if (used.empty()) return "<p>No pipe activity traced.</p>\n";
    const PipeId pipes[] = {PipeId::S,   PipeId::MTE2, PipeId::MTE1, PipeId::M,
                            PipeId::FIX, PipeId::V,    PipeId::MTE3};
    int cellW = 64, cellH = 16, labelW = coreLabelWidth(p, 11), top = 20;
    int h = top + int(used.size()) * cellH + 4;
    std::string svg =
        fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                    "role=\"img\" aria-label=\"pipe utilization\">\n",
                    labelW + 7 * cellW + 10, h);
    for (int i = 0; i < 7; ++i)
        svg +=
            fmt::format("<text x=\"{}\" y=\"14\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
                        labelW + i * cellW + cellW / 2, pipeIdName(pipes[i]));
    for (std::size_t r = 0; r < used.size(); ++r) {
        const CoreInfo& core = p.model.cores[used[r]];
        const PipeRatios& ratios = p.pipeUtil.cores[used[r]];
        int y = top + int(r) * cellH;
        svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
                           labelW - 6, y + 12, esc(core.name));
        for (int i = 0; i < 7; ++i) {
            std::string name = heldRatioName(p.model, core.type, pipes[i]);
            if (name.empty()) continue; // a pipe the core lacks or the profiler files do not give
            double v = std::clamp(ratios.ratio[std::size_t(pipes[i])], 0.0, 1.0);
            int shade = int(255 - 200 * v);
            svg += fmt::format(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"rgb({},{},255)\">"
                "<title>{} {} {:.1f}%</title></rect><text x=\"{}\" y=\"{}\" font-size=\"10\" "
                "text-anchor=\"middle\">{:.0f}%</text>",
                labelW + i * cellW, y, cellW - 2, cellH - 2, shade, shade, esc(core.name),
                esc(name), 100 * v, labelW + i * cellW + cellW / 2, y + 11, 100 * v);
        }
        svg += "\n";
    }
    return svg + "</svg>\n";
}

// Log-log roofline of the tasks against one core's roofs.
std::string rooflineChart(const Profile& p) {
    int w = 620, h = 360, left = 60, bottom = 40, top = 10, right = 20;
    double xMin = 0.01, xMax = 1000, yMin = 1, yMax = 1e5;
    auto x = [&](double v) {
        return left + (w - left - right) *
                          (std::log10(std::clamp(v, xMin, xMax)) - std::log10(xMin)) /
                          (std::log10(xMax) - std::log10(xMin));
    };
    auto y = [&](double v) {
        return h - bottom -
               (h - bottom - top) * (std::log10(std::clamp(v, yMin, yMax)) - std::log10(yMin)) /
                   (std::log10(yMax) - std::log10(yMin));
    };
    std::string svg =
        fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                    "role=\"img\" aria-label=\"roofline\">\n<rect x=\"{}\" y=\"{}\" width=\"{}\" "
                    "height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n",
                    w, h, left, top, w - left - right, h - top - bottom);
    for (double d = xMin; d <= xMax * 1.01; d *= 10)
        svg += fmt::format(
            "<text x=\"{:.1f}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{:g}</text>", x(d),
            h - bottom + 14, d);
    for (double d = yMin; d <= yMax * 1.01; d *= 10)
        svg += fmt::format(
            "<text x=\"{}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"end\">{:g}</text>",
            left - 4, y(d) + 3, d);
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">FLOP per GM byte</text>",
        (left + w) / 2, h - 6);
    svg += fmt::format("<text x=\"12\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 12 {})\" "
                       "text-anchor=\"middle\">FLOP per cycle (one core)</text>\n",
                       h / 2, h / 2);
    const ArchPeaks& a = p.model.peaks;
    struct Roof {
        const char* name;
        double peak, bw;
        const char* colour;
    };
    const Roof roofs[] = {{"AIC", a.cubeFlopsPerCycle, gmPathsTotal(a, "AIC"), "#c0392b"},
                          {"AIV", a.vectorFlopsPerCycle, gmPathsTotal(a, "AIV"), "#27ae60"}};
    for (const Roof& r : roofs) {
        double ridge = r.peak / r.bw;
        svg += fmt::format(
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{:.1f},{:.1f} "
            "{:.1f},{:.1f} {:.1f},{:.1f}\"><title>{} roof: {:.0f} FLOP/cycle, {:.1f} "
            "B/cycle</title></polyline>"
            "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"{}\">{} peak</text>\n",
            r.colour, x(xMin), y(xMin * r.bw), x(ridge), y(r.peak), x(xMax), y(r.peak), r.name,
            r.peak, r.bw, x(xMax) - 60, y(r.peak) - 4, r.colour, r.name);
    }
    for (std::size_t i = 0; i < p.model.tasks.size(); ++i) {
        const TaskRun& t = p.model.tasks[i];
        const RooflinePoint& pt = p.roofline.tasks[i];
        if (!t.ran() || pt.flops <= 0 || pt.bytes <= 0) continue;
        svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\" "
                           "fill-opacity=\"0.6\"><title>{}: {:.2f} FLOP/B, {:.1f} FLOP/cycle, "
                           "{}</title></circle>\n",
                           x(pt.intensity), y(pt.flopsPerCycle),
                           t.coreType == "AIC" ? "#c0392b" : "#27ae60", esc(t.name), pt.intensity,
                           pt.flopsPerCycle, esc(p.bound.tasks[i].label()));
    }
    return svg + "</svg>\n";
}

// Task timeline: one row per used core, one bar per task.
std::string timelineChart(const Profile& p) {
    std::vector<int> rowOf(p.model.cores.size(), -1);
    int rows = 0;
    for (const TaskRun& t : p.model.tasks)
        if (t.ran() && rowOf[std::size_t(t.core)] < 0) rowOf[std::size_t(t.core)] = rows++;
    if (rows == 0) return "<p>No tasks ran.</p>\n";
    int labelW = coreLabelWidth(p, 9), w = 900, rowH = 12, top = 6;
    double total = double(std::max<std::int64_t>(p.model.totalCycles, 1));
    std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
                                  "height=\"{}\" role=\"img\" aria-label=\"task timeline\">\n",
                                  labelW + w + 10, top + rows * rowH + 20);
    for (std::size_t c = 0; c < p.model.cores.size(); ++c)
        if (rowOf[c] >= 0)
            svg +=
                fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"end\">{}</text>",
                            labelW - 4, top + rowOf[c] * rowH + 9, esc(p.model.cores[c].name));
    const std::int64_t origin = p.model.startCycle; // the run's start is the chart's 0
    const std::string_view unit = p.model.timeUnit();
    for (const TaskRun& t : p.model.tasks) {
        if (!t.ran()) continue;
        const std::int64_t start = t.start - origin, end = t.end - origin;
        double x0 = labelW + w * double(start) / total, x1 = labelW + w * double(end) / total;
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
                           "fill=\"{}\"><title>{}: {}–{} {}</title></rect>",
                           x0, top + rowOf[std::size_t(t.core)] * rowH, std::max(0.5, x1 - x0),
                           rowH - 2, t.coreType == "AIC" ? "#e08e7b" : "#7bc59a", esc(t.name),
                           start, end, unit);
    }
    svg += fmt::format("\n<text x=\"{}\" y=\"{}\" font-size=\"10\">0</text><text x=\"{}\" y=\"{}\" "
                       "font-size=\"10\" text-anchor=\"end\">{} {}</text>\n",
                       labelW, top + rows * rowH + 14, labelW + w, top + rows * rowH + 14,
                       p.model.totalCycles, unit);
    return svg + "</svg>\n";
}

// The top device kernels of a measured trace by time (`pto report`'s table): what it has in
// place of Tensor ops.
std::string kernelsTable(const Profile& p) {
    std::string out = "<table>\n<tr><th>us</th><th>share</th><th>core</th><th>bound</th>"
                      "<th>kernel</th><th>busiest pipe</th></tr>\n";
    for (const auto& k : topKernelsJson(p, 12))
        out +=
            fmt::format("<tr><td class=\"num\">{:.3f}</td><td class=\"num\">{:.1f}%</td><td>{}</td>"
                        "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
                        k["duration_us"].get<double>(), 100 * k["share"].get<double>(),
                        esc(k["core_type"].get<std::string>()), esc(k["bound"].get<std::string>()),
                        esc(k["name"].get<std::string>()), esc(busiestPipeText(k)));
    return out + "</table>\n";
}

std::string opsTable(const Profile& p) {
    if (!p.model.recordsInstrCycles()) return std::string(kOpsNotRecorded);
    std::string out =
        "<table>\n<tr><th>line</th><th>op</th><th>name</th><th>cycles</th><th>share</th>"
        "<th>FLOPs</th><th>GM bytes</th><th>roof</th><th>bound</th></tr>\n";
    // Program order; a loop's row is the total of its body ops', which follow it. Directives
    // are no ops (the text, Markdown and JSON reports do not list them either).
    for (std::size_t i : programOrder(p.model)) {
        const TensorOpCost& op = p.model.tensorOps[i];
        if (op.isDirective()) continue;
        double share = p.attribution.attributed > 0
                           ? double(op.cycles()) / double(p.attribution.attributed)
                           : 0;
        std::string name = op.name;
        if (op.isLoopTotal())
            name = fmt::format("\"{}\": total of its {} body op{}", op.loopName, op.bodyOps,
                               op.bodyOps == 1 ? "" : "s");
        else if (op.loop >= 0)
            name += " in " + op.loopName;
        out += fmt::format(
            "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{:.1f}%</td><td class=\"num\">{:.4g}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{:.0f}%</td><td>{}</td></tr>\n",
            op.srcLine, esc(op.kind), esc(name), op.cycles(), 100 * share, op.flops, op.gmBytes,
            100 * p.roofline.tensorOps[i].roofFraction, esc(p.bound.tensorOps[i].label()));
    }
    return out + "</table>\n";
}

} // namespace

std::string htmlEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string renderHtmlReport(const Profile& p, const HtmlOptions& options) {
    std::string title = "PTO Studio profile: @" + p.model.program;
    std::string html =
        fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<title>{}</title><style>{}</style></head><body>\n<h1>{}</h1>\n",
                    esc(title), kStyle, esc(title));
    html += "<h2>Summary</h2>\n" + summaryTable(p);
    html += "<h2>Findings</h2>\n" + findingsHtml(p);
    if (p.model.measured) { // no IR and no FLOP or byte counts: kernels, pipes and time only
        html += "<h2>Top kernels by time (measured)</h2>\n" + kernelsTable(p);
        html += "<h2>Pipe utilization per stream</h2>\n" + pipeHeatmap(p);
        html += "<h2>Kernel timeline</h2>\n" + timelineChart(p);
    } else {
        html += "<h2>Top ops by cycles</h2>\n" + opsChart(p);
        html += "<h2>Pipe utilization per core</h2>\n" + pipeHeatmap(p);
        html += "<h2>Roofline (tasks)</h2>\n" + rooflineChart(p);
        html += "<h2>Task timeline</h2>\n" + timelineChart(p);
        html += "<h2>Program ops</h2>\n" + opsTable(p);
    }
    if (!options.graphSvg.empty())
        html += "<h2>" + esc(options.graphTitle.empty() ? "Graph" : options.graphTitle) +
                "</h2>\n" + options.graphSvg + "\n";
    html += "<p style=\"color:#888;font-size:11px\">Generated by pto export --format "
            "html.</p>\n</body></html>\n";
    return html;
}

} // namespace pto::prof
