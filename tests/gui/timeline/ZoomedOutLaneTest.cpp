// A zoomed-out lane drawn from the level-of-detail pyramid, checked in its pixels against SQL:
// wait time is grey in proportion to the waits, never the busy colour, and each unbroken block
// is labelled with the number of slices it really holds.
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelinePainter.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/gui/timeline/TimelineTestSupport.h"

#include <QImage>
#include <QPainter>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace pto::gui {
namespace {

constexpr int kLane = TimelineTrackModel::kLaneHeight;
/// The lanes' width in pixels: narrow enough that each lane holds more than
/// TimelineCanvas::kSparseRawPerPixel slices per pixel, so it is drawn from the pyramid (a
/// sparser lane is drawn slice by slice: its buckets would be wider than a pixel).
constexpr int kTimeWidth = 160;

/// One task of a 128×32768 · 32768×256 matmul per AIC (k split in 256 steps), at --trace full:
/// AIC 0's MTE1 and M lanes hold 1 786 and 895 slices, about half their time waiting on flags
/// (wait slices up to 2 500 cycles long, many buckets wide); MTE2 never waits.
std::filesystem::path waitingMatmul() {
    return test::programTrace(
        "timeline_waiting_matmul",
        "func @mm(%a: tensor<128x32768xf16>, %b: tensor<32768x256xf16>) -> tensor<128x256xf32> "
        "{\n  cube_tile [128, 128], [128, 256], [128, 128]\n  %c = matmul %a, %b\n  return %c\n}\n",
        "--timing-only --trace full");
}

std::int64_t sqlInt(const tracedb::TraceReader& reader, const std::string& sql) {
    return std::get<std::int64_t>(reader.query(sql).rows.at(0).at(0));
}

/// AIC 0's lane of `pipe` at the fit view of a kTimeWidth canvas, drawn from the pyramid, and
/// its pixels.
struct ZoomedOutLane {
    std::int64_t trackId = -1;
    QRect lane;
    QImage image;
    std::vector<TimelineBlockCount> counts; ///< the numbers written on the lane
    int numberWidth = 0;                    ///< of the widest number's box, at a block's left
    std::int64_t minTs = 0, maxEnd = 0;

    int stripTop() const { return lane.top() + 2; }
    int stripRows() const { return kLane - 2; }
    bool underNumber(int x) const {
        for (const TimelineBlockCount& c : counts)
            if (x >= c.box.left() && x <= c.box.left() + numberWidth) return true;
        return false;
    }
};

ZoomedOutLane showLane(ShownTimeline& shown, const char* pipe) {
    ZoomedOutLane out;
    const auto& reader = shown.context.document()->reader();
    out.trackId = sqlInt(reader, fmt::format("SELECT id FROM track WHERE core_id = 0 AND "
                                             "core_type = 'AIC' AND pipe = '{}'",
                                             pipe));
    out.minTs = sqlInt(
        reader, fmt::format("SELECT min_ts FROM track_summary WHERE track_id = {}", out.trackId));
    out.maxEnd = sqlInt(
        reader, fmt::format("SELECT max_end FROM track_summary WHERE track_id = {}", out.trackId));
    TimelineCanvas& canvas = shown.view.canvas();
    const int track = shown.view.tracks().indexOfTrackId(out.trackId);
    EXPECT_GE(track, 0) << pipe;
    canvas.setMinimumSize(0, 0); // narrower than a window would make it
    canvas.resize(TimelineCanvas::kHeaderWidth + kTimeWidth, canvas.height());
    canvas.viewport().showAll();
    canvas.scrollToTrack(track);
    out.image = canvas.grab().toImage();
    out.lane = canvas.laneRect(track);
    EXPECT_TRUE(out.lane.isValid()) << pipe;
    EXPECT_GT(canvas.lastStats().lodLanes, 0) << pipe;
    for (const TimelineBlockCount& c : canvas.lastStats().blockCounts)
        if (out.lane.contains(c.box.center().toPoint())) {
            out.counts.push_back(c);
            out.numberWidth = std::max(
                out.numberWidth,
                canvas.fontMetrics().horizontalAdvance(QStringLiteral("×%1").arg(c.count)) + 12);
        }
    return out;
}

std::int64_t waitCycles(const tracedb::TraceReader& reader, std::int64_t trackId) {
    return sqlInt(reader, fmt::format("SELECT coalesce(sum(dur), 0) FROM slice WHERE track_id = {} "
                                      "AND category = 'wait' AND depth = 0",
                                      trackId));
}

// The zoomed-out lane drew every bucket in its dominant slice's busy colour at the intensity of
// instruction plus wait time, so a pipe waiting half its time looked as busy as one that never
// waits (gemm_4096: MTE1, 53 % busy, in the colour of MTE2, 95 %). Now the wait share of each
// column is grey rows: over the lane their share is the lane's wait time in SQL, and a lane
// that never waits has no grey at all.
TEST(ZoomedOutLane, WaitTimeIsGreyInProportionAndNeverTheBusyColour) {
    ShownTimeline shown(waitingMatmul());
    ASSERT_NE(shown.view.canvas().lod(), nullptr) << shown.view.statusText().toStdString();
    const auto& reader = shown.context.document()->reader();
    const QRgb grey = TimelinePainter::waitColour(shown.view.canvas().palette()).rgb();
    const QRgb background = shown.view.canvas().palette().color(QPalette::Base).rgb();
    const TimelineViewport& vp = shown.view.canvas().viewport();
    for (const char* pipe : {"MTE1", "M", "MTE2"}) {
        const ZoomedOutLane lane = showLane(shown, pipe);
        const double waitShare =
            double(waitCycles(reader, lane.trackId)) / double(lane.maxEnd - lane.minTs);
        const int x0 = lane.lane.left() + int(std::ceil(vp.xOf(double(lane.minTs))));
        const int x1 = lane.lane.left() + int(std::floor(vp.xOf(double(lane.maxEnd))));
        ASSERT_GT(x1 - x0, kTimeWidth / 2) << pipe;
        std::int64_t pixels = 0, greyPixels = 0, busyPixels = 0;
        for (int x = x0; x < x1; ++x) {
            if (lane.underNumber(x)) continue; // the number's box hides the strip there
            for (int y = lane.stripTop(); y < lane.stripTop() + lane.stripRows(); ++y) {
                const QRgb pixel = lane.image.pixel(x, y);
                ++pixels;
                greyPixels += pixel == grey;
                busyPixels += pixel != grey && pixel != background;
            }
        }
        const double greyShare = double(greyPixels) / double(pixels);
        EXPECT_NEAR(greyShare, waitShare, 0.06)
            << pipe << ": grey " << greyPixels << " of " << pixels << " pixels";
        EXPECT_GT(busyPixels, pixels / 3) << pipe;
        if (waitShare == 0) {
            EXPECT_EQ(greyPixels, 0) << pipe;
        }
    }
    test::saveScreenshot(shown.view, "timeline_zoomed_out_waits");
}

// The numbers on a zoomed-out lane did not add up: a pixel column covered only by a slice that
// began in an earlier bucket counted as empty, which cut one unbroken bar into pieces; each
// piece wide enough got the count of its own slices (gemm_4096's M lane: "627", "627", "418",
// 1 672 of its 4 596 slices). Now a number stands for exactly one unbroken run of pixels — it
// spans the run, no gap lies under it — and it is SQL's count of the slices starting there.
TEST(ZoomedOutLane, EachUnbrokenBlockIsLabelledWithTheSlicesItHolds) {
    ShownTimeline shown(waitingMatmul());
    ASSERT_NE(shown.view.canvas().lod(), nullptr) << shown.view.statusText().toStdString();
    const auto& reader = shown.context.document()->reader();
    const QRgb background = shown.view.canvas().palette().color(QPalette::Base).rgb();
    // A grid line over the background (the canvas draws them across every lane).
    QImage gridOnBase(1, 1, QImage::Format_RGB32);
    gridOnBase.fill(background);
    {
        QPainter p(&gridOnBase);
        QColor line = shown.view.canvas().palette().color(QPalette::Mid);
        line.setAlpha(60);
        p.setPen(line);
        p.drawPoint(0, 0);
    }
    const QRgb grid = gridOnBase.pixel(0, 0);
    const TimelineViewport& vp = shown.view.canvas().viewport();
    for (const char* pipe : {"MTE1", "M", "MTE2"}) {
        const ZoomedOutLane lane = showLane(shown, pipe);
        // Runs of columns with any drawn pixel in the strip (the numbers lie inside runs).
        auto drawn = [&](int x) {
            for (int y = lane.stripTop(); y < lane.stripTop() + lane.stripRows(); ++y)
                if (lane.image.pixel(x, y) != background && lane.image.pixel(x, y) != grid)
                    return true;
            return false;
        };
        std::vector<std::pair<int, int>> runs;
        for (int x = lane.lane.left(); x <= lane.lane.right(); ++x) {
            if (!drawn(x)) continue;
            if (!runs.empty() && runs.back().second == x)
                runs.back().second = x + 1;
            else
                runs.emplace_back(x, x + 1);
        }
        ASSERT_FALSE(runs.empty()) << pipe;
        int labelled = 0;
        for (const auto& [begin, end] : runs) {
            std::vector<const TimelineBlockCount*> on;
            for (const TimelineBlockCount& c : lane.counts)
                if (c.box.center().x() >= begin && c.box.center().x() < end) on.push_back(&c);
            if (end - begin < 48) {
                EXPECT_TRUE(on.empty()) << pipe << ": a number on a run of " << end - begin;
                continue;
            }
            ASSERT_EQ(on.size(), 1u)
                << pipe << ": numbers on the run [" << begin << ", " << end << ")";
            ++labelled;
            EXPECT_EQ(int(on[0]->box.left()), begin) << pipe;
            EXPECT_EQ(int(on[0]->box.right()), end) << pipe;
            const double t0 = vp.cycleAt(begin - lane.lane.left());
            const double t1 = vp.cycleAt(end - lane.lane.left());
            const std::int64_t slices = sqlInt(
                reader,
                fmt::format("SELECT count(*) FROM slice WHERE track_id = {} AND ts >= {:.3f} AND "
                            "ts < {:.3f}",
                            lane.trackId, t0, t1));
            EXPECT_EQ(on[0]->count, slices) << pipe << " run [" << begin << ", " << end << ")";
        }
        EXPECT_EQ(labelled, int(lane.counts.size())) << pipe;
        EXPECT_GT(labelled, 0) << pipe;
        // M computes or waits nearly all the time: one bar, labelled with all its slices.
        if (std::string_view(pipe) == "M") {
            EXPECT_EQ(runs.size(), 1u);
            ASSERT_EQ(lane.counts.size(), 1u);
            EXPECT_EQ(lane.counts[0].count,
                      sqlInt(reader, fmt::format("SELECT count(*) FROM slice WHERE track_id = {}",
                                                 lane.trackId)));
        }
    }
    test::saveScreenshot(shown.view, "timeline_zoomed_out_counts");
}

} // namespace
} // namespace pto::gui
