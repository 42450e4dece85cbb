// Painting of the graph canvas: one pixel-level pass when zoomed out (nodes smaller than a few
// pixels), batched rectangles and one edge path per frame when zoomed in, labels when readable.
#include "gui/widgets/GraphViewCanvas.h"

#include "gui/widgets/Theme.h"

#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace pto::gui {
namespace {

constexpr std::size_t kCurvedEdgeLimit = 4000;    ///< more visible edges are drawn straight
constexpr std::size_t kZoomedOutEdgeLimit = 5000; ///< above: zoomed out draws nodes only

QColor edgeColour(const QPalette& palette) {
    return theme::isDark(palette) ? QColor(150, 150, 150) : QColor(120, 120, 120);
}

/// Appends one edge (cubic Bézier pieces, in widget coordinates) and its arrowhead.
void appendEdge(const std::vector<QPointF>& pts, double scale, QPainterPath& path,
                QPainterPath& arrows) {
    path.moveTo(pts[0]);
    for (std::size_t k = 1; k + 2 < pts.size(); k += 3)
        path.cubicTo(pts[k], pts[k + 1], pts[k + 2]);
    const QPointF tip = pts.back();
    QPointF from = pts[pts.size() - 2];
    if (QLineF(from, tip).length() < 0.5) from = pts.front();
    const QLineF dir(tip, from);
    if (dir.length() < 0.5) return;
    const double size = std::clamp(6 * scale, 3.0, 9.0);
    const QPointF u = (from - tip) / dir.length();
    const QPointF n(-u.y(), u.x());
    arrows.moveTo(tip);
    arrows.lineTo(tip + u * size + n * size * 0.45);
    arrows.lineTo(tip + u * size - n * size * 0.45);
    arrows.closeSubpath();
}

} // namespace

void GraphViewCanvas::paintEvent(QPaintEvent*) {
    QElapsedTimer timer;
    timer.start();
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_layout || m_layout->nodes.empty()) {
        p.setPen(palette().text().color());
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   m_message.isEmpty() ? tr("No graph") : m_message);
    } else if (m_meanHeight * m_scale < 4) {
        paintDots(p);
    } else {
        paintDetailed(p);
    }
    paintLegend(p);
    m_lastFrameMs = double(timer.nsecsElapsed()) / 1e6;
}

void GraphViewCanvas::paintDots(QPainter& p) {
    QImage image(size(), QImage::Format_RGB32);
    image.fill(palette().base().color());
    const QRectF view = viewRect();
    const auto& edges = m_layout->edges;
    if (edges.size() <= kZoomedOutEdgeLimit) {
        std::vector<QLineF> lines;
        for (std::size_t e = 0; e < edges.size(); ++e)
            if (!edges[e].empty() && m_edgeBounds[e].intersects(view))
                lines.emplace_back(toWidget(edges[e].front()), toWidget(edges[e].back()));
        QPainter ip(&image);
        QColor c = edgeColour(palette());
        c.setAlpha(90);
        ip.setPen(QPen(c, 0));
        ip.drawLines(lines.data(), int(lines.size()));
    }
    const int w = image.width(), h = image.height();
    const auto& nodes = m_layout->nodes;
    QRgb fallback[2] = {fillOf(-1).rgb(), QColor(0xb8, 0xa9, 0xe0).rgb()};
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const QRectF& r = nodes[i];
        const int x0 = int((r.left() - m_origin.x()) * m_scale);
        const int y0 = int((r.top() - m_origin.y()) * m_scale);
        const int x1 = std::min(x0 + std::max(1, int(r.width() * m_scale)), x0 + 6);
        const int y1 = std::min(y0 + std::max(1, int(r.height() * m_scale)), y0 + 6);
        if (x1 <= 0 || y1 <= 0 || x0 >= w || y0 >= h) continue;
        QRgb colour;
        if (i < m_fills.size() && m_fills[i].isValid())
            colour = m_fills[i].darker(115).rgb();
        else
            colour = fallback[i < m_text.groups.size() && m_text.groups[i] ? 1 : 0];
        for (int y = std::max(0, y0); y < std::min(h, y1); ++y) {
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
            for (int x = std::max(0, x0); x < std::min(w, x1); ++x) line[x] = colour;
        }
    }
    p.drawImage(0, 0, image);
    if (m_highlight >= 0 && std::size_t(m_highlight) < nodes.size()) {
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(QPen(QColor(255, 140, 0), 2));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(toWidget(nodes[std::size_t(m_highlight)].center()), 8, 8);
    }
}

void GraphViewCanvas::paintDetailed(QPainter& p) {
    const QRectF view = viewRect();
    const auto& nodes = m_layout->nodes;
    const auto& edges = m_layout->edges;
    const std::vector<int> hits = slotsIn(view);
    std::vector<std::size_t> shown;
    for (std::size_t e = 0; e < edges.size(); ++e)
        if (edges[e].size() >= 4 && m_edgeBounds[e].intersects(view)) shown.push_back(e);
    p.setRenderHint(QPainter::Antialiasing, hits.size() < 3000);
    // A cosmetic pen of width ≤ 1 takes the raster engine's fast path (QCosmeticStroker clips
    // long lines to the widget); any wider pen is stroked into a polygon as long as the edge
    // (seconds for edges spanning 100 k pixels).
    QPen pen(edgeColour(palette()), 1);
    pen.setCosmetic(true);
    if (shown.size() > kCurvedEdgeLimit) { // many edges: one batch of cosmetic straight lines
        std::vector<QLineF> lines;
        lines.reserve(shown.size());
        for (std::size_t e : shown)
            lines.emplace_back(toWidget(edges[e].front()), toWidget(edges[e].back()));
        p.setPen(pen);
        p.drawLines(lines.data(), int(lines.size()));
    } else {
        QPainterPath path, arrows;
        for (std::size_t e : shown) {
            std::vector<QPointF> pts;
            for (const QPointF& q : edges[e]) pts.push_back(toWidget(q));
            appendEdge(pts, m_scale, path, arrows);
        }
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setPen(Qt::NoPen);
        p.setBrush(pen.color());
        p.drawPath(arrows);
    }

    std::unordered_map<QRgb, std::vector<QRectF>> byColour;
    std::vector<QRectF> groupFrames;
    for (int s : hits) {
        const QRectF& r = nodes[std::size_t(s)];
        const QRectF w(toWidget(r.topLeft()), r.size() * m_scale);
        byColour[fillOf(s).rgb()].push_back(w);
        if (std::size_t(s) < m_text.groups.size() && m_text.groups[std::size_t(s)])
            groupFrames.push_back(w.adjusted(2.5, 2.5, -2.5, -2.5));
    }
    for (const auto& [rgb, rects] : byColour) {
        p.setPen(QPen(QColor(rgb).darker(150), 0));
        p.setBrush(QColor(rgb));
        p.drawRects(rects.data(), int(rects.size()));
    }
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(110, 90, 170), 0));
    p.drawRects(groupFrames.data(), int(groupFrames.size()));
    for (int s : hits) {
        const bool marked = std::size_t(s) < m_marked.size() && m_marked[std::size_t(s)];
        if (!marked && s != m_highlight) continue;
        const QRectF& r = nodes[std::size_t(s)];
        p.setPen(QPen(s == m_highlight ? QColor(255, 140, 0) : QColor(230, 190, 0), 3));
        p.drawRect(QRectF(toWidget(r.topLeft()), r.size() * m_scale).adjusted(-2, -2, 2, 2));
    }
    if (m_meanHeight * m_scale >= 16) paintLabels(p, hits);
    m_edgeLabelBoxes.clear();
    if (m_scale >= 0.7 && shown.size() <= 150) {
        QFont font = this->font();
        font.setPixelSize(int(std::clamp(8 * m_scale, 7.0, 14.0)));
        p.setFont(font);
        p.setPen(palette().text().color());
        // Edges into one node meet: each label goes at the first of a few points along its
        // edge where it covers no label drawn before it, else it is left out (not piled up).
        const QFontMetricsF metrics(font);
        std::vector<QRectF>& drawn = m_edgeLabelBoxes;
        for (std::size_t e : shown) {
            if (e >= m_text.edgeLabels.size() || m_text.edgeLabels[e].isEmpty()) continue;
            const auto& pts = edges[e];
            if (pts.empty()) continue;
            const QString& text = m_text.edgeLabels[e];
            for (const std::size_t at : {pts.size() / 2, pts.size() / 4, 3 * pts.size() / 4}) {
                const QPointF base = toWidget(pts[std::min(at, pts.size() - 1)]) + QPointF(4, 0);
                const QRectF box = metrics.boundingRect(text).translated(base);
                if (std::any_of(drawn.begin(), drawn.end(),
                                [&](const QRectF& r) { return r.intersects(box); }))
                    continue;
                p.drawText(base, text);
                drawn.push_back(box);
                break;
            }
        }
    }
}

void GraphViewCanvas::paintLabels(QPainter& p, const std::vector<int>& hits) {
    QFont font = this->font();
    font.setPixelSize(int(std::clamp(10 * m_scale, 7.0, 22.0)));
    p.setFont(font);
    for (int s : hits) {
        if (std::size_t(s) >= m_text.labels.size()) continue;
        const QRectF& r = m_layout->nodes[std::size_t(s)];
        const QRectF w(toWidget(r.topLeft()), r.size() * m_scale);
        p.setPen(theme::textOn(fillOf(s)));
        p.drawText(w.adjusted(3, 1, -3, -1), Qt::AlignCenter, m_text.labels[std::size_t(s)]);
    }
}

void GraphViewCanvas::paintLegend(QPainter& p) {
    if (m_legend.title.isEmpty()) return;
    p.setRenderHint(QPainter::Antialiasing, false);
    QFont font = this->font();
    font.setPixelSize(11);
    p.setFont(font);
    const int line = 16;
    int width = p.fontMetrics().horizontalAdvance(m_legend.title) + 16;
    for (const auto& [colour, text] : m_legend.entries)
        width = std::max(width, p.fontMetrics().horizontalAdvance(text) + 40);
    const QRect box(8, 8, width, line * int(m_legend.entries.size() + 1) + 8);
    QColor back = palette().window().color();
    back.setAlpha(230);
    p.setPen(palette().mid().color());
    p.setBrush(back);
    p.drawRect(box);
    p.setPen(palette().text().color());
    p.drawText(box.left() + 8, box.top() + line, m_legend.title);
    int y = box.top() + line + 4;
    for (const auto& [colour, text] : m_legend.entries) {
        p.fillRect(QRect(box.left() + 8, y, 22, line - 4), colour);
        p.drawText(box.left() + 36, y + line - 5, text);
        y += line;
    }
}

} // namespace pto::gui
