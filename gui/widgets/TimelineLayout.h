// Geometry of the timeline canvas: row positions with pinning and scrolling, hit tests, and
// the tracks under an area selection.
#pragma once

#include "gui/model/TimelineAggregateModel.h"

#include <QPoint>
#include <QRect>

namespace pto::gui {

class TimelineTrackModel;
class TimelineViewport;
struct TimelineRow;

class TimelineLayout {
public:
    static constexpr int kHeaderWidth = 170; ///< track names on the left
    static constexpr int kRulerHeight = 34;  ///< cycles and µs rows on top

    explicit TimelineLayout(const TimelineTrackModel& tracks);

    void setSize(int width, int height) {
        m_width = width;
        m_height = height;
    }
    int timeWidth() const { return std::max(1, m_width - kHeaderWidth); }

    int scrollY = 0; ///< pixels of the scrolled rows hidden above

    int maxScrollY() const;
    /// Widget y of a row's top.
    int rowTop(const TimelineRow& row, bool pinned) const;
    /// The row at widget y (null for the ruler or below the last row); `pinned` says which
    /// area it is in.
    const TimelineRow* rowAt(int y, bool* pinned) const;
    int trackAt(int y) const;
    /// Widget rectangle of a track's lane; invalid when the track has no row.
    QRect laneRect(int track) const;
    /// The area between two widget points: the time under their x, the slice-carrying tracks
    /// of the rows their y span (a collapsed row stands for its whole subtree).
    TimelineArea areaBetween(QPoint a, QPoint b, const TimelineViewport& viewport) const;

private:
    const TimelineTrackModel& m_tracks;
    int m_width = 1;
    int m_height = 1;
};

} // namespace pto::gui
