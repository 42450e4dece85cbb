// Camera, grid index, hit tests and mouse/keyboard handling of the graph canvas.
#include "gui/widgets/GraphViewCanvas.h"

#include "gui/widgets/Minimap.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace pto::gui {

GraphViewCanvas::GraphViewCanvas(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setMinimumSize(200, 150);
    // paintEvent fills every pixel first: Qt need not paint the parents beneath on an update.
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_minimap = new Minimap(*this);
}

GraphViewCanvas::~GraphViewCanvas() = default;

void GraphViewCanvas::setScene(std::shared_ptr<const LayoutResult> layout, GraphSceneText text,
                               bool keepView) {
    m_layout = std::move(layout);
    m_text = std::move(text);
    m_highlight = -1;
    m_marked.clear();
    m_fills.clear();
    buildIndex();
    if (!keepView) fitAll();
    m_minimap->sceneChanged();
    update();
}

void GraphViewCanvas::setFills(std::vector<QColor> fills) {
    m_fills = std::move(fills);
    m_minimap->sceneChanged();
    update();
}

void GraphViewCanvas::setLegend(GraphLegend legend) {
    m_legend = std::move(legend);
    update();
}

void GraphViewCanvas::setMessage(const QString& message) {
    m_message = message;
    update();
}

void GraphViewCanvas::setHighlight(int slot) {
    m_highlight = slot;
    update();
}

void GraphViewCanvas::setMarked(std::vector<int> hits) {
    m_marked.assign(itemCount(), 0);
    for (int s : hits)
        if (s >= 0 && std::size_t(s) < m_marked.size()) m_marked[std::size_t(s)] = 1;
    update();
}

QColor GraphViewCanvas::fillOf(int slot) const {
    if (std::size_t(slot) < m_fills.size() && m_fills[std::size_t(slot)].isValid())
        return m_fills[std::size_t(slot)];
    const bool group = std::size_t(slot) < m_text.groups.size() && m_text.groups[std::size_t(slot)];
    return group ? QColor(0xe7, 0xe1, 0xf5) : QColor(0xd1, 0xe7, 0xdd);
}

void GraphViewCanvas::buildIndex() {
    m_cellStart.clear();
    m_cellItems.clear();
    m_edgeBounds.clear();
    m_maxHalf = 0;
    if (!m_layout || m_layout->nodes.empty()) return;
    const auto& nodes = m_layout->nodes;
    m_gridRect = m_layout->bounds.united(QRectF(nodes.front().topLeft(), QSizeF(1, 1)));
    for (const QRectF& r : nodes) m_gridRect |= r;
    const int side = std::clamp(int(std::sqrt(double(nodes.size()) / 4)), 1, 512);
    m_cols = m_rows = side;
    std::vector<int> cellOf(nodes.size());
    m_cellStart.assign(std::size_t(m_cols * m_rows) + 1, 0);
    double heights = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const QPointF c = nodes[i].center();
        const int cx = std::clamp(int((c.x() - m_gridRect.left()) / m_gridRect.width() * m_cols), 0,
                                  m_cols - 1);
        const int cy = std::clamp(int((c.y() - m_gridRect.top()) / m_gridRect.height() * m_rows), 0,
                                  m_rows - 1);
        cellOf[i] = cy * m_cols + cx;
        ++m_cellStart[std::size_t(cellOf[i]) + 1];
        m_maxHalf = std::max({m_maxHalf, nodes[i].width() / 2, nodes[i].height() / 2});
        heights += nodes[i].height();
    }
    m_meanHeight = heights / double(nodes.size());
    for (std::size_t k = 1; k < m_cellStart.size(); ++k) m_cellStart[k] += m_cellStart[k - 1];
    m_cellItems.resize(nodes.size());
    std::vector<int> fill(m_cellStart.begin(), m_cellStart.end() - 1);
    for (std::size_t i = 0; i < nodes.size(); ++i)
        m_cellItems[std::size_t(fill[std::size_t(cellOf[i])]++)] = int(i);
    m_edgeBounds.reserve(m_layout->edges.size());
    for (const auto& e : m_layout->edges) {
        QRectF b;
        if (!e.empty()) {
            double x0 = e[0].x(), x1 = x0, y0 = e[0].y(), y1 = y0;
            for (const QPointF& p : e) {
                x0 = std::min(x0, p.x()), x1 = std::max(x1, p.x());
                y0 = std::min(y0, p.y()), y1 = std::max(y1, p.y());
            }
            b = QRectF(x0, y0, x1 - x0 + 0.01, y1 - y0 + 0.01);
        }
        m_edgeBounds.push_back(b);
    }
}

std::vector<int> GraphViewCanvas::slotsIn(const QRectF& sceneRect) const {
    std::vector<int> out;
    if (m_cellStart.empty()) return out;
    const QRectF q = sceneRect.adjusted(-m_maxHalf, -m_maxHalf, m_maxHalf, m_maxHalf);
    auto col = [&](double x) {
        return std::clamp(int((x - m_gridRect.left()) / m_gridRect.width() * m_cols), 0,
                          m_cols - 1);
    };
    auto row = [&](double y) {
        return std::clamp(int((y - m_gridRect.top()) / m_gridRect.height() * m_rows), 0,
                          m_rows - 1);
    };
    for (int cy = row(q.top()); cy <= row(q.bottom()); ++cy)
        for (int cx = col(q.left()); cx <= col(q.right()); ++cx) {
            const int cell = cy * m_cols + cx;
            for (int k = m_cellStart[std::size_t(cell)]; k < m_cellStart[std::size_t(cell) + 1];
                 ++k) {
                const int s = m_cellItems[std::size_t(k)];
                if (m_layout->nodes[std::size_t(s)].intersects(sceneRect)) out.push_back(s);
            }
        }
    return out;
}

int GraphViewCanvas::slotAt(QPointF widgetPos) const {
    const QPointF p = toScene(widgetPos);
    for (int s : slotsIn(QRectF(p, QSizeF(0.01, 0.01))))
        if (m_layout->nodes[std::size_t(s)].contains(p)) return s;
    return -1;
}

QRectF GraphViewCanvas::viewRect() const {
    return QRectF(m_origin, QSizeF(width() / m_scale, height() / m_scale));
}

void GraphViewCanvas::fitAll() {
    if (!m_layout || m_layout->nodes.empty()) return;
    const QRectF b = m_gridRect.adjusted(-20, -20, 20, 20);
    m_scale = std::min(width() / b.width(), height() / b.height());
    m_scale = std::clamp(m_scale, 1e-5, 2.0);
    setViewCenter(b.center());
    m_autoFit = true;
}

void GraphViewCanvas::setViewCenter(QPointF scenePoint) {
    m_autoFit = false;
    m_origin = scenePoint - QPointF(width() / 2.0, height() / 2.0) / m_scale;
    update();
    emit viewChanged();
}

void GraphViewCanvas::centerOn(int slot) {
    if (!m_layout || slot < 0 || std::size_t(slot) >= m_layout->nodes.size()) return;
    const QRectF r = m_layout->nodes[std::size_t(slot)];
    if (r.height() * m_scale < 24) m_scale = std::min(2.0, 48 / std::max(1.0, r.height()));
    setViewCenter(r.center());
}

void GraphViewCanvas::zoomBy(double factor, QPointF anchor) {
    m_autoFit = false;
    const QPointF sceneAnchor = toScene(anchor);
    m_scale = std::clamp(m_scale * factor, 1e-5, 8.0);
    m_origin = sceneAnchor - anchor / m_scale;
    update();
    emit viewChanged();
}

void GraphViewCanvas::resizeEvent(QResizeEvent*) {
    if (m_autoFit) fitAll();
    m_minimap->place();
    emit viewChanged();
}

void GraphViewCanvas::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    zoomBy(std::pow(1.25, steps), event->position());
    event->accept();
}

void GraphViewCanvas::mousePressEvent(QMouseEvent* event) {
    m_pressPos = m_lastPos = event->position().toPoint();
    m_dragging = event->button() == Qt::LeftButton;
}

void GraphViewCanvas::mouseMoveEvent(QMouseEvent* event) {
    if (!m_dragging) return;
    const QPoint pos = event->position().toPoint();
    m_origin -= QPointF(pos - m_lastPos) / m_scale;
    m_autoFit = false;
    m_lastPos = pos;
    update();
    emit viewChanged();
}

void GraphViewCanvas::mouseReleaseEvent(QMouseEvent* event) {
    m_dragging = false;
    if (event->button() != Qt::LeftButton) return;
    if ((event->position().toPoint() - m_pressPos).manhattanLength() > 4) return;
    const int slot = slotAt(event->position());
    setHighlight(slot);
    emit slotClicked(slot);
}

void GraphViewCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
    const int slot = slotAt(event->position());
    if (slot >= 0) emit slotActivated(slot);
}

std::vector<std::pair<QString, QString>> GraphViewCanvas::keyHelp() {
    return {{tr("zoom in"), tr("+")},
            {tr("zoom out"), tr("-")},
            {tr("fit the whole graph"), QStringLiteral("F")},
            {tr("show or hide the minimap"), QStringLiteral("M")},
            {tr("open the highlighted node"), tr("Return")}};
}

void GraphViewCanvas::keyPressEvent(QKeyEvent* event) {
    const QPointF mid(width() / 2.0, height() / 2.0);
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25, mid);
        break;
    case Qt::Key_Minus:
        zoomBy(0.8, mid);
        break;
    case Qt::Key_F:
        fitAll();
        break;
    case Qt::Key_M:
        m_minimap->toggle();
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (m_highlight >= 0) emit slotActivated(m_highlight);
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

} // namespace pto::gui
