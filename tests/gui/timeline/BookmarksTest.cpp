// Timeline bookmarks offscreen: B on a selected slice bookmarks it, the sidecar beside the
// trace keeps it for the next session, clicking it shows the slice again; a damaged sidecar
// is reported and left alone; the view (range, rows, selected slice) is saved with the
// bookmarks when the trace is closed and shown again when it is reopened.
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineSession.h"
#include "gui/widgets/TimelineBookmarks.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/gui/timeline/TimelineTestSupport.h"
#include "tests/support/Process.h"

#include <QLineEdit>
#include <QListWidget>
#include <QTest>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;

/// A private copy of a sample trace, so its sidecar belongs to this test only.
fs::path traceCopy(const test::TempDir& dir) {
    const fs::path copy = dir / "run.db";
    fs::copy_file(test::sampleTrace("softmax"), copy);
    return copy;
}

TEST(TimelineBookmarks, BOnASliceBookmarksItAndTheNextSessionShowsItAgain) {
    test::TempDir dir;
    const fs::path trace = traceCopy(dir);
    const auto slice =
        std::stoll(test::runCommand(fmt::format("sqlite3 -readonly {} 'SELECT id FROM slice WHERE "
                                                "category = \"instr\" ORDER BY dur DESC, "
                                                "id LIMIT 1'",
                                                test::shellQuote(trace.string())))
                       .out);
    const auto ts = std::stoll(
        test::runCommand(fmt::format("sqlite3 -readonly {} 'SELECT ts FROM slice WHERE id = {}'",
                                     test::shellQuote(trace.string()), slice))
            .out);
    {
        ShownTimeline shown(trace, {1400, 700});
        TimelineView* view = &shown.view;
        EXPECT_TRUE(view->bookmarks().bookmarks().empty());
        view->selectSlice(slice, true);
        view->canvas().setFocus();
        QTest::keyClick(&view->canvas(), Qt::Key_B);
        ASSERT_EQ(view->bookmarks().bookmarks().size(), 1U);
        EXPECT_EQ(view->bookmarks().bookmarks()[0].slice, slice);
        EXPECT_EQ(view->bookmarks().bookmarks()[0].cycle, ts);
        EXPECT_TRUE(fs::exists(sessionPath(trace)));
        view->canvas().setSelectedSlice(-1);
        QTest::keyClick(&view->canvas(), Qt::Key_B); // no selection: the middle of the view
        EXPECT_EQ(view->bookmarks().bookmarks().size(), 2U);
        test::saveScreenshot(*view, "timeline_bookmarks");
    }
    ShownTimeline shown(trace, {1400, 700});
    TimelineView* view = &shown.view;
    StudioContext& context = shown.context;
    ASSERT_EQ(view->bookmarks().bookmarks().size(), 2U);
    QListWidget* list = view->bookmarks().list();
    int row = 0;
    while (view->bookmarks().bookmarks()[std::size_t(row)].slice != slice) ++row;
    list->scrollToItem(list->item(row));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(row)).center());
    EXPECT_EQ(view->canvas().selectedSlice(), slice);
    EXPECT_EQ(context.selection().current(), EntityRef::slice(slice));
    view->bookmarks().removeAt(0);
    view->bookmarks().removeAt(0);
    EXPECT_FALSE(fs::exists(sessionPath(trace))); // no bookmarks, no sidecar
}

// A bookmark's note is an annotation: select it, type, Return; the list shows it and the
// next session has it.
TEST(TimelineBookmarks, ANoteTypedForABookmarkIsShownAndKept) {
    test::TempDir dir;
    const fs::path trace = traceCopy(dir);
    {
        ShownTimeline shown(trace, {1400, 700});
        TimelineBookmarks& marks = shown.view.bookmarks();
        shown.view.canvas().setFocus();
        QTest::keyClick(&shown.view.canvas(), Qt::Key_B);
        ASSERT_EQ(marks.bookmarks().size(), 1U);
        EXPECT_FALSE(marks.noteEdit()->isEnabled()); // nothing selected yet
        QListWidget* list = marks.list();
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(list->item(0)).center());
        ASSERT_TRUE(marks.noteEdit()->isEnabled());
        marks.noteEdit()->selectAll();
        QTest::keyClicks(marks.noteEdit(), QStringLiteral("MTE2 stalls here"));
        QTest::keyClick(marks.noteEdit(), Qt::Key_Return);
        EXPECT_EQ(marks.bookmarks()[0].note, QStringLiteral("MTE2 stalls here"));
        EXPECT_TRUE(list->item(0)->text().endsWith(QStringLiteral("MTE2 stalls here")))
            << list->item(0)->text().toStdString();
    }
    ShownTimeline again(trace, {1400, 700});
    ASSERT_EQ(again.view.bookmarks().bookmarks().size(), 1U);
    EXPECT_EQ(again.view.bookmarks().bookmarks()[0].note, QStringLiteral("MTE2 stalls here"));
    again.view.bookmarks().removeAt(0);
}

TEST(TimelineBookmarks, TheViewIsSavedWithTheBookmarksAndShownAgainOnReopening) {
    test::TempDir dir;
    const fs::path trace = traceCopy(dir);
    const auto slice = std::stoll(
        test::runCommand(fmt::format("sqlite3 -readonly {} 'SELECT id FROM slice WHERE category "
                                     "= \"instr\" ORDER BY ts DESC, id LIMIT 1'",
                                     test::shellQuote(trace.string())))
            .out);
    TimelineViewState closedAt;
    {
        ShownTimeline shown(trace, {1400, 700});
        TimelineView& view = shown.view;
        shown.context.closing(); // no bookmarks yet: nothing is written beside the trace
        EXPECT_FALSE(fs::exists(sessionPath(trace)));
        view.selectSlice(slice, true);
        view.canvas().setFocus();
        QTest::keyClick(&view.canvas(), Qt::Key_B);
        QTest::keyClick(&view.canvas(), Qt::Key_W);
        QTest::keyClick(&view.canvas(), Qt::Key_W);
        view.canvas().setScrollY(view.canvas().scrollY() + 40);
        closedAt = view.viewState();
        EXPECT_EQ(closedAt.selectedSlice, slice);
        shown.context.setDocument(nullptr); // closing the trace saves its view
    }
    ShownTimeline shown(trace, {1400, 700});
    const TimelineViewState reopened = shown.view.viewState();
    EXPECT_NEAR(reopened.begin, closedAt.begin, 1e-6 * closedAt.end);
    EXPECT_NEAR(reopened.end, closedAt.end, 1e-6 * closedAt.end);
    EXPECT_EQ(reopened.scrollY, closedAt.scrollY);
    EXPECT_EQ(reopened.selectedSlice, slice);
    EXPECT_EQ(shown.context.selection().current(), EntityRef::slice(slice));
    ASSERT_TRUE(loadSession(trace).view.has_value());
    EXPECT_EQ(loadSession(trace).bookmarks.size(), 1U);
}

TEST(TimelineBookmarks, ADamagedSidecarIsReportedAndLeftAlone) {
    test::TempDir dir;
    const fs::path trace = traceCopy(dir);
    std::ofstream(sessionPath(trace)) << "{\"version\": 1, \"bookmarks\": [ {\"note\": 3";
    ShownTimeline shown(trace, {1400, 700});
    TimelineView* view = &shown.view;
    EXPECT_TRUE(view->bookmarks().bookmarks().empty());
    EXPECT_TRUE(view->bookmarks().statusText().contains(QStringLiteral("not JSON")))
        << view->bookmarks().statusText().toStdString();
    std::ofstream(sessionPath(trace)) << "{\"version\": 9, \"bookmarks\": []}";
    const TimelineSession newer = loadSession(trace);
    EXPECT_TRUE(newer.error.contains(QStringLiteral("version"))) << newer.error.toStdString();
}

} // namespace
} // namespace pto::gui
