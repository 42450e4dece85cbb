// `pto tune` as a user runs it: sweeps of small programs through the real binary, the tune file
// read back from SQLite, --apply checked by running its output, chunks merged, bad specs.
#include "tests/support/Process.h"
#include "trace_db/TuneDb.h"

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
    const std::string first = apply.out.substr(0, apply.out.find('\n'));
    EXPECT_EQ(first, "// tuned candidate #1 also needs: pto run FILE --no-double-buffer");
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

    // A missing chunk is named, nothing is written.
    fs::remove(dir / "chunks" / "chunk-1.db");
    ProcessResult partial = runCommand(
        pto("tune --merge " + (dir / "chunks").string() + " -o " + (dir / "partial.db").string()));
    EXPECT_EQ(partial.exitCode, 2);
    EXPECT_NE(partial.err.find("holds 2 of the 3 chunks"), std::string::npos) << partial.err;
    EXPECT_FALSE(fs::exists(dir / "partial.db"));
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
    };
    for (const auto& [spec, message] : cases) {
        ProcessResult r = runCommand(
            pto("tune " + kSoftmax + " --space " + spec + " -o " + (dir / "t.db").string()));
        EXPECT_EQ(r.exitCode, 2) << spec;
        EXPECT_NE(r.err.find(message), std::string::npos) << spec << ": " << r.err;
        EXPECT_FALSE(fs::exists(dir / "t.db")) << spec;
    }
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

TEST(TuneTest, SlurmWithoutSbatchIsAClearError) {
    TempDir dir("pto-tune");
    ProcessResult r = runCommand("PATH=/nonexistent " + pto("tune " + kSoftmax +
                                                            " --space 'tiles_per_task = 1' --slurm "
                                                            "-o " +
                                                            (dir / "t.db").string()));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("'sbatch' is not on PATH"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "t.db"));
}

} // namespace
} // namespace pto::test
