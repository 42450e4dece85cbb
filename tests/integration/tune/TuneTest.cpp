// `pto tune` as a user runs it: sweeps of small programs through the real binary, the tune file
// read back from SQLite, --apply checked by running its output, chunks merged, bad specs.
#include "tests/support/Process.h"
#include "trace_db/TuneDb.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

namespace pto::test {
namespace {

namespace fs = std::filesystem;
using tracedb::TuneCandidate;
using tracedb::TuneData;
using tracedb::TuneStatus;

const std::string kDir = std::string(PTO_SOURCE_DIR) + "/tests/integration/tune/";
const std::string kSoftmax = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";

const TuneCandidate& byId(const TuneData& d, int64_t id) {
    for (const TuneCandidate& c : d.candidates)
        if (c.id == id) return c;
    throw std::out_of_range("no candidate");
}

// Cycles of `pto run FILE --timing-only`, an independent run of what --apply printed.
int64_t runCycles(const fs::path& program) {
    ProcessResult r = runCommand(
        pto("run " + shellQuote(program.string()) + " --timing-only --trace none --json"));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return nlohmann::json::parse(r.out)["total_cycles"].get<int64_t>();
}

TEST(TuneTest, GemmFindsAConfigAtLeastAsFastAsTheDefault) {
    TempDir dir("pto-tune");
    const fs::path db = dir / "gemm.db";
    ProcessResult r = runCommand(pto("tune " + kDir + "gemm_1024.pto --space " + kDir +
                                     "gemm_space.json --threads 2 -o " + db.string()));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("the simulator is deterministic"), std::string::npos) << r.out;

    const TuneData data = tracedb::readTuneFile(db);
    ASSERT_GE(data.candidates.size(), 25u); // 24 from the space + the program as written
    const TuneCandidate& asWritten = byId(data, 0);
    ASSERT_EQ(asWritten.status, TuneStatus::Ok) << asWritten.error;
    const TuneCandidate* best = data.best();
    ASSERT_NE(best, nullptr);
    EXPECT_LE(*best->cycles, *asWritten.cycles);
    EXPECT_EQ(data.metaOr("best_candidate"), std::to_string(best->id));
    int pruned = 0;
    for (const TuneCandidate& c : data.candidates) {
        pruned += c.status == TuneStatus::Pruned;
        if (c.status == TuneStatus::Ok) { // the bound is a bound, on every simulated candidate
            ASSERT_TRUE(c.lowerBound && c.cycles);
            EXPECT_LE(*c.lowerBound, *c.cycles) << c.label;
            EXPECT_FALSE(c.pipes.empty()) << c.label;
            EXPECT_FALSE(c.boundClass.empty()) << c.label;
        }
        if (c.status == TuneStatus::Pruned) {
            EXPECT_GT(*c.lowerBound, *best->cycles) << c.label;
        }
    }
    EXPECT_EQ(data.metaOr("pruned"), std::to_string(pruned));

    // The kept trace and --apply: the printed program, run on its own, takes the best cycles.
    EXPECT_TRUE(fs::is_regular_file(dir / "gemm.best.db"));
    ProcessResult apply = runCommand(pto("tune " + db.string() + " --apply"));
    ASSERT_EQ(apply.exitCode, 0) << apply.err;
    EXPECT_NE(apply.out.find("cube_tile"), std::string::npos) << apply.out;
    std::ofstream(dir / "best.pto") << apply.out;
    EXPECT_EQ(runCycles(dir / "best.pto"), *best->cycles);
}

TEST(TuneTest, SoftmaxFindsMoreCoresAndFewerCycles) {
    TempDir dir("pto-tune");
    const fs::path db = dir / "softmax.db";
    ProcessResult r = runCommand(pto("tune " + kSoftmax + " --space " + kDir +
                                     "softmax_space.txt --threads 2 --json -o " + db.string()));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const auto summary = nlohmann::json::parse(r.out);
    const auto& asWritten = summary["as_written"];
    const auto& best = summary["best"];
    EXPECT_EQ(asWritten["cores_used"], 4) << r.out; // 4 tasks of 16 rows
    EXPECT_GT(best["cores_used"].get<int>(), asWritten["cores_used"].get<int>()) << r.out;
    EXPECT_LT(best["cycles"].get<int64_t>(), asWritten["cycles"].get<int64_t>()) << r.out;
    ProcessResult apply = runCommand(pto("tune " + db.string() + " --apply"));
    ASSERT_EQ(apply.exitCode, 0) << apply.err;
    std::ofstream(dir / "best.pto") << apply.out;
    EXPECT_EQ(runCycles(dir / "best.pto"), best["cycles"].get<int64_t>());
}

// Every candidate's bound class is the one `pto report` gives its run (the tuner's pipe busy
// times were read in another pipe order: softmax's vector pipe, 82 % busy, was taken for FIX
// and the run called "latency (memory)" where the report says "compute"); the program as
// written is candidate 0 only, even when each dimension lists as_written.
TEST(TuneTest, BoundClassesAreTheReportsAndTheProgramAsWrittenRunsOnce) {
    TempDir dir("pto-tune");
    const fs::path db = dir / "t.db";
    ProcessResult r = runCommand(pto("tune " + kSoftmax +
                                     " --space 'vec_tile = as_written | [4, 1024] | [1, 1024]' "
                                     "--threads 2 -o " +
                                     db.string()));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const TuneData data = tracedb::readTuneFile(db);
    ASSERT_EQ(data.candidates.size(), 3u) << r.out; // as written, [4, 1024], [1, 1024]
    int asWritten = 0;
    for (const TuneCandidate& c : data.candidates) {
        asWritten += c.label == "as written";
        ASSERT_EQ(c.status, TuneStatus::Ok) << c.label;
        const fs::path trace = dir / ("c" + std::to_string(c.id) + ".db");
        ASSERT_EQ(runCommand(pto("tune " + db.string() + " --candidate " + std::to_string(c.id) +
                                 " -o " + trace.string()))
                      .exitCode,
                  0);
        ProcessResult report =
            runCommand(pto("report " + trace.string() + " --format json --no-store"));
        ASSERT_LE(report.exitCode, 1) << report.err;
        EXPECT_EQ(c.boundClass,
                  nlohmann::json::parse(report.out)["summary"]["bound"].get<std::string>())
            << c.label;
    }
    EXPECT_EQ(asWritten, 1);
    EXPECT_EQ(byId(data, 0).boundClass, "compute"); // V 82 % busy: the vector unit saturated
}

// A candidate whose settings are not all directives (double_buffer=false): --apply says which
// run options it needs, and the printed program run with them takes the candidate's cycles.
TEST(TuneTest, ApplyNamesTheRunOptionsTheProgramTextCannotHold) {
    TempDir dir("pto-tune");
    const fs::path db = dir / "t.db";
    ProcessResult r = runCommand(pto("tune " + kSoftmax +
                                     " --space 'vec_tile = [1, 1024]; double_buffer = false' "
                                     "--threads 2 -o " +
                                     db.string()));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    // The best trace lies beside the tune file, and the summary says where.
    EXPECT_NE(r.out.find("best trace  " + (dir / "t.best.db").string()), std::string::npos)
        << r.out;
    const TuneData data = tracedb::readTuneFile(db);
    ASSERT_EQ(data.candidates.size(), 2u);
    const TuneCandidate& c = byId(data, 1);
    ProcessResult apply = runCommand(pto("tune " + db.string() + " --candidate 1 --apply"));
    ASSERT_EQ(apply.exitCode, 0) << apply.err;
    EXPECT_TRUE(apply.out.ends_with(
        "\n// tuned candidate #1 also needs: pto run FILE --no-double-buffer\n"))
        << apply.out; // the last line: every line of the program keeps its number
    EXPECT_NE(apply.err.find("--no-double-buffer"), std::string::npos) << apply.err;
    std::ofstream(dir / "c1.pto") << apply.out;
    ProcessResult run = runCommand(pto("run " + (dir / "c1.pto").string() +
                                       " --no-double-buffer --timing-only --trace none --json"));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(nlohmann::json::parse(run.out)["total_cycles"].get<int64_t>(), *c.cycles);
    EXPECT_NE(runCycles(dir / "c1.pto"), *c.cycles); // double-buffered, as the text alone runs
}

TEST(TuneTest, CandidatesThatDoNotCompileAreRecordedWithTheReason) {
    TempDir dir("pto-tune");
    const fs::path db = dir / "t.db";
    // A rank-1 vec_tile for rank-2 ops cannot compile; the others can.
    ProcessResult r = runCommand(pto("tune " + kSoftmax +
                                     " --space 'vec_tile = [8, 1024] | [16]' --best-trace none "
                                     "-o " +
                                     db.string()));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const TuneData data = tracedb::readTuneFile(db);
    ASSERT_EQ(data.candidates.size(), 3u);
    EXPECT_EQ(byId(data, 1).status, TuneStatus::Ok);
    EXPECT_EQ(byId(data, 2).status, TuneStatus::CompileError);
    EXPECT_NE(byId(data, 2).error.find("vec_tile [16]"), std::string::npos) << byId(data, 2).error;
    EXPECT_NE(r.out.find("did not compile #2"), std::string::npos) << r.out;
}

TEST(TuneTest, PruningNeverLosesTheBest) {
    TempDir dir("pto-tune");
    const std::string common = "tune " + kDir + "gemm_1024.pto --space " + kDir +
                               "gemm_space.json --best-trace none --threads 1 -o ";
    ASSERT_EQ(runCommand(pto(common + (dir / "p.db").string())).exitCode, 0);
    ASSERT_EQ(runCommand(pto(common + (dir / "n.db").string() + " --no-prune")).exitCode, 0);
    const TuneData pruned = tracedb::readTuneFile(dir / "p.db");
    const TuneData full = tracedb::readTuneFile(dir / "n.db");
    EXPECT_EQ(full.metaOr("pruned"), "0");
    ASSERT_NE(pruned.best(), nullptr);
    EXPECT_EQ(pruned.best()->id, full.best()->id);
    EXPECT_EQ(*pruned.best()->cycles, *full.best()->cycles);
    for (const TuneCandidate& c : pruned.candidates) // simulated in both: the same cycles
        if (c.status == TuneStatus::Ok) {
            EXPECT_EQ(*c.cycles, *byId(full, c.id).cycles);
        }
}

TEST(TuneTest, ChunksMergeToTheWholeSweep) {
    TempDir dir("pto-tune");
    const std::string common =
        "tune " + kSoftmax + " --space " + kDir + "softmax_space.txt --no-prune --threads 1 ";
    ASSERT_EQ(
        runCommand(pto(common + "--best-trace none -o " + (dir / "all.db").string())).exitCode, 0);
    fs::create_directories(dir / "chunks");
    for (int i = 0; i < 3; ++i) {
        ProcessResult r =
            runCommand(pto(common + "--chunk " + std::to_string(i) + "/3 -o " +
                           (dir / "chunks" / ("chunk-" + std::to_string(i) + ".db")).string()));
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    ProcessResult merge = runCommand(
        pto("tune --merge " + (dir / "chunks").string() + " -o " + (dir / "merged.db").string()));
    ASSERT_EQ(merge.exitCode, 0) << merge.err;
    const TuneData all = tracedb::readTuneFile(dir / "all.db");
    const TuneData merged = tracedb::readTuneFile(dir / "merged.db");
    ASSERT_EQ(merged.candidates.size(), all.candidates.size());
    for (size_t i = 0; i < all.candidates.size(); ++i) {
        EXPECT_EQ(merged.candidates[i].id, all.candidates[i].id);
        EXPECT_EQ(merged.candidates[i].config, all.candidates[i].config);
        EXPECT_EQ(merged.candidates[i].cycles, all.candidates[i].cycles);
        EXPECT_EQ(merged.candidates[i].pipes.size(), all.candidates[i].pipes.size());
    }
    EXPECT_EQ(merged.metaOr("best_candidate"), all.metaOr("best_candidate"));
    EXPECT_TRUE(fs::is_regular_file(dir / "merged.best.db"));
    EXPECT_TRUE(fs::is_regular_file(dir / "merged.best.pto"));

    // The chunk files copied without the best chunk's kept program: the merge said
    // "(program ; open in pto-studio)" and wrote no program. It says the program is missing.
    fs::create_directories(dir / "copied");
    for (const auto& e : fs::directory_iterator(dir / "chunks"))
        if (e.path().extension() == ".db")
            fs::copy_file(e.path(), dir / "copied" / e.path().filename());
    ProcessResult copied = runCommand(
        pto("tune --merge " + (dir / "copied").string() + " -o " + (dir / "m3.db").string()));
    ASSERT_EQ(copied.exitCode, 0) << copied.err;
    EXPECT_EQ(copied.out.find("(program ;"), std::string::npos) << copied.out;
    EXPECT_NE(copied.out.find("m3.best.db (open in pto-studio)"), std::string::npos) << copied.out;
    EXPECT_NE(copied.err.find(".best.pto is not there, so " + (dir / "m3").string() +
                              ".best.pto is not written (pto tune " + (dir / "m3.db").string() +
                              " --candidate " + all.metaOr("best_candidate")),
              std::string::npos)
        << copied.err;
    EXPECT_FALSE(fs::exists(dir / "m3.best.pto"));

    // A chunk of another split of the candidates (1/4 among 0/3, 2/3; or an extra 3/4) is
    // named, and so is a missing chunk; nothing is written.
    auto mergeFails = [&](const std::string& message) {
        ProcessResult r = runCommand(pto("tune --merge " + (dir / "chunks").string() + " -o " +
                                         (dir / "partial.db").string()));
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir / "partial.db"));
        EXPECT_FALSE(fs::exists(dir / "partial.best.db"));
    };
    auto chunk = [&](const std::string& which, const std::string& file) {
        ASSERT_EQ(runCommand(pto(common + "--best-trace none --chunk " + which + " -o " +
                                 (dir / "chunks" / file).string()))
                      .exitCode,
                  0);
    };
    chunk("3/4", "chunk-3.db");
    mergeFails("chunk-3.db is chunk 3/4, of another split of the candidates than the others "
               "(0/3, 1/3, 2/3)");
    fs::remove(dir / "chunks" / "chunk-3.db");
    fs::rename(dir / "chunks" / "chunk-1.db", dir / "chunk-1.db");
    chunk("1/4", "chunk-1.db");
    mergeFails("chunk-1.db is chunk 1/4, of another split");
    fs::remove(dir / "chunks" / "chunk-1.db");
    mergeFails("chunk 1 of 3 is missing in " + (dir / "chunks").string() + " (chunk-1.db;");

    // Chunks of another sweep (program_hash differs): refused before anything is written,
    // the kept best trace included.
    fs::rename(dir / "chunk-1.db", dir / "chunks" / "chunk-1.db");
    ASSERT_EQ(runCommand(pto(common + "--set hbm.bandwidth=2x --chunk 2/3 -o " +
                             (dir / "chunks" / "chunk-2.db").string()))
                  .exitCode,
              0);
    mergeFails("its program_hash differs");
}

TEST(TuneTest, BadSpecsExitWithTwoAndSayWhy) {
    TempDir dir("pto-tune");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"'tile_size = 4'", "unknown setting 'tile_size'"},
        {"'{\"vec_tile\": [[8, 1024]'", "not valid JSON"},
        {"'vec_tile = [0, 1024]'", "0 is not a positive integer"},
        {"'cube_tile = [[64, 64], [64]]'", "is not a cube tile"},
        {"'tiles_per_task = -1'", "is not a tile-chain count"},
        {"'vec_tile.%nope = [8, 1024]'", "has no op whose result is %nope"},
        {"'arch.no.such = 2x'", "no.such"},
        {"'double_buffer = yes'", "is not true or false"},
        {(dir / "missing.json").string(), "no such space file"},
        // Found by a stranger tester: each was accepted, raw, or called something else.
        {"'{\"vec_tile\": [[1, 1024]], \"vec_tile\": [[2, 1024]]}'", "'vec_tile' is given twice"},
        {"'{\"tiles_per_task\": [1e400]}'", "--space: not valid JSON: number overflow"},
        {"'tiles_per_task = 1e400'", "is not a valid value: number overflow"},
        {"'[]'", "--space: the space must be a JSON object of settings"},
        {dir.path().string(), "is a directory, not a space file"},
        {"'tiles_per_task = 2.5'", "2.5 is not a tile-chain count (an integer"},
        {"'vec_tile = [1, 1024] | [1, 1024]'", "the value [1,1024] is given twice"},
        {"'cube_tile = default'", "'cube_tile': @softmax has no matmul"},
        {"'cube_tile.%e = default'", "%e is a exp, which takes no cube tile"},
    };
    for (const auto& [spec, message] : cases) {
        ProcessResult r = runCommand(
            pto("tune " + kSoftmax + " --space " + spec + " -o " + (dir / "t.db").string()));
        EXPECT_EQ(r.exitCode, 2) << spec;
        EXPECT_NE(r.err.find(message), std::string::npos) << spec << ": " << r.err;
        EXPECT_EQ(r.err.find("[json.exception"), std::string::npos) << spec << ": " << r.err;
        EXPECT_FALSE(fs::exists(dir / "t.db")) << spec;
    }
    // An integral float is an integer: tiles_per_task = 2.0 is the candidate tiles_per_task=2.
    ASSERT_EQ(runCommand(pto("tune " + kSoftmax +
                             " --space 'tiles_per_task = 2.0' --best-trace "
                             "none -o " +
                             (dir / "f.db").string()))
                  .exitCode,
              0);
    EXPECT_EQ(byId(tracedb::readTuneFile(dir / "f.db"), 1).label, "tiles_per_task=2");
    // A tune file given a space, and a trace given in place of a program: exit 2, not a re-run
    // of the best candidate or "needs --space".
    const fs::path tune = dir / "s.db", trace = dir / "run.db";
    ASSERT_EQ(
        runCommand(pto("tune " + kSoftmax + " --space 'vec_tile = [8, 1024]' -o " + tune.string()))
            .exitCode,
        0);
    ProcessResult again =
        runCommand(pto("tune " + tune.string() + " --space 'vec_tile = [4, 1024]' -o " +
                       (dir / "again.db").string()));
    EXPECT_EQ(again.exitCode, 2);
    EXPECT_NE(again.err.find("is a tune file"), std::string::npos) << again.err;
    EXPECT_FALSE(fs::exists(dir / "again.db"));
    ASSERT_EQ(runCommand(pto("run " + kSoftmax + " -o " + trace.string())).exitCode, 0);
    ProcessResult notProgram = runCommand(pto("tune " + trace.string()));
    EXPECT_EQ(notProgram.exitCode, 2);
    EXPECT_NE(notProgram.err.find("no tune file (a trace?)"), std::string::npos) << notProgram.err;
}

// The outputs are checked before any candidate runs, and a refused sweep, re-run or merge
// leaves no file behind and replaces none (found by a stranger tester: `-o DIR` simulated
// every candidate, then failed leaving DIR.best.db and DIR.best.pto, over existing ones).
TEST(TuneTest, OutputsAreCheckedFirstAndAFailureWritesNothing) {
    TempDir dir("pto-tune");
    const std::string sweep = "tune " + kSoftmax + " --space 'vec_tile = [1, 1024]' -o ";
    fs::create_directories(dir / "sp.d");
    std::ofstream(dir / "sp.d.best.pto") << "mine\n";
    ProcessResult r = runCommand(pto(sweep + (dir / "sp.d").string()));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("is not a tune file (not a regular file)"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "sp.d.best.db"));
    std::ifstream kept(dir / "sp.d.best.pto");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "mine\n");

    const fs::path trace = dir / "notune.db";
    ASSERT_EQ(runCommand(pto("run " + kSoftmax + " --trace none -o " + trace.string())).exitCode,
              0);
    r = runCommand(pto(sweep + trace.string()));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("is not a tune file (an SQLite database of another kind)"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir / "notune.best.db"));
    EXPECT_FALSE(fs::exists(dir / "notune.best.pto"));

    // The kept best trace may not replace a tune file or a directory either.
    fs::create_directories(dir / "b.best.db");
    r = runCommand(pto(sweep + (dir / "b.db").string()));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("b.best.db' exists and is not a trace file"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "b.db"));
    EXPECT_FALSE(fs::exists(dir / "b.best.pto"));
    r = runCommand(pto(sweep + (dir / "nodir" / "t.db").string()));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;

    // --candidate N -o: the trace path is checked before the candidate's program is written.
    const fs::path tune = dir / "t.db";
    ASSERT_EQ(runCommand(pto(sweep + tune.string() + " --best-trace none")).exitCode, 0);
    std::ofstream(dir / "text.db") << "not a trace\n";
    r = runCommand(
        pto("tune " + tune.string() + " --candidate 1 -o " + (dir / "text.db").string()));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("is not a trace file"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "text.pto"));
}

// `<out>.best.pto` says which run options the best needs, as --apply does, and run with them
// it takes the best's cycles (found by a stranger tester: 4217 instead of 4107).
TEST(TuneTest, TheBestProgramNamesTheRunOptionsItNeeds) {
    TempDir dir("pto-tune");
    const fs::path db = dir / "t.db";
    ProcessResult r = runCommand(
        pto("tune " + kSoftmax +
            " --space 'vec_tile = [1, 1024]; arch.hbm.bandwidth = 0.25x | 0.5x' --json -o " +
            db.string()));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const TuneData data = tracedb::readTuneFile(db);
    const TuneCandidate* best = data.best();
    ASSERT_NE(best, nullptr);
    ASSERT_NE(best->label.find("hbm.bandwidth=0.5x"), std::string::npos) << best->label;
    std::ifstream in(dir / "t.best.pto");
    const std::string text(std::istreambuf_iterator<char>(in), {});
    EXPECT_TRUE(text.ends_with(fmt::format(
        "\n// tuned candidate #{} also needs: pto run FILE --set 'hbm.bandwidth=0.5x'\n",
        best->id)))
        << text;
    ProcessResult run =
        runCommand(pto("run " + (dir / "t.best.pto").string() +
                       " --set hbm.bandwidth=0.5x --timing-only --trace none --json"));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(nlohmann::json::parse(run.out)["total_cycles"].get<int64_t>(), *best->cycles);
    EXPECT_NE(runCycles(dir / "t.best.pto"), *best->cycles); // the text alone runs another
    ProcessResult summary = runCommand(pto("tune " + db.string()));
    EXPECT_NE(summary.out.find("the best ran with options its text cannot hold: pto run " +
                               (dir / "t.best.pto").string() + " --set 'hbm.bandwidth=0.5x'"),
              std::string::npos)
        << summary.out;
}

// A candidate is the user's text with only the directive or attribute edited: comments, layout
// and line numbers stay, so compile errors name the user's lines and `pto compare` pairs the
// ops of a run of the original and one of the tuned program (found by a stranger tester:
// errors named the reprinted text's lines, compare paired nothing).
TEST(TuneTest, CandidatesKeepTheProgramTextAndItsLineNumbers) {
    TempDir dir("pto-tune");
    std::ifstream in(kSoftmax);
    const std::string original(std::istreambuf_iterator<char>(in), {});
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string text = original;
        text.replace(text.find(from), from.size(), to);
        return text;
    };
    auto applied = [&](const std::string& space, const fs::path& source) {
        const fs::path db = dir / "a.db";
        fs::remove(db);
        ProcessResult r = runCommand(pto("tune " + source.string() + " --space '" + space +
                                         "' --best-trace none -o " + db.string()));
        EXPECT_EQ(r.exitCode, 0) << r.err;
        ProcessResult apply = runCommand(pto("tune " + db.string() + " --candidate 1 --apply"));
        EXPECT_EQ(apply.exitCode, 0) << apply.err;
        return apply.out;
    };
    // The directive edited in place; a per-op tile appended to the op's line.
    EXPECT_EQ(applied("vec_tile = [1, 1024]", kSoftmax),
              replaced("vec_tile [16, 1024]", "vec_tile [1, 1024]"));
    EXPECT_EQ(applied("vec_tile.%d = [1, 1024]", kSoftmax),
              replaced("%d = sub %xf, %m", "%d = sub %xf, %m {vec_tile = [1, 1024]}"));
    EXPECT_EQ(applied("vec_tile.%m = [2, 1024]", kSoftmax),
              replaced("%xf {axis = 1, keepdim}\n  %d",
                       "%xf {axis = 1, keepdim, vec_tile = [2, 1024]}\n  %d"));
    // Removed: the line stays, empty. Without a directive to edit, the new one goes on the
    // line of the entry's '{'.
    EXPECT_EQ(applied("vec_tile = default", kSoftmax), replaced("  vec_tile [16, 1024]", ""));
    const std::string bare = replaced("  vec_tile [16, 1024]", "  // no directive");
    std::ofstream(dir / "bare.pto") << bare;
    const std::string header = "tensor<64x1024xf16> {";
    std::string expected = bare;
    expected.replace(expected.find(header), header.size(), header + " vec_tile [1, 1024]");
    EXPECT_EQ(applied("vec_tile = [1, 1024]", dir / "bare.pto"), expected);

    // A candidate's compile error names its line of the user's file: %d is on line 6.
    const fs::path db = dir / "e.db";
    ProcessResult r = runCommand(pto(
        "tune " + kSoftmax + " --space 'vec_tile.%d = [16]' --best-trace none -o " + db.string()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const TuneData failed = tracedb::readTuneFile(db);
    const TuneCandidate& bad = byId(failed, 1);
    ASSERT_EQ(bad.status, TuneStatus::CompileError);
    EXPECT_NE(bad.error.find("softmax.pto:6:"), std::string::npos) << bad.error;

    // `pto compare` pairs every op of the original's run with the tuned program's.
    const fs::path tuned = dir / "tuned.pto";
    std::ofstream(tuned) << applied("vec_tile = [1, 1024]", kSoftmax);
    ASSERT_EQ(runCommand(pto("run " + kSoftmax + " -o " + (dir / "base.db").string())).exitCode, 0);
    ASSERT_EQ(
        runCommand(pto("run " + tuned.string() + " -o " + (dir / "best.db").string())).exitCode, 0);
    ProcessResult compare =
        runCommand(pto("compare " + (dir / "base.db").string() + " " + (dir / "best.db").string()));
    EXPECT_LE(compare.exitCode, 1) << compare.err;
    const auto ops = compare.out.find("per Tensor op");
    ASSERT_NE(ops, std::string::npos) << compare.out;
    const std::string perOp = compare.out.substr(ops, compare.out.find("per core") - ops);
    EXPECT_NE(perOp.find("6  sub %d"), std::string::npos) << perOp;
    EXPECT_EQ(perOp.find("gone"), std::string::npos) << perOp;
    EXPECT_EQ(perOp.find(" new"), std::string::npos) << perOp;
}

// The arch file's text is kept in the tune file: a re-run uses the arch the candidates ran
// on, from any directory, and --apply warns when the file has changed since (found by a
// stranger tester: the changed file was used without a word, or not found from elsewhere).
// A re-run whose cycles differ from the recorded ones says so.
TEST(TuneTest, TheArchIsKeptInTheTuneFile) {
    TempDir dir("pto-tune");
    fs::create_directories(dir / "work");
    std::ofstream(dir / "work" / "tarch.arch") << "hbm.bandwidth = 0.8 TB/s\n";
    const std::string cd = "cd " + shellQuote((dir / "work").string()) + " && ";
    ProcessResult r = runCommand(cd + pto("tune " + kSoftmax +
                                          " --arch tarch.arch --space 'vec_tile = [1, 1024]' "
                                          "--best-trace none -o ta.db"));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const fs::path db = dir / "work" / "ta.db";
    const TuneData data = tracedb::readTuneFile(db);
    EXPECT_EQ(data.metaOr("arch_text"), "hbm.bandwidth = 0.8 TB/s\n");
    EXPECT_EQ(data.metaOr("arch_file"), (dir / "work" / "tarch.arch").string());
    const int64_t recorded = *byId(data, 1).cycles;

    std::ofstream(dir / "work" / "tarch.arch") << "hbm.bandwidth = 3.2 TB/s\n";
    r = runCommand("cd / && " +
                   pto("tune " + db.string() + " --candidate 1 -o " + (dir / "c.db").string()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find(fmt::format(": {} cycles", recorded)), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
    ProcessResult apply = runCommand(pto("tune " + db.string() + " --candidate 1 --apply"));
    ASSERT_EQ(apply.exitCode, 0) << apply.err;
    EXPECT_NE(apply.out.find("--arch '" + (dir / "work" / "tarch.arch").string() + "'"),
              std::string::npos)
        << apply.out;
    EXPECT_NE(apply.err.find("has changed since the sweep"), std::string::npos) << apply.err;

    // Recorded cycles that a re-run does not reproduce: a warning.
    TuneData changed = data;
    for (TuneCandidate& c : changed.candidates)
        if (c.id == 1) c.cycles = recorded + 7;
    tracedb::writeTuneFile(dir / "changed.db", changed);
    r = runCommand(pto("tune " + (dir / "changed.db").string() + " --candidate 1 -o " +
                       (dir / "c2.db").string()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find(fmt::format("warning: candidate #1 took {} cycles in this run but {} in "
                                     "the sweep",
                                     recorded, recorded + 7)),
              std::string::npos)
        << r.err;
}

TEST(TuneTest, SlurmWithoutSbatchIsAClearError) {
    TempDir dir("pto-tune");
    ProcessResult r = runCommand("PATH=/nonexistent " + pto("tune " + kSoftmax +
                                                            " --space 'tiles_per_task = 1' --slurm "
                                                            "-o " +
                                                            (dir / "t.db").string()));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("'sbatch' is not on PATH"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "t.db"));
    EXPECT_FALSE(fs::exists(dir / "t.slurm"));

    // An sbatch that refuses the job (no controller): nothing was submitted and nothing is left
    // behind — the script and the space file were (found by the real-hardware stranger test).
    fs::create_directories(dir / "bin");
    std::ofstream(dir / "bin" / "sbatch")
        << "#!/bin/sh\necho 'sbatch: error: Batch job submission failed'\nexit 1\n";
    fs::permissions(dir / "bin" / "sbatch", fs::perms::owner_all);
    r = runCommand("PATH=" + shellQuote((dir / "bin").string()) + ":\"$PATH\" " +
                   pto("tune " + kSoftmax + " --space 'tiles_per_task = 1' --slurm -o " +
                       (dir / "t.db").string()));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("sbatch refused the job (exit 1)"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "t.db"));
    EXPECT_FALSE(fs::exists(dir / "t.slurm"));
}

} // namespace
} // namespace pto::test
