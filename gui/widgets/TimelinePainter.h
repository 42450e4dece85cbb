// Draws the parts of the timeline canvas: the ruler, slice lanes (single slices or merged
// level-of-detail blocks with counts), counter lanes and query lanes.
#pragma once

#include <algorithm>

#include "gui/model/LodPyramid.h"
#include "gui/model/TimelineSliceCache.h"

#include <QColor>
#include <QPalette>
#include <QRect>
#include <QString>

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

class QPainter;

namespace pto::gui {

class TimelineViewport;
struct CounterSeries;
struct RulerTick;
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
    /// TimelineLod::keysOf the highlighted op, ascending; empty: none.
    std::vector<std::int32_t> highlightedOps;
    bool highlights(std::int32_t op) const {
        return op != -1 && std::binary_search(highlightedOps.begin(), highlightedOps.end(), op);
    }
    std::int64_t selectedSlice = -1;
    QPalette palette;
};

/// A slice count written on a merged block: the block (widget coordinates) and the number.
struct TimelineBlockCount {
    QRectF box;
    std::int64_t count = 0;
};

/// A tick label of the ruler as drawn: where its text lies (widget coordinates) and the text.
struct TimelineRulerLabel {
    QRectF box;
    QString text;
};

/// Counts of what a frame drew, for tests and the benchmark.
struct TimelinePaintStats {
    std::int64_t slices = 0;       ///< single slices drawn as their own rectangle
    std::int64_t mergedBlocks = 0; ///< blocks standing for several sub-pixel slices
    std::int64_t lodLanes = 0;     ///< lanes drawn from the pyramid
    std::int64_t highlighted = 0;  ///< slices drawn highlighted (of the highlighted op)
    std::vector<std::int64_t> highlightedSlices; ///< the ids of those drawn one by one
    std::vector<TimelineBlockCount> blockCounts; ///< the counts written on merged blocks
    std::vector<TimelineRulerLabel> rulerLabels; ///< the ruler's tick labels
};

class TimelinePainter {
public:
    TimelinePainter(QPainter& painter, const TimelineFrame& frame, TimelinePaintStats& stats);

    /// The cycle row above the time row; a trace counting time (measured) has the time row
    /// only (`cycleRow` false), both would read the same clock.
    void drawRuler(const QRect& area, double clockHz, bool cycleRow);
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

    /// Wait slices, and the wait share of a level-of-detail column: grey, never a busy colour.
    static QColor waitColour(const QPalette& palette);
    QColor sliceColour(std::int32_t nameId, std::int32_t op, TimelineSlice::Category category,
                       const QString& pipe);

private:
    /// One pixel column of a level-of-detail lane.
    struct BucketColumn {
        std::int64_t count = 0;   ///< slices of the buckets that start their overlap here
        bool occupied = false;    ///< some bucket with slices, busy or wait time overlaps it
        float fill = 0;           ///< mean busy fill of the overlapping buckets
        float waitFill = 0;       ///< mean wait fill of the overlapping buckets
        std::uint64_t depths = 0; ///< depths of nested slices overlapping it (LodPyramid::depths)
        const LodBucket* dominant = nullptr;
    };

    double xOf(double cycle) const;
    /// Draws `text` in `box` when it is wide enough; returns whether it drew it.
    bool drawLabel(const QRectF& box, const QString& text, const QColor& background);
    /// Draws `text` aligned in `area` on a box of the palette's base colour, readable over
    /// whatever lies beneath (a graph, a strip of two colours); returns the box.
    QRectF drawBoxedText(const QRectF& area, Qt::Alignment alignment, const QString& text);
    /// One pixel column of a level-of-detail strip as drawn: its first rows in the wait colour,
    /// the rest in one colour.
    struct StripColumn {
        int waitRows = 0;
        QRgb rest = 0;
    };
    /// The wait share of the column's `rows` on top, the rest in `busy` at the intensity of
    /// its busy share of the time left (`background` where it is not busy).
    static StripColumn stripColumn(const BucketColumn& column, QRgb busy, QRgb background,
                                   int rows);
    std::vector<BucketColumn> bucketColumns(const QRect& lane, const LodPyramid& pyramid) const;
    /// The rows below depth 0 of a zoomed-out lane: each column filled on the rows of the
    /// depths nested there (nested slices are no busy time of the lane's own, so they get no
    /// count and no op colour, only the rows they occupy).
    void drawNestedRows(const QRect& lane, const std::vector<BucketColumn>& columns,
                        const std::vector<QRgb>& busy);
    /// Writes on each run of occupied columns (one unbroken block, gaps are empty columns)
    /// the number of slices starting in it, each counted once (runs wide enough for a label).
    void drawBlockCounts(const QRect& lane, const std::vector<BucketColumn>& columns);
    /// The ruler's tick labels of one row: right of their tick, or pulled left to stay
    /// inside `area` (dropped when that would cover the previous label).
    void drawTickLabels(const std::vector<RulerTick>& ticks, const QRectF& row, const QRect& area);
    /// One row of the ruler, `top` its upper edge: tick marks at its bottom, labels above.
    void drawTickRow(const std::vector<RulerTick>& ticks, const QRect& area, int top);

    QPainter& m_painter;
    const TimelineFrame& m_frame;
    TimelinePaintStats& m_stats;
    std::unordered_map<std::int64_t, QColor> m_colours;
};

} // namespace pto::gui
