// `pto report`, `pto query` and `pto export` as a user runs them: formats, exit codes, the
// Chrome JSON's structure and round trip, read-only queries, and clear errors on bad files.
#include "tests/integration/profiler/ProfilerTraces.h"
#include "tests/support/Process.h"
#include "tests/unit/profiler/SyntheticTrace.h"
#include "trace_db/TraceReader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <fstream>
#include <map>
#include <sstream>

namespace pto {
namespace {

using test::runCommand;
using test::shellQuote;

using test::pto;

std::string readFile(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::int64_t sliceCount(const std::filesystem::path& db) {
    auto r = tracedb::TraceReader::open(db).query("SELECT count(*) FROM slice");
    return std::get<std::int64_t>(r.rows[0][0]);
}

class ProfilerCli : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = new test::TempDir("pto-profiler-cli");
        test::makeTrace(
            s_dir->path(), "stream",
            {.program = test::streamingProgram(), .doubleBuffer = false, .tilesPerTask = 8});
    }
    static void TearDownTestSuite() {
        delete s_dir;
        s_dir = nullptr;
    }
    // A private copy of the shared trace (commands may write metrics into it).
    std::filesystem::path trace() {
        auto p = m_dir / "run.db";
        if (!std::filesystem::exists(p)) std::filesystem::copy_file(*s_dir / "stream.db", p);
        return p;
    }
    std::string q(const std::filesystem::path& p) { return shellQuote(p.string()); }

    static test::TempDir* s_dir;
    test::TempDir m_dir{"pto-profiler-cli-case"};
};

test::TempDir* ProfilerCli::s_dir = nullptr;

TEST_F(ProfilerCli, ReportTextMarkdownJsonAndExitCodes) {
    auto text = runCommand(pto("report " + q(trace())));
    EXPECT_EQ(text.exitCode, 1) << text.err; // the double-buffering finding is a warning
    EXPECT_NE(text.out.find("top ops by cycles"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("double_buffering"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("estimated gain"), std::string::npos);

    auto md = runCommand(pto("report --format md --exit-zero " + q(trace())));
    EXPECT_EQ(md.exitCode, 0) << md.err;
    EXPECT_NE(md.out.find("## Findings"), std::string::npos);

    auto json = runCommand(pto("report --format json --exit-zero " + q(trace())));
    ASSERT_EQ(json.exitCode, 0) << json.err;
    auto j = nlohmann::json::parse(json.out);
    EXPECT_GT(j["summary"]["total_cycles"].get<std::int64_t>(), 0);
    EXPECT_EQ(j["top_ops"][0]["line"].get<int>(), 3); // exp, then mul (line 4)
    bool found = false;
    for (const auto& f : j["findings"]) found |= f["rule"] == "double_buffering";
    EXPECT_TRUE(found);
    // The report stored its analyses in the file.
    auto rows = runCommand(pto("query --format csv " + q(trace()) +
                               " \"SELECT count(*) FROM metric WHERE analysis = 'finding'\""));
    EXPECT_EQ(rows.exitCode, 0);
    EXPECT_NE(rows.out, "count(*)\n0\n");
}

TEST_F(ProfilerCli, QueryFormatsAndReadOnly) {
    auto table = runCommand(pto("query " + q(trace()) +
                                " \"SELECT key FROM meta WHERE key = "
                                "'clock_hz'\""));
    ASSERT_EQ(table.exitCode, 0) << table.err;
    EXPECT_NE(table.out.find("clock_hz"), std::string::npos);
    EXPECT_NE(table.out.find("(1 row)"), std::string::npos);
    auto json = runCommand(
        pto("query --format json " + q(trace()) + " \"SELECT 1 AS one, 'a,b' AS s, NULL AS n\""));
    ASSERT_EQ(json.exitCode, 0) << json.err;
    auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j[0]["one"], 1);
    EXPECT_EQ(j[0]["s"], "a,b");
    EXPECT_TRUE(j[0]["n"].is_null());
    auto csv = runCommand(pto("query --format csv " + q(trace()) + " \"SELECT 'a,b' AS s\""));
    EXPECT_EQ(csv.out, "s\n\"a,b\"\n");

    std::string before = readFile(trace());
    for (const char* sql :
         {"DELETE FROM slice", "DROP TABLE metric", "INSERT INTO meta VALUES ('x', 'y')",
          "PRAGMA user_version = 9", "SELECT 1; UPDATE meta SET value = 'x'",
          "ATTACH DATABASE 'x.db' AS x"}) {
        auto r = runCommand(pto("query " + q(trace()) + " " + shellQuote(sql)));
        EXPECT_EQ(r.exitCode, 2) << sql;
        EXPECT_NE(r.err.find("read-only"), std::string::npos) << sql << ": " << r.err;
    }
    EXPECT_EQ(readFile(trace()), before);
}

// Checks the fields each phase needs; returns the X/i events per (pid, tid).
void validateChromeEvents(const nlohmann::json& doc, std::int64_t expectedSlices) {
    ASSERT_TRUE(doc.contains("traceEvents"));
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::pair<double, double>>> slices;
    std::vector<const nlohmann::json*> flows;
    std::int64_t sliceEvents = 0;
    std::map<std::string, int> metadata;
    for (const auto& e : doc["traceEvents"]) {
        ASSERT_TRUE(e.contains("ph") && e.contains("pid")) << e.dump();
        std::string ph = e["ph"];
        if (ph == "M") {
            ASSERT_TRUE(e.contains("name") && e.contains("args") && e.contains("tid")) << e.dump();
            ++metadata[e["name"].get<std::string>()];
            continue;
        }
        ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e.dump();
        if (ph == "X" || ph == "i") {
            ASSERT_TRUE(e.contains("tid") && e.contains("name") && e["args"].contains("cycle"))
                << e.dump();
            if (ph == "X") {
                ASSERT_TRUE(e.contains("dur") && e["dur"].get<double>() >= 0) << e.dump();
            }
            if (ph == "i") {
                ASSERT_TRUE(e.contains("s")) << e.dump();
            }
            auto& lane = slices[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}];
            double ts = e["ts"].get<double>();
            if (!lane.empty()) {
                EXPECT_LE(lane.back().first, ts) << "ts decreases: " << e.dump();
            }
            lane.emplace_back(ts, ph == "X" ? ts + e["dur"].get<double>() : ts);
            ++sliceEvents;
        } else if (ph == "s" || ph == "f") {
            ASSERT_TRUE(e.contains("id") && e.contains("tid") && e.contains("name") &&
                        e.contains("cat"))
                << e.dump();
            if (ph == "f") {
                EXPECT_EQ(e.value("bp", ""), "e") << e.dump();
            }
            flows.push_back(&e);
        } else if (ph == "C") {
            ASSERT_TRUE(e.contains("name") && e["args"].is_object()) << e.dump();
            for (auto& [k, v] : e["args"].items()) EXPECT_TRUE(v.is_number()) << k;
        } else {
            ADD_FAILURE() << "unexpected phase " << e.dump();
        }
    }
    EXPECT_EQ(sliceEvents, expectedSlices); // round trip
    for (const char* m : {"process_name", "thread_name", "process_sort_index", "thread_sort_index"})
        EXPECT_GT(metadata[m], 0) << m;
    // Every flow end lies inside (or at the start of) a slice on its own thread.
    for (const nlohmann::json* e : flows) {
        auto& lane = slices[{(*e)["pid"].get<std::int64_t>(), (*e)["tid"].get<std::int64_t>()}];
        double ts = (*e)["ts"].get<double>();
        bool bound = std::any_of(lane.begin(), lane.end(), [&](auto& s) {
            return s.first <= ts && (ts < s.second || ts == s.first);
        });
        EXPECT_TRUE(bound) << "unbound flow " << e->dump();
    }
}

TEST_F(ProfilerCli, ChromeExportIsStructurallyValidAndRoundTrips) {
    auto out = m_dir / "trace.json";
    auto r = runCommand(pto("export " + q(trace()) + " --format chrome -o " + q(out)));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err; // no progress bar when stderr is not a terminal
    auto doc = nlohmann::json::parse(readFile(out));
    validateChromeEvents(doc, sliceCount(trace()));
    std::int64_t flows = 0, counters = 0;
    for (const auto& e : doc["traceEvents"]) {
        flows += e["ph"] == "s";
        counters += e["ph"] == "C";
    }
    auto reader = tracedb::TraceReader::open(trace());
    EXPECT_EQ(flows, std::get<std::int64_t>(reader.query("SELECT count(*) FROM flow").rows[0][0]));
    EXPECT_EQ(counters,
              std::get<std::int64_t>(reader.query("SELECT count(*) FROM counter").rows[0][0]));
    EXPECT_GT(flows, 0);
    EXPECT_GT(counters, 0);
}

TEST_F(ProfilerCli, ChromeExportReadsPagesExactlyAsSqlDoes) {
    // The export reads the slice b-tree's pages directly; a WAL-mode copy of the same trace is
    // one it refuses, so it goes through SQL. Both must write the same bytes.
    auto wal = m_dir / "wal.db";
    std::filesystem::copy_file(trace(), wal);
    ASSERT_EQ(runCommand("sqlite3 " + q(wal) + " 'PRAGMA journal_mode=WAL;' > /dev/null").exitCode,
              0);
    auto direct = m_dir / "direct.json", viaSql = m_dir / "sql.json";
    ASSERT_EQ(runCommand(pto("export " + q(trace()) + " --format chrome -o " + q(direct))).exitCode,
              0);
    auto r = runCommand(pto("export " + q(wal) + " --format chrome -o " + q(viaSql)));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    // Only the file name in the metadata may differ.
    std::string a = readFile(direct), b = readFile(viaSql);
    for (auto* text : {&a, &b})
        for (const std::string name : {"run.db", "wal.db"})
            for (auto at = text->find(name); at != std::string::npos; at = text->find(name))
                text->replace(at, name.size(), "X.db");
    EXPECT_EQ(a, b);
}

TEST_F(ProfilerCli, ChromeExportOfACorruptSlicePageFailsCleanly) {
    // Overwrite bytes at many offsets of copies of the trace: each export either succeeds
    // with valid JSON or exits 2 with a message — never a crash or a half-written file.
    const auto size = std::filesystem::file_size(trace());
    for (std::uintmax_t offset = 4096; offset + 64 < size; offset += size / 23) {
        auto bad = m_dir / "bad.db", out = m_dir / "bad.json";
        std::filesystem::copy_file(trace(), bad, std::filesystem::copy_options::overwrite_existing);
        {
            std::fstream file(bad, std::ios::in | std::ios::out | std::ios::binary);
            file.seekp(std::streamoff(offset));
            const std::string junk(48, '\xA5');
            file.write(junk.data(), std::streamsize(junk.size()));
        }
        std::filesystem::remove(out);
        auto r = runCommand(pto("export " + q(bad) + " --format chrome -o " + q(out)));
        ASSERT_TRUE(r.exitCode == 0 || r.exitCode == 2) << offset << ": " << r.err;
        if (r.exitCode == 0)
            EXPECT_TRUE(nlohmann::json::accept(readFile(out))) << offset;
        else
            EXPECT_FALSE(std::filesystem::exists(out)) << offset;
    }
}

TEST_F(ProfilerCli, ExportToAPipeWritesThroughItAndLeavesItAPipe) {
    // Renaming a finished temp file over a device or FIFO (as for regular files) would replace
    // it with a file: as root, `-o /dev/null` would have destroyed /dev/null.
    auto fifo = m_dir / "pipe";
    auto copy = m_dir / "copy.csv";
    auto r = runCommand("mkfifo " + q(fifo) + " && { cat " + q(fifo) + " > " + q(copy) + " & " +
                        pto("export " + q(trace()) + " --format csv -o " + q(fifo)) +
                        "; status=$?; wait; exit $status; }");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(std::filesystem::is_fifo(fifo));
    EXPECT_FALSE(std::filesystem::exists(m_dir / "pipe.tmp-export"));
    EXPECT_GT(std::filesystem::file_size(copy), 100u);
}

TEST_F(ProfilerCli, CsvExportHasOneRowPerSlice) {
    auto r = runCommand(pto("export " + q(trace()) + " --format csv"));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::int64_t lines = std::count(r.out.begin(), r.out.end(), '\n');
    EXPECT_EQ(lines, sliceCount(trace()) + 1);
    EXPECT_EQ(r.out.rfind("id,ts,dur,", 0), 0u);
}

// A window of the run (--from/--to) keeps exactly the slices that overlap it — counted here by
// SQL on the trace — in both formats, flows whose ends both start in it and counter samples in
// it; times take units at the run's clock; a bad or empty window is refused with nothing written.
TEST_F(ProfilerCli, ExportsOfAWindowKeepWhatOverlapsIt) {
    auto reader = tracedb::TraceReader::open(trace());
    const auto count = [&](const std::string& sql) {
        return std::get<std::int64_t>(reader.query(sql).rows[0][0]);
    };
    const std::int64_t end = count("SELECT max(ts + dur) FROM slice");
    const std::int64_t from = end / 3, to = end / 2;
    const auto inside = fmt::format("ts < {1} AND (ts >= {0} OR ts + dur > {0})", from, to);
    const std::int64_t slices = count("SELECT count(*) FROM slice WHERE " + inside);
    ASSERT_GT(slices, 0);
    ASSERT_LT(slices, sliceCount(trace()));
    auto json = m_dir / "window.json";
    auto r = runCommand(
        pto(fmt::format("export {} --from {} --to {} -o {}", q(trace()), from, to, q(json))));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto doc = nlohmann::json::parse(readFile(json));
    std::int64_t written = 0, counters = 0;
    for (const auto& e : doc["traceEvents"]) {
        written += e["ph"] == "X" || e["ph"] == "i";
        counters += e["ph"] == "C";
    }
    EXPECT_EQ(written, slices);
    EXPECT_EQ(counters, count(fmt::format("SELECT count(*) FROM counter WHERE ts >= {} AND ts < {}",
                                          from, to)));
    EXPECT_EQ(doc["otherData"]["window_cycles"], nlohmann::json::array({from, to}));
    r = runCommand(
        pto(fmt::format("export {} --format csv --from {} --to {}", q(trace()), from, to)));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), slices + 1);
    // 1 us at the run's clock is clock_hz / 1e6 cycles.
    const double hz = std::stod(std::get<std::string>(
        reader.query("SELECT value FROM meta WHERE key = 'clock_hz'").rows[0][0]));
    const auto cycles = std::int64_t(std::llround(hz * 1e-6));
    r = runCommand(pto(fmt::format("export {} --format csv --to 1us", q(trace()))));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'),
              count(fmt::format("SELECT count(*) FROM slice WHERE ts < {}", cycles)) + 1);
    for (const std::string bad :
         {"--from 5us --to 1us", "--from 3parsecs", "--to ''", "--format html --from 1us"}) {
        auto out = m_dir / "bad.json";
        r = runCommand(pto(fmt::format("export {} {} -o {}", q(trace()), bad, q(out))));
        EXPECT_EQ(r.exitCode, 2) << bad;
        EXPECT_NE(r.err.find("--"), std::string::npos) << bad << ": " << r.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << bad;
    }
}

TEST_F(ProfilerCli, BadFilesGiveAClearErrorAndExit2) {
    auto missing = m_dir / "missing.db";
    auto text = m_dir / "text.db";
    std::ofstream(text) << "this is not a database\n";
    auto truncated = m_dir / "truncated.db";
    std::string bytes = readFile(trace());
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    auto newer = m_dir / "newer.db";
    std::filesystem::copy_file(trace(), newer);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    const std::pair<std::filesystem::path, std::string> cases[] = {
        {missing, "no such file"}, {text, "not"}, {truncated, "truncated"}, {newer, "newer"}};
    for (const auto& [file, words] : cases) {
        for (std::string cmd : {"report", "export", "query"}) {
            std::string args = cmd + " " + q(file) + (cmd == "query" ? " \"SELECT 1\"" : "");
            if (cmd == "export") args += " -o " + q(m_dir / "out.json");
            auto r = runCommand(pto(args));
            EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.out << r.err;
            EXPECT_NE(r.err.find(words), std::string::npos) << args << ": " << r.err;
            EXPECT_NE(r.err.find(file.filename().string()), std::string::npos) << r.err;
        }
    }
    EXPECT_FALSE(std::filesystem::exists(m_dir / "out.json"));
}

} // namespace
} // namespace pto

namespace pto {
namespace {

bool chromiumAvailable() {
    return test::runCommand("command -v chromium").exitCode == 0;
}

std::string dumpDom(const std::filesystem::path& html) {
    auto r = test::runCommand(
        "timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
        "--disable-background-networking --disable-component-update --disable-sync "
        "--user-data-dir=$(mktemp -d) --dump-dom " +
        test::shellQuote(html.string()));
    return r.out;
}

TEST_F(ProfilerCli, HtmlReportRendersInHeadlessChromium) {
    if (!chromiumAvailable()) GTEST_SKIP() << "chromium not installed (.ci/setup installs it)";
    auto html = m_dir / "report.html";
    auto r = runCommand(pto("export " + q(trace()) + " --format html -o " + q(html)));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::string dom = dumpDom(html);
    for (const char* text : {"PTO Studio profile: @act", "Summary", "Findings", "double_buffering",
                             "Top ops by cycles", "Pipe utilization per core", "Roofline",
                             "Task timeline", "Graph of stage tensor.parse", "<svg"})
        EXPECT_NE(dom.find(text), std::string::npos) << text;
}

TEST_F(ProfilerCli, ScriptInALabelIsShownAsText) {
    if (!chromiumAvailable()) GTEST_SKIP() << "chromium not installed (.ci/setup installs it)";
    test::SynthTrace t = test::twoCoreTrace();
    t.ops[0].name = "<script>document.title='pwned'</script>";
    auto db = m_dir / "evil.db";
    test::writeSyntheticTrace(db, t);
    auto html = m_dir / "evil.html";
    auto r = runCommand(pto("export " + q(db) + " --format html -o " + q(html)));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::string dom = dumpDom(html);
    EXPECT_EQ(dom.find("<script"), std::string::npos) << "a script element reached the DOM";
    EXPECT_NE(dom.find("&lt;script&gt;document.title="), std::string::npos);
    EXPECT_EQ(dom.find("pwned</title>"), std::string::npos);
    // The same label in DOT and SVG.
    auto dot = runCommand(pto("export " + q(db) + " --format dot"));
    ASSERT_EQ(dot.exitCode, 0) << dot.err;
    EXPECT_NE(dot.out.find("<script>document.title='pwned'</script>"), std::string::npos);
    auto svg = runCommand(pto("export " + q(db) + " --format svg"));
    ASSERT_EQ(svg.exitCode, 0) << svg.err;
    EXPECT_EQ(svg.out.find("<script"), std::string::npos);
    EXPECT_NE(svg.out.find("&lt;script&gt;"), std::string::npos);
}

TEST_F(ProfilerCli, DotAndSvgOfAnyStage) {
    for (const char* stage : {"tensor", "tile", "block", "exec", "tensor.parse"}) {
        auto dot = runCommand(pto("export " + q(trace()) + " --format dot --stage " + stage));
        ASSERT_EQ(dot.exitCode, 0) << stage << dot.err;
        EXPECT_EQ(dot.out.rfind("digraph", 0), 0u) << stage;
    }
    auto svg = runCommand(pto("export " + q(trace()) + " --format svg --stage exec"));
    ASSERT_EQ(svg.exitCode, 0) << svg.err;
    EXPECT_EQ(svg.out.rfind("<svg", 0), 0u);
    auto bad = runCommand(pto("export " + q(trace()) + " --format dot --stage nosuch"));
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("no stage 'nosuch'"), std::string::npos) << bad.err;
}

TEST_F(ProfilerCli, WhatifAndCompare) {
    auto changed = m_dir / "fast.db";
    auto r =
        // 4 tasks on 4 AIV cores: each core's GM->UB DMA, not HBM, limits the loads.
        runCommand(
            pto("whatif " + q(trace()) + " --set dma.gm_to_ub.rate=4x --json -o " + q(changed)));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    double before = j["total_cycles"]["a"], after = j["total_cycles"]["b"];
    EXPECT_LT(after, before);
    ASSERT_GE(j["ops"].size(), 2u);
    EXPECT_EQ(j["ops"][0]["op"], "exp %e");
    auto cmp = runCommand(pto("compare --json " + q(trace()) + " " + q(changed)));
    ASSERT_EQ(cmp.exitCode, 0) << cmp.err;
    auto c = nlohmann::json::parse(cmp.out);
    EXPECT_EQ(c["total_cycles"]["b"], after);
    EXPECT_EQ(c["cores"].size(), j["cores"].size());
    // The run used --tiles-per-task 8 (meta compile_options): the re-run compiles the same
    // tasks, so every task and core compares one to one and nothing needs a note.
    for (const auto& n : j["notes"])
        EXPECT_EQ(n.get<std::string>().find("tasks"), std::string::npos) << n;
    EXPECT_EQ(j["tasks"]["a"], j["tasks"]["b"]) << r.out.substr(0, 400);
    auto meta = tracedb::TraceReader::open(trace()).meta("compile_options");
    ASSERT_TRUE(meta.has_value());
    EXPECT_EQ(nlohmann::json::parse(*meta)["tiles_per_task"], 8) << *meta;
    EXPECT_EQ(nlohmann::json::parse(*meta)["double_buffer"], false) << *meta;
    auto text = runCommand(pto("compare " + q(trace()) + " " + q(trace())));
    EXPECT_NE(text.out.find("1.000x speedup"), std::string::npos) << text.out;
    auto bad = runCommand(pto("whatif " + q(trace()) + " --set hbm.bandwith=2x"));
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("hbm.bandwith"), std::string::npos) << bad.err;
}

// Half the clock: fewer cycles (GM latency in ns is fewer cycles) but a longer run. The
// speed-up is in time, each run's cycles at its own clock: A's µs ÷ B's µs, not the cycles'.
TEST_F(ProfilerCli, ASpeedUpBetweenDifferentClocksIsInTime) {
    const auto slow = m_dir / "slow.db";
    auto r =
        runCommand(pto("whatif " + q(trace()) + " --set clock.freq=0.5x --json -o " + q(slow)));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const double cyclesA = j["total_cycles"]["a"], cyclesB = j["total_cycles"]["b"];
    const double usA = cyclesA / 1.8e3, usB = cyclesB / 0.9e3; // 1.8 GHz, then 0.9 GHz
    EXPECT_LT(cyclesB, cyclesA);
    EXPECT_NEAR(j["time_us"]["a"].get<double>(), usA, 1e-9);
    EXPECT_NEAR(j["time_us"]["b"].get<double>(), usB, 1e-9);
    EXPECT_NEAR(j["speedup"].get<double>(), usA / usB, 1e-12);
    EXPECT_LT(j["speedup"].get<double>(), 1.0); // a slow-down
    auto text = runCommand(pto("compare " + q(trace()) + " " + q(slow)));
    EXPECT_NE(text.out.find(fmt::format("{:.3f}x speedup in time", usA / usB)), std::string::npos)
        << text.out;
}

} // namespace
} // namespace pto
