// Where things are on the timeline canvas: the ruler on top, the pinned rows under it, the
// scrolled rows below, track headers on the left; and which tracks an area covers.
#include "gui/widgets/TimelineLayout.h"

#include "gui/model/TimelineTrackModel.h"
#include "gui/model/TimelineViewport.h"

#include <algorithm>
#include <cmath>

namespace pto::gui {
namespace {

bool carriesSlices(const TimelineTrack& t) {
    return t.id > 0 && t.kind != TimelineTrackKind::Counter;
}

} // namespace

TimelineLayout::TimelineLayout(const TimelineTrackModel& tracks) : m_tracks(tracks) {}

int TimelineLayout::maxScrollY() const {
    const int visible = m_height - kRulerHeight - m_tracks.pinnedHeight();
    return std::max(0, m_tracks.rowsHeight() - visible);
}
int TimelineLayout::rowTop(const TimelineRow& row, bool pinned) const {
    return pinned ? kRulerHeight + row.y : kRulerHeight + m_tracks.pinnedHeight() + row.y - scrollY;
}
const TimelineRow* TimelineLayout::rowAt(int y, bool* pinned) const {
    if (y < kRulerHeight) return nullptr;
    const bool inPinned = y < kRulerHeight + m_tracks.pinnedHeight();
    const auto& rows = inPinned ? m_tracks.pinnedRows() : m_tracks.rows();
    const int local =
        inPinned ? y - kRulerHeight : y - kRulerHeight - m_tracks.pinnedHeight() + scrollY;
    auto it = std::upper_bound(rows.begin(), rows.end(), local,
                               [](int v, const TimelineRow& r) { return v < r.y; });
    if (it == rows.begin()) return nullptr;
    --it;
    if (local >= it->y + it->height) return nullptr;
    if (pinned) *pinned = inPinned;
    return &*it;
}
int TimelineLayout::trackAt(int y) const {
    const TimelineRow* row = rowAt(y, nullptr);
    return row ? row->track : -1;
}
QRect TimelineLayout::laneRect(int track) const {
    for (bool pinned : {true, false})
        for (const TimelineRow& row : pinned ? m_tracks.pinnedRows() : m_tracks.rows())
            if (row.track == track)
                return QRect(kHeaderWidth, rowTop(row, pinned), timeWidth(), row.height);
    return {};
}
TimelineArea TimelineLayout::areaBetween(QPoint a, QPoint b,
                                         const TimelineViewport& viewport) const {
    TimelineArea area;
    const double x0 = std::max(0, std::min(a.x(), b.x()) - kHeaderWidth);
    const double x1 = std::max(0, std::max(a.x(), b.x()) - kHeaderWidth);
    area.begin = std::int64_t(std::floor(viewport.cycleAt(x0)));
    area.end = std::int64_t(std::ceil(viewport.cycleAt(x1)));
    const int y0 = std::min(a.y(), b.y()), y1 = std::max(a.y(), b.y());
    for (bool pinned : {true, false}) {
        for (const TimelineRow& row : pinned ? m_tracks.pinnedRows() : m_tracks.rows()) {
            const int top = rowTop(row, pinned);
            if (top > y1 || top + row.height <= y0) continue;
            if (!pinned && top + row.height <= kRulerHeight + m_tracks.pinnedHeight()) continue;
            const TimelineTrack& t = m_tracks.track(row.track);
            // A collapsed track stands for everything under it.
            const auto tracks =
                t.expanded ? std::vector<int>{row.track} : m_tracks.subtree(row.track);
            for (int index : tracks)
                if (carriesSlices(m_tracks.track(index)))
                    area.trackIds.push_back(m_tracks.track(index).id);
        }
    }
    std::sort(area.trackIds.begin(), area.trackIds.end());
    area.trackIds.erase(std::unique(area.trackIds.begin(), area.trackIds.end()),
                        area.trackIds.end());
    return area;
}

} // namespace pto::gui
