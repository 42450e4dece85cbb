// Error heatmap painting: element cells as an image, tiles as outlined rectangles.
#include "gui/widgets/Heatmap.h"

#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace pto::gui {
namespace {

constexpr double kMargin = 8;
constexpr double kDecades = 6; ///< colour range below the largest error, in powers of ten

/// Elements [first, end) of a dimension of `n` that fall into cell `cell` of `grid` cells
/// (buildHeatmap puts element i into cell i·grid/n).
std::pair<std::int64_t, std::int64_t> cellSpan(std::int64_t cell, std::int64_t n, int grid) {
    return {(cell * n + grid - 1) / grid, ((cell + 1) * n + grid - 1) / grid};
}

QString errorText(double e) {
    if (std::isnan(e)) return QStringLiteral("NaN");
    return QString::number(e, 'g', 4);
}

} // namespace

QColor errorColour(double error, double top) {
    if (std::isnan(error)) return QColor(190, 190, 190);
    if (error <= 0 || top <= 0) return QColor(250, 250, 250);
    if (std::isinf(error)) return QColor(255, 0, 255);
    const double t = std::clamp(1.0 + std::log10(error / top) / kDecades, 0.0, 1.0);
    // dark blue → yellow → red
    auto mix = [](QColor a, QColor b, double u) {
        return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * u),
                                float(a.greenF() + (b.greenF() - a.greenF()) * u),
                                float(a.blueF() + (b.blueF() - a.blueF()) * u));
    };
    const QColor blue(25, 40, 140), yellow(240, 220, 30), red(220, 20, 20);
    return t < 0.5 ? mix(blue, yellow, t * 2) : mix(yellow, red, (t - 0.5) * 2);
}

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) {
    setMinimumSize(160, 160);
    setMouseTracking(false);
}

void HeatmapWidget::setData(const HeatmapData* data) {
    m_data = data;
    m_selected = -1;
    update();
}

void HeatmapWidget::setSelectedTile(int tile) {
    m_selected = tile;
    update();
}

QRectF HeatmapWidget::legendRect() const {
    if (!m_data || m_data->rows <= 0 || m_data->cols <= 0) return {};
    const double h = 2.0 * fontMetrics().height() + 10;
    return {kMargin, double(height()) - kMargin - h, double(width()) - 2 * kMargin, h};
}

double HeatmapWidget::colourTop() const {
    if (!m_data) return 0;
    if (!m_data->cells.empty()) return m_data->maxCell;
    double top = 0;
    for (const HeatTile& t : m_data->tiles)
        if (t.error && std::isfinite(*t.error)) top = std::max(top, *t.error);
    return top;
}

QRectF HeatmapWidget::plotRect() const {
    QRectF area = QRectF(rect()).adjusted(kMargin, kMargin, -kMargin, -kMargin);
    area.setBottom(area.bottom() - legendRect().height() - 4);
    if (!m_data || m_data->rows <= 0 || m_data->cols <= 0) return area;
    const double aspect = double(m_data->cols) / double(m_data->rows);
    double w = area.width(), h = w / aspect;
    if (h > area.height()) {
        h = area.height();
        w = h * aspect;
    }
    // Very thin tensors still get a readable band.
    w = std::max(w, std::min(area.width(), 24.0));
    h = std::max(h, std::min(area.height(), 24.0));
    return {area.center().x() - w / 2, area.center().y() - h / 2, w, h};
}

QRectF HeatmapWidget::tileRect(const HeatTile& tile) const {
    const QRectF plot = plotRect();
    const double sx = plot.width() / double(m_data->cols);
    const double sy = plot.height() / double(m_data->rows);
    return {plot.left() + double(tile.col) * sx, plot.top() + double(tile.row) * sy,
            double(tile.cols) * sx, double(tile.rows) * sy};
}

QPoint HeatmapWidget::tileCenter(int tile) const {
    if (!m_data || tile < 0 || tile >= int(m_data->tiles.size())) return {};
    return tileRect(m_data->tiles[std::size_t(tile)]).center().toPoint();
}

void HeatmapWidget::paintCells(QPainter& painter, const QRectF& plot) const {
    QImage image(m_data->gridCols, m_data->gridRows, QImage::Format_RGB32);
    for (int r = 0; r < m_data->gridRows; ++r)
        for (int c = 0; c < m_data->gridCols; ++c)
            image.setPixelColor(
                c, r,
                errorColour(
                    m_data->cells[std::size_t(r) * std::size_t(m_data->gridCols) + std::size_t(c)],
                    m_data->maxCell));
    painter.drawImage(plot, image);
}

void HeatmapWidget::paintTiles(QPainter& painter) const {
    const double top = colourTop();
    const bool fill = m_data->cells.empty();
    const int hot = m_data->hottestTile();
    for (std::size_t i = 0; i < m_data->tiles.size(); ++i) {
        const HeatTile& t = m_data->tiles[i];
        const QRectF r = tileRect(t);
        if (fill) painter.fillRect(r, errorColour(t.error ? *t.error : NAN, top));
        painter.setPen(QPen(QColor(60, 60, 60, 160), 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r);
        if (int(i) == hot && t.error && *t.error > 0) {
            painter.setPen(QPen(QColor(255, 40, 40), 2, Qt::DashLine));
            painter.drawRect(r.adjusted(2, 2, -2, -2));
        }
    }
    if (m_selected >= 0 && m_selected < int(m_data->tiles.size())) {
        painter.setPen(QPen(palette().highlight().color(), 3));
        painter.drawRect(tileRect(m_data->tiles[std::size_t(m_selected)]));
    }
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (!m_data || m_data->rows <= 0 || m_data->cols <= 0) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No output to show"));
        return;
    }
    const QRectF plot = plotRect();
    if (!m_data->cells.empty())
        paintCells(painter, plot);
    else if (m_data->tiles.empty())
        painter.fillRect(plot, errorColour(NAN, 1));
    paintTiles(painter);
    painter.setPen(palette().text().color());
    painter.drawRect(plot);
    paintLegend(painter);
}

void HeatmapWidget::paintLegend(QPainter& painter) const {
    const QRectF legend = legendRect();
    const double top = colourTop();
    const QFontMetricsF metrics(font());
    const double swatch = metrics.height();
    painter.setPen(palette().text().color());
    // exact and unknown first, then the log scale from top·1e-6 to top
    double x = legend.left();
    for (const auto& [colour, label] : {std::pair{errorColour(0, 1), tr("exact")},
                                        std::pair{errorColour(NAN, 1), tr("unknown")}}) {
        const QRectF box(x, legend.top(), swatch, swatch);
        painter.fillRect(box, colour);
        painter.drawRect(box);
        painter.drawText(QPointF(box.right() + 3, box.top() + metrics.ascent()), label);
        x = box.right() + 3 + metrics.horizontalAdvance(label) + 10;
    }
    const QRectF bar(x, legend.top(), std::max(40.0, legend.right() - x), swatch);
    if (top <= 0) {
        painter.drawText(bar, Qt::AlignVCenter | Qt::AlignLeft, tr("no error known"));
        return;
    }
    const int steps = std::max(1, int(bar.width()));
    for (int i = 0; i < steps; ++i) {
        const double t = double(i) / double(steps - 1 > 0 ? steps - 1 : 1);
        painter.fillRect(QRectF(bar.left() + i, bar.top(), 1, bar.height()),
                         errorColour(top * std::pow(10.0, -kDecades * (1 - t)), top));
    }
    painter.drawRect(bar);
    const double y = bar.bottom() + metrics.ascent() + 2;
    const QString low = tr("≤ %1").arg(errorText(top * std::pow(10.0, -kDecades)));
    const QString high = tr("%1 max |a−g|").arg(errorText(top));
    painter.drawText(QPointF(bar.left(), y), low);
    painter.drawText(QPointF(bar.right() - metrics.horizontalAdvance(high), y), high);
}

QString HeatmapWidget::toolTipAt(QPointF pos) const {
    const QRectF plot = plotRect();
    if (!m_data || m_data->rows <= 0 || m_data->cols <= 0 || !plot.contains(pos)) return {};
    QStringList lines;
    for (std::size_t i = 0; i < m_data->tiles.size(); ++i) {
        const HeatTile& t = m_data->tiles[i];
        if (!tileRect(t).contains(pos)) continue;
        lines << tr("tile %1 of %2: rows %3–%4, cols %5–%6, max |a−g| %7")
                     .arg(i + 1)
                     .arg(m_data->tiles.size())
                     .arg(t.row)
                     .arg(t.row + t.rows - 1)
                     .arg(t.col)
                     .arg(t.col + t.cols - 1)
                     .arg(t.error ? errorText(*t.error) : tr("unknown"));
        break;
    }
    if (!m_data->cells.empty()) {
        const auto at = [](double f, int grid) { return std::clamp(int(f * grid), 0, grid - 1); };
        const int cr = at((pos.y() - plot.top()) / plot.height(), m_data->gridRows);
        const int cc = at((pos.x() - plot.left()) / plot.width(), m_data->gridCols);
        const auto [r0, r1] = cellSpan(cr, m_data->rows, m_data->gridRows);
        const auto [c0, c1] = cellSpan(cc, m_data->cols, m_data->gridCols);
        const float e =
            m_data->cells[std::size_t(cr) * std::size_t(m_data->gridCols) + std::size_t(cc)];
        lines << tr("elements rows %1–%2, cols %3–%4: max |a−g| %5")
                     .arg(r0)
                     .arg(r1 - 1)
                     .arg(c0)
                     .arg(c1 - 1)
                     .arg(errorText(e));
    }
    if (lines.isEmpty()) lines << tr("no tile stored here");
    return lines.join(QLatin1Char('\n'));
}

bool HeatmapWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void HeatmapWidget::mousePressEvent(QMouseEvent* event) {
    if (!m_data || event->button() != Qt::LeftButton) return;
    const QPointF p = event->position();
    for (std::size_t i = 0; i < m_data->tiles.size(); ++i)
        if (tileRect(m_data->tiles[i]).contains(p)) {
            setSelectedTile(int(i));
            emit tileClicked(int(i));
            return;
        }
}

} // namespace pto::gui
