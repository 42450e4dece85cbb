// `pto compile --trace-value`: on samples/softmax.pto the passes it lists for %m are exactly
// those after which the trace's node rows of %m's ops (kind, dtype, shape, space, attrs)
// differ from the stage before (read from the trace with sqlite3 in Python), and the whole
// report matches its golden file.
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace pto {
namespace {

using test::runCommand;
using test::shellQuote;

std::string readFile(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(TraceValue, SoftmaxReduceMaxListsExactlyThePassesThatChangeIt) {
    test::TempDir dir("pto-trace-value");
    const std::string source = PTO_SOURCE_DIR;
    auto r = runCommand(fmt::format("cd {} && {} compile samples/softmax.pto --trace-value %m",
                                    shellQuote(source), PTO_CLI));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, readFile(source + "/tests/integration/diff/golden/softmax_trace_m.txt"));

    std::vector<std::string> listed;
    const std::regex header(R"(^== ([a-z-]+) )");
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
        if (std::smatch m; std::regex_search(line, m, header)) listed.push_back(m[1]);

    auto compile = runCommand(fmt::format("{} compile {}/samples/softmax.pto -o {}", PTO_CLI,
                                          shellQuote(source), shellQuote((dir / "t.db").string())));
    ASSERT_EQ(compile.exitCode, 0) << compile.err;
    // softmax has one reduce_max: its ops at every Tensor and Tile stage are the reduce_max rows.
    std::ofstream(dir / "changes.py") << fmt::format(R"PY(
import sqlite3
db = sqlite3.connect('file:{}?mode=ro', uri=True)
prev = None
for sid, name in db.execute("select id, pass from stage where level in ('tensor', 'tile') order by ord"):
    rows = sorted(db.execute("select kind, dtype, shape, space, attrs from node "
                             "where stage_id = ? and kind = 'reduce_max'", (sid,)).fetchall(),
                  key=repr)
    if prev is not None and rows != prev:
        print(name)
    prev = rows
)PY",
                                                     (dir / "t.db").string());
    auto py = runCommand("/usr/bin/python3 " + shellQuote((dir / "changes.py").string()));
    ASSERT_EQ(py.exitCode, 0) << py.err;
    std::vector<std::string> expected;
    std::istringstream names(py.out);
    for (std::string n; std::getline(names, n);) expected.push_back(n);
    EXPECT_EQ(listed, expected) << r.out;
    EXPECT_FALSE(listed.empty());

    auto bad = runCommand(fmt::format("{} compile {}/samples/softmax.pto --trace-value %nope",
                                      PTO_CLI, shellQuote(source)));
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("no op of @softmax defines this value"), std::string::npos) << bad.err;
}

} // namespace
} // namespace pto
