// The GUI's pass trace of a node (gui/model/PassTrace.h) read from a real trace agrees with
// `pto compile --trace-value`, which follows the in-memory IR instead.
#include "gui/model/PassTrace.h"
#include "tests/support/Process.h"

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

} // namespace
} // namespace pto::gui
