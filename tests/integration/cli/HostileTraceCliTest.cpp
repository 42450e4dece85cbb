// The `pto` trace tools on hostile traces (../shared/repro/reliability), on runs edited
// afterwards (meta, slices) and interrupted writes: a clean error with exit 2 within seconds, or
// figures with a warning, no crash or hang, no file left behind.
#include "tests/support/Process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace pto {
namespace {

namespace fs = std::filesystem;
using test::runCommand;
using Clock = std::chrono::steady_clock;

std::string q(const fs::path& path) {
    return test::shellQuote(path.string());
}

using test::pto;

fs::path reproDir() {
    return fs::path(PTO_SOURCE_DIR) / ".." / "shared" / "repro" / "reliability";
}

struct Timed {
    test::ProcessResult result;
    double seconds = 0;
};

/// Runs under `timeout 30`, so a regression shows as exit 124, not as a hung test.
Timed timed(const std::string& command) {
    auto start = Clock::now();
    Timed t{runCommand("timeout 30 " + command), 0};
    t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return t;
}

std::vector<std::string> tempFilesIn(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().filename().string().find(".tmp-") != std::string::npos)
            names.push_back(entry.path().filename().string());
    return names;
}

class HostileTraceCli : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::is_directory(reproDir())) GTEST_SKIP() << "no " << reproDir();
    }
    /// A writable copy of a reproducer (the shared folder is read-only).
    fs::path copyOf(const std::string& name) {
        fs::path copy = m_dir / name;
        fs::copy_file(reproDir() / name, copy);
        fs::permissions(copy, fs::perms::owner_write, fs::perm_options::add);
        return copy;
    }
    test::TempDir m_dir;
};

TEST_F(HostileTraceCli, StageParentLoopGivesAReportAndAWarningNotACrash) {
    fs::path trace = copyOf("c2_segv_stage_parent_cycle.db");
    auto report = timed(pto("report " + q(trace)));
    EXPECT_TRUE(report.result.exitCode == 0 || report.result.exitCode == 1)
        << report.result.exitCode << report.result.err;
    EXPECT_NE(report.result.err.find("closes a loop of stages; provenance"), std::string::npos)
        << report.result.err;
    EXPECT_NE(report.result.out.find(" cycles = "), std::string::npos) << report.result.out;
    auto html = timed(pto("export " + q(trace) + " --format html -o " + q(m_dir / "r.html")));
    EXPECT_EQ(html.result.exitCode, 0) << html.result.err;
    EXPECT_GT(fs::file_size(m_dir / "r.html"), 1000u);
}

// A trace with damaged pages: `pto info` checks every page and says where (exit 2, JSON too),
// as pto-studio refuses the file; a sound trace says "integrity: ok".
TEST_F(HostileTraceCli, InfoNamesTheDamagedPagesOfACorruptTrace) {
    const fs::path trace = copyOf("c2_gui_abort_corrupt_page.db");
    auto text = runCommand(pto("info " + q(trace)));
    EXPECT_EQ(text.exitCode, 2) << text.out;
    EXPECT_NE(text.out.find("stages:"), std::string::npos) << text.out; // what it could read
    EXPECT_NE(text.err.find("is corrupt: On tree page 79"), std::string::npos) << text.err;
    auto json = runCommand(pto("info --json " + q(trace)));
    EXPECT_EQ(json.exitCode, 2);
    EXPECT_NE(json.out.find("\"integrity\": \"trace '"), std::string::npos) << json.out;
    auto sound = runCommand(pto("info " + q(copyOf("c4_trace.db"))));
    EXPECT_EQ(sound.exitCode, 0) << sound.err;
    EXPECT_NE(sound.out.find("integrity: ok"), std::string::npos) << sound.out;
}

// The damaged page lies in the edge table, which only too_few_tasks's loop-carried chains read:
// the report is made around it, with a warning that says what it could not count.
TEST_F(HostileTraceCli, ReportOfATraceWithADamagedGraphWarnsAndGoesOn) {
    const fs::path trace = copyOf("c2_gui_abort_corrupt_page.db");
    auto r = runCommand(pto("report " + q(trace) + " --no-store"));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("the Tile stage's graph could not be read"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("findings"), std::string::npos) << r.out;
}

TEST_F(HostileTraceCli, EndlessViewInPlaceOfSliceIsRefusedWithinASecond) {
    fs::path trace = reproDir() / "c2_hang_slice_is_infinite_view.db";
    const std::vector<std::string> commands = {
        "info " + q(trace), "query " + q(trace) + " \"SELECT count(*) FROM slice\"",
        "export " + q(trace) + " --format chrome -o " + q(m_dir / "x.json"),
        "export " + q(trace) + " --format csv -o " + q(m_dir / "x.csv"), "report " + q(trace)};
    for (const std::string& command : commands) {
        auto t = timed(pto(command));
        EXPECT_EQ(t.result.exitCode, 2) << command << "\n" << t.result.err;
        EXPECT_NE(t.result.err.find("table 'slice' is a view, not a table"), std::string::npos)
            << command << "\n"
            << t.result.err;
        EXPECT_LT(t.seconds, 5.0) << command; // about 0.05 s; generous for a loaded machine
    }
    EXPECT_TRUE(tempFilesIn(m_dir.path()).empty());
    EXPECT_FALSE(fs::exists(m_dir / "x.json"));
}

TEST_F(HostileTraceCli, FifoAsTraceIsRefusedWithoutBlocking) {
    fs::path fifo = m_dir / "fifo.db";
    ASSERT_EQ(runCommand("mkfifo " + q(fifo)).exitCode, 0);
    const std::vector<std::string> commands = {
        "info " + q(fifo), "query " + q(fifo) + " \"SELECT 1\"", "export " + q(fifo),
        "export " + q(fifo) + " --format html", "report " + q(fifo)};
    for (const std::string& command : commands) {
        auto t = timed(pto(command));
        EXPECT_EQ(t.result.exitCode, 2) << command << "\n" << t.result.err;
        EXPECT_NE(t.result.err.find("cannot open trace '" + fifo.string() +
                                    "': not a regular file (a FIFO)"),
                  std::string::npos)
            << command << "\n"
            << t.result.err;
    }
}

constexpr const char* kEndlessCount =
    "\"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c\"";

TEST_F(HostileTraceCli, RunawayQueryStopsAtTheTimeout) {
    fs::path trace = reproDir() / "c4_trace.db";
    auto t = timed(pto("query --timeout 1 " + q(trace) + " " + kEndlessCount));
    EXPECT_EQ(t.result.exitCode, 2) << t.result.err;
    EXPECT_EQ(t.result.err.rfind("error: query interrupted after 1.", 0), 0u) << t.result.err;
    EXPECT_NE(t.result.err.find("(time limit 1 s); raise the limit with --timeout SECONDS"),
              std::string::npos)
        << t.result.err;
    EXPECT_GE(t.seconds, 1.0);
    EXPECT_LT(t.seconds, 5.0);
    for (const char* format : {"csv", "json"}) { // the streaming path
        auto s = timed(pto(
            fmt::format("query --timeout 0.5 --format {} {} {}", format, q(trace), kEndlessCount)));
        EXPECT_EQ(s.result.exitCode, 2) << format << s.result.err;
        EXPECT_LT(s.seconds, 5.0);
    }
}

TEST_F(HostileTraceCli, RunawayQueryStopsAtTheDefaultTimeout) {
    auto t = timed(pto("query " + q(reproDir() / "c4_trace.db") + " " + kEndlessCount));
    EXPECT_EQ(t.result.exitCode, 2) << t.result.err;
    EXPECT_NE(t.result.err.find("(time limit 5 s)"), std::string::npos) << t.result.err;
    EXPECT_LT(t.seconds, 10.0);
}

TEST_F(HostileTraceCli, WalModeTraceIsReadWithoutCreatingFiles) {
    fs::path trace = copyOf("c4_wal_mode_trace.db");
    for (const char* args : {"query {} \"SELECT count(*) FROM slice\"", "info {}"}) {
        auto r = runCommand(pto(fmt::format(fmt::runtime(args), q(trace))));
        EXPECT_EQ(r.exitCode, 0) << args << r.err;
    }
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(m_dir.path()))
        names.push_back(entry.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"c4_wal_mode_trace.db"});
}

TEST_F(HostileTraceCli, ExportCsvDefusesFormulaCells) {
    fs::path trace = m_dir / "t.db";
    auto run = runCommand(
        pto("run " + q(reproDir() / "c5_csv_formula.ptoasm") + " --seed 1 -o " + q(trace)));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    fs::path csv = m_dir / "t.csv";
    ASSERT_EQ(runCommand(pto("export " + q(trace) + " --format csv -o " + q(csv))).exitCode, 0);
    // Python's csv module reads it as a spreadsheet would: no text cell may start a formula.
    fs::path script = m_dir / "check.py";
    std::ofstream(script) << R"(import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
def number(c):
    try:
        float(c)
        return True
    except ValueError:
        return False
bad = [c for r in rows[1:] for c in r if c[:1] in ('=', '+', '-', '@', '\t', '\r') and not number(c)]
defused = [r[10] for r in rows[1:] if r[10].startswith("'=")]
print(len(rows), bad, defused[:2])
sys.exit(1 if bad or not defused else 0)
)";
    auto check = runCommand("/usr/bin/python3 " + q(script) + " " + q(csv));
    EXPECT_EQ(check.exitCode, 0) << check.out << check.err;
}

TEST_F(HostileTraceCli, TraceNoneRunRecordsTotalCycles) {
    fs::path trace = m_dir / "none.db";
    auto run = runCommand(pto(
        fmt::format("run {}/samples/softmax.pto --trace none -o {}", PTO_SOURCE_DIR, q(trace))));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::smatch cycles;
    ASSERT_TRUE(std::regex_search(run.out, cycles, std::regex("cycles +([0-9]+)"))) << run.out;
    auto info = runCommand(pto("info " + q(trace)));
    ASSERT_EQ(info.exitCode, 0) << info.err;
    EXPECT_TRUE(std::regex_search(info.out, std::regex("sim_total_cycles +" + cycles[1].str())))
        << info.out;
    EXPECT_TRUE(std::regex_search(info.out, std::regex("trace_level +none"))) << info.out;
}

/// `pto run` of a long program in the background, signalled once its temp file exists.
std::string killedRun(const fs::path& dir, const std::string& signal) {
    // set -m: a background job of a shell without job control would ignore SIGINT.
    return fmt::format(
        "set -m; cd {} && {} run {}/samples/gemm_4096.pto --timing-only --trace full "
        "-o t.db >/dev/null 2>&1 & pid=$!; "
        "for i in $(seq 1500); do ls {}/t.db.tmp-* >/dev/null 2>&1 && break; "
        "sleep 0.02; done; sleep 0.2; kill -{} $pid; wait $pid; echo rc=$?",
        q(dir), PTO_CLI, PTO_SOURCE_DIR, q(dir), signal);
}

// SIGINT is covered by TraceDbAtomicity.SigtermAndSigintRemoveTheTempFile: a shell's
// background job may start with SIGINT ignored, which pto rightly leaves alone.
TEST_F(HostileTraceCli, SigtermOfARunLeavesNoTempFile) {
    auto r = runCommand(killedRun(m_dir.path(), "TERM"));
    EXPECT_EQ(r.out, "rc=143\n"); // ended by the signal itself
    EXPECT_TRUE(tempFilesIn(m_dir.path()).empty());
    EXPECT_FALSE(fs::exists(m_dir / "t.db"));
}

TEST_F(HostileTraceCli, TempFileOfAKilledRunIsRemovedByTheNextWrite) {
    auto r = runCommand(killedRun(m_dir.path(), "KILL"));
    EXPECT_NE(r.out.find("rc=137"), std::string::npos) << r.out;
    ASSERT_EQ(tempFilesIn(m_dir.path()).size(), 1u) << "SIGKILL cannot be handled";
    auto next = runCommand(pto(
        fmt::format("compile {}/samples/softmax.pto -o {}", PTO_SOURCE_DIR, q(m_dir / "t.db"))));
    ASSERT_EQ(next.exitCode, 0) << next.err;
    EXPECT_TRUE(tempFilesIn(m_dir.path()).empty());
}

TEST_F(HostileTraceCli, ConcurrentExportsToOnePathBothComplete) {
    fs::path trace = reproDir() / "c4_trace.db";
    fs::path out = m_dir / "same.json";
    std::string one = pto("export " + q(trace) + " -o " + q(out));
    auto r = runCommand(fmt::format("{0} & a=$!; {0} & b=$!; wait $a; ra=$?; wait $b; "
                                    "echo $ra $?",
                                    one));
    EXPECT_EQ(r.out, "0 0\n") << r.err;
    auto valid =
        runCommand("/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' " + q(out));
    EXPECT_EQ(valid.exitCode, 0) << valid.err;
    EXPECT_TRUE(tempFilesIn(m_dir.path()).empty());
}

// A slice name whose last bytes are not UTF-8 (SQLite checks nothing; integrity_check passes):
// the Chrome export and `pto query --format json` stay JSON (U+FFFD in their place). Before, the
// export was invalid JSON with exit 0 and the query printed "[" then the JSON library's error.
TEST_F(HostileTraceCli, NamesThatAreNotUtf8StillGiveJson) {
    fs::path trace = m_dir / "t.db";
    ASSERT_EQ(runCommand(pto(fmt::format("run {}/samples/matmul.pto --trace full -o {}",
                                         PTO_SOURCE_DIR, q(trace))))
                  .exitCode,
              0);
    auto edit = runCommand(fmt::format(
        "sqlite3 {} \"UPDATE string SET str = CAST(str || X'FFFE' AS TEXT) WHERE str = 'TMATMUL'\"",
        q(trace)));
    ASSERT_EQ(edit.exitCode, 0) << edit.err;
    const std::string isJson =
        "/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))"
        "; print(sum(\"\\ufffd\" in json.dumps(d, ensure_ascii=False) "
        "for _ in [0]))' ";
    auto chrome = runCommand(pto("export " + q(trace) + " -o " + q(m_dir / "t.json")));
    ASSERT_EQ(chrome.exitCode, 0) << chrome.err;
    auto valid = runCommand(isJson + q(m_dir / "t.json"));
    EXPECT_EQ(valid.exitCode, 0) << valid.err;
    EXPECT_EQ(valid.out, "1\n") << "the replacement character is in the export";
    auto query = runCommand(
        pto("query " + q(trace) +
            " \"SELECT name FROM slice_named WHERE name LIKE 'TMATMUL%' LIMIT 2\" --format json"));
    EXPECT_EQ(query.exitCode, 0) << query.err;
    std::ofstream(m_dir / "q.json") << query.out;
    auto queryValid = runCommand(isJson + q(m_dir / "q.json"));
    EXPECT_EQ(queryValid.exitCode, 0) << queryValid.err;
    EXPECT_EQ(queryValid.out, "1\n");
    // The table format cuts long text at 60 bytes: 40 two-byte 'é' are cut between characters.
    auto table = runCommand(pto("query " + q(trace) +
                                " \"SELECT replace(hex(zeroblob(40)), '00', "
                                "'é') AS word\""));
    ASSERT_EQ(table.exitCode, 0) << table.err;
    std::ofstream(m_dir / "table.txt") << table.out;
    auto utf8 = runCommand("/usr/bin/python3 -c 'import sys; open(sys.argv[1], \"rb\").read()"
                           ".decode(\"utf-8\")' " +
                           q(m_dir / "table.txt"));
    EXPECT_EQ(utf8.exitCode, 0) << table.out << utf8.err;
    EXPECT_NE(table.out.find("é~"), std::string::npos) << table.out;
}

/// A run of a sample to edit with sqlite3 (needs no reproducer): what a user who changed a
/// trace by hand, or a tool that wrote one wrong, gives the trace tools.
class EditedTraceCli : public ::testing::Test {
protected:
    /// `pto run samples/<sample> [extra] -o <name>`.
    fs::path runOf(const std::string& sample, const std::string& name,
                   const std::string& extra = "") {
        const fs::path trace = m_dir / name;
        auto run = runCommand(pto(
            fmt::format("run {}/samples/{} {} -o {}", PTO_SOURCE_DIR, sample, extra, q(trace))));
        EXPECT_EQ(run.exitCode, 0) << run.err;
        return trace;
    }
    /// `cp from to; sqlite3 to "sql"`.
    fs::path editedCopy(const fs::path& from, const std::string& name, const std::string& sql) {
        const fs::path copy = m_dir / name;
        fs::copy_file(from, copy);
        auto edit = runCommand(fmt::format("sqlite3 {} \"{}\"", q(copy), sql));
        EXPECT_EQ(edit.exitCode, 0) << edit.err;
        return copy;
    }
    /// `pto report --format json --no-store --exit-zero`, parsed.
    nlohmann::json reportJson(const fs::path& trace, std::string* err = nullptr) {
        auto report = runCommand(pto("report --format json --no-store --exit-zero " + q(trace)));
        EXPECT_EQ(report.exitCode, 0) << report.err;
        if (err) *err = report.err;
        return nlohmann::json::parse(report.out, nullptr, false);
    }
    test::TempDir m_dir;
};

// Every time is cycles of meta clock_hz: before, 0 gave the GUI "12042 cycles (12042.00 µs)",
// the findings 1.8 GHz and `pto report` yet another time, all with exit 0. Now every tool
// refuses it like other corrupt metadata, naming the file and the value.
TEST_F(EditedTraceCli, AClockRateThatIsNoPositiveNumberIsRefusedByEveryTool) {
    const fs::path run = runOf("softmax.pto", "softmax.db");
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"0", "is not a finite positive number"},
        {"-1800000000", "is not a finite positive number"},
        {"NaN", "is not a finite positive number"},
        {"1e300", "is above 100 GHz"},
        {"fast", "is not a number"}};
    for (std::size_t i = 0; i < bad.size(); ++i) {
        const auto& [value, why] = bad[i];
        const fs::path trace =
            editedCopy(run, fmt::format("clock{}.db", i),
                       fmt::format("UPDATE meta SET value = '{}' WHERE key = 'clock_hz'", value));
        const std::string expected =
            fmt::format("trace '{}' has an unusable clock rate: meta clock_hz '{}' {}",
                        trace.string(), value, why);
        for (const std::string& command :
             {"report " + q(trace), "export --format csv " + q(trace), "info " + q(trace),
              "query " + q(trace) + " \"SELECT 1\""}) {
            auto r = runCommand(pto(command));
            EXPECT_EQ(r.exitCode, 2) << command << "\n" << r.out;
            EXPECT_NE(r.err.find(expected), std::string::npos) << command << "\n" << r.err;
        }
    }
    auto sound = runCommand(pto("report --no-store --exit-zero " + q(run)));
    EXPECT_EQ(sound.exitCode, 0) << sound.err;
    EXPECT_NE(sound.out.find("12042 cycles = 6.690 us"), std::string::npos) << sound.out;
}

// A trace without meta clock_hz (written by hand or an older tool): the report timed it by its
// arch's clock (6.690 us), the Chrome and CSV exports by 1 GHz (12.042 us) — two times for one
// run. Every reader now takes the one rule of prof::runClockHz.
TEST_F(EditedTraceCli, ATraceWithoutAClockRateIsTimedAlikeByTheReportAndTheExports) {
    const fs::path run = runOf("softmax.pto", "softmax.db");
    const fs::path trace = editedCopy(run, "noclock.db", "DELETE FROM meta WHERE key = 'clock_hz'");
    auto report = runCommand(pto("report --no-store --exit-zero " + q(trace)));
    EXPECT_NE(report.out.find("12042 cycles = 6.690 us"), std::string::npos) << report.out;
    auto chrome = runCommand(pto("export " + q(trace) + " -o " + q(m_dir / "t.json")));
    ASSERT_EQ(chrome.exitCode, 0) << chrome.err;
    std::ifstream in(m_dir / "t.json");
    const nlohmann::json events = nlohmann::json::parse(in)["traceEvents"];
    double end = 0;
    for (const auto& e : events)
        if (e.value("ph", "") == "X")
            end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
    EXPECT_NEAR(end, 6.690, 0.001);
    auto csv = runCommand(pto("export --format csv " + q(trace)));
    ASSERT_EQ(csv.exitCode, 0) << csv.err;
    EXPECT_NE(csv.out.find(",6.2456,0.4444,"), std::string::npos) << csv.out.substr(0, 400);
}

// Output that cannot be written is an error, never lost in silence: `pto report x.db >
// /dev/full` was exit 0 (or the findings' 1) with nothing said, and the Chrome export aborted
// (std::terminate: its first write failed with the formatting threads running).
TEST_F(EditedTraceCli, OutputToAFullDiskIsExitTwoWithTheReason) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    const fs::path run = runOf("softmax.pto", "softmax.db");
    for (const std::string& command : {"report --no-store " + q(run), "info " + q(run),
                                       "export " + q(run), "export --format csv " + q(run),
                                       "compare " + q(run) + " " + q(run), std::string("arch")}) {
        auto r = runCommand("sh -c " + test::shellQuote(pto(command) + " > /dev/full"));
        EXPECT_EQ(r.exitCode, 2) << command << "\n" << r.err;
        EXPECT_NE(r.err.find("error: cannot write"), std::string::npos) << command << "\n" << r.err;
    }
    auto chrome = runCommand(pto("export " + q(run) + " -o /dev/full"));
    EXPECT_EQ(chrome.exitCode, 2) << chrome.err;
    EXPECT_NE(chrome.err.find("cannot write the Chrome trace"), std::string::npos) << chrome.err;
}

// The sum of the msprof ratios and of the op shares of a report.
double opShareSum(const nlohmann::json& report) {
    double sum = 0;
    for (const auto& op : report["top_ops"]) sum += op["share"].get<double>();
    return sum;
}

// Slices whose times cannot be right are set aside, counted and named in a warning: the report
// reads as if they were not there. Before, one dur of 9e18 gave MTE2 87873462214411248 % and
// memory_bound 1.07e15, and dur -5000 on 3 slices an MTE2 ratio of -34 % and op shares summing
// to 151.8 %, all with exit 0 and no word.
TEST_F(EditedTraceCli, SlicesWithImpossibleTimesAreSetAsideWithAWarning) {
    const fs::path run = runOf("softmax.pto", "softmax.db");
    const std::string three = "(SELECT id FROM slice WHERE category = 'instr' ORDER BY id LIMIT 3)";
    const fs::path removed =
        editedCopy(run, "removed.db", "DELETE FROM slice WHERE id IN " + three);
    const nlohmann::json without = reportJson(removed);
    struct Case {
        std::string name, sql, warning;
    };
    const std::vector<Case> cases = {
        {"negative.db", "UPDATE slice SET dur = -5000 WHERE id IN " + three,
         "3 slices set aside, no figure counts them: 3 with a negative duration"},
        {"huge.db", "UPDATE slice SET dur = 9000000000000000000 WHERE id IN " + three,
         "3 slices set aside, no figure counts them: 3 starting before cycle 0 or ending after "
         "the run's end at cycle 12042 (meta sim_total_cycles)"},
        {"before.db", "UPDATE slice SET ts = -100 WHERE id IN " + three,
         "3 slices set aside, no figure counts them: 3 starting before cycle 0"}};
    for (const Case& c : cases) {
        std::string err;
        const nlohmann::json report = reportJson(editedCopy(run, c.name, c.sql), &err);
        ASSERT_TRUE(report.is_object()) << c.name;
        EXPECT_NE(err.find("warning: trace '" + (m_dir / c.name).string() + "': " + c.warning),
                  std::string::npos)
            << c.name << "\n"
            << err;
        ASSERT_EQ(report["file_warnings"].size(), 1u) << c.name;
        EXPECT_NE(report["file_warnings"][0].get<std::string>().find(c.warning), std::string::npos)
            << report["file_warnings"];
        EXPECT_EQ(report["pipes"], without["pipes"]) << c.name;
        EXPECT_EQ(report["top_ops"], without["top_ops"]) << c.name;
        EXPECT_EQ(report["summary"]["total_cycles"], 12042) << c.name;
        EXPECT_NEAR(opShareSum(report), 1.0, 1e-9) << c.name;
        for (const auto& [key, ratio] : report["pipes"].items()) {
            EXPECT_GE(ratio.get<double>(), 0.0) << c.name << " " << key;
            EXPECT_LE(ratio.get<double>(), 1.0) << c.name << " " << key;
        }
    }
    EXPECT_FALSE(without.contains("file_warnings")); // a sound trace has none
}

// With its slice table emptied, a run has nothing to classify: before, `pto report` called it
// "latency bound: 0% of the roof" with a warning finding (exit 1) from the zeros.
TEST_F(EditedTraceCli, ARunWithoutSlicesHasNoBoundAndNoFinding) {
    const fs::path trace =
        editedCopy(runOf("softmax.pto", "softmax.db"), "empty.db", "DELETE FROM slice");
    auto report = runCommand(pto("report --no-store " + q(trace)));
    EXPECT_EQ(report.exitCode, 0) << report.err;
    EXPECT_NE(report.out.find("bound       none: the trace holds no executed instructions"),
              std::string::npos)
        << report.out;
    EXPECT_NE(report.out.find("findings: none — the trace holds no executed instructions (no "
                              "task or instruction slices)"),
              std::string::npos)
        << report.out;
    EXPECT_EQ(report.out.find("latency_bound"), std::string::npos) << report.out;
    const nlohmann::json json = reportJson(trace);
    EXPECT_EQ(json["summary"]["bound"], "none");
    EXPECT_TRUE(json["findings"].empty()) << json["findings"];
}

// Below trace level full no wait is recorded: the latency finding says so instead of "flag
// waits 0 cycles" (the same run at --trace full waits 108824 cycles on flags).
TEST_F(EditedTraceCli, WaitsAreNotCalledZeroAtATraceLevelThatDoesNotRecordThem) {
    auto evidenceOf = [&](const fs::path& trace) {
        const nlohmann::json report = reportJson(trace);
        for (const auto& f : report["findings"])
            if (f["rule"] == "latency_bound") return f["evidence"][0].get<std::string>();
        return std::string("no latency_bound finding");
    };
    EXPECT_EQ(evidenceOf(runOf("matmul.pto", "default.db")),
              "inside tasks: flag and barrier waits are not recorded at trace level instructions "
              "(run with --trace full to see them)");
    const std::string full = evidenceOf(runOf("matmul.pto", "full.db", "--trace full"));
    // Summed over pipes and cores: pipe-cycles, not wall-clock time (no "(… us)").
    EXPECT_TRUE(
        std::regex_search(full, std::regex("^inside tasks: flag waits [1-9][0-9]* pipe-cycles,")))
        << full;
}

} // namespace
} // namespace pto
