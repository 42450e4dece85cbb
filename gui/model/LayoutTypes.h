// Layout jobs and results exchanged with the layout worker: plain structs, no Graphviz types.
#pragma once

#include <QPointF>
#include <QRectF>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pto::gui {

/// Bump when the layout parameters or the meaning of a job change: cached layouts of other
/// versions are then ignored.
inline constexpr int kLayoutVersion = 1;

/// Above this many nodes (or kDotEdgeLimit edges) a job is laid out by the built-in layered
/// layout instead of dot: dot needs ~1 s at 10k nodes and minutes at 50k (docs/GUI.md).
inline constexpr std::size_t kDotNodeLimit = 2500;
inline constexpr std::size_t kDotEdgeLimit = 10000;

struct LayoutNodeSpec {
    std::string label; ///< lines separated by '\n' (used by DOT export, not by the layout)
    double width = 0;  ///< points (1 point = 1 pixel at zoom 1)
    double height = 0;
    bool group = false; ///< drawn as a folder-like box
};

struct LayoutJob {
    std::string cacheKey; ///< empty: not cached
    std::string title;    ///< graph name in DOT
    std::vector<LayoutNodeSpec> nodes;
    std::vector<std::pair<int, int>> edges; ///< node indices
    std::vector<std::string> edgeLabels;    ///< parallel to edges (export only)
    bool leftToRight = false;
    bool forceLayered = false; ///< skip dot whatever the size (benchmarks, previews)
};

struct LayoutResult {
    bool ok = false;
    std::string error;                       ///< why not ok
    std::string engine;                      ///< "dot", "layered" or "cache"
    double seconds = 0;                      ///< wall time of the layout (or of the cache read)
    std::vector<QRectF> nodes;               ///< boxes, y pointing down
    std::vector<std::vector<QPointF>> edges; ///< cubic Bézier points: p0 c1 c2 p1 [c1 c2 p2...]
    QRectF bounds;
};

} // namespace pto::gui
