// The timeline's drawing surface: track headers, ruler and lanes painted with QPainter, and
// the mouse and keyboard handling for zoom, pan, click and area selection.
#pragma once

#include "gui/model/LinkResolver.h"
#include "gui/model/TimelineAggregateModel.h"
#include "gui/model/TimelineFlows.h"
#include "gui/model/TimelineViewport.h"
#include "gui/widgets/TimelineLayout.h"
#include "gui/widgets/TimelinePainter.h"

#include <QElapsedTimer>
#include <QPoint>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pto::gui {

class TimelineSliceCache;
class TimelineTrackModel;
struct TimelineLod;
struct TimelineRow;

/// Mouse: wheel zooms around the cursor, Shift+wheel scrolls the tracks, a horizontal wheel
/// pans; drag pans (both axes); Shift+drag selects an area (time × tracks); click selects a
/// slice; a click on a track header collapses/expands it, on its pin mark pins it.
/// Keys: W/S zoom in/out around the centre, A/D pan left/right, Esc clears the area.
class TimelineCanvas : public QWidget {
    Q_OBJECT
public:
    static constexpr int kHeaderWidth = TimelineLayout::kHeaderWidth;
    static constexpr int kRulerHeight = TimelineLayout::kRulerHeight;
    static constexpr int kPinWidth = 16;
    /// A lane shows single slices when at most this many start in the visible range.
    static constexpr std::int64_t kRawLimit = 500;
    /// ... or when its pyramid's finest buckets are wider than a pixel and at most this many
    /// start per pixel of the view.
    static constexpr std::int64_t kSparseRawPerPixel = 4;
    /// A frame reads slice windows from the file for at most this long; lanes left over show
    /// their summary and are read in the next frames (scheduled at once).
    static constexpr int kReadBudgetMillis = 6;

    TimelineCanvas(TimelineTrackModel& tracks, TimelineSliceCache& slices,
                   QWidget* parent = nullptr);

    /// After a new document: names of slices, clock, and the time bounds from the tracks. A
    /// measured trace (`pto import`) counts ns, not cycles, and fits to its kernels.
    void reset(std::unordered_map<std::int64_t, QString> names, double clockHz,
               bool measured = false);
    /// The unit of the trace's times: "ns" for a measured trace, else "cycles".
    QString timeUnit() const;
    /// The names of the ruler's rows: "cycles" over "time", or "time" alone (a measured trace).
    QString rulerHeader() const;
    /// What the canvas says when it has no track to draw (no trace, or a compile-only one).
    void setEmptyText(QString text);
    const QString& emptyText() const { return m_emptyText; }
    /// The keys the canvas handles, as (what it does, key) for the shortcuts dialog.
    static std::vector<std::pair<QString, QString>> keyHelp();
    void setLod(std::shared_ptr<const TimelineLod> lod);
    const TimelineLod* lod() const { return m_lod.get(); }

    TimelineViewport& viewport() { return m_viewport; }
    const TimelineViewport& viewport() const { return m_viewport; }
    void setColouring(TimelineColouring colouring);
    TimelineColouring colouring() const { return m_frame.colouring; }
    void setSelectedSlice(std::int64_t sliceId);
    std::int64_t selectedSlice() const { return m_frame.selectedSlice; }
    /// Highlights the slices of an op of the program (LinkResolver::programOpOf; invalid: none).
    void setHighlightedOp(const NodeKey& op);
    const NodeKey& highlightedOp() const { return m_highlightedOp; }
    void setFlows(std::vector<TimelineFlow> flows);
    const std::vector<TimelineFlow>& flows() const { return m_flows; }
    const TimelineArea& area() const { return m_area; }

    int scrollY() const { return m_layout.scrollY; }
    void setScrollY(int y);
    int maxScrollY() const;
    /// Scrolls so that the row of track index `track` is visible; for `depth` > 0 the row of
    /// that nesting depth in its lane (a tall lane's deep slice is not left below the view).
    void scrollToTrack(int track, int depth = 0);

    /// Widget rectangle of a track's lane (invalid when the track has no visible row).
    QRect laneRect(int track) const;
    /// Centre of a slice on screen (for tests that click it); nullopt when not visible.
    std::optional<QPoint> pointOf(std::int64_t trackId, std::int64_t ts, std::int64_t dur,
                                  int depth) const;
    /// The track index of the row at widget y, -1 for none.
    int trackAt(int y) const;
    /// The slice drawn at a widget point (read through the index), if any.
    std::optional<TimelineSlice> sliceAt(QPoint point, std::int64_t* trackId = nullptr);

    /// The tooltip of the slice at a widget point: name, start and duration ("" for none).
    QString toolTipAt(QPoint point);

    const TimelinePaintStats& lastStats() const { return m_stats; }
    double lastFrameMillis() const { return m_frameMillis; }
    std::int64_t framesPainted() const { return m_frames; }
    /// True when the last frame left lanes unread (another frame is scheduled).
    bool incomplete() const { return m_incomplete; }

signals:
    void sliceClicked(std::int64_t sliceId, std::int64_t trackId);
    void emptyClicked();
    void areaSelected(const pto::gui::TimelineArea& area);
    void viewChanged();
    /// Right click on a track's header: the view shows the track's menu there.
    void trackMenuRequested(int track, QPoint globalPos);
    /// B: bookmark the selected slice (or the middle of the view).
    void bookmarkRequested();

protected:
    bool event(QEvent* event) override; // tooltips
    void contextMenuEvent(QContextMenuEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    enum class Drag { None, Pan, Area };

    int timeWidth() const { return std::max(1, width() - kHeaderWidth); }
    void paintRows(TimelinePainter& painter, QPainter& p, const std::vector<TimelineRow>& rows,
                   bool pinned);
    void paintLane(TimelinePainter& painter, const TimelineRow& row, const QRect& lane);
    void paintHeader(QPainter& p, const TimelineRow& row, const QRect& header);
    void paintFlows(QPainter& p);
    void paintArea(QPainter& p);
    int flowY(std::int64_t trackId) const;
    void headerClicked(int track, int x);
    void changed();

    TimelineTrackModel& m_tracks;
    TimelineSliceCache& m_slices;
    TimelineViewport m_viewport;
    std::shared_ptr<const TimelineLod> m_lod;
    std::unordered_map<std::int64_t, QString> m_names;
    QString m_emptyText;
    double m_clockHz = 0;
    bool m_measured = false;
    TimelineFrame m_frame;
    NodeKey m_highlightedOp; ///< m_frame.highlightedOp is its key in m_lod
    std::vector<TimelineFlow> m_flows;
    TimelineArea m_area;
    TimelineLayout m_layout;

    Drag m_drag = Drag::None;
    QPoint m_pressAt;
    QPoint m_lastAt;
    bool m_moved = false;

    TimelinePaintStats m_stats;
    double m_frameMillis = 0;
    QElapsedTimer m_frameTimer;
    bool m_incomplete = false;
    bool m_readThisFrame = false;
    std::int64_t m_frames = 0;
};

} // namespace pto::gui
