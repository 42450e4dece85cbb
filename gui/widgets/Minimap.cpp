// Minimap of the graph canvas: a cached thumbnail of every node plus the view rectangle.
#include "gui/widgets/Minimap.h"

#include "gui/widgets/GraphViewCanvas.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace pto::gui {

namespace {

constexpr int kFrame = 2;    ///< border around the thumbnail, pixels
constexpr int kMinSide = 36; ///< a very long or tall graph still gets a usable strip

} // namespace

Minimap::Minimap(GraphViewCanvas& canvas) : QWidget(&canvas), m_canvas(canvas) {
    resize(kMaxSize);
    setCursor(Qt::PointingHandCursor);
    connect(&canvas, &GraphViewCanvas::viewChanged, this, [this] {
        updateVisibility();
        update();
    });
    hide();
}

void Minimap::sceneChanged() {
    m_dirty = true;
    fitToScene();
    updateVisibility();
    place();
    update();
}

void Minimap::updateVisibility() {
    const LayoutResult* layout = m_canvas.layout();
    const bool offScreen = layout && m_canvas.itemCount() > 1 &&
                           !m_canvas.viewRect().contains(layout->bounds.adjusted(5, 5, -5, -5));
    setVisible(offScreen && !m_hiddenByUser);
}

void Minimap::toggle() {
    m_hiddenByUser = !m_hiddenByUser;
    updateVisibility();
}

void Minimap::fitToScene() {
    const LayoutResult* layout = m_canvas.layout();
    if (!layout || layout->nodes.empty()) return;
    QRectF scene = layout->bounds;
    for (const QRectF& r : layout->nodes) scene |= r;
    const double inner = double(kMaxSize.width() - 2 * kFrame);
    const double innerH = double(kMaxSize.height() - 2 * kFrame);
    const double scale =
        std::min(inner / std::max(1.0, scene.width()), innerH / std::max(1.0, scene.height()));
    const int w = std::clamp(int(std::ceil(scene.width() * scale)), kMinSide, int(inner));
    const int h = std::clamp(int(std::ceil(scene.height() * scale)), kMinSide, int(innerH));
    resize(w + 2 * kFrame, h + 2 * kFrame);
}

void Minimap::place() {
    move(m_canvas.width() - width() - 8, m_canvas.height() - height() - 8);
    raise();
}

QPointF Minimap::toScene(QPointF pos) const {
    return QPointF(pos.x() - kFrame, pos.y() - kFrame) / m_scale + m_scene.topLeft();
}

void Minimap::renderThumbnail() {
    m_dirty = false;
    m_thumbnail = QImage(size() - QSize(2 * kFrame, 2 * kFrame), QImage::Format_RGB32);
    m_thumbnail.fill(palette().base().color());
    const LayoutResult* layout = m_canvas.layout();
    if (!layout || layout->nodes.empty()) return;
    m_scene = layout->bounds;
    for (const QRectF& r : layout->nodes) m_scene |= r;
    m_scale = std::min(m_thumbnail.width() / std::max(1.0, m_scene.width()),
                       m_thumbnail.height() / std::max(1.0, m_scene.height()));
    const auto& fills = m_canvas.fills();
    const QRgb plain = QColor(90, 140, 110).rgb();
    const int w = m_thumbnail.width(), h = m_thumbnail.height();
    for (std::size_t i = 0; i < layout->nodes.size(); ++i) {
        const QRectF& r = layout->nodes[i];
        const int x0 = std::clamp(int((r.left() - m_scene.left()) * m_scale), 0, w - 1);
        const int y0 = std::clamp(int((r.top() - m_scene.top()) * m_scale), 0, h - 1);
        const int x1 = std::clamp(int((r.right() - m_scene.left()) * m_scale), x0 + 1, w);
        const int y1 = std::clamp(int((r.bottom() - m_scene.top()) * m_scale), y0 + 1, h);
        const bool coloured = i < fills.size() && fills[i].isValid();
        const QRgb colour = coloured ? fills[i].darker(130).rgb() : plain;
        for (int y = y0; y < y1; ++y) {
            auto* line = reinterpret_cast<QRgb*>(m_thumbnail.scanLine(y));
            for (int x = x0; x < x1; ++x) line[x] = colour;
        }
    }
}

void Minimap::paintEvent(QPaintEvent*) {
    if (m_dirty) renderThumbnail();
    QPainter p(this);
    p.setOpacity(0.85); // the canvas under it stays faintly visible
    p.fillRect(rect(), palette().mid());
    p.drawImage(kFrame, kFrame, m_thumbnail);
    p.setOpacity(1);
    const QRectF view = m_canvas.viewRect();
    const QRectF r(QPointF(kFrame, kFrame) + (view.topLeft() - m_scene.topLeft()) * m_scale,
                   view.size() * m_scale);
    p.setPen(QPen(QColor(255, 140, 0), 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.intersected(QRectF(rect()).adjusted(1, 1, -1, -1)));
}

void Minimap::mousePressEvent(QMouseEvent* event) {
    m_canvas.setViewCenter(toScene(event->position()));
}

void Minimap::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton) m_canvas.setViewCenter(toScene(event->position()));
}

} // namespace pto::gui
