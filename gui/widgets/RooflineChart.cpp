// Paints the roofline (log-log axes, roofs, points) and maps mouse positions to points.
#include "gui/widgets/RooflineChart.h"

#include "gui/model/PlainText.h"

#include "gui/model/RooflineModel.h"
#include "gui/widgets/Theme.h"
#include "profiler/analyses/Roofline.h"

#include <QEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace pto::gui {
namespace {

constexpr double kHitRadius = 7;
constexpr double kPointRadius = 4;

QString powerLabel(int exponent) {
    if (exponent >= 0 && exponent <= 4) return QString::number(std::pow(10.0, exponent), 'f', 0);
    if (exponent < 0 && exponent >= -2)
        return QString::number(std::pow(10.0, exponent), 'f', -exponent);
    return QStringLiteral("1e%1").arg(exponent);
}

} // namespace

RooflineChart::RooflineChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(240, 180);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void RooflineChart::setModel(RooflineModel* model) {
    m_model = model;
    m_highlighted = -1;
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        m_highlighted = -1;
        update();
    });
    update();
}

void RooflineChart::setHighlightedRow(int row) {
    m_highlighted = row;
    update();
}

void RooflineChart::setArrows(std::vector<RooflineArrow> arrows) {
    m_arrows = std::move(arrows);
    update();
}

int RooflineChart::plottedCount() const {
    int count = 0;
    for (int row = 0; m_model && row < m_model->rowCount(); ++row) count += m_model->plottable(row);
    return count;
}

RooflineChart::Axes RooflineChart::axes() const {
    Axes a;
    const QFontMetrics metrics(font());
    a.plot =
        QRectF(metrics.horizontalAdvance(QStringLiteral("10000")) + 14, metrics.height() + 8, 0, 0);
    a.plot.setRight(width() - 12);
    a.plot.setBottom(height() - 2 * metrics.height() - 10);
    double xMin = 1e300, xMax = -1e300, yMin = 1e300, yMax = -1e300;
    auto include = [&](double x, double y) {
        xMin = std::min(xMin, x), xMax = std::max(xMax, x);
        yMin = std::min(yMin, y), yMax = std::max(yMax, y);
    };
    for (int row = 0; m_model && row < m_model->rowCount(); ++row)
        if (m_model->plottable(row))
            include(m_model->point(row).intensity, m_model->point(row).flopsPerCycle);
    for (const RooflineArrow& arrow : m_arrows) {
        include(arrow.fromIntensity, arrow.fromFlopsPerCycle);
        include(arrow.toIntensity, arrow.toFlopsPerCycle);
    }
    if (m_model)
        for (const RooflineRoof& roof : m_model->roofs())
            if (roof.ridge() > 0) include(roof.ridge(), roof.flopsPerCycle);
    if (xMin > xMax) return a;
    a.x0 = std::floor(std::log10(xMin)) - 1;
    a.x1 = std::ceil(std::log10(xMax)) + 1;
    a.y0 = std::floor(std::log10(yMin)) - 1;
    a.y1 = std::ceil(std::log10(yMax)) + 0.3;
    return a;
}

QPointF RooflineChart::map(const Axes& a, double intensity, double flopsPerCycle) const {
    const double fx = (std::log10(intensity) - a.x0) / (a.x1 - a.x0);
    const double fy = (std::log10(flopsPerCycle) - a.y0) / (a.y1 - a.y0);
    return {a.plot.left() + fx * a.plot.width(), a.plot.bottom() - fy * a.plot.height()};
}

void RooflineChart::drawGrid(QPainter& painter, const Axes& a) const {
    const QPalette& pal = palette();
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(90);
    painter.setPen(QPen(grid, 1, Qt::DotLine));
    const QFontMetrics metrics(font());
    for (int e = int(std::ceil(a.x0)); e <= int(std::floor(a.x1)); ++e) {
        const double x = map(a, std::pow(10.0, e), std::pow(10.0, a.y0)).x();
        painter.setPen(QPen(grid, 1, Qt::DotLine));
        painter.drawLine(QPointF(x, a.plot.top()), QPointF(x, a.plot.bottom()));
        painter.setPen(pal.color(QPalette::Text));
        const QString label = powerLabel(e);
        // Centred under its line, but never past the right edge (the last line is 12 px in).
        const double labelWidth = metrics.horizontalAdvance(label);
        painter.drawText(QPointF(std::min(x - labelWidth / 2.0, width() - labelWidth - 2),
                                 a.plot.bottom() + metrics.ascent() + 3),
                         label);
    }
    for (int e = int(std::ceil(a.y0)); e <= int(std::floor(a.y1)); ++e) {
        const double y = map(a, std::pow(10.0, a.x0), std::pow(10.0, e)).y();
        painter.setPen(QPen(grid, 1, Qt::DotLine));
        painter.drawLine(QPointF(a.plot.left(), y), QPointF(a.plot.right(), y));
        painter.setPen(pal.color(QPalette::Text));
        const QString label = powerLabel(e);
        painter.drawText(QPointF(a.plot.left() - metrics.horizontalAdvance(label) - 5,
                                 y + metrics.ascent() / 2.0 - 1),
                         label);
    }
    painter.setPen(pal.color(QPalette::Text));
    painter.drawRect(a.plot);
    painter.drawText(
        QRectF(a.plot.left(), height() - metrics.height() - 2, a.plot.width(), metrics.height()),
        Qt::AlignHCenter, tr("arithmetic intensity (FLOP / GM byte)"));
    painter.drawText(QPointF(4, metrics.ascent() + 2), tr("FLOP / cycle"));
}

void RooflineChart::drawRoofs(QPainter& painter, const Axes& a) const {
    const QFontMetrics metrics(font());
    int index = 0;
    for (const RooflineRoof& roof : m_model->roofs()) {
        if (roof.ridge() <= 0) continue;
        const QColor colour = theme::categoryColor(index + 4, palette());
        const double xLeft = std::pow(10.0, a.x0);
        const double xRight = std::pow(10.0, a.x1);
        painter.setPen(QPen(colour, 2));
        painter.drawLine(map(a, xLeft, roof.bytesPerCycle * xLeft),
                         map(a, roof.ridge(), roof.flopsPerCycle));
        painter.drawLine(map(a, roof.ridge(), roof.flopsPerCycle),
                         map(a, xRight, roof.flopsPerCycle));
        const QString label = tr("%1: %2 FLOP/cycle, %3 B/cycle")
                                  .arg(roof.label)
                                  .arg(roof.flopsPerCycle, 0, 'g', 4)
                                  .arg(roof.bytesPerCycle, 0, 'g', 4);
        painter.drawText(QPointF(a.plot.left() + 6, a.plot.top() + (index + 1) * metrics.height()),
                         label);
        ++index;
    }
}

void RooflineChart::drawPoints(QPainter& painter, const Axes& a) const {
    const QColor memory = theme::categoryColor(0, palette());
    const QColor compute = theme::categoryColor(3, palette());
    painter.setRenderHint(QPainter::Antialiasing);
    for (int row = 0; row < m_model->rowCount(); ++row) {
        if (!m_model->plottable(row)) continue;
        const prof::RooflinePoint& p = m_model->point(row);
        const QPointF at = map(a, p.intensity, p.flopsPerCycle);
        painter.setPen(QPen(palette().color(QPalette::Text), row == m_highlighted ? 2.5 : 0.8));
        painter.setBrush(p.memoryRegion ? memory : compute);
        const double r = row == m_highlighted ? kPointRadius + 2 : kPointRadius;
        painter.drawEllipse(at, r, r);
    }
    const int hidden = m_model->rowCount() - plottedCount();
    if (hidden > 0) {
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(a.plot.adjusted(0, 0, -6, -4), Qt::AlignRight | Qt::AlignBottom,
                         tr("%1 not drawn (no FLOPs or no GM bytes)").arg(hidden));
    }
}

void RooflineChart::drawArrows(QPainter& painter, const Axes& a) const {
    const QColor colour = palette().color(QPalette::Text);
    painter.setRenderHint(QPainter::Antialiasing);
    for (const RooflineArrow& arrow : m_arrows) {
        const QPointF from = map(a, arrow.fromIntensity, arrow.fromFlopsPerCycle);
        const QPointF to = map(a, arrow.toIntensity, arrow.toFlopsPerCycle);
        painter.setPen(QPen(colour, 1.2));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(from, kPointRadius, kPointRadius);
        const QPointF d = to - from;
        const double length = std::hypot(d.x(), d.y());
        if (length < 2 * kPointRadius) continue; // the point did not move visibly
        const QPointF unit = d / length;
        const QPointF tip = to - unit * kPointRadius;
        painter.drawLine(from + unit * kPointRadius, tip);
        const QPointF normal(-unit.y(), unit.x());
        const QPointF back = tip - unit * 7;
        painter.setBrush(colour);
        painter.drawPolygon(QPolygonF{tip, back + normal * 3.5, back - normal * 3.5});
    }
}

void RooflineChart::setEmptyText(const QString& text) {
    m_emptyText = text;
    update();
}

QString RooflineChart::emptyText() const {
    const QString reason = m_model ? m_model->unavailableReason() : QString();
    if (!reason.isEmpty()) return reason;
    return m_emptyText.isEmpty() ? tr("No roofline points: open a simulated run") : m_emptyText;
}

void RooflineChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_model || m_model->rowCount() == 0) {
        const QString reason = m_model ? m_model->unavailableReason() : QString();
        painter.setPen(palette().color(QPalette::Text));
        if (reason.isEmpty())
            painter.drawText(rect(), Qt::AlignCenter, emptyText());
        else
            painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                             reason);
        return;
    }
    const Axes a = axes();
    if (a.plot.width() < 20 || a.plot.height() < 20) return;
    drawGrid(painter, a);
    painter.save();
    painter.setClipRect(a.plot);
    drawRoofs(painter, a);
    drawPoints(painter, a);
    drawArrows(painter, a);
    painter.restore();
}

QPointF RooflineChart::pointPosition(int row) const {
    if (!m_model || row < 0 || row >= m_model->rowCount() || !m_model->plottable(row)) return {};
    const prof::RooflinePoint& p = m_model->point(row);
    return map(axes(), p.intensity, p.flopsPerCycle);
}

int RooflineChart::rowAt(const QPoint& pos) const {
    if (!m_model) return -1;
    const Axes a = axes();
    int best = -1;
    double bestDistance = kHitRadius * kHitRadius;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        if (!m_model->plottable(row)) continue;
        const prof::RooflinePoint& p = m_model->point(row);
        const QPointF d = map(a, p.intensity, p.flopsPerCycle) - QPointF(pos);
        const double distance = d.x() * d.x() + d.y() * d.y();
        if (distance <= bestDistance) best = row, bestDistance = distance;
    }
    return best;
}

QString RooflineChart::tooltip(int row) const {
    const prof::RooflinePoint& p = m_model->point(row);
    return tr("%1\n%2 FLOP, %3 GM bytes in %4 cycles\nintensity %5 FLOP/B, %6 FLOP/cycle\n"
              "%7 % of the roof (%8 region)")
        .arg(m_model->name(row))
        .arg(p.flops, 0, 'g', 6)
        .arg(p.bytes)
        .arg(p.cycles)
        .arg(p.intensity, 0, 'g', 4)
        .arg(p.flopsPerCycle, 0, 'g', 4)
        .arg(p.roofFraction * 100, 0, 'f', 0)
        .arg(p.memoryRegion ? tr("memory") : tr("compute"));
}

void RooflineChart::mouseMoveEvent(QMouseEvent* event) {
    const int row = rowAt(event->position().toPoint());
    if (row < 0) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), plainToolTip(tooltip(row)), this);
}

void RooflineChart::mousePressEvent(QMouseEvent* event) {
    const int row = rowAt(event->position().toPoint());
    if (event->button() != Qt::LeftButton || row < 0) return;
    setHighlightedRow(row);
    emit pointClicked(row);
}

void RooflineChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) update();
    QWidget::changeEvent(event);
}

} // namespace pto::gui
