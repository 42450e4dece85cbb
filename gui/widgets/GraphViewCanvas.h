// The drawing surface of the graph view: laid-out boxes and splines with zoom and pan, batched
// drawing when zoomed out, hit tests through a grid index, a legend and a minimap.
#pragma once

#include "gui/model/LayoutTypes.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <memory>
#include <utility>
#include <vector>

namespace pto::gui {

class Minimap;

/// What the canvas draws besides the layout: per item its label lines, whether it is a group,
/// and its fill colour; per edge a label.
struct GraphSceneText {
    std::vector<QString> labels;
    std::vector<char> groups;
    std::vector<QString> edgeLabels;
};

/// The colour legend drawn in the top-left corner.
struct GraphLegend {
    QString title;
    std::vector<std::pair<QColor, QString>> entries; ///< swatches (categories or scale stops)
};

class GraphViewCanvas : public QWidget {
    Q_OBJECT
public:
    explicit GraphViewCanvas(QWidget* parent = nullptr);
    ~GraphViewCanvas() override;
    /// The keys the canvas handles, as (what it does, key) for the shortcuts dialog.
    static std::vector<std::pair<QString, QString>> keyHelp();

    /// Shows a new layout; keeps the camera when `keepView`, otherwise fits the whole graph.
    void setScene(std::shared_ptr<const LayoutResult> layout, GraphSceneText text, bool keepView);
    void setFills(std::vector<QColor> fills);
    void setLegend(GraphLegend legend);
    void setMessage(const QString& message); ///< shown when there is no layout
    const QString& message() const { return m_message; }
    void setHighlight(int slot);
    void setMarked(std::vector<int> hits); ///< search hits
    int highlight() const { return m_highlight; }

    const LayoutResult* layout() const { return m_layout.get(); }
    std::size_t itemCount() const { return m_layout ? m_layout->nodes.size() : 0; }
    Minimap* minimap() const { return m_minimap; }
    const std::vector<QColor>& fills() const { return m_fills; }
    void fitAll();
    void centerOn(int slot);
    void setViewCenter(QPointF scenePoint);
    void zoomBy(double factor, QPointF anchor);
    double scale() const { return m_scale; }
    QRectF viewRect() const; ///< the scene area on screen
    QPointF toWidget(QPointF scene) const { return (scene - m_origin) * m_scale; }
    QPointF toScene(QPointF widget) const { return widget / m_scale + m_origin; }
    int slotAt(QPointF widgetPos) const;
    /// Milliseconds the last paintEvent took.
    double lastFrameMs() const { return m_lastFrameMs; }
    /// Where the last frame drew its edge labels (widget coordinates; none overlaps another).
    const std::vector<QRectF>& edgeLabelBoxes() const { return m_edgeLabelBoxes; }

signals:
    void slotClicked(int slot);
    void slotActivated(int slot); ///< double click
    void viewChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void buildIndex();
    std::vector<int> slotsIn(const QRectF& sceneRect) const;
    void paintDots(class QPainter& p);
    void paintDetailed(QPainter& p);
    void paintLabels(QPainter& p, const std::vector<int>& hits);
    void paintLegend(QPainter& p);
    QColor fillOf(int slot) const;

    std::shared_ptr<const LayoutResult> m_layout;
    GraphSceneText m_text;
    std::vector<QColor> m_fills;
    std::vector<QRectF> m_edgeBounds;
    GraphLegend m_legend;
    QString m_message;
    int m_highlight = -1;
    std::vector<char> m_marked;
    double m_meanHeight = 30;
    // Grid index: items by the cell of their centre, compressed rows.
    int m_cols = 1, m_rows = 1;
    QRectF m_gridRect;
    double m_maxHalf = 0; ///< half of the largest node extent, to pad queries
    std::vector<int> m_cellStart, m_cellItems;
    // Camera: scene point at the widget's top-left, pixels per scene unit.
    QPointF m_origin;
    double m_scale = 1;
    QPoint m_pressPos, m_lastPos;
    bool m_dragging = false;
    bool m_autoFit = false; ///< fitted and not moved since: refit on resize
    double m_lastFrameMs = 0;
    std::vector<QRectF> m_edgeLabelBoxes;
    Minimap* m_minimap = nullptr;
};

} // namespace pto::gui
