// The timeline view offscreen, driven with real events: wheel zoom, drag and key pan, search
// next/previous, Shift+drag area selection checked against SQL, slice clicks and details,
// selections from other views, query tracks, and traces without a run or with one core.
#include "gui/widgets/TimelineView.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/TimelineAggregateModel.h"
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineSearchModel.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/TimelineCanvas.h"
#include "tests/gui/support/Fixtures.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <gtest/gtest.h>

#include <functional>

#include <fmt/format.h>

#include <cmath>

namespace pto::gui {
namespace {

std::int64_t sqlInt(const tracedb::TraceReader& reader, const std::string& sql) {
    return std::get<std::int64_t>(reader.query(sql).rows.at(0).at(0));
}

// A context with `trace` open and a shown timeline whose summary is ready.
struct Fixture {
    explicit Fixture(const std::filesystem::path& trace) {
        context.setDocument(TraceDocument::open(trace));
        view = std::make_unique<TimelineView>(context);
        view->resize(1400, 760);
        view->show();
        QElapsedTimer timer;
        timer.start();
        while (view->loader().busy() && timer.elapsed() < 20000) {
            QApplication::processEvents(QEventLoop::AllEvents, 50);
            QThread::msleep(5);
        }
        QApplication::processEvents();
    }
    const tracedb::TraceReader& reader() { return context.document()->reader(); }
    TimelineCanvas& canvas() { return view->canvas(); }

    StudioContext context;
    std::unique_ptr<TimelineView> view;
};

void wheel(QWidget& widget, QPoint at, int delta, Qt::KeyboardModifiers modifiers = {}) {
    QWheelEvent event(QPointF(at), widget.mapToGlobal(QPointF(at)), QPoint(), QPoint(0, delta),
                      Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&widget, &event);
}

void mouse(QWidget& widget, QEvent::Type type, QPoint at, Qt::KeyboardModifiers modifiers = {}) {
    const Qt::MouseButtons buttons =
        type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton;
    QMouseEvent event(type, QPointF(at), widget.mapToGlobal(QPointF(at)), Qt::LeftButton, buttons,
                      modifiers);
    QApplication::sendEvent(&widget, &event);
}

void drag(QWidget& widget, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers = {}) {
    mouse(widget, QEvent::MouseButtonPress, from, modifiers);
    for (int step = 1; step <= 4; ++step)
        mouse(widget, QEvent::MouseMove, from + (to - from) * step / 4, modifiers);
    mouse(widget, QEvent::MouseButtonRelease, to, modifiers);
}

TEST(TimelineView, OpensSoftmaxAndDrawsSlices) {
    Fixture f(test::sampleTrace("softmax", "--trace full"));
    ASSERT_NE(f.canvas().lod(), nullptr) << f.view->statusText().toStdString();
    EXPECT_EQ(f.view->viewId(), QStringLiteral("timeline"));
    f.canvas().repaint();
    EXPECT_GT(f.canvas().lastStats().slices, 0);
    EXPECT_TRUE(f.view->statusText().contains(QStringLiteral("summary built")));
    const auto png = test::saveScreenshot(*f.view, "timeline_softmax");
    EXPECT_GT(test::drawnPixels(png), 20000u);
    f.view->colouringBox()->setCurrentIndex(1);
    EXPECT_EQ(f.canvas().colouring(), TimelineColouring::ByPipe);
    test::saveScreenshot(*f.view, "timeline_softmax_by_pipe");
}

TEST(TimelineView, WheelZoomsAroundTheCursorAndDragAndKeysPan) {
    Fixture f(test::sampleTrace("softmax", "--trace full"));
    TimelineCanvas& canvas = f.canvas();
    auto& vp = canvas.viewport();
    const QPoint at(TimelineCanvas::kHeaderWidth + 300, 120);
    const double under = vp.cycleAt(300);
    const double span = vp.span();
    wheel(canvas, at, 240); // two notches: ×2
    EXPECT_NEAR(vp.span(), span / 2, span * 1e-9);
    EXPECT_NEAR(vp.cycleAt(300), under, 1e-6 * span);
    wheel(canvas, at, -240);
    EXPECT_NEAR(vp.span(), span, span * 1e-6);

    wheel(canvas, at, 480); // ×4, then drag 200 px to the left: later times come into view
    const double begin = vp.begin();
    const double perPixel = vp.cyclesPerPixel();
    drag(canvas, at, at - QPoint(200, 0));
    EXPECT_NEAR(vp.begin(), begin + 200 * perPixel, 1e-6 * span);
    EXPECT_EQ(canvas.selectedSlice(), -1); // a drag is not a click

    const double before = vp.begin();
    QTest::keyClick(&canvas, Qt::Key_A);
    EXPECT_NEAR(vp.begin(), before - 0.1 * vp.width() * perPixel, 1e-6 * span);
    QTest::keyClick(&canvas, Qt::Key_D);
    EXPECT_NEAR(vp.begin(), before, 1e-6 * span);
    const double keySpan = vp.span();
    QTest::keyClick(&canvas, Qt::Key_W);
    EXPECT_NEAR(vp.span(), keySpan / 1.25, 1e-6 * span);
    QTest::keyClick(&canvas, Qt::Key_S);
    EXPECT_NEAR(vp.span(), keySpan, 1e-6 * span);

    // Shift+wheel scrolls the tracks instead of zooming.
    canvas.resize(canvas.width(), 200);
    canvas.setScrollY(0);
    wheel(canvas, at, -120, Qt::ShiftModifier);
    EXPECT_EQ(canvas.scrollY(), std::min(120, canvas.maxScrollY()));
    EXPECT_GT(canvas.scrollY(), 0);
    EXPECT_NEAR(vp.span(), keySpan, 1e-6 * span);
}

TEST(TimelineView, HeaderClicksCollapseAndPinTracks) {
    Fixture f(test::sampleTrace("softmax", "--trace full"));
    TimelineCanvas& canvas = f.canvas();
    TimelineTrackModel& tracks = f.view->tracks();
    int core = -1;
    for (const TimelineRow& row : tracks.rows())
        if (tracks.track(row.track).kind == TimelineTrackKind::Core &&
            tracks.track(row.track).expanded) {
            core = row.track;
            break;
        }
    ASSERT_GE(core, 0);
    canvas.scrollToTrack(core);
    const std::size_t rows = tracks.rows().size();
    const QRect lane = canvas.laneRect(core);
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, QPoint(40, lane.top() + 6));
    EXPECT_FALSE(tracks.track(core).expanded);
    EXPECT_EQ(tracks.rows().size(), rows - tracks.track(core).children.size());
    QTest::mouseClick(&canvas, Qt::LeftButton, {},
                      QPoint(TimelineCanvas::kHeaderWidth - 6, canvas.laneRect(core).top() + 6));
    EXPECT_TRUE(tracks.track(core).pinned);
    ASSERT_EQ(tracks.pinnedRows().size(), 1u);
    // A pinned track sits right under the ruler whatever the scroll position.
    canvas.setScrollY(canvas.maxScrollY());
    EXPECT_EQ(canvas.laneRect(core).top(), TimelineCanvas::kRulerHeight);
    test::saveScreenshot(*f.view, "timeline_softmax_pinned");
}

TEST(TimelineView, SearchStepsThroughMatchesAndSelectsThem) {
    Fixture f(test::sampleTrace("softmax", "--trace full"));
    const auto expected =
        f.reader().query("SELECT id FROM slice_named WHERE name LIKE '%rowsum%' ORDER BY ts, id");
    ASSERT_GT(expected.rows.size(), 1u);
    f.view->searchBox()->setFocus();
    QTest::keyClicks(f.view->searchBox(), QStringLiteral("ROWSUM"));
    QTest::keyClick(f.view->searchBox(), Qt::Key_Return); // searches on a worker thread
    QElapsedTimer timer;
    timer.start();
    while (f.view->search().searching() && timer.elapsed() < 10000)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_FALSE(f.view->search().searching());
    ASSERT_EQ(f.view->search().matches().size(), expected.rows.size());
    auto idAt = [&](std::size_t i) { return std::get<std::int64_t>(expected.rows[i][0]); };
    EXPECT_EQ(f.context.selection().current(), EntityRef::slice(idAt(0)));
    EXPECT_EQ(f.canvas().selectedSlice(), idAt(0));
    QTest::keyClick(f.view->searchBox(), Qt::Key_Return); // Return again: next
    EXPECT_EQ(f.context.selection().current(), EntityRef::slice(idAt(1)));
    f.view->previousMatch();
    EXPECT_EQ(f.context.selection().current(), EntityRef::slice(idAt(0)));
    f.view->previousMatch(); // wraps to the last
    EXPECT_EQ(f.context.selection().current(), EntityRef::slice(idAt(expected.rows.size() - 1)));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !f.view->detailsLoading(); }, 30000));
    EXPECT_TRUE(
        f.view->details().value(QStringLiteral("Slice")).startsWith(QStringLiteral("TROWSUM")));
}

TEST(TimelineView, ShiftDragSelectsAnAreaAggregatedLikeSql) {
    Fixture f(test::sampleTrace("matmul", "--trace full"));
    TimelineCanvas& canvas = f.canvas();
    // Two adjacent pipe rows of the first busy core.
    const auto& rows = f.view->tracks().rows();
    int first = -1;
    for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
        const auto& a = f.view->tracks().track(rows[i].track);
        const auto& b = f.view->tracks().track(rows[i + 1].track);
        if (a.kind == TimelineTrackKind::Pipe && b.kind == TimelineTrackKind::Pipe &&
            a.sliceCount > 0 && b.sliceCount > 0) {
            first = int(i);
            break;
        }
    }
    ASSERT_GE(first, 0);
    const auto& topTrack = f.view->tracks().track(rows[std::size_t(first)].track);
    const auto& bottomTrack = f.view->tracks().track(rows[std::size_t(first) + 1].track);
    canvas.scrollToTrack(rows[std::size_t(first)].track);
    const QRect top = canvas.laneRect(rows[std::size_t(first)].track);
    const QRect bottom = canvas.laneRect(rows[std::size_t(first) + 1].track);
    const QPoint from(TimelineCanvas::kHeaderWidth + 100, top.center().y());
    const QPoint to(TimelineCanvas::kHeaderWidth + 900, bottom.center().y());
    const auto& vp = canvas.viewport();
    const auto begin = std::int64_t(std::floor(vp.cycleAt(100)));
    const auto end = std::int64_t(std::ceil(vp.cycleAt(900)));
    drag(canvas, from, to, Qt::ShiftModifier);
    QElapsedTimer timer; // the aggregate is read on a worker thread
    timer.start();
    while (f.view->aggregate().computing() && timer.elapsed() < 10000)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_FALSE(f.view->aggregate().computing());

    const TimelineArea& area = f.view->aggregate().area();
    EXPECT_EQ(area.begin, begin);
    EXPECT_EQ(area.end, end);
    EXPECT_EQ(area.trackIds, (std::vector<std::int64_t>{std::min(topTrack.id, bottomTrack.id),
                                                        std::max(topTrack.id, bottomTrack.id)}));
    const auto expected = f.reader().query(fmt::format(
        "SELECT n.str, count(*), sum(s.dur) FROM slice s JOIN string n ON n.id = s.name_id "
        "WHERE s.track_id IN ({}, {}) AND s.ts < {} AND (s.ts + s.dur > {} OR s.ts >= {}) "
        "GROUP BY n.str",
        topTrack.id, bottomTrack.id, end, begin, begin));
    ASSERT_GT(expected.rows.size(), 0u);
    ASSERT_EQ(std::size_t(f.view->aggregate().rowCount()), expected.rows.size());
    for (const auto& row : expected.rows) {
        const auto* got =
            f.view->aggregate().row(QString::fromStdString(std::get<std::string>(row[0])));
        ASSERT_TRUE(got);
        EXPECT_EQ(got->count, std::get<std::int64_t>(row[1]));
        EXPECT_EQ(got->total, std::get<std::int64_t>(row[2]));
        EXPECT_NEAR(got->average(), double(got->total) / double(got->count), 1e-9);
    }
    test::saveScreenshot(*f.view, "timeline_matmul_area");
    QTest::keyClick(&canvas, Qt::Key_Escape);
    EXPECT_TRUE(f.view->aggregate().area().isEmpty());
}

TEST(TimelineView, ClickingASliceSelectsItAndShowsDetailsAndItsOp) {
    Fixture f(test::sampleTrace("softmax", "--trace full"));
    const auto row = f.reader()
                         .query("SELECT s.id, s.track_id, s.ts, s.dur, s.depth, s.instr_id FROM "
                                "slice_named s WHERE "
                                "s.name = 'TEXP' ORDER BY s.ts, s.id LIMIT 1")
                         .rows.at(0);
    auto v = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
    TimelineCanvas& canvas = f.canvas();
    canvas.viewport().reveal(v(2), v(2) + v(3));
    canvas.scrollToTrack(f.view->tracks().indexOfTrackId(v(1)));
    const auto point = canvas.pointOf(v(1), v(2), v(3), int(v(4)));
    ASSERT_TRUE(point);
    // Hovering names the slice with its start and duration (a real tooltip event).
    QHelpEvent help(QEvent::ToolTip, *point, canvas.mapToGlobal(*point));
    QApplication::sendEvent(&canvas, &help);
    const QString tip = canvas.toolTipAt(*point);
    EXPECT_TRUE(tip.startsWith(QStringLiteral("TEXP"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("duration %1 cycles").arg(v(3)))) << tip.toStdString();
    EXPECT_EQ(QToolTip::text(), tip);
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, *point);
    EXPECT_EQ(f.context.selection().current(), EntityRef::slice(v(0)));
    EXPECT_EQ(canvas.selectedSlice(), v(0));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !f.view->detailsLoading(); }, 30000));
    EXPECT_TRUE(
        f.view->details().value(QStringLiteral("Instruction")).startsWith(QStringLiteral("TEXP")));
    LinkResolver links(f.reader());
    EXPECT_EQ(canvas.highlightedOp(), (NodeKey{links.rootStage(), links.tensorOpOfInstr(v(5))}));
    EXPECT_FALSE(f.view->details().value(QStringLiteral("Source line")).isEmpty());
    test::saveScreenshot(*f.view, "timeline_softmax_selected");
    // A click on empty time clears the selection.
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, QPoint(canvas.width() - 2, canvas.height() - 2));
    EXPECT_TRUE(f.context.selection().current().isNone());
}

TEST(TimelineView, FollowsNodeSelectionsRevealsAndQueryTracks) {
    Fixture f(test::sampleTrace("matmul", "--trace full"));
    LinkResolver links(f.reader());
    const std::int64_t op = sqlInt(f.reader(), "SELECT n.id FROM node n JOIN stage st ON st.id = "
                                               "n.stage_id AND st.parent_stage_id IS NULL WHERE "
                                               "n.kind = 'matmul' LIMIT 1");
    f.context.selection().select(EntityRef::node(links.rootStage(), op), nullptr);
    EXPECT_EQ(f.canvas().highlightedOp(), (NodeKey{links.rootStage(), op}));
    f.view->tracks().setAllExpanded(true);
    f.canvas().resize(f.canvas().width(), 20000); // every row on screen
    f.canvas().viewport().showAll();
    // A frame reads from the file for a few ms only; the next frames read the rest.
    for (int frame = 0; frame < 100 && (frame == 0 || f.canvas().incomplete()); ++frame)
        f.canvas().repaint();
    EXPECT_FALSE(f.canvas().incomplete());
    EXPECT_EQ(f.canvas().lastStats().highlighted, std::int64_t(links.slicesOf(op).size()));
    EXPECT_GT(f.canvas().lastStats().highlighted, 0);

    // A slice selected elsewhere is revealed, selected and detailed here.
    const std::int64_t tstore = sqlInt(
        f.reader(), "SELECT id FROM slice_named WHERE name = 'TSTORE' ORDER BY ts DESC LIMIT 1");
    f.context.selection().select(EntityRef::slice(tstore), nullptr);
    EXPECT_EQ(f.canvas().selectedSlice(), tstore);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !f.view->detailsLoading(); }, 30000));
    EXPECT_TRUE(
        f.view->details().value(QStringLiteral("Slice")).startsWith(QStringLiteral("TSTORE")));
    const std::int64_t at =
        sqlInt(f.reader(), fmt::format("SELECT ts FROM slice WHERE id = {}", tstore));
    EXPECT_LE(f.canvas().viewport().begin(), double(at));
    EXPECT_GE(f.canvas().viewport().end(), double(at));

    emit f.context.revealTimeRequested(1000, 2000);
    EXPECT_NEAR(f.canvas().viewport().begin(), 900, 1e-6);
    EXPECT_NEAR(f.canvas().viewport().end(), 2100, 1e-6);

    auto query = std::make_shared<QueryTrack>();
    query->title = QStringLiteral("SELECT … FROM slice");
    query->items = {{1200, 300, QStringLiteral("q1")}, {1600, 100, QStringLiteral("q2")}};
    const std::size_t before = f.view->tracks().tracks().size();
    f.context.showQueryTrack(query);
    ASSERT_EQ(f.view->tracks().tracks().size(), before + 2); // the group and the track
    EXPECT_EQ(f.view->tracks().tracks().back().query, query);
    f.view->allFlowsBox()->setChecked(true);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !f.view->flowsLoading(); }, 30000)); // a worker
    EXPECT_EQ(std::int64_t(f.canvas().flows().size()),
              sqlInt(f.reader(), "SELECT count(*) FROM flow f JOIN slice o ON o.id = f.slice_out "
                                 "JOIN slice i ON i.id = f.slice_in WHERE (o.ts + o.dur >= 900 AND "
                                 "o.ts + o.dur < 2101) OR (i.ts >= 900 AND i.ts < 2101)"));
    f.canvas().resize(f.canvas().width(), 700);
    test::saveScreenshot(*f.view, "timeline_matmul_flows");
}

TEST(TimelineView, AQueryTrackCanBeRenamedAndRemovedFromItsMenu) {
    Fixture f(test::sampleTrace("matmul"));
    auto query = std::make_shared<QueryTrack>();
    query->title = QStringLiteral("SELECT … FROM slice");
    query->items = {{1200, 300, QStringLiteral("q1"), 0}, {1300, 100, QStringLiteral("q2"), 1}};
    f.context.showQueryTrack(query);
    const int track = int(f.view->tracks().tracks().size()) - 1;
    EXPECT_EQ(f.view->tracks().track(track).maxDepth, 1); // two lanes
    auto hasRow = [&] {
        for (const TimelineRow& row : f.view->tracks().rows())
            if (row.track == track) return true;
        return false;
    };
    ASSERT_TRUE(hasRow());
    QMenu* menu = f.view->trackMenu(track);
    QStringList actions;
    QAction* remove = nullptr;
    for (QAction* action : menu->actions()) {
        actions << action->text();
        if (action->text() == QStringLiteral("Remove")) remove = action;
    }
    EXPECT_TRUE(actions.contains(QStringLiteral("Rename…"))) << actions.join(',').toStdString();
    EXPECT_TRUE(actions.contains(QStringLiteral("Pin to the top")));
    delete menu;
    ASSERT_NE(remove, nullptr);

    // The same through real events: a right-click on the track's header opens its menu; Rename…
    // asks for the name in a dialog; Remove takes the track away.
    TimelineCanvas& canvas = f.view->canvas();
    canvas.scrollToTrack(track);
    QApplication::processEvents();
    int y = -1;
    for (int at = 0; at < canvas.height() && y < 0; ++at)
        if (canvas.trackAt(at) == track) y = at;
    ASSERT_GE(y, 0) << "the query track's header is not on screen";
    auto rightClickAndPick = [&](const QString& text, const std::function<void()>& armDialog) {
        const QPoint at(TimelineCanvas::kHeaderWidth / 2, y);
        QContextMenuEvent event(QContextMenuEvent::Mouse, at, canvas.mapToGlobal(at));
        QApplication::sendEvent(&canvas, &event);
        QApplication::processEvents();
        auto* popup = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        if (!popup) return false;
        for (QAction* action : popup->actions())
            if (action->text() == text) {
                popup->close();
                if (armDialog) armDialog();
                action->trigger();
                return true;
            }
        popup->close();
        return false;
    };
    const auto answerRename = [] { // fires inside the rename dialog's own event loop
        QTimer::singleShot(0, [] {
            if (auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget())) {
                dialog->setTextValue(QStringLiteral("slow tasks"));
                dialog->accept();
            }
        });
    };
    ASSERT_TRUE(rightClickAndPick(QStringLiteral("Rename…"), answerRename));
    EXPECT_EQ(f.view->tracks().track(track).name, QStringLiteral("slow tasks"));
    ASSERT_TRUE(rightClickAndPick(QStringLiteral("Remove"), {}));
    EXPECT_FALSE(hasRow());
    // A core track's menu has no rename or remove.
    QMenu* core = f.view->trackMenu(f.view->tracks().rows().front().track);
    for (QAction* action : core->actions()) EXPECT_NE(action->text(), QStringLiteral("Remove"));
    delete core;
}

// The tracks are read on the loader's thread (the counter extents of a big run take 0.1 s): the
// view says so until they arrive, then holds the tree a direct read gives, each counter track
// with its sample count as SQL counts it, and a selection made meanwhile is revealed.
TEST(TimelineView, TracksArriveFromAWorkerAndASelectionMadeMeanwhileIsRevealed) {
    StudioContext context;
    context.setDocument(TraceDocument::open(test::sampleTrace("matmul", "--trace full")));
    TimelineView view(context);
    view.resize(1400, 760);
    view.show();
    EXPECT_TRUE(view.tracks().tracks().empty());
    EXPECT_TRUE(view.statusText().contains(QStringLiteral("Loading the tracks")));
    const tracedb::TraceReader& reader = context.document()->reader();
    const std::int64_t tstore =
        sqlInt(reader, "SELECT id FROM slice_named WHERE name = 'TSTORE' ORDER BY ts DESC LIMIT 1");
    context.selection().select(EntityRef::slice(tstore), nullptr);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loader().busy(); }, 30000));

    TimelineTrackModel direct;
    direct.load(&reader);
    const auto& shown = view.tracks().tracks();
    ASSERT_EQ(shown.size(), direct.tracks().size());
    ASSERT_EQ(std::int64_t(shown.size()), sqlInt(reader, "SELECT count(*) FROM track"));
    int counters = 0;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const TimelineTrack &a = shown[i], &b = direct.tracks()[i];
        EXPECT_EQ(a.id, b.id);
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.parent, b.parent);
        EXPECT_EQ(a.sliceCount, b.sliceCount);
        EXPECT_EQ(a.minTs, b.minTs);
        EXPECT_EQ(a.maxEnd, b.maxEnd);
        if (a.kind != TimelineTrackKind::Counter) continue;
        ++counters;
        EXPECT_EQ(
            a.sliceCount,
            sqlInt(reader, fmt::format("SELECT count(*) FROM counter WHERE track_id = {}", a.id)));
    }
    EXPECT_GT(counters, 0);
    EXPECT_FALSE(view.tracks().rows().empty());
    EXPECT_TRUE(view.statusText().contains(QStringLiteral("summary built")));

    EXPECT_EQ(view.canvas().selectedSlice(), tstore);
    const std::int64_t at =
        sqlInt(reader, fmt::format("SELECT ts FROM slice WHERE id = {}", tstore));
    EXPECT_LE(view.canvas().viewport().begin(), double(at));
    EXPECT_GE(view.canvas().viewport().end(), double(at));
}

// Another trace opened while the tracks of the first are read: the first's tracks never show.
TEST(TimelineView, TracksOfATraceReplacedWhileReadingAreDropped) {
    StudioContext context;
    context.setDocument(TraceDocument::open(test::sampleTrace("matmul", "--trace full")));
    TimelineView view(context);
    view.show();
    context.setDocument(TraceDocument::open(test::sampleTrace("softmax", "--trace full")));
    std::size_t mostShown = 0;
    const tracedb::TraceReader& reader = context.document()->reader();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            mostShown = std::max(mostShown, view.tracks().tracks().size());
            return !view.loader().busy();
        },
        30000));
    const auto count = std::size_t(sqlInt(reader, "SELECT count(*) FROM track"));
    EXPECT_EQ(view.tracks().tracks().size(), count);
    EXPECT_EQ(mostShown, count);
    TimelineTrackModel direct;
    direct.load(&reader);
    for (std::size_t i = 0; i < count; ++i)
        EXPECT_EQ(view.tracks().tracks()[i].name, direct.tracks()[i].name);
}

// A task of the Exec stage selected elsewhere (the bottleneck table) selects its task slice: the
// earliest 'task' slice carrying its id, as SQL finds it.
TEST(TimelineView, AnExecTaskSelectedElsewhereSelectsItsTaskSlice) {
    Fixture f(test::sampleTrace("matmul", "--trace full"));
    const std::int64_t exec = sqlInt(f.reader(), "SELECT max(id) FROM stage WHERE level = 'exec'");
    const auto tasks = f.reader().query(
        fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = 'task' ORDER BY id", exec));
    ASSERT_FALSE(tasks.rows.empty());
    for (const auto& row : tasks.rows) {
        const std::int64_t task = std::get<std::int64_t>(row.at(0));
        f.context.selection().select(EntityRef::node(exec, task), nullptr);
        EXPECT_EQ(f.canvas().selectedSlice(),
                  sqlInt(f.reader(), fmt::format("SELECT id FROM slice WHERE task_id = {} AND "
                                                 "category = 'task' ORDER BY ts LIMIT 1",
                                                 task)))
            << "task " << task;
    }
    // A node that is no task of the Exec stage selects no slice.
    f.context.selection().select(EntityRef::node(exec + 1000, 1), nullptr);
    EXPECT_EQ(f.canvas().selectedSlice(), -1);
}

TEST(TimelineView, CompileOnlyAndOneCoreTracesOpenAndSayWhatIsThere) {
    {
        Fixture f(test::compiledTrace("matmul"));
        EXPECT_TRUE(f.view->tracks().rows().empty());
        EXPECT_TRUE(f.view->statusText().contains(QStringLiteral("compile only")));
        f.canvas().repaint();
        wheel(f.canvas(), QPoint(400, 100), 120);
        QTest::keyClick(&f.canvas(), Qt::Key_D);
        QTest::mouseClick(&f.canvas(), Qt::LeftButton, {}, QPoint(400, 100));
        EXPECT_EQ(f.view->searchFor(QStringLiteral("TLOAD")), 0);
        test::saveScreenshot(*f.view, "timeline_compile_only");
    }
    {
        Fixture f(test::sampleTrace("softmax",
                                    "--trace full --set core.aic_count=1 --set core.aiv_count=1"));
        EXPECT_EQ(sqlInt(f.reader(), "SELECT count(*) FROM track WHERE kind = 'core'"), 2);
        ASSERT_NE(f.canvas().lod(), nullptr);
        f.canvas().repaint();
        EXPECT_GT(f.canvas().lastStats().slices, 0);
        drag(f.canvas(), QPoint(600, 100), QPoint(500, 80));
        test::saveScreenshot(*f.view, "timeline_one_core");
    }
    StudioContext empty;
    TimelineView view(empty);
    view.resize(600, 300);
    view.show();
    EXPECT_TRUE(view.statusText().contains(QStringLiteral("No trace")));
}

// In a docked timeline about 650 px wide the toolbar's minimum (three push buttons of ≥ 80 px
// each) exceeded its width, so the layout squeezed the match counter to its first digit under
// the colour combo. The count keeps its room and overlaps nothing.
TEST(TimelineView, TheMatchCountKeepsItsRoomInANarrowDock) {
    StudioContext context;
    context.setDocument(TraceDocument::open(test::sampleTrace("softmax", "--trace full")));
    QWidget dock; // a dock sizes its child however the main window lays it out
    dock.resize(650, 500);
    TimelineView view(context, &dock);
    view.setGeometry(0, 0, 650, 500);
    dock.show();
    QApplication::processEvents();
    const QWidget* count = view.findChild<QWidget*>(QStringLiteral("searchMatches"));
    ASSERT_NE(count, nullptr);
    EXPECT_GE(count->width(), count->fontMetrics().horizontalAdvance(
                                  QStringLiteral("%1/%2 +").arg(999999).arg(999999)));
    EXPECT_FALSE(count->geometry().intersects(view.colouringBox()->geometry()));
    EXPECT_LE(view.allFlowsBox()->geometry().right(), view.width());
}

// The header column shows a track's name cut to its width ("Python · Thread 309…" for two
// threads): hovering it gives the whole name. A slice with no instruction does not promise
// one on click.
TEST(TimelineView, HeadersAndInstructionlessSlicesHaveTruthfulTooltips) {
    Fixture f(test::sampleTrace("softmax", "--trace full"));
    TimelineCanvas& canvas = f.canvas();
    const QPoint header(20, TimelineCanvas::kRulerHeight + 30);
    const int track = canvas.trackAt(header.y());
    ASSERT_GE(track, 0);
    EXPECT_TRUE(canvas.toolTipAt(header).startsWith(f.view->tracks().track(track).name))
        << canvas.toolTipAt(header).toStdString();
    const auto task = f.reader()
                          .query("SELECT track_id, ts, dur, depth FROM slice WHERE category = "
                                 "'task' ORDER BY ts LIMIT 1")
                          .rows.at(0);
    auto v = [&](int i) { return std::get<std::int64_t>(task[std::size_t(i)]); };
    canvas.viewport().reveal(v(1), v(1) + v(2));
    canvas.scrollToTrack(f.view->tracks().indexOfTrackId(v(0)));
    const auto point = canvas.pointOf(v(0), v(1), v(2), int(v(3)));
    ASSERT_TRUE(point);
    const QString tip = canvas.toolTipAt(*point);
    EXPECT_FALSE(tip.isEmpty());
    EXPECT_FALSE(tip.contains(QStringLiteral("instruction"))) << tip.toStdString();
}

} // namespace
} // namespace pto::gui
