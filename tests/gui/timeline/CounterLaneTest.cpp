// Counter lanes drawn by the real timeline view from a crafted trace: a counter is a step
// function, so across a gap the lane shows the last sample's value; samples that share a pixel
// column may show their peak in that column, never beyond it.
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"
#include "trace_db/TraceWriter.h"

#include <QImage>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

namespace pto::gui {
namespace {

// One AIC core busy over [0, 100 000) with an "L0A KiB" counter (max 32) whose samples are placed
// on pixel columns of a view at 10 cycles per pixel: a burst 32 → 8 inside column 50, 8 held
// up to column 200, a burst 32 → 0 inside column 200, idle up to column 350, then 32 to the end.
// This is what decode_attention's AIC 0 does between cycles 110 589 and 322 189.
std::int64_t writeCounterTrace(const std::filesystem::path& path) {
    using namespace tracedb;
    TraceWriter w = TraceWriter::create(path);
    const auto chip = w.add(TrackRow{.nameId = w.intern("chip"), .kind = TrackKind::Chip});
    const auto core = w.add(TrackRow{.parentId = chip,
                                     .nameId = w.intern("AIC 0"),
                                     .kind = TrackKind::Core,
                                     .coreId = 0,
                                     .coreType = "AIC"});
    const auto pipe = w.add(TrackRow{.parentId = core,
                                     .nameId = w.intern("M"),
                                     .kind = TrackKind::Pipe,
                                     .coreId = 0,
                                     .coreType = "AIC",
                                     .pipe = "M",
                                     .sortIndex = 0});
    const auto counter = w.add(TrackRow{.parentId = core,
                                        .nameId = w.intern("L0A KiB"),
                                        .kind = TrackKind::Counter,
                                        .coreId = 0,
                                        .coreType = "AIC",
                                        .sortIndex = 1});
    w.add(SliceRow{.ts = 0,
                   .dur = 100000,
                   .trackId = pipe,
                   .nameId = w.intern("TMATMUL"),
                   .category = SliceCategory::Instr});
    for (const auto& [ts, value] : std::vector<std::pair<std::int64_t, double>>{
             {0, 0}, {500, 32}, {502, 8}, {2000, 32}, {2003, 0}, {3500, 32}, {99990, 32}})
        w.add(CounterRow{.ts = ts, .trackId = counter, .value = value});
    w.setMeta("sim_total_cycles", "100000");
    w.commit();
    return counter;
}

TEST(TimelineCounterLane, AGapShowsTheLastSampleAndABurstStaysInItsPixel) {
    test::TempDir dir;
    const auto trace = dir / "counter.db";
    const std::int64_t counterId = writeCounterTrace(trace);
    StudioContext context;
    context.setDocument(TraceDocument::open(trace));
    TimelineView view(context);
    view.resize(1400, 600);
    view.show();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loader().busy(); }, 20000));
    TimelineCanvas& canvas = view.canvas();
    ASSERT_NE(canvas.lod(), nullptr) << view.statusText().toStdString();

    const int width = canvas.width() - TimelineCanvas::kHeaderWidth;
    ASSERT_GT(width, 520); // the columns below, clear of the "max 32" label at the right
    canvas.viewport().setRange(0, 10.0 * width); // 10 cycles per pixel
    const int track = view.tracks().indexOfTrackId(counterId);
    ASSERT_GE(track, 0);
    canvas.scrollToTrack(track);
    const QRect lane = canvas.laneRect(track);
    ASSERT_TRUE(lane.isValid());
    ASSERT_GE(lane.top(), TimelineCanvas::kRulerHeight);
    const QImage image = canvas.grab().toImage();
    test::saveScreenshot(canvas, "timeline_counter_gap");
    ASSERT_GE(image.height(), lane.bottom());

    // Rows of the lane by value, as the painter maps them (max 32 at the top).
    const double bottom = lane.bottom() - 1, top = lane.top() + 3;
    auto row = [&](double value) { return int(std::floor(bottom - value * (bottom - top) / 32)); };
    auto column = [&](int pixel) { return TimelineCanvas::kHeaderWidth + pixel; };
    // A pixel the counter did not paint looks like its column above the graph (the background
    // or a grid line).
    auto painted = [&](int x, int y) {
        return image.pixel(x, y) != image.pixel(x, lane.top() + 1);
    };
    auto countPainted = [&](int from, int to, int y) {
        int n = 0;
        for (int x = column(from); x < column(to); ++x) n += painted(x, y) ? 1 : 0;
        return n;
    };

    // Columns 51–199: 8 of 32 holds after the burst in column 50, not the burst's 32.
    EXPECT_EQ(countPainted(52, 199, row(20)), 0) << "the burst's peak is held across the gap";
    EXPECT_EQ(countPainted(52, 199, row(4)), 199 - 52) << "the last value (8) is not shown";
    // Columns 201–349: 0 holds after the burst in column 200 (decode_attention's idle AIC).
    EXPECT_EQ(countPainted(202, 349, row(20)), 0) << "the burst's peak is held across the gap";
    EXPECT_EQ(countPainted(202, 349, row(4)), 0) << "an idle counter shows occupancy";
    // Each burst is drawn at its peak in its own column and stops there.
    for (int burst : {50, 200}) {
        EXPECT_TRUE(painted(column(burst), row(28))) << "column " << burst;
        EXPECT_FALSE(painted(column(burst) + 2, row(28))) << "column " << burst + 2;
    }
    // From column 350 on: 32.
    EXPECT_EQ(countPainted(352, 500, row(28)), 500 - 352);
}

} // namespace
} // namespace pto::gui
