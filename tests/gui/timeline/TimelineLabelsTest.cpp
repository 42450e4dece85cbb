// What the timeline writes on itself, checked as a user would: the slice count painted on a
// busy lane's merged block equals SQL's count of the slices under it, the ruler's tick labels
// stay inside the widget, and a one-cycle slice lasts "1 cycle".
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/gui/timeline/TimelineTestSupport.h"

#include <QHelpEvent>
#include <QImage>
#include <QTest>

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace pto::gui {
namespace {

std::int64_t sqlInt(const tracedb::TraceReader& reader, const std::string& sql) {
    return std::get<std::int64_t>(reader.query(sql).rows.at(0).at(0));
}

// decode_attention's AIC 0 pipes hold hundreds of slices per task: at the fit view of a lane with
// more than 4 slices per pixel (a sparser lane is drawn slice by slice) they are drawn from the
// level-of-detail pyramid, one merged block per run of busy pixels. The number
// on a block was the sum over its pixels of every bucket each overlaps, so a bucket wider than
// a pixel counted once per pixel ("3818" over the 512 MTE2 slices of the first task).
TEST(TimelineLabels, TheCountOnABusyLaneIsTheNumberOfSlicesUnderIt) {
    ShownTimeline shown(test::sampleTrace("decode_attention"));
    TimelineCanvas& canvas = shown.view.canvas();
    ASSERT_NE(canvas.lod(), nullptr) << shown.view.statusText().toStdString();
    const auto& reader = shown.context.document()->reader();
    for (const char* pipe : {"MTE2", "MTE1", "M"}) {
        const std::int64_t trackId = sqlInt(
            reader, fmt::format("SELECT id FROM track WHERE core_id = 0 AND core_type = 'AIC' "
                                "AND pipe = '{}'",
                                pipe));
        const int track = shown.view.tracks().indexOfTrackId(trackId);
        ASSERT_GE(track, 0) << pipe;
        const std::int64_t count =
            sqlInt(reader, fmt::format("SELECT count(*) FROM slice WHERE track_id = {}", trackId));
        canvas.setMinimumSize(0, 0); // narrower than a window would make it
        canvas.resize(TimelineCanvas::kHeaderWidth + int(count / 4) - 1, canvas.height());
        canvas.viewport().showAll();
        canvas.scrollToTrack(track);
        canvas.repaint();
        const QRect lane = canvas.laneRect(track);
        ASSERT_TRUE(lane.isValid()) << pipe;
        EXPECT_GT(canvas.lastStats().lodLanes, 0);
        int labels = 0;
        for (const TimelineBlockCount& block : canvas.lastStats().blockCounts) {
            if (!lane.contains(block.box.center().toPoint())) continue;
            ++labels;
            // The block's pixels span [t0, t1): SQL counts the slices starting there.
            const double t0 = canvas.viewport().cycleAt(block.box.left() - lane.left());
            const double t1 = canvas.viewport().cycleAt(block.box.right() - lane.left());
            const std::int64_t slices = sqlInt(
                reader,
                fmt::format("SELECT count(*) FROM slice WHERE track_id = {} AND ts >= {:.3f} AND "
                            "ts < {:.3f}",
                            trackId, t0, t1));
            EXPECT_EQ(block.count, slices)
                << pipe << " block over cycles [" << t0 << ", " << t1 << ")";
        }
        // MTE2 loads in short bursts: that narrow, none of its blocks is wide enough for one.
        if (std::string_view(pipe) != "MTE2") {
            EXPECT_GT(labels, 0) << pipe << ": no count written on the lane";
        }
    }
    test::saveScreenshot(shown.view, "timeline_decode_attention_counts");
}

// The ruler of matmul (--trace full) at ends of the view that put a tick near the right edge:
// every label is whole inside the ruler; the right-most pixel columns hold no text.
TEST(TimelineLabels, RulerLabelsStayInsideTheWidget) {
    ShownTimeline shown(test::sampleTrace("matmul", "--trace full"));
    TimelineCanvas& canvas = shown.view.canvas();
    const QRgb window = canvas.palette().color(QPalette::Window).rgb();
    const int half = TimelineCanvas::kRulerHeight / 2;
    for (double end = 7000; end < 7600; end += 37) {
        canvas.viewport().setRange(0, end);
        const QImage image = canvas.grab().toImage();
        const auto& labels = canvas.lastStats().rulerLabels;
        ASSERT_FALSE(labels.empty());
        for (const TimelineRulerLabel& label : labels) {
            EXPECT_GE(label.box.left(), TimelineCanvas::kHeaderWidth) << label.text.toStdString();
            EXPECT_LE(label.box.right(), canvas.width()) << label.text.toStdString();
        }
        // Text rows of both halves, clear of the tick marks and the bottom line.
        for (int y = 0; y < TimelineCanvas::kRulerHeight - 6; ++y) {
            if (y >= half - 5 && y <= half) continue;
            for (int x = canvas.width() - 3; x < canvas.width(); ++x)
                ASSERT_EQ(image.pixel(x, y), window) << "text at the right edge, pixel (" << x
                                                     << ", " << y << "), view [0, " << end << ")";
        }
    }
    test::saveScreenshot(canvas, "timeline_matmul_ruler");
}

// A slice of one cycle: its tooltip and its details say "1 cycle", not "1 cycles".
TEST(TimelineLabels, AOneCycleSliceLastsOneCycle) {
    ShownTimeline shown(test::sampleTrace("matmul", "--trace full"));
    const auto& reader = shown.context.document()->reader();
    const auto row = reader
                         .query("SELECT id, track_id, ts, depth FROM slice WHERE dur = 1 ORDER "
                                "BY ts, id LIMIT 1")
                         .rows.at(0);
    auto v = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
    TimelineCanvas& canvas = shown.view.canvas();
    canvas.viewport().reveal(v(2), v(2) + 1);
    canvas.scrollToTrack(shown.view.tracks().indexOfTrackId(v(1)));
    const auto point = canvas.pointOf(v(1), v(2), 1, int(v(3)));
    ASSERT_TRUE(point);
    const QString tip = canvas.toolTipAt(*point);
    EXPECT_TRUE(tip.contains(QStringLiteral("duration 1 cycle ("))) << tip.toStdString();
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, *point);
    ASSERT_EQ(canvas.selectedSlice(), v(0));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !shown.view.detailsLoading(); }, 30000));
    const QString duration = shown.view.details().value(QStringLiteral("Duration"));
    EXPECT_TRUE(duration.startsWith(QStringLiteral("1 cycle ("))) << duration.toStdString();
}

} // namespace
} // namespace pto::gui
