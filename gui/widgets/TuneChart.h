// The charts of the tune view: cycles per candidate, and cycles against on-chip memory with the
// Pareto front drawn as a line.
#pragma once

#include <QWidget>

#include <cstdint>
#include <vector>

namespace pto::gui {

class TuneChart : public QWidget {
    Q_OBJECT
public:
    struct Point {
        double x = 0;
        double y = 0; ///< cycles
        int64_t id = 0;
        bool front = false; ///< on the Pareto front (drawn joined and filled)
    };

    TuneChart(QString xLabel, QWidget* parent = nullptr);
    void setPoints(std::vector<Point> points);
    const std::vector<Point>& points() const { return m_points; }
    void setHighlighted(int64_t id);
    QSize sizeHint() const override { return {360, 220}; }

signals:
    void pointClicked(int64_t id);
    void pointDoubleClicked(int64_t id);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    QRectF plotArea() const;
    QPointF toPixel(const Point& p) const;
    /// The point nearest to `pos` within 8 pixels, or -1.
    int pointAt(const QPointF& pos) const;

    QString m_xLabel;
    std::vector<Point> m_points;
    double m_minX = 0, m_maxX = 1, m_minY = 0, m_maxY = 1;
    int64_t m_highlighted = -1;
};

} // namespace pto::gui
