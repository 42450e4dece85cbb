// One self-contained HTML report of a run: summary, findings, top ops, and inline SVG charts
// (ops by cycles, pipe utilization per core, roofline, task timeline), every label escaped. A
// measured trace (pto import) gets its own summary (profiler/report/MeasuredSummary.h), its top
// kernels, pipe utilization per stream and kernel timeline: no roofline, no Tensor ops.
#pragma once

#include "profiler/Profile.h"

#include <string>
#include <string_view>

namespace pto::prof {

struct HtmlOptions {
    std::string graphSvg;   ///< an IR stage drawn by Graphviz (inlined as is), optional
    std::string graphTitle; ///< its heading
};

std::string renderHtmlReport(const Profile& profile, const HtmlOptions& options = {});

/// Escapes & < > " ' for HTML text and attribute values.
std::string htmlEscape(std::string_view text);

} // namespace pto::prof
