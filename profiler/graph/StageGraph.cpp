// DOT text of a recorded stage and its SVG layout through libgvc.
#include "profiler/graph/StageGraph.h"

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <memory>
#include <mutex>
#include <stdexcept>

namespace pto::prof {
namespace {

std::string nodeLabel(const tracedb::NodeRow& n) {
    std::string label = n.name.empty() ? n.kind : n.name + "\n" + n.kind;
    std::string type;
    if (!n.shape.empty()) type += n.shape;
    if (!n.dtype.empty()) type += (type.empty() ? "" : " ") + n.dtype;
    if (!n.space.empty()) type += (type.empty() ? "" : " ") + n.space;
    if (!n.core.empty()) type += (type.empty() ? "" : " ") + n.core;
    if (!type.empty()) label += "\n" + type;
    if (n.srcLine) label += fmt::format("\nline {}", *n.srcLine);
    return label;
}

std::string fillOf(const tracedb::NodeRow& n) {
    if (n.kind == "arg" || n.kind == "return") return "#eeeeee";
    if (n.kind == "matmul" || n.core == "AIC" || n.core == "aic") return "#cfe2ff";
    if (n.kind == "tload" || n.kind == "tstore" || n.kind == "tmove") return "#fff3cd";
    return "#d1e7dd";
}

std::mutex& graphvizMutex() {
    static std::mutex m;
    return m;
}

} // namespace

std::string dotEscape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\': // also defuses Graphviz's \N \G \l escapes
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            break;
        default:
            out += c;
        }
    }
    return out;
}

tracedb::StageRow findStage(const tracedb::TraceReader& reader, const std::string& spec) {
    auto stages = reader.stages();
    if (stages.empty() && reader.meta("trace_source").value_or("") == "measured")
        throw std::invalid_argument(fmt::format(
            "'{}' is a measured trace (pto import): it has no IR, so no stage graph; its "
            "timeline exports (chrome, csv) and the html report work",
            reader.path().string()));
    if (stages.empty())
        throw std::invalid_argument(fmt::format("'{}' holds no IR stages", reader.path().string()));
    if (spec.empty()) return stages.front();
    const tracedb::StageRow* match = nullptr;
    for (const auto& s : stages) {
        if (s.name == spec || std::to_string(s.id) == spec) return s;
        if (tracedb::enumName(s.level) == spec) match = &s; // the last of the level
    }
    if (match) return *match;
    std::string names;
    for (const auto& s : stages) names += (names.empty() ? "" : ", ") + s.name;
    throw std::invalid_argument(fmt::format("no stage '{}' in '{}'; stages: {} (or a level: "
                                            "tensor, tile, block, exec, pto)",
                                            spec, reader.path().string(), names));
}

std::string stageDot(const tracedb::TraceReader& reader, const tracedb::StageRow& stage) {
    std::string dot = fmt::format(
        "digraph \"{}\" {{\n  graph [rankdir=TB, newrank=true, nslimit=0.1, "
        "fontname=\"Helvetica\", "
        "label=\"{}\", labelloc=t];\n  node [shape=box, style=\"rounded,filled\", "
        "fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8, "
        "color=\"#666666\"];\n",
        dotEscape(stage.name),
        dotEscape(stage.name + " (" + std::string(tracedb::enumName(stage.level)) + ")"));
    for (const auto& n : reader.nodes(stage.id))
        dot += fmt::format("  n{} [label=\"{}\", fillcolor=\"{}\", id=\"node{}\"];\n",
                           n.id < 0 ? fmt::format("m{}", -n.id) : std::to_string(n.id),
                           dotEscape(nodeLabel(n)), fillOf(n), n.id);
    auto nodeName = [](std::int64_t id) {
        return id < 0 ? fmt::format("nm{}", -id) : fmt::format("n{}", id);
    };
    for (const auto& e : reader.edges(stage.id)) {
        dot += fmt::format("  {} -> {}", nodeName(e.src), nodeName(e.dst));
        if (!e.label.empty()) dot += fmt::format(" [label=\"{}\"]", dotEscape(e.label));
        dot += ";\n";
    }
    dot += "}\n";
    return dot;
}

std::string stageSvg(const tracedb::TraceReader& reader, const tracedb::StageRow& stage,
                     std::int64_t maxNodes) {
    if (stage.nodeCount > maxNodes)
        throw std::invalid_argument(fmt::format(
            "stage {} has {} nodes; laying out more than {} with dot takes minutes — export "
            "--format dot and lay it out with sfdp, or pick an earlier stage",
            stage.name, stage.nodeCount, maxNodes));
    std::string dot = stageDot(reader, stage);
    std::lock_guard lock(graphvizMutex());
    std::unique_ptr<GVC_t, int (*)(GVC_t*)> gvc(gvContext(), gvFreeContext);
    Agraph_t* graph = agmemread(dot.c_str());
    if (!graph) throw std::runtime_error("Graphviz could not read the stage graph");
    std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> owner(graph, agclose);
    if (gvLayout(gvc.get(), graph, "dot") != 0) throw std::runtime_error("Graphviz layout failed");
    char* data = nullptr;
    unsigned int length = 0;
    int rendered = gvRenderData(gvc.get(), graph, "svg", &data, &length);
    std::string svg = rendered == 0 && data ? std::string(data, length) : std::string();
    if (data) gvFreeRenderData(data);
    gvFreeLayout(gvc.get(), graph);
    if (svg.empty()) throw std::runtime_error("Graphviz could not render SVG");
    auto start = svg.find("<svg");
    return start == std::string::npos ? svg : svg.substr(start);
}

} // namespace pto::prof
