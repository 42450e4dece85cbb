// pto-studio on hostile traces (issue 13): workers never let an exception escape and can be
// cancelled mid-statement, trace text is never rendered as rich text, a forged layout cache
// is ignored, and the app stays up on every reproducer of ../shared/repro/reliability.
#include "gui/app/MainWindow.h"
#include "gui/model/CancelToken.h"
#include "gui/model/LayoutCache.h"
#include "gui/model/PlainText.h"
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineSliceCache.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/BottleneckView.h"
#include "gui/widgets/GraphView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <thread>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;

/// An endless recursive CTE (x = 1, 2, ...): a query over it never ends.
constexpr const char* kEndless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)";

QString qpath(const fs::path& path) {
    return QString::fromStdString(path.string());
}

/// A copy of the softmax trace in `dir` with `sql` applied by the sqlite3 command.
fs::path damagedTrace(const test::TempDir& dir, const std::string& name, const std::string& sql) {
    const fs::path copy = dir / name;
    fs::copy_file(test::sampleTrace("softmax"), copy);
    const auto result = test::runCommand(
        fmt::format("sqlite3 {} {}", test::shellQuote(copy.string()), test::shellQuote(sql)));
    EXPECT_EQ(result.exitCode, 0) << result.err;
    return copy;
}

double secondsOf(const std::function<void()>& action) {
    QElapsedTimer timer;
    timer.start();
    action();
    return double(timer.nsecsElapsed()) * 1e-9;
}

fs::path reliabilityDir() {
    return fs::path(PTO_SOURCE_DIR) / ".." / "shared" / "repro" / "reliability";
}

// --- workers: errors are values, cancel interrupts --------------------------------------

TEST(HostileWorkers, WhateverAWorkerThrowsBecomesAnErrorValue) {
    auto token = std::make_shared<CancelToken>();
    auto failed = runGuarded<int>(*token, []() -> int { throw std::runtime_error("bad page"); });
    EXPECT_FALSE(failed.ok());
    EXPECT_EQ(failed.error, QStringLiteral("bad page"));
    EXPECT_TRUE(token->finished());
    CancelToken other;
    EXPECT_EQ(runGuarded<int>(other, []() -> int { throw std::bad_alloc(); }).error,
              QStringLiteral("out of memory"));
    CancelToken odd;
    EXPECT_EQ(runGuarded<int>(odd, []() -> int { throw 42; }).error,
              QStringLiteral("unknown error"));
    CancelToken cancelled;
    cancelled.cancel();
    const auto dropped = runGuarded<int>(cancelled, [] { return 1; });
    EXPECT_TRUE(dropped.cancelled);
    EXPECT_FALSE(dropped.ok());
    // Through QtConcurrent, as the views run them: waiting never rethrows on the GUI thread.
    CancelToken viaPool;
    QFutureWatcher<WorkerResult<int>> watcher;
    watcher.setFuture(QtConcurrent::run([&viaPool] {
        return runGuarded<int>(viaPool, []() -> int { throw std::logic_error("no such table"); });
    }));
    EXPECT_NO_THROW(watcher.waitForFinished());
    EXPECT_EQ(watcher.result().error, QStringLiteral("no such table"));
}

TEST(HostileWorkers, CancelInterruptsAStatementRunningOnAnotherThread) {
    const auto reader = tracedb::TraceReader::open(test::sampleTrace("softmax"));
    auto token = std::make_shared<CancelToken>();
    std::string error;
    std::thread worker([&] {
        const FinishGuard finish(*token);
        try {
            const auto watch = token->watch(reader);
            reader.query(std::string(kEndless) + " SELECT count(*) FROM c");
        } catch (const std::exception& e) {
            error = e.what();
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double seconds = secondsOf([&] { cancelAndWait(token); });
    worker.join();
    EXPECT_LT(seconds, 2.0);
    EXPECT_NE(error.find("interrupt"), std::string::npos) << error;
    // A cancelled token refuses new connections at once.
    EXPECT_THROW((void)token->watch(reader), WorkerCancelled);
}

// Opening refuses a trace whose tables are missing or replaced by views (trace_db checks the
// layout at open), naming the table: the views never see such a file. Endless reads that do
// reach a worker are cancelled mid-statement (HostileWorkers above, the SQL console tests).
std::string openError(const fs::path& trace) {
    try {
        StudioContext context;
        context.setDocument(TraceDocument::open(trace));
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

TEST(HostileGraph, ATraceWithoutItsNodeTableIsRefusedAtOpenNamingTheTable) {
    test::TempDir dir;
    // schema 4: the view `node` reads table node_data
    const auto trace = damagedTrace(dir, "no_node.db", "DROP TABLE node_data");
    EXPECT_NE(openError(trace).find("table 'node_data' is missing"), std::string::npos)
        << openError(trace);
}

TEST(HostileGraph, AnEndlessViewInPlaceOfTheEdgeTableIsRefusedAtOpen) {
    test::TempDir dir;
    const auto trace = damagedTrace(
        dir, "endless_edge.db",
        fmt::format("DROP TABLE edge; CREATE VIEW edge AS {} SELECT x AS stage_id, x AS src, "
                    "x AS dst, '' AS label FROM c",
                    kEndless));
    EXPECT_NE(openError(trace).find("'edge'"), std::string::npos) << openError(trace);
}

TEST(HostileTimeline, AnEndlessViewInPlaceOfTheSliceTableIsRefusedAtOpen) {
    test::TempDir dir;
    const auto trace = damagedTrace(
        dir, "endless_slice.db",
        fmt::format("DROP VIEW slice_named; DROP TABLE slice; CREATE VIEW slice AS {} SELECT x "
                    "AS id, x AS ts, 1 AS dur, 3 AS track_id, 1 AS name_id, 'instr' AS "
                    "category, 0 AS depth, NULL AS instr_id, NULL AS task_id, NULL AS "
                    "arg_set_id FROM c",
                    kEndless));
    EXPECT_NE(openError(trace).find("'slice'"), std::string::npos) << openError(trace);
}

// --- trace text is plain text -------------------------------------------------------------

QLabel* labelShowing(QWidget& root, const QString& text) {
    for (QLabel* label : root.findChildren<QLabel*>())
        if (label->text() == text) return label;
    return nullptr;
}

TEST(HostileText, HtmlInTraceNamesIsShownLiterallyInTheStatusBarAndBottleneckHeader) {
    QSettings().clear();
    test::TempDir dir;
    std::ofstream(dir / "img.png") << "not really a png";
    const std::string arch =
        fmt::format("<h1>ARCH</h1><img src=\"{}\">", (dir / "img.png").string());
    const auto trace = damagedTrace(
        dir, "html_names.db",
        fmt::format("UPDATE meta SET value = '{0}' WHERE key = 'arch_name'; UPDATE meta SET "
                    "value = json_set(value, '$.name', '{0}') WHERE key = 'arch_config'; "
                    "UPDATE meta SET value = '<b>prog</b>' WHERE key = 'entry'",
                    arch));
    MainWindow window;
    ASSERT_TRUE(window.openFile(qpath(trace), true).isEmpty());
    window.resize(1400, 900);
    window.show();
    const QString status = window.statusText();
    EXPECT_TRUE(status.contains(QStringLiteral("program: <b>prog</b>"))) << status.toStdString();
    EXPECT_TRUE(status.contains(QString::fromStdString(arch))) << status.toStdString();
    QLabel* label = labelShowing(*window.statusBar(), status);
    ASSERT_NE(label, nullptr);
    EXPECT_EQ(label->textFormat(), Qt::PlainText);
    // Drawn as one line of text: no heading, no image.
    EXPECT_LE(label->sizeHint().height(), label->fontMetrics().height() + 4);

    auto* bottleneck = qobject_cast<BottleneckView*>(window.view(QStringLiteral("bottleneck")));
    ASSERT_NE(bottleneck, nullptr);
    if (bottleneck->isLoading()) {
        QSignalSpy loaded(bottleneck, &BottleneckView::profileLoaded);
        ASSERT_TRUE(loaded.wait(60000));
    }
    const QString headline = bottleneck->headline();
    EXPECT_TRUE(headline.contains(QStringLiteral("<b>prog</b> on <h1>ARCH</h1>")))
        << headline.toStdString();
    QLabel* header = labelShowing(*bottleneck, headline);
    ASSERT_NE(header, nullptr);
    EXPECT_EQ(header->textFormat(), Qt::PlainText);
    test::saveScreenshot(window, "hostile_html_names");
    QSettings().clear();
}

TEST(HostileText, AFileNamedLikeHtmlIsNamedLiterallyInTheErrorDialog) {
    QSettings().clear();
    test::TempDir dir;
    const fs::path bad = dir / "<b>bad<b>.db";
    std::ofstream(bad) << "not SQLite";
    MainWindow window;
    QString text;
    Qt::TextFormat format = Qt::AutoText;
    QTimer::singleShot(0, [&] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        text = box->text();
        format = box->textFormat();
        box->accept();
    });
    EXPECT_FALSE(window.openFile(qpath(bad)).isEmpty());
    EXPECT_EQ(text, QStringLiteral("Cannot open <b>bad<b>.db"));
    EXPECT_EQ(format, Qt::PlainText);
    QSettings().clear();
}

TEST(HostileText, TooltipsEscapeTextThatLooksLikeHtml) {
    const QString tip = plainToolTip(QStringLiteral("<h1>op</h1>\nline 2"));
    EXPECT_TRUE(tip.contains(QStringLiteral("&lt;h1&gt;op&lt;/h1&gt;"))) << tip.toStdString();
    EXPECT_FALSE(tip.contains(QStringLiteral("<h1>")));
    EXPECT_EQ(plainToolTip(QStringLiteral("a < b, 3 cycles")), QStringLiteral("a < b, 3 cycles"));
}

// --- the layout cache sidecar ------------------------------------------------------------

/// A dot-like layout of `nodes` boxes and `edges` two-point splines.
LayoutResult someLayout(int nodes, int edges) {
    LayoutResult r;
    r.ok = true;
    r.engine = "dot";
    r.bounds = QRectF(0, 0, 100, 100);
    for (int i = 0; i < nodes; ++i) r.nodes.emplace_back(i * 10.0, 0, 8, 8);
    for (int i = 0; i < edges; ++i) r.edges.push_back({QPointF(i, 0), QPointF(i, 10)});
    return r;
}

TEST(HostileLayoutCache, ForgedCountsTruncatedBlobsAndViewsAreIgnored) {
    test::TempDir dir;
    const auto trace = dir / "trace.db";
    std::ofstream(trace) << "stand-in for a trace";
    const std::string key = layoutCacheKey(9, 0x1234, false);
    { LayoutCache(trace).store(key, someLayout(3, 2)); }
    const auto sidecar = layoutCachePath(trace).string();
    auto patch = [&](const std::string& sql) {
        const auto r = test::runCommand(
            fmt::format("sqlite3 {} {}", test::shellQuote(sidecar), test::shellQuote(sql)));
        ASSERT_EQ(r.exitCode, 0) << r.err;
    };
    ASSERT_TRUE(LayoutCache(trace).find(key, 3, 2).has_value());
    // The job's own counts decide: a stored layout of another size is not used.
    EXPECT_FALSE(LayoutCache(trace).find(key, 4, 2).has_value());
    // The node count forged to 2^27 (as in the reproducer): ignored, nothing allocated.
    patch("UPDATE gui_layout SET data = substr(data, 1, 46) || x'08000000' || substr(data, 51)");
    EXPECT_FALSE(LayoutCache(trace).find(key, 3, 2).has_value());
    EXPECT_FALSE(LayoutCache(trace).find(key, 0x08000000, 2).has_value()); // more than the bytes
    // Truncated, and non-finite coordinates.
    { LayoutCache(trace).store(key, someLayout(3, 2)); }
    patch("UPDATE gui_layout SET data = substr(data, 1, 60)");
    EXPECT_FALSE(LayoutCache(trace).find(key, 3, 2).has_value());
    {
        LayoutResult nan = someLayout(3, 2);
        nan.nodes[1].setX(std::numeric_limits<double>::quiet_NaN());
        LayoutCache(trace).store(key, nan);
    }
    EXPECT_FALSE(LayoutCache(trace).find(key, 3, 2).has_value());
    // A sidecar whose table is an endless view: refused at open, in milliseconds.
    patch(fmt::format("DROP TABLE gui_layout; CREATE VIEW gui_layout AS {} SELECT x AS key, "
                      "x AS data FROM c",
                      kEndless));
    const double seconds = secondsOf([&] {
        LayoutCache cache(trace);
        EXPECT_NE(cache.problem().find("views"), std::string::npos) << cache.problem();
        EXPECT_FALSE(cache.find(key, 3, 2).has_value());
    });
    EXPECT_LT(seconds, 2.0);
}

TEST(HostileLayoutCache, TheReproducersForgedSidecarOpensInBoundedMemory) {
    const fs::path repro = reliabilityDir() / "c2_layout_cache_blowup";
    if (!fs::exists(repro / "lc.db")) GTEST_SKIP() << "no " << repro;
    test::TempDir dir;
    for (const char* name : {"lc.db", "lc.db.layout-cache"}) {
        fs::copy_file(repro / name, dir / name);
        fs::permissions(dir / name, fs::perms::owner_read | fs::perms::owner_write,
                        fs::perm_options::add);
        fs::last_write_time(dir / name, fs::last_write_time(repro / name)); // as cp -p does
    }
    const auto run = test::runCommand(fmt::format(
        "/usr/bin/time -f '%M KB %e s' -o {} env QT_QPA_PLATFORM=offscreen {} --screenshot {} {}",
        test::shellQuote((dir / "time.txt").string()), PTO_STUDIO,
        test::shellQuote((dir / "shots").string()), test::shellQuote((dir / "lc.db").string())));
    EXPECT_EQ(run.exitCode, 0) << run.err;
    std::ifstream in(dir / "time.txt");
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    long kb = 0;
    double seconds = 0;
    ASSERT_EQ(std::sscanf(last.c_str(), "%ld KB %lf s", &kb, &seconds), 2) << last;
    EXPECT_LT(kb, 1024L * 1024) << last; // the forged sidecar asked for 4.2 GB
    std::printf("forged layout cache: %ld KB peak, %.1f s\n", kb, seconds);
}

// --- every reproducer ---------------------------------------------------------------------

TEST(HostileRepro, PtoStudioStaysUpOnEveryReliabilityTrace) {
    const fs::path repro = reliabilityDir();
    if (!fs::exists(repro)) GTEST_SKIP() << "no " << repro;
    test::TempDir dir;
    int checked = 0;
    for (const auto& entry : fs::recursive_directory_iterator(repro)) {
        if (entry.path().extension() != ".db" || !entry.is_regular_file()) continue;
        const std::string name = entry.path().filename().string();
        // A copy: the GUI writes its layout cache beside the trace, never into ../shared.
        const fs::path copy = dir / name;
        fs::copy_file(entry.path(), copy, fs::copy_options::overwrite_existing);
        fs::permissions(copy, fs::perms::owner_read | fs::perms::owner_write,
                        fs::perm_options::add);
        const auto run = test::runCommand(fmt::format(
            "timeout 150 env QT_QPA_PLATFORM=offscreen {} --screenshot {} {}", PTO_STUDIO,
            test::shellQuote((dir / ("shots-" + name)).string()), test::shellQuote(copy.string())));
        // 0: screenshots written; 2: a clean refusal. Never a signal (≥ 128) or timeout (124).
        EXPECT_TRUE(run.exitCode == 0 || run.exitCode == 2)
            << name << ": exit " << run.exitCode << "\n"
            << run.err;
        if (run.exitCode == 2) {
            EXPECT_NE(run.err.find("pto-studio: "), std::string::npos) << name;
        }
        ++checked;
    }
    EXPECT_GE(checked, 5);
}

} // namespace
} // namespace pto::gui
