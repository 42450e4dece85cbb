// Drawing of the timeline's lanes: single slices, sub-pixel slices merged into one block with
// a count, level-of-detail lanes rendered as one pixel strip, counters, queries and the ruler.
#include "gui/widgets/TimelinePainter.h"

#include "gui/model/QueryTrack.h"
#include "gui/model/TimelineLod.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/model/TimelineViewport.h"
#include "gui/widgets/Theme.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace pto::gui {
namespace {

constexpr int kLane = TimelineTrackModel::kLaneHeight;
constexpr double kMinLabelWidth = 36;

// `colour` over `background` at opacity alpha/256.
QRgb blend(QRgb colour, QRgb background, int alpha) {
    auto mix = [&](int c, int b) { return b + (((c - b) * alpha) >> 8); };
    return qRgb(mix(qRed(colour), qRed(background)), mix(qGreen(colour), qGreen(background)),
                mix(qBlue(colour), qBlue(background)));
}

// Sub-pixel slices of one depth row waiting to be drawn as one block.
struct PendingBlock {
    double x0 = 0, x1 = 0;
    int count = 0;
    QColor colour;
};

} // namespace

TimelinePainter::TimelinePainter(QPainter& painter, const TimelineFrame& frame,
                                 TimelinePaintStats& stats)
    : m_painter(painter), m_frame(frame), m_stats(stats) {}

double TimelinePainter::xOf(double cycle) const {
    return m_frame.left + m_frame.viewport->xOf(cycle);
}

QColor TimelinePainter::waitColour(const QPalette& palette) {
    return theme::isDark(palette) ? QColor(90, 90, 96) : QColor(200, 200, 206);
}

QColor TimelinePainter::sliceColour(std::int32_t nameId, std::int32_t op,
                                    TimelineSlice::Category category, const QString& pipe) {
    const QPalette& palette = m_frame.palette;
    if (category == TimelineSlice::Category::Wait) return waitColour(palette);
    if (category == TimelineSlice::Category::Stall) return theme::severityColor(2, palette);
    if (m_frame.colouring == TimelineColouring::ByPipe &&
        category == TimelineSlice::Category::Instr)
        return theme::pipeColor(pipe.toStdString(), palette);
    const std::int64_t key = op != -1 ? op : (std::int64_t(1) << 40) + nameId;
    if (auto it = m_colours.find(key); it != m_colours.end()) return it->second;
    QColor colour;
    if (op != -1) { // a Tensor op's node id, or -2 - i for loop body op i: a hue each
        colour = theme::categoryColor(op >= 0 ? op : -1 - op, palette);
    } else {
        colour = theme::categoryColor(nameId, palette);
        if (m_frame.names)
            if (auto name = m_frame.names->find(nameId); name != m_frame.names->end())
                colour = theme::nameColor(name->second.toStdString(), palette);
    }
    m_colours.emplace(key, colour);
    return colour;
}

bool TimelinePainter::drawLabel(const QRectF& box, const QString& text, const QColor& background) {
    if (box.width() < kMinLabelWidth) return false;
    const QRectF inner = box.adjusted(3, 0, -3, 0);
    const QString elided =
        m_painter.fontMetrics().elidedText(text, Qt::ElideRight, int(inner.width()));
    if (elided.isEmpty()) return false;
    m_painter.setPen(theme::textOn(background));
    m_painter.drawText(inner, Qt::AlignVCenter | Qt::AlignLeft, elided);
    return true;
}

QRectF TimelinePainter::drawBoxedText(const QRectF& area, Qt::Alignment alignment,
                                      const QString& text) {
    const QFontMetricsF metrics(m_painter.fontMetrics());
    const QRectF bounds = metrics.boundingRect(area, int(alignment), text);
    const QRectF box = bounds.adjusted(-2, 0, 2, 0);
    QColor base = m_frame.palette.color(QPalette::Base);
    base.setAlpha(220);
    m_painter.setPen(Qt::NoPen);
    m_painter.setBrush(base);
    m_painter.drawRoundedRect(box, 2, 2);
    m_painter.setBrush(Qt::NoBrush);
    m_painter.setPen(m_frame.palette.color(QPalette::Text));
    m_painter.drawText(bounds, int(alignment), text);
    return box;
}

void TimelinePainter::drawSlices(const QRect& lane, std::span<const TimelineSlice> slices,
                                 const QString& pipe) {
    const TimelineViewport& vp = *m_frame.viewport;
    const double lo = vp.begin(), hi = vp.end();
    const double left = lane.left(), right = lane.right() + 1;
    // One row per depth, as many as the lane is tall (its track's deepest slice): a slice
    // deeper than that (a forged summary) is not drawn over the next lane.
    const int rows = std::max(1, (lane.height() - 2) / kLane);
    std::vector<PendingBlock> pending(static_cast<std::size_t>(rows));
    auto flush = [&](int depth) {
        PendingBlock& p = pending[std::size_t(depth)];
        if (p.count == 0) return;
        const QRectF box(p.x0, lane.top() + 2 + depth * kLane, std::max(1.0, p.x1 - p.x0),
                         kLane - 2);
        m_painter.fillRect(box, p.count == 1 ? p.colour : p.colour.lighter(115));
        if (p.count > 1) {
            ++m_stats.mergedBlocks;
            if (drawLabel(box, QStringLiteral("×%1").arg(p.count), p.colour))
                m_stats.blockCounts.push_back({box, p.count});
        } else {
            ++m_stats.slices;
        }
        p.count = 0;
    };
    const QColor selection = m_frame.palette.color(QPalette::Highlight);
    for (const TimelineSlice& s : slices) {
        if (double(s.end()) < lo || double(s.ts) > hi) continue;
        if (s.dur > 0 && double(s.end()) == lo) continue;
        if (s.depth < 0 || s.depth >= rows) continue;
        const double x0 = std::max(left, xOf(double(s.ts)));
        const double x1 = std::min(right, xOf(double(s.end())));
        const std::int32_t op = m_frame.lod ? m_frame.lod->opOf(s.instrId) : -1;
        const QColor colour = sliceColour(s.nameId, op, s.category, pipe);
        const bool highlighted = m_frame.highlights(op);
        if (highlighted) {
            ++m_stats.highlighted;
            m_stats.highlightedSlices.push_back(s.id);
        }
        PendingBlock& p = pending[std::size_t(s.depth)];
        if (x1 - x0 < 1 && !highlighted && s.id != m_frame.selectedSlice) {
            if (p.count > 0 && x0 <= p.x1 + 1) {
                p.x1 = std::max(p.x1, x0 + 1);
                ++p.count;
            } else {
                flush(s.depth);
                p = {x0, x0 + 1, 1, colour};
            }
            continue;
        }
        flush(s.depth);
        const QRectF box(x0, lane.top() + 2 + s.depth * kLane, std::max(1.0, x1 - x0), kLane - 2);
        m_painter.fillRect(box, colour);
        ++m_stats.slices;
        if (highlighted || s.id == m_frame.selectedSlice) {
            m_painter.setPen(
                QPen(s.id == m_frame.selectedSlice ? selection : colour.darker(180), 2));
            m_painter.setBrush(Qt::NoBrush);
            m_painter.drawRect(box.adjusted(1, 1, -1, -1));
        }
        if (box.width() >= kMinLabelWidth && m_frame.names)
            if (auto name = m_frame.names->find(s.nameId); name != m_frame.names->end())
                drawLabel(box, name->second, colour);
    }
    for (int depth = 0; depth < int(pending.size()); ++depth) flush(depth);
}

std::vector<TimelinePainter::BucketColumn>
TimelinePainter::bucketColumns(const QRect& lane, const LodPyramid& pyramid) const {
    const TimelineViewport& vp = *m_frame.viewport;
    const int level = pyramid.levelFor(vp.cyclesPerPixel());
    const auto buckets = pyramid.level(level);
    const double bucketWidth = double(pyramid.bucketWidth(level));
    const auto last = std::int64_t(buckets.size()) - 1;
    const auto depths = pyramid.depths(level);
    const double firstCycle = vp.cycleAt(lane.left() - m_frame.left) - double(pyramid.origin());
    const double perPixel = vp.cyclesPerPixel();
    std::vector<BucketColumn> columns(static_cast<std::size_t>(lane.width()));
    // A bucket wider than a pixel overlaps several columns: its slices count in the first.
    std::int64_t firstUncounted = 0;
    for (std::size_t x = 0; x < columns.size(); ++x) {
        const double c0 = firstCycle + double(x) * perPixel;
        auto b0 = std::int64_t(std::floor(c0 / bucketWidth));
        auto b1 = std::max(b0, std::int64_t(std::ceil((c0 + perPixel) / bucketWidth)) - 1);
        if (b1 < 0 || b0 > last) continue;
        b0 = std::max<std::int64_t>(b0, 0);
        b1 = std::min(b1, last);
        BucketColumn& column = columns[x];
        for (std::int64_t b = b0; b <= b1; ++b) {
            const LodBucket& bucket = buckets[std::size_t(b)];
            if (b >= firstUncounted) column.count += bucket.count;
            // Covered by a slice that started in an earlier bucket is occupied too: the block
            // goes on there, and splitting it would split its count.
            column.occupied |= bucket.count > 0 || bucket.fill > 0 || bucket.waitFill > 0;
            column.fill += bucket.fill;
            column.waitFill += bucket.waitFill;
            if (!depths.empty()) column.depths |= depths[std::size_t(b)];
            if (bucket.nameId != 0 && (!column.dominant || bucket.fill > column.dominant->fill))
                column.dominant = &bucket;
        }
        column.fill /= float(b1 - b0 + 1);
        column.waitFill /= float(b1 - b0 + 1);
        firstUncounted = std::max(firstUncounted, b1 + 1);
    }
    return columns;
}

TimelinePainter::StripColumn TimelinePainter::stripColumn(const BucketColumn& column, QRgb busy,
                                                          QRgb background, int rows) {
    const float wait = std::clamp(column.waitFill, 0.0f, 1.0f);
    const float fill = column.dominant ? std::clamp(column.fill, 0.0f, 1.0f - wait) : 0.0f;
    // The wait share as rows on top; a column that holds any wait keeps at least one grey row,
    // and one with busy time at least one row of it.
    int waitRows = wait > 0 ? std::max(1, int(std::lround(wait * float(rows)))) : 0;
    if (fill > 0) waitRows = std::min(waitRows, rows - 1);
    // The busy colour's intensity: the busy share of the time the column does not wait.
    const float intensity = wait < 1 ? std::min(1.0f, fill / (1.0f - wait)) : 0.0f;
    return {waitRows, fill > 0 ? blend(busy, background, 102 + int(154 * intensity)) : background};
}

void TimelinePainter::drawBuckets(const QRect& lane, const LodPyramid& pyramid,
                                  const QString& pipe) {
    const int width = lane.width();
    if (width <= 0 || pyramid.levelCount() == 0) return;
    ++m_stats.lodLanes;
    const std::vector<BucketColumn> columns = bucketColumns(lane, pyramid);
    const QRgb background = m_frame.palette.color(QPalette::Base).rgb();
    QImage strip(width, kLane - 2, QImage::Format_ARGB32_Premultiplied);
    std::vector<StripColumn> strips(static_cast<std::size_t>(width));
    // Colours of the last dominant (name, op) pair: neighbouring pixels mostly share it.
    std::int32_t lastName = 0, lastOp = -2;
    QRgb lastColour = background;
    std::vector<QRgb> busyOf(static_cast<std::size_t>(width), background);
    for (int x = 0; x < width; ++x) {
        const BucketColumn& column = columns[std::size_t(x)];
        QRgb& busy = busyOf[std::size_t(x)];
        if (const LodBucket* best = column.dominant) {
            if (best->nameId != lastName || best->opId != lastOp) {
                lastName = best->nameId;
                lastOp = best->opId;
                lastColour =
                    sliceColour(best->nameId, best->opId, TimelineSlice::Category::Instr, pipe)
                        .rgb();
            }
            const bool highlighted = m_frame.highlights(best->opId);
            busy = highlighted ? QColor(lastColour).darker(150).rgb() : lastColour;
        }
        strips[std::size_t(x)] = stripColumn(column, busy, background, strip.height());
    }
    // Only the top rows that some column waits in differ per pixel; below them every row is the
    // rest colour of each column, built once and copied (most lanes have no wait at all).
    const QRgb waiting = waitColour(m_frame.palette).rgb();
    int waitRows = 0;
    for (const StripColumn& c : strips)
        waitRows = std::min(std::max(waitRows, c.waitRows), strip.height());
    for (int y = 0; y < waitRows; ++y) {
        auto* row = reinterpret_cast<QRgb*>(strip.scanLine(y));
        for (int x = 0; x < width; ++x)
            row[x] = y < strips[std::size_t(x)].waitRows ? waiting : strips[std::size_t(x)].rest;
    }
    if (waitRows < strip.height()) {
        auto* first = reinterpret_cast<QRgb*>(strip.scanLine(waitRows));
        for (int x = 0; x < width; ++x) first[x] = strips[std::size_t(x)].rest;
        for (int y = waitRows + 1; y < strip.height(); ++y)
            std::copy_n(first, width, reinterpret_cast<QRgb*>(strip.scanLine(y)));
    }
    m_painter.drawImage(QPoint(lane.left(), lane.top() + 2), strip);
    drawNestedRows(lane, columns, busyOf);
    drawBlockCounts(lane, columns);
}

void TimelinePainter::drawNestedRows(const QRect& lane, const std::vector<BucketColumn>& columns,
                                     const std::vector<QRgb>& busy) {
    const int rows = std::max(1, (lane.height() - 2) / kLane); // as drawSlices draws them
    std::uint64_t any = 0;
    for (const BucketColumn& column : columns) any |= column.depths;
    if (any == 0 || rows < 2) return;
    const int deepest = std::min(rows - 1, any >> 63 ? rows - 1 : int(std::bit_width(any)));
    const QRgb background = m_frame.palette.color(QPalette::Base).rgb();
    const QRgb nested = m_frame.palette.color(QPalette::Mid).rgb();
    QImage image(int(columns.size()), deepest * kLane, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    for (std::size_t x = 0; x < columns.size(); ++x) {
        if (columns[x].depths == 0) continue;
        // The colour of the stack's bottom slice where there is one, lighter; else neutral.
        const QRgb colour = blend(busy[x] != background ? busy[x] : nested, background, 150);
        for (int depth = 1; depth <= deepest; ++depth) {
            if (!(columns[x].depths & LodPyramid::depthBit(depth))) continue;
            const int top = (depth - 1) * kLane;
            for (int y = top; y < top + kLane - 2; ++y)
                reinterpret_cast<QRgb*>(image.scanLine(y))[x] = colour;
        }
    }
    m_painter.drawImage(QPoint(lane.left(), lane.top() + 2 + kLane), image);
}

void TimelinePainter::drawBlockCounts(const QRect& lane, const std::vector<BucketColumn>& columns) {
    // Each run of occupied pixels is one merged block; wide ones show their slice count.
    const int width = int(columns.size());
    for (int x = 0; x < width;) {
        if (!columns[std::size_t(x)].occupied) {
            ++x;
            continue;
        }
        int end = x;
        std::int64_t count = 0;
        for (; end < width && columns[std::size_t(end)].occupied; ++end)
            count += columns[std::size_t(end)].count;
        ++m_stats.mergedBlocks;
        const QRectF box(lane.left() + x, lane.top() + 2, end - x, kLane - 2);
        // "×N", as a block of merged single slices reads: a bare number read as a slice's name.
        const QString text = QStringLiteral("×%1").arg(count);
        // The number sits on a box of its own: the block below it may be busy and wait colours.
        if (end - x >= 48 && m_painter.fontMetrics().horizontalAdvance(text) + 10 <= end - x) {
            drawBoxedText(box.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
            m_stats.blockCounts.push_back({box, count});
        }
        x = end;
    }
}

void TimelinePainter::drawCounter(const QRect& lane, const CounterSeries& series,
                                  const QString& unit) {
    const TimelineViewport& vp = *m_frame.viewport;
    if (series.ts.empty()) return;
    const double top = lane.top() + 3, bottom = lane.bottom() - 1;
    const double left = lane.left(), right = lane.right();
    const double scale = series.maxValue > 0 ? (bottom - top) / series.maxValue : 0;
    auto yOf = [&](std::size_t i) { return bottom - series.value[i] * scale; };
    auto xAt = [&](std::size_t i) { return std::clamp(xOf(double(series.ts[i])), left, right); };
    auto visible = [&](std::size_t i) {
        return i < series.ts.size() && double(series.ts[i]) <= vp.end();
    };
    auto first = std::upper_bound(series.ts.begin(), series.ts.end(), std::int64_t(vp.begin()));
    std::size_t i = first == series.ts.begin() ? 0 : std::size_t(first - series.ts.begin()) - 1;
    // A step graph: a value holds until the next sample. Samples sharing a pixel column make
    // that column as high as the highest of them (a burst stays visible however far out the
    // view is); from the next column on, the last of them holds — not the highest, which
    // would paint the burst's peak across the idle time after it.
    QPolygonF area; // filled
    QPolygonF edge; // its outline, drawn once: the dips between two crowded columns drop out
    auto add = [&](double x, double y) {
        area << QPointF(x, y);
        const qsizetype n = edge.size();
        if (n >= 2 && edge[n - 1].x() == x && edge[n - 2].x() == x)
            edge[n - 1].setY(y); // one vertical stroke from where the column was entered
        else
            edge << QPointF(x, y);
    };
    add(left, bottom);
    double held = bottom; // y of the value in force where the next sample starts
    while (visible(i)) {
        const double x = xAt(i);
        const double column = std::floor(x);
        double peak = yOf(i), last = peak;
        std::size_t samples = 1;
        for (++i; visible(i) && std::floor(xAt(i)) == column; ++i, ++samples) {
            last = yOf(i);
            peak = std::min(peak, last);
        }
        if (samples == 1) {
            add(x, held);
            add(x, last);
        } else {
            const double end = std::min(column + 1, right);
            add(column, held);
            add(column, peak);
            add(end, peak);
            add(end, last);
        }
        held = last;
    }
    add(right, held);
    add(right, bottom);
    edge << QPointF(left, bottom);
    const QColor colour = theme::categoryColor(7, m_frame.palette);
    m_painter.setPen(Qt::NoPen);
    m_painter.setBrush(QColor(colour.red(), colour.green(), colour.blue(), 140));
    m_painter.drawPolygon(area);
    m_painter.setPen(colour.darker(130));
    m_painter.drawPolyline(edge);
    drawBoxedText(lane.adjusted(4, 2, -4, 0), Qt::AlignTop | Qt::AlignRight,
                  QStringLiteral("max %1 %2").arg(series.maxValue, 0, 'g', 4).arg(unit).trimmed());
}

void TimelinePainter::drawQuery(const QRect& lane, const QueryTrack& query) {
    std::vector<TimelineSlice> slices;
    slices.reserve(query.items.size());
    std::unordered_map<std::int64_t, QString> names;
    for (std::size_t i = 0; i < query.items.size(); ++i) {
        const auto& item = query.items[i];
        slices.push_back({-1 - std::int64_t(i), item.ts, item.dur, -1, std::int32_t(i),
                          std::int16_t(item.depth), TimelineSlice::Category::Task});
        names.emplace(std::int64_t(i), item.name);
    }
    TimelineFrame frame = m_frame;
    frame.names = &names;
    frame.lod = nullptr;
    TimelinePainter painter(m_painter, frame, m_stats);
    painter.drawSlices(lane, slices, {});
}

void TimelinePainter::drawPending(const QRect& lane, std::int64_t minTs, std::int64_t maxEnd) {
    const double x0 = std::max(double(lane.left()), xOf(double(minTs)));
    const double x1 = std::min(double(lane.right()), xOf(double(maxEnd)));
    if (x1 <= x0) return;
    m_painter.fillRect(QRectF(x0, lane.top() + 2, x1 - x0, kLane - 2),
                       QBrush(m_frame.palette.color(QPalette::Mid), Qt::BDiagPattern));
}

void TimelinePainter::drawRuler(const QRect& area, double clockHz, bool cycleRow) {
    const TimelineViewport& vp = *m_frame.viewport;
    m_painter.fillRect(area, m_frame.palette.color(QPalette::Window));
    m_painter.setPen(m_frame.palette.color(QPalette::WindowText));
    const int half = area.height() / 2;
    if (cycleRow) drawTickRow(vp.cycleTicks(), area, area.top());
    drawTickRow(vp.microTicks(clockHz), area, cycleRow ? area.top() + half : area.top());
    m_painter.drawLine(area.bottomLeft(), area.bottomRight());
}

void TimelinePainter::drawTickRow(const std::vector<RulerTick>& ticks, const QRect& area, int top) {
    const int half = area.height() / 2;
    for (const RulerTick& tick : ticks) {
        const double x = m_frame.left + tick.x;
        m_painter.drawLine(QPointF(x, top + half - 5), QPointF(x, top + half));
    }
    drawTickLabels(ticks, QRectF(area.left(), top, area.width(), half - 2), area);
}

void TimelinePainter::drawTickLabels(const std::vector<RulerTick>& ticks, const QRectF& row,
                                     const QRect& area) {
    const double right = area.right() + 1;
    double previousEnd = -1e9;
    for (const RulerTick& tick : ticks) {
        const double width = m_painter.fontMetrics().horizontalAdvance(tick.label);
        const double left = std::min(m_frame.left + tick.x + 3, right - width - 4);
        if (left < previousEnd + 4) continue;
        const QRectF box(left, row.top(), width, row.height());
        m_painter.drawText(box, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextDontClip, tick.label);
        m_stats.rulerLabels.push_back({box, tick.label});
        previousEnd = box.right();
    }
}

void TimelinePainter::drawGrid(const QRect& area) {
    QColor line = m_frame.palette.color(QPalette::Mid);
    line.setAlpha(60);
    m_painter.setPen(line);
    for (const RulerTick& tick : m_frame.viewport->cycleTicks())
        m_painter.drawLine(QPointF(m_frame.left + tick.x, area.top()),
                           QPointF(m_frame.left + tick.x, area.bottom()));
}

void TimelinePainter::drawHeader(QPainter& p, const QPalette& palette, const TimelineTrack& t,
                                 int indent, const QRect& header, int pinWidth) {
    p.fillRect(header, palette.color(QPalette::Window));
    p.setPen(palette.color(QPalette::WindowText));
    const int x = 4 + 12 * indent;
    if (!t.children.empty())
        p.drawText(QRect(x, header.top(), 12, kLane), Qt::AlignCenter,
                   t.expanded ? QStringLiteral("▾") : QStringLiteral("▸"));
    QFont font = p.font();
    font.setBold(t.kind == TimelineTrackKind::Core || t.kind == TimelineTrackKind::Chip);
    p.setFont(font);
    const QRect text(x + 14, header.top(), header.width() - x - 14 - pinWidth, kLane);
    p.drawText(text, Qt::AlignVCenter,
               p.fontMetrics().elidedText(t.name, Qt::ElideRight, text.width()));
    font.setBold(false);
    p.setFont(font);
    const QRect pin(header.right() - pinWidth + 4, header.top() + 5, 8, 8);
    p.setBrush(t.pinned ? palette.color(QPalette::Highlight) : Qt::NoBrush);
    p.setPen(palette.color(t.pinned ? QPalette::Highlight : QPalette::Mid));
    p.drawEllipse(pin);
    p.setBrush(Qt::NoBrush);
}

void TimelinePainter::drawArrow(QPainter& p, const QPointF& a, const QPointF& b,
                                const QColor& colour) {
    p.setPen(QPen(colour, 1.5));
    p.drawLine(a, b);
    const double angle = std::atan2(b.y() - a.y(), b.x() - a.x());
    QPolygonF head;
    head << b << b - QPointF(8 * std::cos(angle - 0.4), 8 * std::sin(angle - 0.4))
         << b - QPointF(8 * std::cos(angle + 0.4), 8 * std::sin(angle + 0.4));
    p.setBrush(colour);
    p.drawPolygon(head);
}

} // namespace pto::gui
