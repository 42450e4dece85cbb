// `pto export`, `pto info` and `pto query` on a real run, as the newcomer test of the CLI used
// them: an -o that is the input, the stage numbers info prints, query results of any shape, a
// trace with no run or a window past its end, long output names and the words of each error.
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <sstream>

namespace pto {
namespace {

namespace fs = std::filesystem;
using test::runCommand;
using test::shellQuote;

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

class TraceToolsCli : public ::testing::Test {
protected:
    // s.db: a run of the softmax sample; c.db: its compile alone (no run). Made once.
    static void SetUpTestSuite() {
        s_dir = new test::TempDir("pto-trace-tools");
        const std::string sample = fmt::format("{}/samples/softmax.pto", PTO_SOURCE_DIR);
        for (const auto& [command, file] : {std::pair{"run", "s.db"}, {"compile", "c.db"}}) {
            const auto r =
                runCommand(fmt::format("{} {} {} -o {}", PTO_CLI, command, shellQuote(sample),
                                       shellQuote((*s_dir / file).string())));
            ASSERT_EQ(r.exitCode, 0) << command << "\n" << r.err;
        }
    }
    static void TearDownTestSuite() {
        delete s_dir;
        s_dir = nullptr;
    }
    void SetUp() override {
        for (const char* name : {"s.db", "c.db"}) fs::copy_file(*s_dir / name, m_dir / name);
    }
    // `pto ARGS` run in the test's directory.
    test::ProcessResult pto(const std::string& args) const {
        return runCommand(
            fmt::format("cd {} && {} {}", shellQuote(m_dir.path().string()), PTO_CLI, args));
    }
    // The names in the test's directory holding ".tmp-" (temp files left behind).
    std::vector<std::string> tempFiles() const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(m_dir.path()))
            if (entry.path().filename().string().find(".tmp-") != std::string::npos)
                names.push_back(entry.path().filename().string());
        return names;
    }

    static test::TempDir* s_dir;
    test::TempDir m_dir{"pto-trace-tools-case"};
};

test::TempDir* TraceToolsCli::s_dir = nullptr;

// `pto export t.db -o t.db` replaced the trace with its export, exit 0, in every format and by
// every path to the file; it is refused as whatif -o is.
TEST_F(TraceToolsCli, ExportNeverReplacesTheTraceItReads) {
    fs::create_symlink("s.db", m_dir / "link.db");
    const std::string before = readAll(m_dir / "s.db");
    const std::string absolute = shellQuote((m_dir / "s.db").string());
    for (const char* format : {"chrome", "csv", "dot", "svg", "html"}) {
        for (const std::string& args :
             {std::string("s.db -o s.db"), std::string("s.db -o ./s.db"), "s.db -o " + absolute,
              std::string("link.db -o s.db"), std::string("s.db -o link.db")}) {
            const auto r = pto(fmt::format("export {} --format {}", args, format));
            EXPECT_EQ(r.exitCode, 2) << format << " " << args << "\n" << r.err;
            EXPECT_NE(r.err.find("is the trace being exported"), std::string::npos) << r.err;
            EXPECT_NE(r.err.find("it is not replaced"), std::string::npos) << r.err;
        }
    }
    EXPECT_EQ(readAll(m_dir / "s.db"), before);
    EXPECT_TRUE(fs::is_symlink(m_dir / "link.db"));
    EXPECT_TRUE(tempFiles().empty());
    EXPECT_EQ(pto("export s.db --format csv -o s.csv").exitCode, 0);
}

// info printed each stage's ord (0…N-1) while --stage takes its id: `--stage 18` exported
// another stage than the one info listed as 18, and `--stage 0` was "no stage '0'".
TEST_F(TraceToolsCli, InfoListsTheNumberThatExportStageTakes) {
    const auto info = pto("info s.db");
    ASSERT_EQ(info.exitCode, 0) << info.err;
    const std::regex line(R"(^ +([0-9]+)  (\w+) +(\S+) +[0-9]+ nodes)");
    std::vector<std::pair<std::string, std::string>> stages; // number, level.pass
    std::istringstream lines(info.out);
    for (std::string text; std::getline(lines, text);)
        if (std::smatch m; std::regex_search(text, m, line))
            stages.emplace_back(m[1], m[2].str() + "." + m[3].str());
    ASSERT_GT(stages.size(), 5u) << info.out;
    for (const auto& [number, name] : {stages.front(), stages[stages.size() / 2], stages.back()}) {
        const auto dot = pto("export s.db --format dot --stage " + number);
        ASSERT_EQ(dot.exitCode, 0) << number << "\n" << dot.err;
        EXPECT_EQ(dot.out.rfind(fmt::format("digraph \"{}\"", name), 0), 0u)
            << number << " " << name << "\n"
            << dot.out.substr(0, 80);
    }
}

// JSON kept one column of each name (the last) and sorted the keys: SELECT s.id, t.id lost the
// slice id. Every column is kept, in column order; a repeated name gets ":1", ":2"…
TEST_F(TraceToolsCli, QueryJsonKeepsEveryColumnInColumnOrder) {
    const auto r =
        pto("query s.db --format json \"SELECT 3 AS z, 1 AS a, 2 AS a, 4 AS \\\"a:1\\\", "
            "s.id, t.id FROM slice s JOIN track t ON s.track_id = t.id LIMIT 2\"");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto rows = nlohmann::ordered_json::parse(r.out);
    ASSERT_EQ(rows.size(), 2u) << r.out;
    std::vector<std::string> keys;
    for (const auto& [key, value] : rows[0].items()) keys.push_back(key);
    EXPECT_EQ(keys, (std::vector<std::string>{"z", "a", "a:1", "a:1:1", "id", "id:1"})) << r.out;
    EXPECT_EQ(rows[0]["z"], 3);
    EXPECT_EQ(rows[0]["a"], 1);
    EXPECT_EQ(rows[0]["a:1"], 2);
    EXPECT_EQ(rows[0]["a:1:1"], 4);
    EXPECT_TRUE(rows[0]["id"].is_number() && rows[0]["id:1"].is_number()) << r.out;
}

// Several statements with rows: the table showed the last result, CSV put the second's values
// under the first's header, JSON merged them. Now every format refuses them, printing nothing.
TEST_F(TraceToolsCli, QueryOfTwoResultSetsIsRefusedInEveryFormat) {
    for (const char* format : {"table", "csv", "json"}) {
        const auto r =
            pto(fmt::format("query s.db --format {} \"SELECT 1 AS a; SELECT 2 AS b\"", format));
        EXPECT_EQ(r.exitCode, 2) << format << "\n" << r.out;
        EXPECT_EQ(r.out, "") << format;
        EXPECT_NE(r.err.find("pto query prints one result: statements 1 and 2 both return rows"),
                  std::string::npos)
            << format << "\n"
            << r.err;
        const auto one = pto(fmt::format("query s.db --format {} \"SELECT 1 AS a;\"", format));
        EXPECT_EQ(one.exitCode, 0) << format << "\n" << one.err;
    }
}

// A JSON query with a syntax error printed "[" before the error: stdout was not JSON.
TEST_F(TraceToolsCli, AFailedQueryPrintsNothingOnStandardOutput) {
    for (const char* format : {"table", "csv", "json"}) {
        const auto r = pto(fmt::format("query s.db --format {} \"SELEC 1\"", format));
        EXPECT_EQ(r.exitCode, 2) << format;
        EXPECT_EQ(r.out, "") << format;
        EXPECT_NE(r.err.find("syntax error"), std::string::npos) << r.err;
    }
    const auto empty = pto("query s.db --format json \"SELECT 1 WHERE 0\"");
    EXPECT_EQ(empty.exitCode, 0) << empty.err;
    EXPECT_EQ(empty.out, "[]\n");
}

// chrome and csv of a compile-only trace wrote an empty timeline with exit 0, where html refused
// it; a window past the run's end wrote a header-only file with exit 0.
TEST_F(TraceToolsCli, TimelineExportsRefuseATraceWithNoRunAndAnEmptyWindow) {
    for (const char* format : {"chrome", "csv", "html"}) {
        const auto r = pto(fmt::format("export c.db --format {} -o c.out", format));
        EXPECT_EQ(r.exitCode, 2) << format << "\n" << r.out;
        EXPECT_NE(r.err.find("'c.db' holds no simulated run"), std::string::npos) << r.err;
    }
    for (const char* window : {"--from 5ms", "--from 1s --to 2s", "--to 0"}) {
        for (const char* format : {"chrome", "csv"}) {
            const auto r = pto(fmt::format("export s.db --format {} {} -o w.out", format, window));
            EXPECT_EQ(r.exitCode, 2) << format << " " << window << "\n" << r.out;
            EXPECT_NE(r.err.find(fmt::format("the window {} holds no slice of the run, which "
                                             "spans cycles 0 to ",
                                             window)),
                      std::string::npos)
                << r.err;
            EXPECT_NE(r.err.find(" us at the run's clock"), std::string::npos) << r.err;
        }
    }
    EXPECT_FALSE(fs::exists(m_dir / "c.out"));
    EXPECT_FALSE(fs::exists(m_dir / "w.out"));
    EXPECT_EQ(pto("export s.db --format csv --from 1us -o w.out").exitCode, 0);
}

// A 250-byte name is legal (NAME_MAX 255) but its temp sibling "<name>.tmp-<pid>-<n>" was not:
// "File name too long". The temp name is shortened; the export lands under the full name.
TEST_F(TraceToolsCli, AnOutputNameUpToNameMaxCanBeWritten) {
    for (std::size_t bytes : {244u, 250u, 255u}) {
        const std::string name = std::string(bytes - 4, 'a') + ".csv";
        const auto r = pto("export s.db --format csv -o " + name);
        EXPECT_EQ(r.exitCode, 0) << bytes << "\n" << r.err;
        EXPECT_TRUE(fs::exists(m_dir / name)) << bytes;
    }
    EXPECT_TRUE(tempFiles().empty());
}

// "cannot write 'adir'" gave no reason; a symlink loop and a path past PATH_MAX were "no such
// file". Each now says what is wrong.
TEST_F(TraceToolsCli, ErrorsNameTheirRealCause) {
    fs::create_directory(m_dir / "adir");
    const auto dir = pto("export s.db --format csv -o adir");
    EXPECT_EQ(dir.exitCode, 2);
    EXPECT_NE(dir.err.find("cannot write 'adir': it is a directory"), std::string::npos) << dir.err;
    fs::create_symlink("l1.db", m_dir / "l2.db");
    fs::create_symlink("l2.db", m_dir / "l1.db");
    std::string longPath;
    while (longPath.size() < 4200) longPath += "./";
    longPath += "s.db";
    for (const auto& [path, why] :
         {std::pair<std::string, std::string>{"l1.db", "too many levels of symbolic links"},
          {longPath, "file name too long"}}) {
        for (const char* command : {"info", "export", "report"}) {
            const auto r = pto(fmt::format("{} {}", command, path));
            EXPECT_EQ(r.exitCode, 2) << command;
            EXPECT_NE(r.err.find("cannot open trace '"), std::string::npos) << r.err.substr(0, 200);
            EXPECT_NE(r.err.find(why), std::string::npos) << command << ": " << r.err.substr(0, 200)
                                                          << "…" << r.err.substr(r.err.size() - 80);
        }
    }
}

// --stage was ignored by csv and chrome; export --help said the default html had no graph (it
// has the parsed program's).
TEST_F(TraceToolsCli, ExportOptionsOfAnotherFormatAreRefusedAndTheHelpIsRight) {
    for (const char* format : {"chrome", "csv"}) {
        const auto r = pto(fmt::format("export s.db --format {} --stage tile -o x.out", format));
        EXPECT_EQ(r.exitCode, 2) << format;
        EXPECT_NE(r.err.find(fmt::format("--stage chooses the IR stage of a dot, svg or html "
                                         "export, not of --format {}",
                                         format)),
                  std::string::npos)
            << r.err;
    }
    EXPECT_FALSE(fs::exists(m_dir / "x.out"));
    const auto help = pto("export --help");
    EXPECT_EQ(help.out.find("no graph"), std::string::npos) << help.out;
    const auto html = pto("export s.db --format html");
    EXPECT_NE(html.out.find("Graph of stage tensor.parse"), std::string::npos);
}

// The compare text said "the 16 busiest in B" over a list sorted by the larger of A and B; the
// compile summary said "1 kernels".
TEST_F(TraceToolsCli, SummariesSayWhatTheyShow) {
    const auto compare = pto("compare s.db s.db");
    ASSERT_EQ(compare.exitCode, 0) << compare.err;
    EXPECT_NE(compare.out.find("busiest in A or B):"), std::string::npos) << compare.out;
    const auto listing = pto(
        fmt::format("compile {}/tests/integration/run/programs/good_copy.ptoasm", PTO_SOURCE_DIR));
    ASSERT_EQ(listing.exitCode, 0) << listing.err;
    EXPECT_NE(listing.out.find(" in 1 kernel\n"), std::string::npos) << listing.out;
}

} // namespace
} // namespace pto
