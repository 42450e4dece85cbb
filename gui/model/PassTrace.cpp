// Pass trace from a trace file: descendants through node.parent_id along the stage chain, one
// signature line per node (numbered names canonicalised), stages where the lines change.
#include "gui/model/PassTrace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace pto::gui {
namespace {

/// "%12" names renamed %v0, %v1 … in order of appearance (renumbering is not a change).
std::string canonical(const std::vector<std::string>& lines) {
    std::map<std::string, std::string> names;
    std::string out;
    for (const std::string& text : lines) {
        for (std::size_t i = 0; i < text.size();) {
            if (text[i] == '%' && i + 1 < text.size() &&
                std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
                std::size_t j = i + 1;
                while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
                const auto it =
                    names.try_emplace(text.substr(i, j - i), fmt::format("%v{}", names.size()))
                        .first;
                out += it->second;
                i = j;
                continue;
            }
            out += text[i++];
        }
        out += '\n';
    }
    return out;
}

std::string lineOf(const tracedb::NodeRow& n) {
    return fmt::format("{} = {} : {} {}{} {}", n.name, n.kind, n.dtype, n.shape,
                       n.space.empty() ? "" : " " + n.space, n.attrs.empty() ? "{}" : n.attrs);
}

bool isOpLevel(tracedb::StageLevel level) {
    return level == tracedb::StageLevel::Tensor || level == tracedb::StageLevel::Tile;
}

} // namespace

std::vector<PassStep> passTrace(const tracedb::TraceReader& reader, std::int64_t stageId,
                                std::int64_t nodeId) {
    std::vector<PassStep> steps;
    const std::vector<tracedb::StageRow> stages = reader.stages();
    std::set<std::int64_t> current{nodeId};
    std::vector<std::string> lines;
    for (const tracedb::NodeRow& n : reader.nodes(stageId))
        if (n.id == nodeId) lines.push_back(lineOf(n));
    std::int64_t at = stageId;
    for (const tracedb::StageRow& s : stages) {
        if (!s.parentStageId || *s.parentStageId != at) continue; // stages are in ord order
        if (!isOpLevel(s.level)) break;
        const std::vector<tracedb::NodeRow> nodes = reader.nodes(s.id);
        // A stage recorded as its row only (big, or --record levels): the next stage recorded
        // in full names its parents in `at` (the recorder composes them across this one).
        if (nodes.empty() && s.nodeCount > 0) continue;
        std::set<std::int64_t> next;
        std::vector<std::string> nextLines;
        for (const tracedb::NodeRow& n : nodes)
            if (n.parentId && current.count(*n.parentId)) {
                next.insert(n.id);
                nextLines.push_back(lineOf(n));
            }
        if (canonical(nextLines) != canonical(lines))
            steps.push_back({s.id, s.pass, std::vector<std::int64_t>(next.begin(), next.end()),
                             lines, nextLines});
        current = std::move(next);
        lines = std::move(nextLines);
        at = s.id;
    }
    return steps;
}

} // namespace pto::gui
