// Draws the parts of the timeline canvas: the ruler, slice lanes (single slices or merged
// level-of-detail blocks with counts), counter lanes and query lanes.
#pragma once

#include "gui/model/LodPyramid.h"
#include "gui/model/TimelineSliceCache.h"

#include <QColor>
#include <QPalette>
#include <QRect>
#include <QString>

#include <cstdint>
#include <span>
#include <unordered_map>

class QPainter;

namespace pto::gui {

class TimelineViewport;
struct CounterSeries;
struct QueryTrack;
struct TimelineLod;
struct TimelineTrack;

enum class TimelineColouring { ByTensorOp, ByPipe };

/// What every lane of one frame shares.
struct TimelineFrame {
    const TimelineViewport* viewport = nullptr;
    int left = 0; ///< x of cycle viewport->begin() on the widget
    const TimelineLod* lod = nullptr;
    const std::unordered_map<std::int64_t, QString>* names = nullptr;
    TimelineColouring colouring = TimelineColouring::ByTensorOp;
    std::int64_t highlightedOp = -1;
    std::int64_t selectedSlice = -1;
    QPalette palette;
};

/// Counts of what a frame drew, for tests and the benchmark.
struct TimelinePaintStats {
    std::int64_t slices = 0;       ///< single slices drawn as their own rectangle
    std::int64_t mergedBlocks = 0; ///< blocks standing for several sub-pixel slices
    std::int64_t lodLanes = 0;     ///< lanes drawn from the pyramid
    std::int64_t highlighted = 0;  ///< slices drawn highlighted (of the highlighted op)
};

class TimelinePainter {
public:
    TimelinePainter(QPainter& painter, const TimelineFrame& frame, TimelinePaintStats& stats);

    void drawRuler(const QRect& area, double clockHz);
    void drawGrid(const QRect& area);
    void drawSlices(const QRect& lane, std::span<const TimelineSlice> slices, const QString& pipe);
    void drawBuckets(const QRect& lane, const LodPyramid& pyramid, const QString& pipe);
    void drawCounter(const QRect& lane, const CounterSeries& series, const QString& unit);
    void drawQuery(const QRect& lane, const QueryTrack& query);
    /// A track whose summary is not ready yet: a hatched bar over its extent.
    void drawPending(const QRect& lane, std::int64_t minTs, std::int64_t maxEnd);

    /// A track's header: expander, name (bold for chip and cores), pin mark on the right.
    static void drawHeader(QPainter& p, const QPalette& palette, const TimelineTrack& track,
                           int indent, const QRect& header, int pinWidth);
    /// A flow arrow from a to b.
    static void drawArrow(QPainter& p, const QPointF& a, const QPointF& b, const QColor& colour);

    QColor sliceColour(std::int32_t nameId, std::int32_t op, TimelineSlice::Category category,
                       const QString& pipe);

private:
    double xOf(double cycle) const;
    void drawLabel(const QRectF& box, const QString& text, const QColor& background);

    QPainter& m_painter;
    const TimelineFrame& m_frame;
    TimelinePaintStats& m_stats;
    std::unordered_map<std::int64_t, QColor> m_colours;
};

} // namespace pto::gui
