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
    /// The M key: hides the minimap until pressed again (it is shown only when part of the
    /// graph is off screen in any case).
    void toggle();
    bool hiddenByUser() const { return m_hiddenByUser; }
    /// The largest size; the minimap takes the graph's aspect ratio within it, so it holds no
    /// empty band and covers as little of the canvas as it can.
    static constexpr QSize kMaxSize{180, 120};

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void renderThumbnail();
    /// Shown only when part of the graph is off screen.
    void updateVisibility();
    /// Fits the widget to the graph's aspect ratio within kMaxSize.
    void fitToScene();

    GraphViewCanvas& m_canvas;
    QImage m_thumbnail;
    QRectF m_scene; ///< scene area the thumbnail shows
    double m_scale = 1;
    bool m_dirty = true;
    bool m_hiddenByUser = false;
};

} // namespace pto::gui
