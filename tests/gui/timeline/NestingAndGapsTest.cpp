// GUI tests that the timeline draws every nesting depth on its own row and idle stretches as gaps.
// A host thread of a measured trace nests 37 deep; a sparse lane idles between tasks. Checked in
// the pixels of the canvas against SQL.
#include "gui/model/LodPyramid.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/gui/timeline/TimelineTestSupport.h"

#include <QImage>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;

constexpr int kLane = TimelineTrackModel::kLaneHeight;

std::int64_t sqlInt(const tracedb::TraceReader& reader, const std::string& sql) {
    return std::get<std::int64_t>(reader.query(sql).rows.at(0).at(0));
}

/// `pto import` of the level-1 profile of ../shared: its Python threads nest up to depth 37.
fs::path measuredTrace() {
    return test::importedTrace(fs::path(PTO_SOURCE_DIR) /
                                   "../shared/data/ascend-profiler/text/level1/rank0_ascend_pt",
                               "measured_level1_rank0");
}

/// Pixels of `image` in [x0, x1) × [y0, y1) equal to `colour`.
int pixelsOf(const QImage& image, int x0, int x1, int y0, int y1, QRgb colour) {
    int n = 0;
    for (int y = std::max(0, y0); y < std::min(image.height(), y1); ++y)
        for (int x = std::max(0, x0); x < std::min(image.width(), x1); ++x)
            n += image.pixel(x, y) == colour;
    return n;
}

// The deepest slice (depth 37, `Ctrl+G` or `#slice=`) was drawn on row 16 over a slice of
// another depth (depths were clamped to 0…16, lanes 17 rows tall), and the view scrolled to the
// lane's top, leaving it below. Now the view scrolls to the slice's own row, where it is drawn
// (outlined as selected).
TEST(TimelineNesting, TheDeepestSliceIsDrawnOnItsOwnRowAndScrolledTo) {
    ShownTimeline shown(measuredTrace(), {1400, 760});
    const auto& reader = shown.context.document()->reader();
    const auto row = reader
                         .query("SELECT id, track_id, ts, dur, depth FROM slice ORDER BY depth "
                                "DESC, dur DESC LIMIT 1")
                         .rows.at(0);
    const auto v = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
    ASSERT_GT(v(4), 16) << "the trace nests no deeper than the old cap";
    shown.context.selection().select(EntityRef::slice(v(0)));
    TimelineCanvas& canvas = shown.view.canvas();
    ASSERT_EQ(canvas.selectedSlice(), v(0));
    const QImage image = canvas.grab().toImage();
    const auto centre = canvas.pointOf(v(1), v(2), v(3), int(v(4)));
    ASSERT_TRUE(centre) << "the slice's row is out of view";
    const QRect lane = canvas.laneRect(shown.view.tracks().indexOfTrackId(v(1)));
    EXPECT_EQ(lane.height(), kLane * (int(v(4)) + 1) + 4); // a row for every depth
    const int top = lane.top() + 2 + int(v(4)) * kLane;
    ASSERT_GE(top, TimelineCanvas::kRulerHeight);
    ASSERT_LE(top + kLane, canvas.height());
    const int x0 =
        TimelineCanvas::kHeaderWidth + int(std::ceil(canvas.viewport().xOf(double(v(2)))));
    const int x1 =
        TimelineCanvas::kHeaderWidth + int(std::floor(canvas.viewport().xOf(double(v(2) + v(3)))));
    ASSERT_GT(x1 - x0, 10);
    // The selection's outline runs along the top and bottom of the slice's box, on its row.
    const QRgb outline = canvas.palette().color(QPalette::Highlight).rgb();
    EXPECT_GT(pixelsOf(image, x0, x1, top, top + kLane - 2, outline), x1 - x0)
        << "no selected slice drawn on row " << v(4);
    test::saveScreenshot(shown.view, "timeline_nesting_deepest");
}

// Zoomed out, a lane of 1 651 slices nesting 37 deep showed one bar on its top row and ~650 px
// of blank rows below it: nested slices were not drawn until zoomed in. Now each row shows
// where its depth has slices — and only those rows (the importer's stacks skip depths) — both
// when the lane is sparse enough for single slices and when it is drawn from the pyramid.
TEST(TimelineNesting, AZoomedOutLaneShowsItsNestedRows) {
    ShownTimeline shown(measuredTrace(), {1400, 760});
    const auto& reader = shown.context.document()->reader();
    const std::int64_t trackId =
        sqlInt(reader, "SELECT track_id FROM track_summary ORDER BY max_depth DESC LIMIT 1");
    TimelineCanvas& canvas = shown.view.canvas();
    canvas.viewport().showAll(); // a measured trace fits to its kernels' run
    // The depths with a slice in view.
    std::vector<bool> present;
    reader.query(fmt::format("SELECT DISTINCT depth FROM slice WHERE track_id = {} AND ts < {} "
                             "AND ts + dur > {}",
                             trackId, std::int64_t(canvas.viewport().end()),
                             std::int64_t(canvas.viewport().begin())),
                 [&](auto, auto row) {
                     const auto d = std::size_t(std::get<std::int64_t>(row[0]));
                     if (present.size() <= d) present.resize(d + 1, false);
                     present[d] = true;
                     return true;
                 });
    const int maxDepth = int(present.size()) - 1;
    ASSERT_GT(maxDepth, 16);
    const int track = shown.view.tracks().indexOfTrackId(trackId);
    const QRgb background = canvas.palette().color(QPalette::Base).rgb();
    // 160 px of time: more than 4 slices per pixel, so the lane comes from the pyramid.
    canvas.setMinimumSize(0, 0); // narrower than a window would make it
    for (const int timeWidth : {1200, 160}) {
        canvas.resize(TimelineCanvas::kHeaderWidth + timeWidth,
                      kLane * (maxDepth + 4) + TimelineCanvas::kRulerHeight + 40);
        canvas.viewport().showAll();
        canvas.scrollToTrack(track);
        canvas.repaint();
        canvas.repaint(); // slice windows are read over the first frames
        const QImage image = canvas.grab().toImage();
        const QRect lane = canvas.laneRect(track);
        ASSERT_TRUE(lane.isValid());
        if (timeWidth == 160) {
            EXPECT_GT(canvas.lastStats().lodLanes, 0);
        }
        // The grid's vertical lines cross every row: their columns do not count.
        std::vector<bool> grid(std::size_t(image.width()), false);
        for (const RulerTick& tick : canvas.viewport().cycleTicks())
            for (int dx = -1; dx <= 1; ++dx) {
                const int x = lane.left() + int(std::lround(tick.x)) + dx;
                if (x >= 0 && x < image.width()) grid[std::size_t(x)] = true;
            }
        for (int depth = 1; depth <= maxDepth; ++depth) {
            const int top = lane.top() + 2 + depth * kLane;
            ASSERT_LE(top + kLane, image.height());
            bool drawn = false;
            for (int x = lane.left(); x <= lane.right() && !drawn; ++x)
                for (int y = top + 2; y < top + kLane - 4 && !drawn && !grid[std::size_t(x)]; ++y)
                    drawn = image.pixel(x, y) != background;
            EXPECT_EQ(drawn, bool(present[std::size_t(depth)]))
                << "row " << depth << " at " << timeWidth << " px";
        }
        test::saveScreenshot(canvas, fmt::format("timeline_nesting_zoomed_out_{}", timeWidth));
    }
}

// The pyramid keeps, per bucket, the depths of the slices nested over it, and each coarser
// level those of both halves: what a zoomed-out lane needs to draw the rows below depth 0.
TEST(TimelineNesting, ThePyramidKeepsTheDepthsOfNestedSlices) {
    LodPyramid flat(0, 1000, 40);
    flat.add(0, 100, 1, -1);
    flat.finish();
    EXPECT_TRUE(flat.depths(0).empty()); // a flat track spends nothing on depths
    LodPyramid pyramid(0, 1024, 64);     // 16 buckets of 64 cycles
    pyramid.add(0, 1024, 1, -1, LodCover::Busy, 0);
    pyramid.add(100, 20, 2, -1, LodCover::None, 3);  // bucket 1
    pyramid.add(130, 200, 3, -1, LodCover::None, 1); // buckets 2..5
    pyramid.add(900, 0, 4, -1, LodCover::None, 70);  // an instant in bucket 14, below 64
    pyramid.finish();
    ASSERT_EQ(pyramid.bucketWidth(0), 64);
    const auto bit = [](int depth) { return LodPyramid::depthBit(depth); };
    const auto base = pyramid.depths(0);
    ASSERT_EQ(base.size(), 16u);
    EXPECT_EQ(base[0], 0u);
    EXPECT_EQ(base[1], bit(3));
    EXPECT_EQ(base[2], bit(1));
    EXPECT_EQ(base[5], bit(1));
    EXPECT_EQ(base[6], 0u);
    EXPECT_EQ(base[14], bit(64));
    EXPECT_EQ(pyramid.depths(1)[0], bit(3)); // buckets 0 and 1
    EXPECT_EQ(pyramid.depths(1)[1], bit(1)); // buckets 2 and 3
    const auto top = pyramid.depths(pyramid.levelCount() - 1);
    ASSERT_EQ(top.size(), 1u);
    EXPECT_EQ(top[0], bit(1) | bit(3) | bit(64));
}

// flash_attention_loop at the fit view: AIV 0 idles between its tasks (about 1 800 cycles of
// dispatch, some 6 px), and its MTE3 lane — 567 slices, level-0 buckets of 2 048 cycles, wider
// than the gap — was drawn as one unbroken busy strip labelled "567" across three tasks. Every
// idle stretch of the lane wider than a few pixels is now blank, and no block's count spans one.
TEST(TimelineGaps, AnIdleStretchOfASparseLaneIsDrawnAsAGap) {
    ShownTimeline shown(test::sampleTrace("flash_attention_loop", "--trace full"), {1400, 760});
    const auto& reader = shown.context.document()->reader();
    const std::int64_t trackId = sqlInt(
        reader, "SELECT id FROM track WHERE core_type = 'AIV' AND core_id = 0 AND pipe = 'MTE3'");
    TimelineCanvas& canvas = shown.view.canvas();
    canvas.viewport().showAll();
    const int track = shown.view.tracks().indexOfTrackId(trackId);
    ASSERT_GE(track, 0);
    shown.view.tracks().setAllExpanded(true);
    canvas.scrollToTrack(track);
    canvas.repaint();
    canvas.repaint(); // the slice windows are read over the first frames
    const QImage image = canvas.grab().toImage();
    const QRect lane = canvas.laneRect(track);
    ASSERT_TRUE(lane.isValid());
    // Idle stretches of the lane, from SQL: where no slice of it runs.
    std::vector<std::pair<std::int64_t, std::int64_t>> gaps;
    std::int64_t end = -1;
    reader.query(
        fmt::format("SELECT ts, ts + dur FROM slice WHERE track_id = {} ORDER BY ts", trackId),
        [&](auto, auto row) {
            const auto ts = std::get<std::int64_t>(row[0]);
            if (end >= 0 && ts > end) gaps.emplace_back(end, ts);
            end = std::max(end, std::get<std::int64_t>(row[1]));
            return true;
        });
    const QRgb background = canvas.palette().color(QPalette::Base).rgb();
    int checked = 0;
    for (const auto& [from, to] : gaps) {
        const int x0 = lane.left() + int(std::ceil(canvas.viewport().xOf(double(from)))) + 1;
        const int x1 = lane.left() + int(std::floor(canvas.viewport().xOf(double(to)))) - 1;
        if (x1 - x0 < 3) continue; // within a pixel or two of its neighbours
        ++checked;
        EXPECT_EQ(pixelsOf(image, x0, x1, lane.top() + 2, lane.top() + kLane, background),
                  (x1 - x0) * (kLane - 2))
            << "idle cycles [" << from << ", " << to << ") drawn busy at x " << x0 << ".." << x1;
        for (const TimelineBlockCount& block : canvas.lastStats().blockCounts) {
            if (!lane.contains(block.box.center().toPoint())) continue;
            EXPECT_FALSE(block.box.left() < x0 && block.box.right() > x1)
                << "a count of " << block.count << " spans idle cycles [" << from << ", " << to
                << ")";
        }
    }
    EXPECT_GE(checked, 2) << "the lane idles between its three tasks";
    test::saveScreenshot(shown.view, "timeline_gaps_mte3");
}

} // namespace
} // namespace pto::gui
