// Scatter charts of a tune file's candidates (gui/widgets/TuneChart.h).
#include "gui/widgets/TuneChart.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace pto::gui {

TuneChart::TuneChart(QString xLabel, QWidget* parent)
    : QWidget(parent), m_xLabel(std::move(xLabel)) {
    setMinimumSize(200, 140);
}

void TuneChart::setPoints(std::vector<Point> points) {
    m_points = std::move(points);
    if (!m_points.empty()) {
        auto [minX, maxX] = std::minmax_element(m_points.begin(), m_points.end(),
                                                [](auto& a, auto& b) { return a.x < b.x; });
        auto [minY, maxY] = std::minmax_element(m_points.begin(), m_points.end(),
                                                [](auto& a, auto& b) { return a.y < b.y; });
        m_minX = minX->x;
        m_maxX = std::max(maxX->x, m_minX + 1);
        m_minY = 0; // cycles from zero: the differences read as they are
        m_maxY = std::max(maxY->y * 1.05, 1.0);
    }
    update();
}

void TuneChart::setHighlighted(int64_t id) {
    m_highlighted = id;
    update();
}

QRectF TuneChart::plotArea() const {
    return QRectF(70, 10, std::max(10, width() - 85), std::max(10, height() - 45));
}

QPointF TuneChart::toPixel(const Point& p) const {
    const QRectF a = plotArea();
    return {a.left() + (p.x - m_minX) / (m_maxX - m_minX) * a.width(),
            a.bottom() - (p.y - m_minY) / (m_maxY - m_minY) * a.height()};
}

int TuneChart::pointAt(const QPointF& pos) const {
    int best = -1;
    double bestDistance = 8;
    for (size_t i = 0; i < m_points.size(); ++i) {
        const QPointF d = toPixel(m_points[i]) - pos;
        const double distance = std::hypot(d.x(), d.y());
        if (distance <= bestDistance) {
            bestDistance = distance;
            best = int(i);
        }
    }
    return best;
}

void TuneChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    p.fillRect(rect(), pal.base());
    const QRectF a = plotArea();
    p.setPen(pal.color(QPalette::Text));
    p.drawRect(a);
    p.drawText(QRectF(0, a.top() - 4, a.left() - 6, 16), Qt::AlignRight,
               QString::number(qlonglong(m_maxY)));
    p.drawText(QRectF(0, a.bottom() - 12, a.left() - 6, 16), Qt::AlignRight, QStringLiteral("0"));
    p.drawText(QRectF(a.left(), a.bottom() + 4, a.width(), 16), Qt::AlignLeft,
               QString::number(m_minX, 'g', 6));
    p.drawText(QRectF(a.left(), a.bottom() + 4, a.width(), 16), Qt::AlignRight,
               QString::number(m_maxX, 'g', 6));
    p.drawText(QRectF(a.left(), a.bottom() + 18, a.width(), 16), Qt::AlignHCenter, m_xLabel);
    p.save();
    p.translate(12, a.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-40, -8, 80, 16), Qt::AlignCenter, tr("cycles"));
    p.restore();
    if (m_points.empty()) {
        p.drawText(a, Qt::AlignCenter, tr("No candidate ran"));
        return;
    }
    QPainterPath front;
    for (const Point& pt : m_points)
        if (pt.front) {
            if (front.isEmpty())
                front.moveTo(toPixel(pt));
            else
                front.lineTo(toPixel(pt));
        }
    p.setPen(QPen(pal.color(QPalette::Highlight), 1.5));
    p.drawPath(front);
    for (const Point& pt : m_points) {
        const bool lit = pt.id == m_highlighted;
        p.setPen(lit ? QPen(Qt::red, 2) : QPen(pal.color(QPalette::Text)));
        p.setBrush(pt.front ? pal.color(QPalette::Highlight) : Qt::transparent);
        p.drawEllipse(toPixel(pt), lit ? 5 : 3.5, lit ? 5 : 3.5);
    }
}

void TuneChart::mousePressEvent(QMouseEvent* event) {
    if (const int i = pointAt(event->position()); i >= 0) emit pointClicked(m_points[size_t(i)].id);
}

void TuneChart::mouseDoubleClickEvent(QMouseEvent* event) {
    if (const int i = pointAt(event->position()); i >= 0)
        emit pointDoubleClicked(m_points[size_t(i)].id);
}

} // namespace pto::gui
