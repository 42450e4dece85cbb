// Graphviz dot through libgvc/cgraph (positions and splines read back, y flipped) and a
// linear-time layered layout for graphs beyond dot's interactive range.
#include "gui/model/LayoutEngine.h"

#include "profiler/graph/StageGraph.h"

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>

namespace pto::gui {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<QPointF> straight(QPointF a, QPointF b) {
    return {a, a, b, b};
}

std::vector<QPointF> splineOf(Agedge_t* e, double top) {
    std::vector<QPointF> points;
    const splines* spl = ED_spl(e);
    if (!spl || spl->size == 0) return points;
    const bezier& bz = spl->list[0];
    auto flip = [top](pointf p) { return QPointF(p.x, top - p.y); };
    if (bz.sflag) points = {flip(bz.sp), flip(bz.sp)};
    for (int i = 0; i < bz.size; ++i) points.push_back(flip(bz.list[i]));
    if (bz.sflag && bz.size > 0) points.insert(points.begin() + 2, flip(bz.list[0]));
    if (bz.eflag) {
        const QPointF last = points.back();
        points.insert(points.end(), {last, flip(bz.ep), flip(bz.ep)});
    }
    return points;
}

} // namespace

GraphvizLayout::GraphvizLayout() : m_gvc(gvContext()) {}
GraphvizLayout::~GraphvizLayout() {
    if (m_gvc) gvFreeContext(m_gvc);
}

LayoutResult GraphvizLayout::layout(const LayoutJob& job) {
    const auto start = Clock::now();
    LayoutResult result;
    result.engine = "dot";
    if (!m_gvc) {
        result.error = "Graphviz could not create a context";
        return result;
    }
    const std::string dot = layoutDot(job, false);
    std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> graph(agmemread(dot.c_str()), agclose);
    if (!graph) {
        result.error =
            fmt::format("Graphviz could not read the graph of {} nodes", job.nodes.size());
        return result;
    }
    if (gvLayout(m_gvc, graph.get(), "dot") != 0) {
        result.error = fmt::format("Graphviz dot failed on {} nodes", job.nodes.size());
        return result;
    }
    const boxf bb = GD_bb(graph.get());
    const double top = bb.UR.y;
    result.bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    std::vector<Agnode_t*> nodes(job.nodes.size(), nullptr);
    for (std::size_t i = 0; i < job.nodes.size(); ++i) {
        std::string name = fmt::format("n{}", i);
        nodes[i] = agnode(graph.get(), name.data(), 0);
        if (!nodes[i]) continue;
        const pointf c = ND_coord(nodes[i]);
        const double w = ND_width(nodes[i]) * 72, h = ND_height(nodes[i]) * 72;
        result.nodes.emplace_back(c.x - w / 2, top - c.y - h / 2, w, h);
    }
    for (const auto& [a, b] : job.edges) {
        Agedge_t* e =
            nodes[std::size_t(a)] && nodes[std::size_t(b)]
                ? agedge(graph.get(), nodes[std::size_t(a)], nodes[std::size_t(b)], nullptr, 0)
                : nullptr;
        result.edges.push_back(e ? splineOf(e, top) : std::vector<QPointF>{});
    }
    gvFreeLayout(m_gvc, graph.get());
    result.ok = result.nodes.size() == job.nodes.size();
    if (!result.ok) result.error = "Graphviz lost nodes of the graph";
    result.seconds = secondsSince(start);
    return result;
}

std::string layoutDot(const LayoutJob& job, bool withLabels) {
    std::string dot = fmt::format(
        "digraph \"{}\" {{\n  graph [rankdir={}, newrank=true, nslimit=0.1, nodesep=0.25, "
        "ranksep=0.45];\n  node [shape=box, fixedsize=true, fontname=\"Helvetica\", "
        "fontsize=10, style=\"rounded,filled\", fillcolor=\"#d1e7dd\"];\n  edge [fontname="
        "\"Helvetica\", fontsize=8, color=\"#666666\"];\n",
        prof::dotEscape(job.title), job.leftToRight ? "LR" : "TB");
    for (std::size_t i = 0; i < job.nodes.size(); ++i) {
        const LayoutNodeSpec& n = job.nodes[i];
        dot += fmt::format("  n{} [width={:.3f}, height={:.3f}", i, n.width / 72, n.height / 72);
        if (withLabels) dot += fmt::format(", label=\"{}\"", prof::dotEscape(n.label));
        if (withLabels && n.group) dot += ", fillcolor=\"#e7e1f5\", style=\"filled\"";
        if (!withLabels) dot += ", label=\"\"";
        dot += "];\n";
    }
    for (std::size_t i = 0; i < job.edges.size(); ++i) {
        dot += fmt::format("  n{} -> n{}", job.edges[i].first, job.edges[i].second);
        if (withLabels && i < job.edgeLabels.size() && !job.edgeLabels[i].empty())
            dot += fmt::format(" [label=\"{}\"]", prof::dotEscape(job.edgeLabels[i]));
        dot += ";\n";
    }
    dot += "}\n";
    return dot;
}

LayoutResult layeredLayout(const LayoutJob& job) {
    const auto start = Clock::now();
    const std::size_t n = job.nodes.size();
    LayoutResult result;
    result.engine = "layered";
    // Longest-path ranks (Kahn's order; nodes on cycles keep rank 0).
    std::vector<int> indegree(n, 0), rank(n, 0), outStart(n + 1, 0), out(job.edges.size());
    for (const auto& [a, b] : job.edges) {
        ++indegree[std::size_t(b)];
        ++outStart[std::size_t(a) + 1];
    }
    std::partial_sum(outStart.begin(), outStart.end(), outStart.begin());
    std::vector<int> fill(outStart.begin(), outStart.end() - 1);
    for (const auto& [a, b] : job.edges) out[std::size_t(fill[std::size_t(a)]++)] = b;
    std::vector<int> queue;
    for (std::size_t i = 0; i < n; ++i)
        if (indegree[i] == 0) queue.push_back(int(i));
    for (std::size_t q = 0; q < queue.size(); ++q) {
        const int v = queue[q];
        for (int k = outStart[std::size_t(v)]; k < outStart[std::size_t(v) + 1]; ++k) {
            const int w = out[std::size_t(k)];
            rank[std::size_t(w)] = std::max(rank[std::size_t(w)], rank[std::size_t(v)] + 1);
            if (--indegree[std::size_t(w)] == 0) queue.push_back(w);
        }
    }
    // Order within a rank by the mean position of predecessors (one downward sweep).
    const int ranks = n ? *std::max_element(rank.begin(), rank.end()) + 1 : 0;
    std::vector<double> key(n, 0), weight(n, 0), pos(n, 0);
    std::vector<std::vector<int>> byRank(static_cast<std::size_t>(ranks));
    for (std::size_t i = 0; i < n; ++i) byRank[std::size_t(rank[i])].push_back(int(i));
    // Spacing within a rank (`along`) and between ranks (`across`), by direction.
    double maxW = 16, maxH = 8;
    for (const auto& spec : job.nodes) {
        maxW = std::max(maxW, spec.width);
        maxH = std::max(maxH, spec.height);
    }
    const double cellAlong = job.leftToRight ? maxH + 16 : maxW + 24;
    const double cellAcross = job.leftToRight ? maxW + 60 : maxH + 40;
    const std::size_t perRow = std::max<std::size_t>(32, std::size_t(std::sqrt(double(n)) * 2));
    result.nodes.resize(n);
    double row = 0;
    for (auto& members : byRank) {
        for (int v : members)
            if (weight[std::size_t(v)] > 0)
                key[std::size_t(v)] /= weight[std::size_t(v)];
            else
                key[std::size_t(v)] = v;
        std::stable_sort(members.begin(), members.end(),
                         [&](int a, int b) { return key[std::size_t(a)] < key[std::size_t(b)]; });
        for (std::size_t k = 0; k < members.size(); ++k) {
            const int v = members[k];
            const std::size_t inRow = std::min(perRow, members.size() - k / perRow * perRow);
            const double col = double(k % perRow) + double(perRow - inRow) / 2;
            const double along = col * cellAlong;
            const double across = (row + double(k / perRow)) * cellAcross;
            const auto& spec = job.nodes[std::size_t(v)];
            const QPointF c = job.leftToRight ? QPointF(across, along) : QPointF(along, across);
            result.nodes[std::size_t(v)] =
                QRectF(c.x() - spec.width / 2, c.y() - spec.height / 2, spec.width, spec.height);
            pos[std::size_t(v)] = double(k);
            for (int e = outStart[std::size_t(v)]; e < outStart[std::size_t(v) + 1]; ++e) {
                key[std::size_t(out[std::size_t(e)])] += double(k);
                weight[std::size_t(out[std::size_t(e)])] += 1;
            }
        }
        row += std::ceil(double(members.size()) / double(perRow));
    }
    result.edges.reserve(job.edges.size());
    for (const auto& [a, b] : job.edges) {
        const QRectF& s = result.nodes[std::size_t(a)];
        const QRectF& d = result.nodes[std::size_t(b)];
        result.edges.push_back(
            job.leftToRight ? straight({s.right(), s.center().y()}, {d.left(), d.center().y()})
                            : straight({s.center().x(), s.bottom()}, {d.center().x(), d.top()}));
    }
    QRectF bounds;
    for (const auto& r : result.nodes) bounds |= r;
    result.bounds = bounds.adjusted(-10, -10, 10, 10);
    result.ok = true;
    result.seconds = secondsSince(start);
    return result;
}

} // namespace pto::gui
