// Layout of one job: Graphviz dot (only on the layout thread) or the built-in layered layout
// for graphs too big for dot; and the DOT text of a job for export.
#pragma once

#include "gui/model/LayoutTypes.h"

struct GVC_s;

namespace pto::gui {

/// Owns a Graphviz context. Graphviz is not thread-safe: create and use it on one thread.
class GraphvizLayout {
public:
    GraphvizLayout();
    ~GraphvizLayout();
    GraphvizLayout(const GraphvizLayout&) = delete;
    GraphvizLayout& operator=(const GraphvizLayout&) = delete;

    /// dot layout of the job (no size check). Never throws: errors come back in the result.
    LayoutResult layout(const LayoutJob& job);

private:
    GVC_s* m_gvc = nullptr;
};

/// Longest-path ranks, barycentre order within ranks, long ranks wrapped into rows; linear
/// time, straight edges. For graphs dot cannot lay out interactively.
LayoutResult layeredLayout(const LayoutJob& job);

/// The job as a DOT digraph: fixed-size boxes, `withLabels` adds node and edge labels.
std::string layoutDot(const LayoutJob& job, bool withLabels);

} // namespace pto::gui
