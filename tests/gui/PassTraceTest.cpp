// The GUI's pass trace of a node (gui/model/PassTrace.h) read from a real trace agrees with
// `pto compile --trace-value`, which follows the in-memory IR instead; the IR view's "Trace
// through passes" steps through exactly those stages.
#include "gui/model/PassTrace.h"
#include "gui/widgets/IrTextView.h"
#include "gui/widgets/PassTraceBar.h"
#include "tests/gui/support/OpenIrView.h"
#include "tests/support/Process.h"

#include <QPushButton>
#include <QTest>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace pto::gui {
namespace {

TEST(GuiPassTrace, ReduceMaxOfSoftmaxStepsThroughTheSamePassesAsTheCli) {
    test::TempDir dir("pto-gui-pass-trace");
    const std::string sample = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
    const std::string trace = (dir / "t.db").string();
    ASSERT_EQ(test::runCommand(fmt::format("{} compile {} -o {}", PTO_CLI, test::shellQuote(sample),
                                           test::shellQuote(trace)))
                  .exitCode,
              0);
    const auto cli = test::runCommand(
        fmt::format("{} compile {} --trace-value %m", PTO_CLI, test::shellQuote(sample)));
    ASSERT_EQ(cli.exitCode, 0) << cli.err;
    std::vector<std::string> expected;
    const std::regex header(R"(^== ([a-z-]+) )");
    std::istringstream lines(cli.out);
    for (std::string line; std::getline(lines, line);)
        if (std::smatch m; std::regex_search(line, m, header)) expected.push_back(m[1]);

    const tracedb::TraceReader reader = tracedb::TraceReader::open(trace);
    const std::int64_t root = reader.stages().front().id;
    std::int64_t node = -1;
    for (const tracedb::NodeRow& n : reader.nodes(root))
        if (n.kind == "reduce_max") node = n.id;
    ASSERT_GE(node, 0);
    const std::vector<PassStep> steps = passTrace(reader, root, node);
    std::vector<std::string> passes;
    for (const PassStep& s : steps) passes.push_back(s.pass);
    EXPECT_EQ(passes, expected);
    ASSERT_FALSE(steps.empty());
    EXPECT_EQ(steps.front().before.size(), 1u);
    EXPECT_EQ(steps.front().after.size(), 4u); // one reduce_max per row tile
    EXPECT_EQ(steps.front().nodes.size(), 4u);
}

// --record levels keeps the intermediate stages as rows without nodes, --record final leaves
// them out: the trace steps over them to the stages recorded in full, and ends where the trace
// of a full recording ends (the node is never shown vanishing at a pass not recorded).
TEST(GuiPassTrace, StagesNotRecordedInFullAreSteppedOver) {
    test::TempDir dir("pto-gui-pass-trace-levels");
    const std::string sample = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
    auto lastStep = [&](const std::string& level) {
        const std::string trace = (dir / (level + ".db")).string();
        EXPECT_EQ(
            test::runCommand(fmt::format("{} compile {} --record {} -o {}", PTO_CLI,
                                         test::shellQuote(sample), level, test::shellQuote(trace)))
                .exitCode,
            0);
        const tracedb::TraceReader reader = tracedb::TraceReader::open(trace);
        const std::int64_t root = reader.stages().front().id;
        std::int64_t node = -1;
        for (const tracedb::NodeRow& n : reader.nodes(root))
            if (n.kind == "reduce_max") node = n.id;
        EXPECT_GE(node, 0);
        const std::vector<PassStep> steps = passTrace(reader, root, node);
        EXPECT_FALSE(steps.empty()) << level;
        for (const PassStep& s : steps) {
            EXPECT_FALSE(reader.nodes(s.stageId).empty()) << level << ": " << s.pass;
            EXPECT_FALSE(s.after.empty()) << level << ": " << s.pass;
        }
        return steps.empty() ? PassStep{} : steps.back();
    };
    const PassStep all = lastStep("all");
    EXPECT_EQ(all.after.size(), 4u); // one reduce_max per row tile
    for (const std::string level : {"levels", "final"}) {
        const PassStep step = lastStep(level);
        EXPECT_EQ(step.after, all.after) << level;
        EXPECT_EQ(step.pass, "tile-dead-code") << level; // the Tile level's recorded stage
    }
}

TEST(GuiPassTrace, TheIrViewStepsThroughThePassesThatChangedTheSelectedNode) {
    test::TempDir dir("pto-gui-pass-trace-view");
    const std::string sample = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
    const auto trace = dir / "t.db";
    ASSERT_EQ(test::runCommand(fmt::format("{} compile {} -o {}", PTO_CLI, test::shellQuote(sample),
                                           test::shellQuote(trace.string())))
                  .exitCode,
              0);
    test::OpenIrView open(trace);
    ASSERT_TRUE(open.loaded());
    auto& [context, view] = open;
    PassTraceBar& bar = *view.passTrace();
    EXPECT_FALSE(bar.traceButton()->isEnabled()); // nothing selected
    const auto& reader = context.document()->reader();
    const std::int64_t root = reader.stages().front().id;
    std::int64_t node = -1;
    for (const tracedb::NodeRow& n : reader.nodes(root))
        if (n.kind == "reduce_max") node = n.id;
    ASSERT_GE(node, 0);
    context.selection().select(EntityRef::node(root, node));
    ASSERT_TRUE(bar.traceButton()->isEnabled());
    QTest::mouseClick(bar.traceButton(), Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !bar.busy() && !view.loading(); }, 60000));
    const std::vector<PassStep> expected = passTrace(reader, root, node);
    ASSERT_EQ(bar.steps().size(), expected.size());
    ASSERT_GE(expected.size(), 2u);
    EXPECT_EQ(view.irText().stageId(), expected[0].stageId);
    EXPECT_TRUE(bar.text().contains(QString::fromStdString(expected[0].pass)))
        << bar.text().toStdString();
    bar.step(+1);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
    EXPECT_EQ(view.irText().stageId(), expected[1].stageId);
    EXPECT_FALSE(view.highlightedIrLines().empty()); // the traced node's lines in that stage
}

} // namespace
} // namespace pto::gui
