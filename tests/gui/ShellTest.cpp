// The pto-studio shell offscreen: good, bad, truncated, newer-schema, compile-only and
// one-core traces; drag and drop; layout restore; shortcuts; export; --screenshot.
#include "gui/app/MainWindow.h"
#include "gui/app/RecentFiles.h"
#include "gui/app/Screenshots.h"
#include "gui/app/ShortcutsDialog.h"
#include "gui/app/Views.h"
#include "gui/model/CancelToken.h"
#include "gui/model/EntityReference.h"
#include "gui/model/GraphModel.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/OpCostModel.h"
#include "gui/model/TimelineDetailsModel.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineSearchModel.h"
#include "gui/model/UtilizationModel.h"
#include "gui/widgets/BottleneckView.h"
#include "gui/widgets/GraphView.h"
#include "gui/widgets/GraphViewCanvas.h"
#include "gui/widgets/SqlConsole.h"
#include "gui/widgets/StudioView.h"
#include "gui/widgets/Theme.h"
#include "gui/widgets/TimelineCanvas.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QDropEvent>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QPaintEvent>
#include <QPlainTextEdit>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QUrl>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;

QString qpath(const fs::path& path) {
    return QString::fromStdString(path.string());
}

/// A copy of the softmax trace in `dir`, for tests that damage it.
fs::path copyOfTrace(const test::TempDir& dir, const std::string& name) {
    const fs::path copy = dir / name;
    fs::copy_file(test::sampleTrace("softmax"), copy);
    return copy;
}

class Shell : public ::testing::Test {
protected:
    void SetUp() override { QSettings().clear(); }
    void TearDown() override { QSettings().clear(); }
};

TEST_F(Shell, AGoodTraceNamesFileProgramArchAndCores) {
    MainWindow window;
    ASSERT_TRUE(window.openFile(qpath(test::sampleTrace("softmax")), true).isEmpty());
    const QString status = window.statusText();
    EXPECT_TRUE(status.contains(QStringLiteral("run_softmax.db"))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("program: softmax"))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("arch: 910B-like"))) << status.toStdString();
    // The cores the run used (pto report: 4 of the 48 AIV), of the chip's 72.
    EXPECT_TRUE(status.contains(QStringLiteral("on 4 of 72 cores"))) << status.toStdString();
    window.resize(1400, 900);
    window.show();
    test::saveScreenshot(window, "shell_main_window");
}

TEST_F(Shell, BadFilesAreRefusedWithTheReasonAndTheOpenTraceStays) {
    test::TempDir dir;
    const fs::path text = dir / "notes.db";
    std::ofstream(text) << "this is not SQLite\n";
    const fs::path truncated = copyOfTrace(dir, "truncated.db");
    fs::resize_file(truncated, fs::file_size(truncated) / 3);
    const fs::path newer = copyOfTrace(dir, "newer.db");
    const auto pragma = test::runCommand(
        fmt::format("sqlite3 {} 'PRAGMA user_version = 99'", test::shellQuote(newer.string())));
    ASSERT_EQ(pragma.exitCode, 0) << pragma.err;

    MainWindow window;
    ASSERT_TRUE(window.openFile(qpath(test::sampleTrace("softmax")), true).isEmpty());
    const TraceDocument* good = window.context().document();
    const struct {
        fs::path file;
        const char* says;
    } cases[] = {{text, "not an SQLite database"},
                 {truncated, "truncated"},
                 {newer, "newer PTO Studio"},
                 {dir / "missing.db", "missing.db"}};
    for (const auto& bad : cases) {
        const QString reason = window.openFile(qpath(bad.file), true);
        EXPECT_TRUE(reason.contains(QString::fromStdString(bad.file.filename().string())))
            << reason.toStdString();
        EXPECT_TRUE(reason.contains(QLatin1String(bad.says))) << reason.toStdString();
        EXPECT_EQ(window.context().document(), good) << bad.file;
    }
    // Without `quiet` the same reason appears in a dialog, and nothing crashes.
    QString dialogText;
    QTimer::singleShot(0, [&dialogText] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        dialogText = box->text() + QLatin1Char('\n') + box->informativeText();
        box->accept();
    });
    window.openFile(qpath(truncated));
    EXPECT_TRUE(dialogText.contains(QStringLiteral("truncated.db"))) << dialogText.toStdString();
    EXPECT_TRUE(dialogText.contains(QStringLiteral("truncated ("))) << dialogText.toStdString();
    EXPECT_EQ(window.context().document(), good);
}

TEST_F(Shell, ACompileOnlyTraceSaysThereIsNoRun) {
    MainWindow window;
    ASSERT_TRUE(window.openFile(qpath(test::compiledTrace("matmul")), true).isEmpty());
    EXPECT_TRUE(window.statusText().contains(QStringLiteral("compile only")))
        << window.statusText().toStdString();
    auto* bottleneck = static_cast<BottleneckView*>(window.view(QStringLiteral("bottleneck")));
    ASSERT_NE(bottleneck, nullptr);
    EXPECT_TRUE(bottleneck->headline().contains(QStringLiteral("no simulated run")))
        << bottleneck->headline().toStdString();
}

// A run the simulator stopped with a fault (pto run exits 1 and says so) looked like a
// finished run: "bound: none, 0 % of the roof — 0 findings", nothing about the fault.
TEST_F(Shell, ARunStoppedByAFaultSaysSoInTheStatusAndTheBottlenecks) {
    test::TempDir dir;
    const fs::path trace = dir / "fault.db";
    const auto run = test::runCommand(
        fmt::format("{} run {}/samples/softmax.pto --fault drop-sync --trace full -o {}", PTO_CLI,
                    PTO_SOURCE_DIR, test::shellQuote(trace.string())));
    ASSERT_EQ(run.exitCode, 1) << run.err;
    ASSERT_NE(run.err.find("overlapping live buffers"), std::string::npos) << run.err;
    MainWindow window;
    auto* bottleneck = static_cast<BottleneckView*>(window.view(QStringLiteral("bottleneck")));
    QSignalSpy loaded(bottleneck, &BottleneckView::profileLoaded);
    ASSERT_TRUE(window.openFile(qpath(trace), true).isEmpty());
    EXPECT_TRUE(window.statusText().contains(QStringLiteral("STOPPED BY A FAULT")))
        << window.statusText().toStdString();
    ASSERT_TRUE(loaded.wait(30000));
    const QString headline = bottleneck->headline();
    EXPECT_TRUE(headline.contains(QStringLiteral("STOPPED BY A FAULT")) &&
                headline.contains(QStringLiteral("overlapping live buffers")))
        << headline.toStdString();
    EXPECT_TRUE(bottleneck->detailsText().contains(QStringLiteral("stopped by a fault")))
        << bottleneck->detailsText().toStdString();
    EXPECT_FALSE(bottleneck->detailsText().contains(QStringLiteral("no executed instructions")))
        << bottleneck->detailsText().toStdString();
}

TEST_F(Shell, AOneCoreTraceOpensAndShowsThatCore) {
    const fs::path trace =
        test::sampleTrace("softmax", "--set core.aic_count=1 --set core.aiv_count=1");
    MainWindow window;
    auto* bottleneck = static_cast<BottleneckView*>(window.view(QStringLiteral("bottleneck")));
    QSignalSpy loaded(bottleneck, &BottleneckView::profileLoaded);
    ASSERT_TRUE(window.openFile(qpath(trace), true).isEmpty());
    EXPECT_TRUE(window.statusText().contains(QStringLiteral("on 1 of 2 cores")))
        << window.statusText().toStdString();
    ASSERT_TRUE(loaded.wait(30000));
    EXPECT_EQ(bottleneck->utilization().rowCount(), 1); // only the AIV core that ran the task
}

TEST_F(Shell, DroppingAFileOpensIt) {
    MainWindow window;
    window.show();
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(qpath(test::sampleTrace("softmax")))});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    ASSERT_NE(window.context().document(), nullptr);
    EXPECT_EQ(window.context().document()->path(), test::sampleTrace("softmax"));
}

TEST_F(Shell, TheLayoutComesBackInTheNextWindow) {
    {
        MainWindow first;
        first.show();
        QDockWidget* sql = first.dockOf(first.view(QStringLiteral("sql")));
        QDockWidget* bottleneck = first.dockOf(first.view(QStringLiteral("bottleneck")));
        ASSERT_NE(sql, nullptr);
        ASSERT_NE(bottleneck, nullptr);
        sql->hide();
        first.addDockWidget(Qt::LeftDockWidgetArea, bottleneck);
        first.close(); // saves the layout
    }
    MainWindow second;
    ASSERT_TRUE(second.restoreLayout());
    second.show();
    EXPECT_TRUE(second.dockOf(second.view(QStringLiteral("sql")))->isHidden());
    EXPECT_EQ(second.dockWidgetArea(second.dockOf(second.view(QStringLiteral("bottleneck")))),
              Qt::LeftDockWidgetArea);
    MainWindow fresh; // nothing saved in a clean profile → the default layout
    QSettings().clear();
    EXPECT_FALSE(fresh.restoreLayout());
}

TEST_F(Shell, TheRecentFileIsReopenedWhenAsked) {
    const QString trace = qpath(test::sampleTrace("softmax"));
    {
        MainWindow first;
        ASSERT_TRUE(first.openFile(trace, true).isEmpty());
    }
    MainWindow off;
    EXPECT_FALSE(off.reopenLastFile()); // the option is off by default
    QSettings().setValue(QStringLiteral("mainWindow/reopenLastFile"), true);
    MainWindow on;
    EXPECT_TRUE(on.reopenLastFile());
    ASSERT_NE(on.context().document(), nullptr);
}

TEST_F(Shell, RecentFilesAreListedAtOnceAndWrittenInOrderOffTheGuiThread) {
    QStringList paths;
    {
        RecentFiles recent;
        for (int i = 0; i < RecentFiles::kMaxFiles + 2; ++i) {
            paths.prepend(QDir::temp().absoluteFilePath(QStringLiteral("recent_%1.db").arg(i)));
            recent.add(paths.front());
        }
        recent.remove(paths.at(1));
        paths.removeAt(1);
        paths = paths.mid(0, RecentFiles::kMaxFiles - 1);
        EXPECT_EQ(recent.files(), paths); // the menu sees the change before the write lands
        recent.waitForWrites();
        EXPECT_EQ(QSettings().value(QStringLiteral("recentFiles")).toStringList(), paths);
        recent.add(paths.back()); // moved to the front; the destructor waits for this write
        paths.prepend(paths.takeLast());
    }
    EXPECT_EQ(RecentFiles().files(), paths);
}

// A selection, a tab or a search inside a view repaints that view, not the window: a status
// text, a busy indicator or a tab that changed inside a dock used to relayout the QMainWindow,
// which repainted 1400×541 pixels around the docks on every click (QLabel::setText, show/hide
// and QLayout::activate ask every ancestor to lay out again; the LayoutBarrier holding each
// view stops them at its dock).
TEST_F(Shell, ClicksInsideAViewRelayoutNoDockAndRepaintNotTheWholeWindow) {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    ASSERT_TRUE(window.openFile(qpath(test::sampleTrace("softmax")), true).isEmpty());
    auto* graph = window.findChild<GraphView*>();
    ASSERT_NE(graph, nullptr);
    ASSERT_TRUE(QTest::qWaitFor([&] { return graph->isIdle(); }, 30000));
    QTest::qWait(200);
    struct Watch : QObject {
        QWidget* window = nullptr;
        int layouts = 0;
        int64_t largestPaint = 0;
        bool eventFilter(QObject* o, QEvent* e) override {
            if (o != window) return false;
            if (e->type() == QEvent::LayoutRequest) ++layouts;
            if (e->type() == QEvent::Paint) {
                const QRect r = static_cast<QPaintEvent*>(e)->rect();
                largestPaint = std::max(largestPaint, int64_t(r.width()) * r.height());
            }
            return false;
        }
    } watch;
    watch.window = &window;
    window.installEventFilter(&watch);
    for (int64_t id = 1; id <= 5; ++id) {
        window.context().selection().select(EntityRef::slice(id));
        ASSERT_TRUE(QTest::qWaitFor([&] { return graph->isIdle(); }, 30000));
        QTest::qWait(100);
    }
    // Inside a view: the timeline's side tabs and its search's match count.
    auto* timeline = window.findChild<TimelineView*>();
    ASSERT_NE(timeline, nullptr);
    auto* side = timeline->findChild<QTabWidget*>();
    ASSERT_NE(side, nullptr);
    for (int tab : {1, 2, 0}) {
        side->setCurrentIndex(tab);
        QTest::qWait(50);
    }
    ASSERT_GT(timeline->searchFor(QStringLiteral("exp")), 1);
    timeline->nextMatch();
    timeline->nextMatch();
    QTest::qWait(100);
    window.removeEventFilter(&watch);
    EXPECT_EQ(watch.layouts, 0);
    // A dock that shows the selection repaints its own area (the bottom docks: ~38 %); the whole
    // window (92 % before) is not repainted.
    EXPECT_LT(watch.largestPaint, int64_t(window.width()) * window.height() / 2);
}

TEST_F(Shell, OpeningAnotherTraceForgetsTheSearchAndTheSelectedSlice) {
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    ASSERT_TRUE(window.openFile(qpath(test::sampleTrace("softmax")), true).isEmpty());
    auto* timeline = window.findChild<TimelineView*>();
    auto* graph = window.findChild<GraphView*>();
    ASSERT_NE(timeline, nullptr);
    ASSERT_NE(graph, nullptr);
    ASSERT_GT(timeline->searchFor(QStringLiteral("exp")), 0);
    timeline->nextMatch(); // selects the match: the details panel shows it
    ASSERT_TRUE(QTest::qWaitFor([&] { return !timeline->detailsLoading(); }, 30000));
    EXPECT_GT(timeline->details().rowCount(), 0);
    graph->searchField().setText(QStringLiteral("exp"));

    ASSERT_TRUE(window.openFile(qpath(test::sampleTrace("matmul")), true).isEmpty());
    EXPECT_TRUE(timeline->searchBox()->text().isEmpty())
        << timeline->searchBox()->text().toStdString();
    EXPECT_TRUE(timeline->search().matches().empty());
    EXPECT_EQ(timeline->details().rowCount(), 0);
    EXPECT_TRUE(graph->searchField().text().isEmpty());
}

TEST_F(Shell, HelpListsEveryShortcutIncludingCtrlO) {
    MainWindow window;
    window.show();
    QAction* help = nullptr;
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == QStringLiteral("&Keyboard shortcuts")) help = action;
    ASSERT_NE(help, nullptr);
    QStringList rows;
    QTimer::singleShot(0, [&rows] {
        auto* dialog = qobject_cast<ShortcutsDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        for (int row = 0; row < dialog->table()->rowCount(); ++row)
            rows << dialog->table()->item(row, 0)->text() + QLatin1Char('=') +
                        dialog->table()->item(row, 1)->text();
        test::saveScreenshot(*dialog, "shell_shortcuts");
        dialog->accept();
    });
    help->trigger();
    EXPECT_TRUE(rows.contains(QStringLiteral("Open...=Ctrl+O"))) << rows.join(' ').toStdString();
    EXPECT_TRUE(rows.contains(QStringLiteral("Run SQL query=Ctrl+Return, Ctrl+Enter")))
        << rows.join(' ').toStdString();
    EXPECT_TRUE(rows.contains(QStringLiteral("Export view as PNG/SVG...=Ctrl+E")))
        << rows.join(' ').toStdString();
    // The keys the timeline and graph canvases handle themselves are listed too.
    for (const char* row :
         {"Timeline: zoom in=W", "Timeline: zoom out=S", "Timeline: pan left=A",
          "Timeline: pan right=D", "Timeline: clear the area selection=Esc", "Graph: zoom in=+",
          "Graph: zoom out=-", "Graph: fit the whole graph=F"})
        EXPECT_TRUE(rows.contains(QString::fromUtf8(row))) << row;
}

TEST_F(Shell, FitsTheScreenAndSaysWhatToDoWithNoTraceOpen) {
    MainWindow window;
    window.show();
    // Never larger than the screen, except where the views' minimum sizes need more (the
    // offscreen screen is 800 px wide; the default dock layout needs ~1360).
    const QSize available = window.screen()->availableGeometry().size();
    const QSize least = window.minimumSizeHint();
    EXPECT_LE(window.width(), std::max(available.width(), least.width()));
    EXPECT_LE(window.height(), std::max(available.height(), least.height()));
    auto* timeline = window.findChild<TimelineView*>();
    ASSERT_NE(timeline, nullptr);
    EXPECT_TRUE(timeline->canvas().emptyText().contains(QStringLiteral("No trace open")))
        << timeline->canvas().emptyText().toStdString();
    ASSERT_TRUE(window.openFile(qpath(test::compiledTrace("matmul")), true).isEmpty());
    EXPECT_TRUE(timeline->canvas().emptyText().contains(QStringLiteral("no simulation run")));
    // The graph's search box keeps room for its placeholder at the default size.
    auto* graph = window.findChild<GraphView*>();
    ASSERT_NE(graph, nullptr);
    const QLineEdit& search = graph->searchField();
    EXPECT_GE(search.minimumWidth(),
              search.fontMetrics().horizontalAdvance(search.placeholderText()));
    test::saveScreenshot(window, "shell_no_trace_fits_screen");
}

TEST_F(Shell, ExportsTheActiveViewAsPngAndSvg) {
    test::TempDir dir;
    MainWindow window;
    window.show();
    auto* sql = static_cast<SqlConsole*>(window.view(QStringLiteral("sql")));
    ASSERT_NE(sql, nullptr);
    QApplication::setActiveWindow(&window);
    sql->editor()->setFocus();
    QApplication::processEvents();
    EXPECT_EQ(window.activeView(), sql); // the dock holding the focus is the one exported
    EXPECT_TRUE(window.exportView(*sql, qpath(dir / "sql.png")).isEmpty());
    EXPECT_TRUE(window.exportView(*sql, qpath(dir / "sql.svg")).isEmpty());
    EXPECT_FALSE(QImage(qpath(dir / "sql.png")).isNull());
    QFile svg(qpath(dir / "sql.svg"));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    EXPECT_TRUE(svg.readAll().contains("<svg"));
}

TEST_F(Shell, PaletteColoursStayReadableOnLightAndDark) {
    QPalette light(QColor(240, 240, 240));
    QPalette dark(QColor(40, 40, 40));
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    light.setColor(QPalette::Base, Qt::white);
    EXPECT_FALSE(theme::isDark(light));
    EXPECT_TRUE(theme::isDark(dark));
    EXPECT_EQ(theme::heatColor(0, light), QColor(Qt::white));
    EXPECT_EQ(theme::heatColor(0, dark), QColor(30, 30, 30));
    for (const QPalette& palette : {light, dark})
        for (int i = 0; i < 12; ++i) {
            const QColor fill = theme::categoryColor(i, palette);
            const QColor text = theme::textOn(fill);
            // WCAG-style contrast of the text on the fill: at least 3:1.
            auto lum = [](const QColor& c) {
                auto lin = [](double v) {
                    return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
                };
                return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
            };
            const double a = lum(fill), b = lum(text);
            EXPECT_GE((std::max(a, b) + 0.05) / (std::min(a, b) + 0.05), 3.0) << i;
        }
}

TEST(ShellCli, ScreenshotWritesOnePngPerViewAndRefusesABadFile) {
    test::TempDir dir;
    const auto ok =
        test::runCommand(fmt::format("QT_QPA_PLATFORM=offscreen {} --screenshot {} {}", PTO_STUDIO,
                                     test::shellQuote((dir / "shots").string()),
                                     test::shellQuote(test::sampleTrace("softmax").string())));
    ASSERT_EQ(ok.exitCode, 0) << ok.err;
    std::size_t pngs = 0;
    for (const auto& entry : fs::directory_iterator(dir / "shots")) {
        EXPECT_EQ(entry.path().extension(), ".png") << entry.path();
        EXPECT_FALSE(QImage(qpath(entry.path())).isNull()) << entry.path();
        ++pngs;
    }
    EXPECT_EQ(pngs, studioViews().size() + 1); // each view and the whole window
    EXPECT_TRUE(fs::exists(dir / "shots" / "bottleneck.png"));
    EXPECT_TRUE(fs::exists(dir / "shots" / "sql.png"));
    EXPECT_GT(test::drawnPixels(dir / "shots" / "bottleneck.png"), 5000u);

    std::ofstream(dir / "bad.db") << "garbage";
    const auto bad = test::runCommand(fmt::format("{} --screenshot {} {}", PTO_STUDIO,
                                                  test::shellQuote((dir / "bad-shots").string()),
                                                  test::shellQuote((dir / "bad.db").string())));
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("bad.db"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(dir / "bad-shots" / "bottleneck.png"));
}

// Without a display (no DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM) `--help`, `--version` and
// `--screenshot=DIR` aborted in QApplication's X11 plugin (SIGABRT, exit 134): the check for a
// headless mode matched `--screenshot` only as a word of its own, and help and version needed
// the window system. Now help and version print and exit 0, `--screenshot=DIR` pictures the
// views on the offscreen platform, and a window without a display is refused with the reason.
TEST(ShellCli, HelpVersionAndScreenshotNeedNoDisplay) {
    test::TempDir dir;
    const std::string noDisplay =
        fmt::format("env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM {}", PTO_STUDIO);
    const auto help = test::runCommand(noDisplay + " --help");
    EXPECT_EQ(help.exitCode, 0) << help.err;
    EXPECT_NE(help.out.find("--screenshot <DIR>"), std::string::npos) << help.out;
    const auto version = test::runCommand(noDisplay + " --version");
    EXPECT_EQ(version.exitCode, 0) << version.err;
    EXPECT_EQ(version.out.rfind("pto-studio ", 0), 0u) << version.out;
    const std::string trace = test::shellQuote(test::sampleTrace("softmax").string());
    const auto shots = test::runCommand(fmt::format(
        "{} --screenshot={} {}", noDisplay, test::shellQuote((dir / "shots").string()), trace));
    EXPECT_EQ(shots.exitCode, 0) << shots.err;
    EXPECT_FALSE(QImage(qpath(dir / "shots" / "window.png")).isNull());
    const auto window = test::runCommand(fmt::format("{} {}", noDisplay, trace));
    EXPECT_EQ(window.exitCode, 2) << window.err;
    EXPECT_NE(window.err.find("no display"), std::string::npos) << window.err;
}

// A headless run is not the user opening a file: the user's settings (Recent Files among them)
// are the same bytes after it, and no settings file appears where there was none.
TEST(ShellCli, ScreenshotLeavesTheUsersSettingsAlone) {
    test::TempDir dir;
    const fs::path config = dir / "config";
    const fs::path settings = config / "PTO Studio" / "pto-studio.conf";
    fs::create_directories(settings.parent_path());
    const std::string before = "[General]\nrecentFiles=/home/user/run.db\n";
    std::ofstream(settings) << before;
    auto screenshot = [&](const fs::path& configHome, const std::string& shots) {
        return test::runCommand(fmt::format(
            "QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME={} HOME={} {} --screenshot {} {}",
            test::shellQuote(configHome.string()), test::shellQuote(dir.path().string()),
            PTO_STUDIO, test::shellQuote((dir / shots).string()),
            test::shellQuote(test::sampleTrace("softmax").string())));
    };
    const auto run = screenshot(config, "shots");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::ostringstream after;
    after << std::ifstream(settings).rdbuf();
    EXPECT_EQ(after.str(), before);

    const fs::path empty = dir / "empty-config";
    const auto fresh = screenshot(empty, "fresh-shots");
    ASSERT_EQ(fresh.exitCode, 0) << fresh.err;
    EXPECT_FALSE(fs::exists(empty / "PTO Studio")) << "settings written under " << empty;
}

// A trace whose stage texts lie on damaged overflow pages passes the checks of opening (the
// interactive window opens it and its views show their errors), but --screenshot must not
// picture error views as the trace: it names the damage on stderr, exits 2, writes nothing.
TEST(ShellCli, ScreenshotOfATraceWithDamagedPagesIsExit2AndWritesNothing) {
    test::TempDir dir;
    const fs::path damaged = dir / "damaged.db";
    fs::copy_file(test::sampleTrace("matmul"), damaged); // its stage texts overflow their pages
    auto sql = [&](const std::string& query) {
        const auto r = test::runCommand(fmt::format("sqlite3 -readonly {} {}",
                                                    test::shellQuote(damaged.string()),
                                                    test::shellQuote(query)));
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return r.out;
    };
    const long pageSize = std::stol(sql("PRAGMA page_size"));
    std::istringstream pages(
        sql("SELECT pageno FROM dbstat WHERE name = 'stage' AND pagetype = 'overflow'"));
    int flipped = 0;
    {
        std::fstream file(damaged, std::ios::in | std::ios::out | std::ios::binary);
        for (long page = 0; pages >> page; ++flipped) // every 7th byte inverted, as the tester did
            for (long at = (page - 1) * pageSize; at < page * pageSize; at += 7) {
                file.seekg(at);
                const int byte = file.get();
                file.seekp(at);
                file.put(char(byte ^ 0xff));
            }
    }
    ASSERT_GT(flipped, 0);
    {
        MainWindow window; // opening checks header, schema and tables: the file opens
        EXPECT_TRUE(window.openFile(qpath(damaged), true).isEmpty());
    }
    const auto run = test::runCommand(fmt::format(
        "QT_QPA_PLATFORM=offscreen {} --screenshot {} {}", PTO_STUDIO,
        test::shellQuote((dir / "shots").string()), test::shellQuote(damaged.string())));
    EXPECT_EQ(run.exitCode, 2) << run.out << run.err;
    EXPECT_NE(run.err.find("pto-studio: trace '"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("damaged.db' is corrupt"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("*** in database"), std::string::npos) << run.err; // one line
    EXPECT_FALSE(fs::exists(dir / "shots")) << "pictures of a damaged trace were written";
}

// The timeline's summary is built on a thread of its own, not on the worker pool: --screenshot
// waits for it too (a big run's timeline.png said "summarising…" with hatched lanes and empty
// counters), and at its time limit it gives up, naming the view, before writing anything.
TEST_F(Shell, ScreenshotsWaitForTheTimelineSummary) {
    const fs::path trace = test::sampleTrace("softmax", "--trace full");
    // A summary that takes `delay` (cancellable, as the real one is) before building.
    auto slowBuild = [](std::chrono::milliseconds delay) {
        return [delay](const fs::path& path, CancelToken& cancel) {
            const auto until = std::chrono::steady_clock::now() + delay;
            while (std::chrono::steady_clock::now() < until && !cancel.cancelled())
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            return buildTimelineLod(path, cancel);
        };
    };
    test::TempDir dir;
    {
        MainWindow window;
        auto* timeline = static_cast<TimelineView*>(window.view(QStringLiteral("timeline")));
        timeline->loader().setBuild(slowBuild(std::chrono::milliseconds(2000)));
        bool summarised = false, picturedBefore = false;
        QObject::connect(&timeline->loader(), &TimelineLoader::finished, &window, [&] {
            summarised = true;
            picturedBefore = fs::exists(dir / "shots"); // made just before window.png
        });
        ASSERT_TRUE(window.openFile(qpath(trace), true).isEmpty());
        const QString error = writeScreenshots(window, qpath(dir / "shots"));
        EXPECT_TRUE(error.isEmpty()) << error.toStdString();
        EXPECT_TRUE(summarised);
        EXPECT_FALSE(picturedBefore) << "pictures were taken while the timeline was summarising";
        EXPECT_FALSE(timeline->loader().busy());
        ASSERT_NE(timeline->canvas().lod(), nullptr) << "the timeline was pictured unsummarised";
        EXPECT_FALSE(timeline->canvas().lod()->counters.empty());
        EXPECT_TRUE(timeline->statusText().contains(QStringLiteral("summary built")))
            << timeline->statusText().toStdString();
        EXPECT_TRUE(fs::exists(dir / "shots" / "timeline.png"));
    }
    {
        MainWindow window;
        auto* timeline = static_cast<TimelineView*>(window.view(QStringLiteral("timeline")));
        timeline->loader().setBuild(slowBuild(std::chrono::minutes(2)));
        ASSERT_TRUE(window.openFile(qpath(trace), true).isEmpty());
        ScreenshotOptions options;
        options.timeoutSeconds = 1;
        const QString error = writeScreenshots(window, qpath(dir / "late"), options);
        EXPECT_TRUE(error.contains(QStringLiteral("did not finish loading in 1 s")))
            << error.toStdString();
        EXPECT_TRUE(error.contains(QStringLiteral("Timeline"))) << error.toStdString();
        EXPECT_FALSE(fs::exists(dir / "late"));
        EXPECT_TRUE(timeline->loader().busy());
    } // closing cancels the slow summary
}

// A reference copied from the selection ("run.db#slice=N") opens the file with that slice
// selected and shown on the timeline; Go to slice refuses an id the trace does not have.
TEST(ShellReferences, ACopiedReferenceOpensWithItsSelection) {
    for (const EntityRef& ref :
         {EntityRef::slice(7), EntityRef::instr(0), EntityRef::track(3), EntityRef::node(2, 11)}) {
        const auto back = parseReference(formatReference(QStringLiteral("/x/run #1.db"), ref));
        ASSERT_TRUE(back) << int(ref.kind);
        EXPECT_EQ(back->path, QStringLiteral("/x/run #1.db"));
        EXPECT_EQ(back->ref, ref);
    }
    const auto plain = parseReference(QStringLiteral("/x/run.db"));
    ASSERT_TRUE(plain);
    EXPECT_TRUE(plain->ref.isNone());
    EXPECT_FALSE(parseReference(QStringLiteral("run.db#slice=x")));
    EXPECT_FALSE(parseReference(QStringLiteral("run.db#frame=3")));

    const auto trace = test::sampleTrace("softmax");
    const auto last = std::stoll(
        test::runCommand(
            fmt::format(
                "sqlite3 -readonly {} 'SELECT max(id) FROM slice WHERE category = \"instr\"'",
                test::shellQuote(trace.string())))
            .out);
    MainWindow first;
    ASSERT_TRUE(first.openFile(qpath(trace), true).isEmpty());
    EXPECT_TRUE(first.goToSlice(last).isEmpty());
    EXPECT_EQ(first.context().selection().current(), EntityRef::slice(last));
    EXPECT_TRUE(first.goToSlice(last + 1000000).contains(QStringLiteral("no slice")));
    EXPECT_EQ(first.context().selection().current(), EntityRef::slice(last)); // unchanged
    const QString reference = first.selectionReference();
    EXPECT_TRUE(reference.endsWith(QStringLiteral("#slice=%1").arg(last)))
        << reference.toStdString();

    MainWindow second;
    second.resize(1400, 900);
    second.show();
    ASSERT_TRUE(second.openReference(reference, true).isEmpty());
    EXPECT_EQ(second.context().selection().current(), EntityRef::slice(last));
    auto* timeline = static_cast<TimelineView*>(second.view(QStringLiteral("timeline")));
    (void)QTest::qWaitFor([&] { return timeline->canvas().selectedSlice() == last; }, 20000);
    EXPECT_EQ(timeline->canvas().selectedSlice(), last);
    EXPECT_FALSE(second.openReference(QStringLiteral("/no/such/run.db#slice=1"), true).isEmpty());
    EXPECT_FALSE(
        second.openReference(qpath(trace) + QStringLiteral("#slice=%1").arg(last + 1000000), true)
            .isEmpty());
}

// A reference on the command line ("softmax.db#slice=N", a TROWMAX slice) is selected when the
// file opens, before the graph and the bottleneck view have loaded: each applies it once loaded
// (the graph highlighted the slice's tile op, the op table selected reduce_max's row: neither
// did, only the timeline followed).
TEST(ShellReferences, ViewsThatLoadLaterShowTheReferencedSelection) {
    const auto trace = test::sampleTrace("softmax");
    const auto row = test::runCommand(fmt::format(
        "sqlite3 -readonly -separator ' ' {} 'SELECT s.id, i.tile_stage_id, i.tile_op_id FROM "
        "slice s JOIN instr i ON i.id = s.instr_id WHERE i.opcode = \"TROWMAX\" AND "
        "s.category = \"instr\" ORDER BY s.id LIMIT 1'",
        test::shellQuote(trace.string())));
    std::istringstream fields(row.out);
    std::int64_t slice = -1, tileStage = -1, tileOp = -1;
    fields >> slice >> tileStage >> tileOp;
    ASSERT_GE(tileOp, 0) << row.out << row.err;

    MainWindow window;
    window.resize(1400, 900);
    window.show();
    ASSERT_TRUE(window.openReference(qpath(trace) + QStringLiteral("#slice=%1").arg(slice), true)
                    .isEmpty());
    auto* graph = static_cast<GraphView*>(window.view(QStringLiteral("graph")));
    auto* bottleneck = static_cast<BottleneckView*>(window.view(QStringLiteral("bottleneck")));
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return !graph->hasPendingWork() && !bottleneck->hasPendingWork(); }, 60000));
    ASSERT_EQ(graph->currentStageId(), tileStage); // the last Tile stage
    const int node = graph->graphModel().stage().indexOf(tileOp);
    ASSERT_GE(node, 0);
    // The mapped node arrives by a queued signal, and revealing it may lay the graph out again.
    (void)QTest::qWaitFor(
        [&] {
            return !graph->hasPendingWork() && graph->canvas().highlight() >= 0 &&
                   graph->canvas().highlight() == graph->slotOfNode(node);
        },
        20000);
    EXPECT_EQ(graph->canvas().highlight(), graph->slotOfNode(node));
    EXPECT_GE(graph->canvas().highlight(), 0);

    const std::int64_t op =
        LinkResolver(window.context().document()->reader()).tensorOpOf(EntityRef::slice(slice));
    const QModelIndexList selected = bottleneck->opTable()->selectionModel()->selectedRows();
    ASSERT_EQ(selected.size(), 1);
    const int sourceRow = static_cast<const QSortFilterProxyModel*>(bottleneck->opTable()->model())
                              ->mapToSource(selected.front())
                              .row();
    EXPECT_EQ(bottleneck->opCost().opId(sourceRow), op);
    EXPECT_EQ(bottleneck->opCost()
                  .data(bottleneck->opCost().index(sourceRow, OpCostModel::Line))
                  .toString(),
              QStringLiteral("5"));
}

// `--baseline B` opens the compare view against B; a baseline that cannot open is exit 2
// naming it, before any picture is written.
TEST(ShellCli, ScreenshotWithABaselineShowsTheComparison) {
    test::TempDir dir;
    const std::string run = test::shellQuote(test::sampleTrace("softmax").string());
    const auto ok = test::runCommand(fmt::format(
        "QT_QPA_PLATFORM=offscreen {} --screenshot {} {} --baseline {}", PTO_STUDIO,
        test::shellQuote((dir / "shots").string()), run,
        test::shellQuote(test::sampleTrace("softmax", "--set dma.gm_to_l1.rate=2x").string())));
    ASSERT_EQ(ok.exitCode, 0) << ok.err;
    EXPECT_GT(test::drawnPixels(dir / "shots" / "compare.png"), 5000u);

    const auto missing = test::runCommand(
        fmt::format("QT_QPA_PLATFORM=offscreen {} --screenshot {} {} --baseline {}", PTO_STUDIO,
                    test::shellQuote((dir / "missing-shots").string()), run,
                    test::shellQuote((dir / "no-such.db").string())));
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.err.find("no-such.db"), std::string::npos) << missing.err;
    EXPECT_FALSE(fs::exists(dir / "missing-shots" / "compare.png"));
}

} // namespace
} // namespace pto::gui
