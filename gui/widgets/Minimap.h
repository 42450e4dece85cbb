// The graph view's minimap: the whole graph in a corner of the canvas, the visible area as a
// rectangle; clicking or dragging in it moves the view.
#pragma once

#include <QImage>
#include <QWidget>

namespace pto::gui {

class GraphViewCanvas;

class Minimap : public QWidget {
    Q_OBJECT
public:
    explicit Minimap(GraphViewCanvas& canvas);

    /// The layout or the colours changed: redraw the thumbnail.
    void sceneChanged();
    /// Moves to the canvas's bottom-right corner.
    void place();
    /// Scene point under a minimap pixel.
    QPointF toScene(QPointF pos) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void renderThumbnail();
    /// Shown only when part of the graph is off screen.
    void updateVisibility();

    GraphViewCanvas& m_canvas;
    QImage m_thumbnail;
    QRectF m_scene; ///< scene area the thumbnail shows
    double m_scale = 1;
    bool m_dirty = true;
};

} // namespace pto::gui
