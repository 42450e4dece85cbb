// Paints the timeline (headers, ruler, lanes, flows, area) and turns mouse and keys into
// zoom, pan, selection and area selection.
#include "gui/widgets/TimelineCanvas.h"

#include "gui/model/PlainText.h"
#include "gui/model/TimelineLod.h"
#include "gui/model/TimelineSliceCache.h"
#include "gui/model/TimelineTrackModel.h"

#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <unordered_set>

namespace pto::gui {
namespace {

constexpr int kLane = TimelineTrackModel::kLaneHeight;

bool carriesSlices(const TimelineTrack& t) {
    return t.id > 0 && t.kind != TimelineTrackKind::Counter;
}

} // namespace

TimelineCanvas::TimelineCanvas(TimelineTrackModel& tracks, TimelineSliceCache& slices,
                               QWidget* parent)
    : QWidget(parent), m_tracks(tracks), m_slices(slices), m_layout(tracks) {
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(400, 160);
    // paintEvent fills every pixel first: Qt need not paint the parents beneath on an update.
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(false);
    m_layout.setSize(width(), height());
    connect(&m_tracks, &TimelineTrackModel::rowsChanged, this, [this] {
        setScrollY(m_layout.scrollY);
        update();
    });
}

void TimelineCanvas::setEmptyText(QString text) {
    m_emptyText = std::move(text);
    update();
}

std::vector<std::pair<QString, QString>> TimelineCanvas::keyHelp() {
    return {{tr("zoom in"), QStringLiteral("W")},
            {tr("zoom out"), QStringLiteral("S")},
            {tr("pan left"), QStringLiteral("A")},
            {tr("pan right"), QStringLiteral("D")},
            {tr("scroll tracks"), tr("Up, Down")},
            {tr("clear the area selection"), tr("Esc")},
            {tr("bookmark the selected slice"), QStringLiteral("B")}};
}

void TimelineCanvas::reset(std::unordered_map<std::int64_t, QString> names, double clockHz,
                           bool measured) {
    m_names = std::move(names);
    m_clockHz = clockHz;
    m_measured = measured;
    m_lod.reset();
    m_flows.clear();
    m_area = {};
    m_frame.selectedSlice = -1;
    m_frame.highlightedOps.clear();
    m_highlightedOp = {};
    m_layout.scrollY = 0;
    m_viewport.setWidth(timeWidth());
    const std::int64_t end = m_tracks.maxEnd() > m_tracks.minTs() ? m_tracks.maxEnd() : 1000;
    m_viewport.setBounds(m_tracks.minTs(), end);
    // A measured trace's file starts at its earliest host op or counter sample, far from its
    // kernels: fit to them.
    if (const auto kernels = m_tracks.coreExtent(); m_measured && kernels)
        m_viewport.setFit(kernels->first, kernels->second);
    changed();
}

QString TimelineCanvas::rulerHeader() const {
    if (m_clockHz <= 0) return timeUnit();
    return m_measured ? tr("time\n") : tr("cycles\ntime");
}

QString TimelineCanvas::timeUnit() const {
    return m_measured ? QStringLiteral("ns") : QStringLiteral("cycles");
}

void TimelineCanvas::setLod(std::shared_ptr<const TimelineLod> lod) {
    m_lod = std::move(lod);
    m_frame.highlightedOps = m_lod ? m_lod->keysOf(m_highlightedOp) : std::vector<std::int32_t>{};
    update();
}

void TimelineCanvas::setColouring(TimelineColouring colouring) {
    m_frame.colouring = colouring;
    update();
}

void TimelineCanvas::setSelectedSlice(std::int64_t sliceId) {
    m_frame.selectedSlice = sliceId;
    update();
}

void TimelineCanvas::setHighlightedOp(const NodeKey& op) {
    m_highlightedOp = op;
    m_frame.highlightedOps = m_lod ? m_lod->keysOf(op) : std::vector<std::int32_t>{};
    update();
}

void TimelineCanvas::setFlows(std::vector<TimelineFlow> flows) {
    m_flows = std::move(flows);
    update();
}

int TimelineCanvas::maxScrollY() const {
    return m_layout.maxScrollY();
}

int TimelineCanvas::trackAt(int y) const {
    return m_layout.trackAt(y);
}

QRect TimelineCanvas::laneRect(int track) const {
    return m_layout.laneRect(track);
}

void TimelineCanvas::setScrollY(int y) {
    const int clamped = std::clamp(y, 0, maxScrollY());
    if (clamped == m_layout.scrollY) return;
    m_layout.scrollY = clamped;
    changed();
}

void TimelineCanvas::scrollToTrack(int track, int depth) {
    for (const TimelineRow& row : m_tracks.rows()) {
        if (row.track != track) continue;
        const int visible = height() - kRulerHeight - m_tracks.pinnedHeight();
        // The whole row, or for a nested slice the band of its depth.
        const int top = depth > 0 ? row.y + 2 + depth * kLane : row.y;
        const int bottom = depth > 0 ? top + kLane : row.y + row.height;
        if (top < m_layout.scrollY || bottom > m_layout.scrollY + visible)
            setScrollY(top - visible / 3);
        return;
    }
}

void TimelineCanvas::changed() {
    update();
    emit viewChanged();
}

std::optional<QPoint> TimelineCanvas::pointOf(std::int64_t trackId, std::int64_t ts,
                                              std::int64_t dur, int depth) const {
    const QRect lane = laneRect(m_tracks.indexOfTrackId(trackId));
    if (!lane.isValid()) return std::nullopt;
    const double x = kHeaderWidth + m_viewport.xOf(double(ts) + double(dur) / 2);
    const QPoint point(int(std::lround(x)), lane.top() + 2 + depth * kLane + kLane / 2);
    if (!rect().contains(point) || point.x() < kHeaderWidth) return std::nullopt;
    return point;
}

std::optional<TimelineSlice> TimelineCanvas::sliceAt(QPoint point, std::int64_t* trackId) {
    const TimelineRow* row = m_layout.rowAt(point.y(), nullptr);
    if (!row || point.x() < kHeaderWidth) return std::nullopt;
    const TimelineTrack& track = m_tracks.track(row->track);
    if (!carriesSlices(track)) return std::nullopt;
    bool pinned = false;
    m_layout.rowAt(point.y(), &pinned);
    const int depth = (point.y() - m_layout.rowTop(*row, pinned) - 2) / kLane;
    const double cycle = m_viewport.cycleAt(point.x() - kHeaderWidth);
    const double tolerance = 2 * m_viewport.cyclesPerPixel();
    std::vector<TimelineSlice> near;
    try {
        near = m_slices.read(track.id, std::int64_t(std::floor(cycle - tolerance)),
                             std::int64_t(std::ceil(cycle + tolerance)) + 1);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    const TimelineSlice* best = nullptr;
    double bestDistance = std::numeric_limits<double>::max();
    for (const TimelineSlice& s : near) {
        if (s.depth != depth) continue;
        const double distance = cycle < double(s.ts)       ? double(s.ts) - cycle
                                : cycle >= double(s.end()) ? cycle - double(s.end())
                                                           : 0;
        if (distance <= tolerance && distance < bestDistance) {
            best = &s;
            bestDistance = distance;
        }
    }
    if (!best) return std::nullopt;
    if (trackId) *trackId = track.id;
    return *best;
}

void TimelineCanvas::resizeEvent(QResizeEvent*) {
    m_layout.setSize(width(), height());
    const double begin = m_viewport.begin(), end = m_viewport.end();
    m_viewport.setWidth(timeWidth());
    m_viewport.setRange(begin, end);
    setScrollY(m_layout.scrollY);
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
    m_frameTimer.start();
    m_incomplete = false;
    m_readThisFrame = false;
    m_layout.setSize(width(), height());
    QPainter p(this);
    m_stats = {};
    m_viewport.setWidth(timeWidth());
    m_frame.viewport = &m_viewport;
    m_frame.left = kHeaderWidth;
    m_frame.lod = m_lod.get();
    m_frame.names = &m_names;
    m_frame.palette = palette();
    p.fillRect(rect(), palette().color(QPalette::Base));
    TimelinePainter painter(p, m_frame, m_stats);
    const QRect trackArea(kHeaderWidth, kRulerHeight, timeWidth(), height() - kRulerHeight);
    painter.drawGrid(trackArea);
    const int scrollTop = kRulerHeight + m_tracks.pinnedHeight();
    p.setClipRect(QRect(0, scrollTop, width(), height() - scrollTop));
    paintRows(painter, p, m_tracks.rows(), false);
    p.setClipping(false);
    paintRows(painter, p, m_tracks.pinnedRows(), true);
    if (m_tracks.pinnedHeight() > 0) {
        p.setPen(QPen(palette().color(QPalette::Dark), 2));
        p.drawLine(0, scrollTop, width(), scrollTop);
    }
    p.setClipRect(trackArea);
    paintFlows(p);
    paintArea(p);
    p.setClipping(false);
    const bool cycleRow = !m_measured || m_clockHz <= 0;
    painter.drawRuler(QRect(kHeaderWidth, 0, timeWidth(), kRulerHeight), m_clockHz, cycleRow);
    p.fillRect(QRect(0, 0, kHeaderWidth, kRulerHeight), palette().color(QPalette::Window));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(6, 0, kHeaderWidth - 8, kRulerHeight), Qt::AlignVCenter, rulerHeader());
    if (m_tracks.rows().empty() && m_tracks.pinnedRows().empty())
        p.drawText(trackArea, Qt::AlignCenter, m_emptyText);
    m_frameMillis = double(m_frameTimer.nsecsElapsed()) / 1e6;
    ++m_frames;
    if (m_incomplete) QTimer::singleShot(0, this, [this] { update(); });
}

void TimelineCanvas::paintRows(TimelinePainter& painter, QPainter& p,
                               const std::vector<TimelineRow>& rows, bool pinned) {
    const int firstY = pinned ? 0 : m_layout.scrollY;
    auto it = std::upper_bound(rows.begin(), rows.end(), firstY,
                               [](int v, const TimelineRow& r) { return v < r.y + r.height; });
    for (; it != rows.end(); ++it) {
        const int top = m_layout.rowTop(*it, pinned);
        if (top > height()) break;
        const QRect lane(kHeaderWidth, top, timeWidth(), it->height);
        if (pinned) p.fillRect(lane, palette().color(QPalette::AlternateBase));
        paintLane(painter, *it, lane);
        paintHeader(p, *it, QRect(0, top, kHeaderWidth, it->height));
        p.setPen(palette().color(QPalette::Midlight));
        p.drawLine(0, top + it->height - 1, width(), top + it->height - 1);
    }
}

void TimelineCanvas::paintLane(TimelinePainter& painter, const TimelineRow& row,
                               const QRect& lane) {
    const TimelineTrack& t = m_tracks.track(row.track);
    try {
        if (t.kind == TimelineTrackKind::Group) return;
        if (t.kind == TimelineTrackKind::Query) {
            if (t.query) painter.drawQuery(lane, *t.query);
            return;
        }
        if (t.kind == TimelineTrackKind::Counter) {
            if (!m_lod) return;
            if (auto it = m_lod->counters.find(t.id); it != m_lod->counters.end())
                painter.drawCounter(lane, it->second, {});
            return;
        }
        if (t.sliceCount == 0) return;
        const auto lo = std::int64_t(std::floor(m_viewport.begin()));
        const auto hi = std::int64_t(std::ceil(m_viewport.end()));
        const LodPyramid* pyramid = m_lod ? m_lod->pyramid(t.id) : nullptr;
        std::int64_t estimate = 0;
        if (pyramid) {
            estimate = pyramid->countIn(lo, hi);
        } else {
            const double extent = double(std::max<std::int64_t>(1, t.maxEnd - t.minTs));
            const double seen = double(std::min(hi, t.maxEnd) - std::max(lo, t.minTs));
            estimate = std::int64_t(double(t.sliceCount) * std::max(0.0, seen) / extent);
        }
        // Single slices when few start in view, and also when even the pyramid's finest
        // buckets are wider than a pixel: a bucket cannot hold a gap inside it, so an idle
        // stretch shorter than one drew busy (and three tasks as one block), while a lane that
        // sparse has only a few slices per pixel to read.
        const bool coarse =
            pyramid && double(pyramid->bucketWidth(0)) > m_viewport.cyclesPerPixel();
        const std::vector<TimelineSlice>* slices = nullptr;
        if (estimate <= kRawLimit || (coarse && estimate <= kSparseRawPerPixel * timeWidth())) {
            slices = m_slices.find(t.id, lo, hi);
            // At least one read per frame, so a slow frame still makes progress.
            if (!slices && (!m_readThisFrame || m_frameTimer.elapsed() < kReadBudgetMillis)) {
                slices = &m_slices.slices(t.id, lo, hi);
                m_readThisFrame = true;
            }
            m_incomplete |= slices == nullptr;
        }
        if (slices)
            painter.drawSlices(lane, *slices, t.pipe);
        else if (pyramid)
            painter.drawBuckets(lane, *pyramid, t.pipe);
        else
            painter.drawPending(lane, t.minTs, t.maxEnd);
    } catch (const std::exception&) {
        // A trace that went away under us: draw nothing rather than abort the frame.
    }
}

void TimelineCanvas::paintHeader(QPainter& p, const TimelineRow& row, const QRect& header) {
    TimelinePainter::drawHeader(p, palette(), m_tracks.track(row.track), row.indent, header,
                                kPinWidth);
}

int TimelineCanvas::flowY(std::int64_t trackId) const {
    for (int track = m_tracks.indexOfTrackId(trackId); track >= 0;
         track = m_tracks.track(track).parent) {
        const QRect lane = laneRect(track);
        if (lane.isValid()) return lane.top() + kLane / 2 + 2;
    }
    return -1;
}

void TimelineCanvas::paintFlows(QPainter& p) {
    if (m_flows.empty()) return;
    std::unordered_map<std::int64_t, int> yOf;
    auto y = [&](std::int64_t track) {
        auto it = yOf.find(track);
        return it != yOf.end() ? it->second : yOf.emplace(track, flowY(track)).first->second;
    };
    p.setRenderHint(QPainter::Antialiasing, true);
    // "All flows" over a wide range: thousands of arrows, most of them on the same pixels as
    // another (0.1 s of stroking in one paint); each distinct pixel path is drawn once, and
    // none whose both ends are off the same side of the lanes.
    std::unordered_set<std::uint64_t> drawn[2]; // flag flows, dependencies
    const double left = kHeaderWidth, right = width();
    for (const TimelineFlow& f : m_flows) {
        const int y0 = y(f.fromTrack), y1 = y(f.toTrack);
        if (y0 < 0 || y1 < 0) continue;
        const QPointF a(kHeaderWidth + m_viewport.xOf(double(f.fromCycle)), y0);
        const QPointF b(kHeaderWidth + m_viewport.xOf(double(f.toCycle)), y1);
        if ((a.x() < left && b.x() < left) || (a.x() > right && b.x() > right)) continue;
        const auto pixel = [](double v) {
            return std::uint64_t(std::clamp(std::lround(v), -32768L, 32767L) + 32768L);
        };
        const std::uint64_t key =
            pixel(a.x()) | (pixel(a.y()) << 16) | (pixel(b.x()) << 32) | (pixel(b.y()) << 48);
        if (!drawn[f.dependency ? 1 : 0].insert(key).second) continue;
        TimelinePainter::drawArrow(p, a, b,
                                   f.dependency ? QColor(40, 110, 220) : QColor(230, 120, 20));
    }
    p.setBrush(Qt::NoBrush);
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineCanvas::paintArea(QPainter& p) {
    if (m_area.isEmpty()) return;
    int top = std::numeric_limits<int>::max(), bottom = std::numeric_limits<int>::min();
    for (std::int64_t id : m_area.trackIds) {
        const QRect lane = laneRect(m_tracks.indexOfTrackId(id));
        if (!lane.isValid()) continue;
        top = std::min(top, lane.top());
        bottom = std::max(bottom, lane.bottom());
    }
    if (top > bottom) return;
    const double x0 = kHeaderWidth + m_viewport.xOf(double(m_area.begin));
    const double x1 = kHeaderWidth + m_viewport.xOf(double(m_area.end));
    QColor fill = palette().color(QPalette::Highlight);
    fill.setAlpha(50);
    p.fillRect(QRectF(x0, top, x1 - x0, bottom - top + 1), fill);
    p.setPen(palette().color(QPalette::Highlight));
    p.drawRect(QRectF(x0, top, x1 - x0, bottom - top));
}

void TimelineCanvas::headerClicked(int track, int x) {
    const TimelineTrack& t = m_tracks.track(track);
    if (x >= kHeaderWidth - kPinWidth)
        m_tracks.setPinned(track, !t.pinned);
    else if (!t.children.empty())
        m_tracks.setExpanded(track, !t.expanded);
}

void TimelineCanvas::wheelEvent(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ShiftModifier) {
        setScrollY(m_layout.scrollY - (delta.y() != 0 ? delta.y() : delta.x()));
    } else if (delta.x() != 0 && delta.y() == 0) {
        m_viewport.panPixels(-delta.x() / 2.0);
        changed();
    } else if (delta.y() != 0) {
        double x = event->position().x() - kHeaderWidth;
        if (x < 0) x = timeWidth() / 2.0;
        m_viewport.zoom(std::pow(2.0, delta.y() / 240.0), x);
        changed();
    }
    event->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    const QPoint at = event->position().toPoint();
    m_pressAt = m_lastAt = at;
    m_moved = false;
    if (at.x() < kHeaderWidth) {
        if (const int track = trackAt(at.y()); track >= 0) headerClicked(track, at.x());
        m_drag = Drag::None;
        return;
    }
    m_drag = event->modifiers() & Qt::ShiftModifier ? Drag::Area : Drag::Pan;
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* event) {
    const QPoint at = event->position().toPoint();
    if ((at - m_pressAt).manhattanLength() > 3) m_moved = true;
    if (m_drag == Drag::Pan) {
        m_viewport.panPixels(-(at.x() - m_lastAt.x()));
        setScrollY(m_layout.scrollY - (at.y() - m_lastAt.y()));
        changed();
    } else if (m_drag == Drag::Area && m_moved) {
        m_area = m_layout.areaBetween(m_pressAt, at, m_viewport);
        update();
    }
    m_lastAt = at;
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    const QPoint at = event->position().toPoint();
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (drag == Drag::Area && m_moved) {
        m_area = m_layout.areaBetween(m_pressAt, at, m_viewport);
        update();
        emit areaSelected(m_area);
        return;
    }
    if (drag == Drag::None || m_moved) return;
    std::int64_t track = -1;
    if (const auto slice = sliceAt(at, &track))
        emit sliceClicked(slice->id, track);
    else
        emit emptyClicked();
}

QString TimelineCanvas::toolTipAt(QPoint point) {
    // A track's header shows its name cut to the column's width ("Python · Thread 309…" for
    // two threads): the whole name, and what the lane holds.
    if (point.x() < kHeaderWidth) {
        const int track = trackAt(point.y());
        if (track < 0) return {};
        const TimelineTrack& t = m_tracks.track(track);
        return t.sliceCount > 0 ? tr("%1\n%2 slices").arg(t.name).arg(t.sliceCount) : t.name;
    }
    const auto slice = sliceAt(point);
    if (!slice) return {};
    const auto name = m_names.find(slice->nameId);
    QString text = name != m_names.end() ? name->second : tr("slice %1").arg(slice->id);
    text += tr("\nstart %1, duration %2")
                .arg(TimelineViewport::timeText(slice->ts, m_measured),
                     TimelineViewport::timeText(slice->dur, m_measured));
    if (m_clockHz > 0) text += tr(" (%1 µs)").arg(double(slice->dur) * 1e6 / m_clockHz, 0, 'f', 3);
    // Only a slice that executed an instruction has an op and a source line (not a task, a
    // wait, or anything of a measured trace).
    return text + (slice->instrId >= 0 ? tr("\nclick for its instruction, op and source line")
                                       : tr("\nclick for its details"));
}

bool TimelineCanvas::event(QEvent* event) {
    if (event->type() != QEvent::ToolTip) return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = toolTipAt(help->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), plainToolTip(text), this); // trace text
    return true;
}

void TimelineCanvas::contextMenuEvent(QContextMenuEvent* event) {
    const int track = event->pos().x() < kHeaderWidth ? trackAt(event->pos().y()) : -1;
    if (track < 0) {
        QWidget::contextMenuEvent(event);
        return;
    }
    emit trackMenuRequested(track, event->globalPos());
}

void TimelineCanvas::keyPressEvent(QKeyEvent* event) {
    const double centre = timeWidth() / 2.0;
    switch (event->key()) {
    case Qt::Key_W:
        m_viewport.zoom(1.25, centre);
        break;
    case Qt::Key_S:
        m_viewport.zoom(0.8, centre);
        break;
    case Qt::Key_A:
        m_viewport.panPixels(-timeWidth() * 0.1);
        break;
    case Qt::Key_D:
        m_viewport.panPixels(timeWidth() * 0.1);
        break;
    case Qt::Key_Up:
        setScrollY(m_layout.scrollY - 3 * kLane);
        return;
    case Qt::Key_Down:
        setScrollY(m_layout.scrollY + 3 * kLane);
        return;
    case Qt::Key_B:
        emit bookmarkRequested();
        break;
    case Qt::Key_Escape:
        m_area = {};
        emit areaSelected(m_area);
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    changed();
}

} // namespace pto::gui
