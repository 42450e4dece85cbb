// The pto-studio shell offscreen: opening good and bad files, the status bar, view export.
#include "gui/app/MainWindow.h"
#include "gui/widgets/ViewExport.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"

#include <QFile>
#include <QLabel>
#include <QStatusBar>

#include <gtest/gtest.h>

#include <fstream>

namespace pto::gui {
namespace {

QString statusText(MainWindow& window) {
    QString text;
    for (QLabel* label : window.statusBar()->findChildren<QLabel*>()) text += label->text();
    return text;
}

TEST(GuiFoundation, OpensASimulatedTraceAndNamesProgramAndArch) {
    const auto trace = test::sampleTrace("softmax");
    MainWindow window;
    ASSERT_TRUE(window.openFile(QString::fromStdString(trace.string()), true).isEmpty());
    const TraceDocument* document = window.context().document();
    ASSERT_NE(document, nullptr);
    EXPECT_TRUE(document->summary().hasRun());
    EXPECT_GT(document->summary().totalCycles, 0);
    EXPECT_GT(document->summary().coreCount, 0);
    EXPECT_TRUE(statusText(window).contains(QStringLiteral("softmax")));
    EXPECT_TRUE(statusText(window).contains(QStringLiteral("cycles")));
}

// A measured trace (`pto import`): the status bar gives its run as `pto report` does — the
// first kernel start to the last end, in µs — never cycles.
TEST(GuiFoundation, AMeasuredTraceShowsItsKernelRunTime) {
    const std::filesystem::path run = std::filesystem::path(PTO_SOURCE_DIR) /
                                      "../shared/data/ascend-profiler/text/level1/rank0_ascend_pt";
    if (!std::filesystem::is_directory(run)) GTEST_SKIP() << "no test data at " << run;
    const auto trace = test::importedTrace(run, "measured_level1_rank0");
    MainWindow window;
    ASSERT_TRUE(window.openFile(QString::fromStdString(trace.string()), true).isEmpty());
    const auto reader = tracedb::TraceReader::open(trace);
    const auto kernels = reader.query("SELECT max(ts + dur) - min(ts) FROM slice WHERE category "
                                      "= 'task' AND task_id IS NOT NULL");
    const auto runNs = std::get<std::int64_t>(kernels.rows.at(0).at(0));
    EXPECT_EQ(window.context().document()->summary().totalCycles, runNs);
    const QString status = statusText(window);
    EXPECT_TRUE(status.contains(QStringLiteral("measured: %1 µs from the first kernel start to "
                                               "the last end")
                                    .arg(double(runNs) / 1000, 0, 'f', 2)))
        << status.toStdString();
    EXPECT_FALSE(status.contains(QStringLiteral("cycles"))) << status.toStdString();
}

TEST(GuiFoundation, ACompileOnlyTraceOpensWithoutARun) {
    MainWindow window;
    ASSERT_TRUE(
        window.openFile(QString::fromStdString(test::compiledTrace("matmul").string()), true)
            .isEmpty());
    EXPECT_FALSE(window.context().document()->summary().hasRun());
    EXPECT_GT(window.context().document()->summary().stageCount, 0);
}

TEST(GuiFoundation, ABadFileIsRefusedWithItsNameAndTheOldDocumentStays) {
    test::TempDir dir;
    const auto bad = dir / "not-a-trace.db";
    std::ofstream(bad) << "this is not SQLite";
    MainWindow window;
    const QString reason = window.openFile(QString::fromStdString(bad.string()), true);
    EXPECT_TRUE(reason.contains(QStringLiteral("not-a-trace.db"))) << reason.toStdString();
    EXPECT_EQ(window.context().document(), nullptr);
    const QString missing =
        window.openFile(QString::fromStdString((dir / "missing.db").string()), true);
    EXPECT_FALSE(missing.isEmpty());
}

TEST(GuiFoundation, ExportsAWidgetAsPngAndSvg) {
    test::TempDir dir;
    MainWindow window;
    window.resize(800, 600);
    const QString png = QString::fromStdString((dir / "window.png").string());
    const QString svg = QString::fromStdString((dir / "window.svg").string());
    EXPECT_TRUE(exportWidget(window, png).isEmpty());
    EXPECT_TRUE(exportWidget(window, svg).isEmpty());
    EXPECT_GT(QFile(png).size(), 100);
    QFile svgFile(svg);
    ASSERT_TRUE(svgFile.open(QIODevice::ReadOnly));
    EXPECT_TRUE(svgFile.readAll().contains("<svg"));
    EXPECT_FALSE(
        exportWidget(window, QString::fromStdString((dir / "window.bmp").string())).isEmpty());
    EXPECT_FALSE(QFile::exists(QString::fromStdString((dir / "window.bmp").string())));
}

} // namespace
} // namespace pto::gui
