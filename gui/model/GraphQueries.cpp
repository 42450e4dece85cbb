// Search, neighbourhood and path subgraphs over the compressed adjacency of a stage.
#include "gui/model/GraphQueries.h"

#include <algorithm>
#include <cctype>

namespace pto::gui {
namespace {

void compress(std::size_t nodes, const std::vector<std::pair<int, int>>& pairs,
              std::vector<int>& start, std::vector<int>& list) {
    start.assign(nodes + 1, 0);
    for (const auto& [a, b] : pairs) ++start[std::size_t(a) + 1];
    for (std::size_t i = 0; i < nodes; ++i) start[i + 1] += start[i];
    list.resize(pairs.size());
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (const auto& [a, b] : pairs) list[std::size_t(fill[std::size_t(a)]++)] = b;
}

bool containsNoCase(std::string_view haystack, std::string_view needle) {
    auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                          [](char a, char b) { return std::tolower(a) == std::tolower(b); });
    return it != haystack.end();
}

/// Marks every node reachable from `start` along `start/list` rows.
std::vector<char> reach(const std::vector<int>& start, const std::vector<int>& list, int from) {
    std::vector<char> seen(start.size() - 1, 0);
    std::vector<int> stack{from};
    seen[std::size_t(from)] = 1;
    while (!stack.empty()) {
        const int n = stack.back();
        stack.pop_back();
        for (int k = start[std::size_t(n)]; k < start[std::size_t(n) + 1]; ++k) {
            const int m = list[std::size_t(k)];
            if (!seen[std::size_t(m)]) {
                seen[std::size_t(m)] = 1;
                stack.push_back(m);
            }
        }
    }
    return seen;
}

} // namespace

GraphAdjacency GraphAdjacency::build(const GraphStage& stage) {
    std::vector<std::pair<int, int>> fwd, back;
    fwd.reserve(stage.edges.size());
    back.reserve(stage.edges.size());
    for (const auto& e : stage.edges) {
        fwd.emplace_back(e.src, e.dst);
        back.emplace_back(e.dst, e.src);
    }
    GraphAdjacency adj;
    compress(stage.nodes.size(), fwd, adj.outStart, adj.out);
    compress(stage.nodes.size(), back, adj.inStart, adj.in);
    return adj;
}

std::vector<int> searchNodes(const GraphStage& stage, std::string_view text, std::size_t limit) {
    std::vector<int> hits;
    if (text.empty()) return hits;
    // Match each distinct interned text once, then nodes by their interned ids.
    std::vector<char> textHit(stage.strings.size(), 0);
    for (std::size_t s = 1; s < stage.strings.size(); ++s)
        textHit[s] = containsNoCase(stage.strings[s], text);
    for (std::size_t i = 0; i < stage.nodes.size() && hits.size() < limit; ++i) {
        const GraphNode& n = stage.nodes[i];
        if (textHit[n.kind] || textHit[n.shape] || textHit[n.dtype] || textHit[n.space] ||
            textHit[n.core] || containsNoCase(n.name, text))
            hits.push_back(int(i));
    }
    return hits;
}

std::vector<int> neighbourhood(const GraphAdjacency& adj, int node, int radius, std::size_t limit) {
    const std::size_t count = adj.outStart.size() - 1;
    if (node < 0 || std::size_t(node) >= count) return {};
    std::vector<char> seen(count, 0);
    std::vector<int> result{node}, ring{node};
    seen[std::size_t(node)] = 1;
    for (int r = 0; r < radius && !ring.empty() && result.size() < limit; ++r) {
        std::vector<int> next;
        auto visit = [&](int m) {
            if (seen[std::size_t(m)] || result.size() >= limit) return;
            seen[std::size_t(m)] = 1;
            result.push_back(m);
            next.push_back(m);
        };
        for (int n : ring) {
            for (int k = adj.outStart[std::size_t(n)]; k < adj.outStart[std::size_t(n) + 1]; ++k)
                visit(adj.out[std::size_t(k)]);
            for (int k = adj.inStart[std::size_t(n)]; k < adj.inStart[std::size_t(n) + 1]; ++k)
                visit(adj.in[std::size_t(k)]);
        }
        ring = std::move(next);
    }
    std::sort(result.begin(), result.end());
    return result;
}

std::vector<int> pathNodes(const GraphAdjacency& adj, int from, int to) {
    const std::size_t count = adj.outStart.size() - 1;
    if (from < 0 || to < 0 || std::size_t(from) >= count || std::size_t(to) >= count) return {};
    const auto forward = reach(adj.outStart, adj.out, from);
    if (!forward[std::size_t(to)]) return {};
    const auto backward = reach(adj.inStart, adj.in, to);
    std::vector<int> result;
    for (std::size_t i = 0; i < count; ++i)
        if (forward[i] && backward[i]) result.push_back(int(i));
    return result;
}

} // namespace pto::gui
