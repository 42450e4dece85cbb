// The tune view offscreen: a tune file made by the real `pto tune` opened through the main
// window like a trace, its table sorted by cycles against the file read with SQLite, the Pareto
// front checked point by point, double-clicks opening the best trace and re-running another
// candidate through `pto`; the bottleneck view's hint to tune.
#include "gui/widgets/TuneView.h"
#include "gui/app/MainWindow.h"
#include "gui/model/TuneModel.h"
#include "gui/widgets/BottleneckView.h"
#include "gui/widgets/TimelineView.h"
#include "gui/widgets/TuneChart.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"
#include "trace_db/TuneDb.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTabBar>
#include <QTableView>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;

// A sweep of the softmax sample's row tiles (11 candidates), made by the real binary.
fs::path softmaxTuneFile(const test::TempDir& dir) {
    const fs::path out = dir / "softmax-tune.db";
    const auto r = test::runCommand(std::string(PTO_CLI) + " tune " + PTO_SOURCE_DIR +
                                    "/samples/softmax.pto --space " + PTO_SOURCE_DIR +
                                    "/tests/integration/tune/softmax_space.txt --threads 2 -o " +
                                    test::shellQuote(out.string()));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return out;
}

// A tune file opened before the window shows (`pto-studio --screenshot out t.db`) raises the
// Tuning tab and the status bar and the run views say a tune file is open and how to open a
// candidate's trace (they said "No trace open", the Tuning tab behind Bottlenecks).
TEST(TuneViewTest, ATuneFileOpenedAtStartIsInFrontAndNamedEverywhere) {
    test::TempDir dir("pto-tune-gui-front");
    const fs::path file = softmaxTuneFile(dir);
    const int candidates = int(tracedb::readTuneFile(file).candidates.size());
    MainWindow window;
    window.resize(1400, 900);
    ASSERT_EQ(window.openFile(QString::fromStdString(file.string()), true), QString());
    window.show();
    // The front tab of its dock area, Bottlenecks behind it.
    const auto frontTab = [&] {
        for (const QTabBar* bar : window.findChildren<QTabBar*>())
            for (int i = 0; i < bar->count(); ++i)
                if (bar->tabText(i) == QStringLiteral("Tuning"))
                    return bar->tabText(bar->currentIndex());
        return QString();
    };
    EXPECT_TRUE(QTest::qWaitFor([&] { return frontTab() == QStringLiteral("Tuning"); }, 5000))
        << frontTab().toStdString();
    const QString status = window.statusText();
    EXPECT_TRUE(status.contains(QStringLiteral("softmax-tune.db"))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("tune file: %1 candidates").arg(candidates)))
        << status.toStdString();
    EXPECT_FALSE(status.contains(QStringLiteral("No trace open"))) << status.toStdString();
    const QString headline =
        static_cast<BottleneckView*>(window.view(QStringLiteral("bottleneck")))->headline();
    EXPECT_TRUE(headline.contains(QStringLiteral("Tune file softmax-tune.db")))
        << headline.toStdString();
    EXPECT_TRUE(headline.contains(QStringLiteral("double-click a candidate")))
        << headline.toStdString();
    const QString timeline =
        static_cast<TimelineView*>(window.view(QStringLiteral("timeline")))->statusText();
    EXPECT_TRUE(timeline.contains(QStringLiteral("Tune file softmax-tune.db")))
        << timeline.toStdString();
}

TEST(TuneViewTest, OpensATuneFileSortsAndDrawsItsCandidates) {
    test::TempDir dir("pto-tune-gui");
    const fs::path file = softmaxTuneFile(dir);
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    ASSERT_EQ(window.openFile(QString::fromStdString(file.string()), true), QString());
    auto* view = qobject_cast<TuneView*>(window.view(QStringLiteral("tune")));
    ASSERT_NE(view, nullptr);
    QAbstractItemModelTester tester(const_cast<TuneTableModel*>(&view->model()),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);

    const tracedb::TuneData data = tracedb::readTuneFile(file);
    QTableView* table = view->table();
    ASSERT_EQ(table->model()->rowCount(), int(data.candidates.size()));
    // Sorted by cycles the first row is the best candidate of the file.
    table->sortByColumn(TuneTableModel::Cycles, Qt::AscendingOrder);
    const auto* best = data.best();
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(table->model()->index(0, TuneTableModel::Id).data().toLongLong(), best->id);
    EXPECT_EQ(table->model()->index(0, TuneTableModel::Cycles).data().toLongLong(), *best->cycles);
    for (int r = 1; r < table->model()->rowCount(); ++r) {
        const QVariant prev = table->model()->index(r - 1, TuneTableModel::Cycles).data();
        const QVariant cur = table->model()->index(r, TuneTableModel::Cycles).data();
        if (cur.isValid()) {
            EXPECT_LE(prev.toLongLong(), cur.toLongLong());
        }
    }

    // One point per candidate that ran (with two threads, pruning can skip one, depending on
    // which candidates finish first); no point beats a front point on both axes.
    const auto ran = std::count_if(data.candidates.begin(), data.candidates.end(), [](auto& c) {
        return c.status == tracedb::TuneStatus::Ok && c.cycles.has_value();
    });
    EXPECT_GE(ran, 10);
    EXPECT_EQ(std::ssize(view->cyclesChart()->points()), ran);
    const auto& pareto = view->paretoChart()->points();
    int frontPoints = 0;
    for (const auto& p : pareto) {
        if (!p.front) continue;
        ++frontPoints;
        for (const auto& q : pareto)
            EXPECT_FALSE(q.x <= p.x && q.y < p.y) << "point " << q.id << " dominates " << p.id;
    }
    EXPECT_GE(frontPoints, 1);
    EXPECT_GT(test::drawnPixels(test::saveScreenshot(*view, "tune_view")), 1000u);

    // Double-click on the best row opens the kept best trace as the document.
    table->doubleClicked(table->model()->index(0, TuneTableModel::Id));
    ASSERT_NE(window.context().document(), nullptr);
    EXPECT_EQ(fs::path(window.context().document()->path()).filename(),
              fs::path(data.metaOr("best_trace")));

    // Another candidate is re-run by `pto tune … --candidate N` and then opened.
    qputenv("PTO_CLI", PTO_CLI);
    const int64_t other = best->id == 0 ? 1 : 0;
    view->openCandidate(other);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view->rerunning(); }, 60000));
    ASSERT_NE(window.context().document(), nullptr) << view->statusText().toStdString();
    EXPECT_NE(
        window.context().document()->path().string().find(".cand-" + std::to_string(other) + ".db"),
        std::string::npos)
        << view->statusText().toStdString();
}

TEST(TuneViewTest, ParetoFrontKeepsOnlyUndominatedCandidates) {
    auto candidate = [](int64_t id, int64_t cycles, int64_t bytes) {
        tracedb::TuneCandidate c;
        c.id = id;
        c.cycles = cycles;
        c.onchipBytes = bytes;
        return c;
    };
    std::vector<tracedb::TuneCandidate> cs = {candidate(0, 100, 40), candidate(1, 80, 60),
                                              candidate(2, 90, 70), candidate(3, 120, 10),
                                              candidate(4, 80, 50)};
    cs.push_back(candidate(5, 10, 5));
    cs.back().status = tracedb::TuneStatus::Pruned; // never on the front
    EXPECT_EQ(paretoFront(cs), (std::vector<int64_t>{3, 0, 4}));
}

// The hint's command is one `pto tune` accepts: for softmax (no matmul) it offered a cube_tile,
// which pto tune refuses ("would change nothing"); a program with a matmul gets one.
TEST(TuneViewTest, BottleneckAdviceSaysHowToTuneTheKernel) {
    for (const char* sample : {"softmax", "matmul"}) {
        StudioContext context;
        BottleneckView view(context);
        QSignalSpy loaded(&view, &BottleneckView::profileLoaded);
        context.setDocument(TraceDocument::open(test::sampleTrace(sample)));
        ASSERT_TRUE(loaded.wait(60000) || !view.detailsText().isEmpty());
        EXPECT_TRUE(view.detailsText().contains(QStringLiteral("pto tune")))
            << view.detailsText().toStdString();
        const std::string hint = view.tuneHint().toStdString();
        EXPECT_NE(hint.find(std::string(sample) + ".pto"), std::string::npos) << hint;
        EXPECT_EQ(hint.find("cube_tile") != std::string::npos, std::string(sample) == "matmul")
            << hint;
        const auto from = hint.find("pto tune "), to = hint.find(" -o tune.db");
        ASSERT_TRUE(from != std::string::npos && to != std::string::npos) << hint;
        test::TempDir dir;
        const std::string command = std::string(PTO_CLI) + hint.substr(from + 3, to - from - 3) +
                                    " --threads 1 -o " + test::shellQuote((dir / "t.db").string());
        const auto r = test::runCommand(command);
        EXPECT_EQ(r.exitCode, 0) << command << "\n" << r.err;
    }
}

} // namespace
} // namespace pto::gui
