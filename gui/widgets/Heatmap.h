// Draws an output's error map: element cells (log colour scale) under the grid of its tiles;
// a click on a tile reports it.
#pragma once

#include "gui/model/DiffHeatmap.h"

#include <QWidget>

namespace pto::gui {

class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapWidget(QWidget* parent = nullptr);

    /// Shows `data` (not owned; must outlive the widget's use of it, nullptr clears).
    void setData(const HeatmapData* data);
    void setSelectedTile(int tile);
    int selectedTile() const { return m_selected; }
    /// The widget point at the centre of tile `tile` (for tests and keyboard focus).
    QPoint tileCenter(int tile) const;
    QSize sizeHint() const override { return {360, 360}; }
    /// What hovering at `pos` shows: the tile (its element range and error) and, with a
    /// golden, the cell's element range and largest error; "" outside the tensor.
    QString toolTipAt(QPointF pos) const;
    /// The error the colour scale tops out at (red); the legend spans kDecades below it.
    double colourTop() const;
    /// Where the colour legend is drawn (empty without data).
    QRectF legendRect() const;

signals:
    void tileClicked(int tile);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    /// The rectangle the tensor is drawn in (aspect kept, centred).
    QRectF plotRect() const;
    QRectF tileRect(const HeatTile& tile) const;
    void paintCells(class QPainter& painter, const QRectF& plot) const;
    void paintTiles(class QPainter& painter) const;
    void paintLegend(class QPainter& painter) const;

    const HeatmapData* m_data = nullptr;
    int m_selected = -1;
};

/// Colour of an error on a log scale from `floor` (dark blue) to `top` (bright red); grey for
/// unknown (NaN), white for exact zero.
QColor errorColour(double error, double top);

} // namespace pto::gui
