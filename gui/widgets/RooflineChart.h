// A log-log roofline chart drawn with QPainter: the roofs of a RooflineModel and its points.
#pragma once

#include <QWidget>

#include <vector>

namespace pto::gui {

class RooflineModel;

/// Where a point was in a baseline run and where it is now (compare view): drawn as a hollow
/// point with an arrow to the open run's position.
struct RooflineArrow {
    double fromIntensity = 0, fromFlopsPerCycle = 0;
    double toIntensity = 0, toFlopsPerCycle = 0;
};

/// x: arithmetic intensity (FLOP per GM byte), y: achieved FLOP per cycle, both log10.
/// Hovering a point shows its name and numbers; clicking one emits pointClicked(row).
class RooflineChart : public QWidget {
    Q_OBJECT
public:
    explicit RooflineChart(QWidget* parent = nullptr);

    void setModel(RooflineModel* model);
    /// Row of the model drawn nearest to `pos` within a few pixels, -1 when none.
    int rowAt(const QPoint& pos) const;
    /// Where a row's point is drawn (for tests); invalid when not plottable.
    QPointF pointPosition(int row) const;
    int plottedCount() const;
    void setHighlightedRow(int row);
    /// Baseline → open run arrows drawn over the points (empty: none).
    void setArrows(std::vector<RooflineArrow> arrows);
    const std::vector<RooflineArrow>& arrows() const { return m_arrows; }
    /// What the chart says while it has no points and the model gives no reason ("" for the
    /// default, which asks for a simulated run): the view says the run is being analysed.
    void setEmptyText(const QString& text);
    QString emptyText() const;

    QSize sizeHint() const override { return {480, 320}; }

signals:
    void pointClicked(int row);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Axes {
        double x0 = -2, x1 = 3, y0 = 0, y1 = 5; ///< log10 ranges
        QRectF plot;
    };
    Axes axes() const;
    QPointF map(const Axes& a, double intensity, double flopsPerCycle) const;
    void drawGrid(QPainter& painter, const Axes& a) const;
    void drawRoofs(QPainter& painter, const Axes& a) const;
    void drawPoints(QPainter& painter, const Axes& a) const;
    void drawArrows(QPainter& painter, const Axes& a) const;
    QString tooltip(int row) const;

    RooflineModel* m_model = nullptr;
    int m_highlighted = -1;
    std::vector<RooflineArrow> m_arrows;
    QString m_emptyText;
};

} // namespace pto::gui
