// `pto compile` and `pto info` as a user runs them: results, exit codes and error messages,
// and no half-written trace file after any failure.
#include "tests/support/Process.h"
#include "tests/support/ReadFile.h"
#include "trace_db/TraceReader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

namespace pto {
namespace {

using test::runCommand;
using test::shellQuote;

using test::pto;

std::string sample(const std::string& name) {
    return fmt::format("{}/samples/{}.pto", PTO_SOURCE_DIR, name);
}

class CliTest : public ::testing::Test {
protected:
    // Writes a program to a file and compiles it; returns the result.
    test::ProcessResult compileText(const std::string& text, const std::string& name = "bad.pto") {
        auto path = m_dir / name;
        std::ofstream(path) << text;
        return runCommand(pto(fmt::format("compile {} -o {}", shellQuote(path.string()),
                                          shellQuote(out().string()))));
    }
    std::filesystem::path out() const { return m_dir / "out.db"; }
    void expectNoOutput() {
        EXPECT_FALSE(std::filesystem::exists(out()));
        for (auto& e : std::filesystem::directory_iterator(m_dir.path()))
            EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
    }
    test::TempDir m_dir;
};

TEST_F(CliTest, CompileWritesEveryStageAndInfoShowsThem) {
    auto r = runCommand(
        pto(fmt::format("compile {} -o {}", sample("softmax"), shellQuote(out().string()))));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("pto "), std::string::npos) << r.out;
    auto info = runCommand(pto("info " + shellQuote(out().string())));
    ASSERT_EQ(info.exitCode, 0) << info.err;
    for (const char* level : {"tensor", "tile", "block", "exec", "pto"})
        EXPECT_NE(info.out.find(level), std::string::npos) << level;
    auto json = runCommand(pto("info --json " + shellQuote(out().string())));
    EXPECT_NE(json.out.find("\"stages\""), std::string::npos);
}

// The compiler's remarks reach the user, one line per remark however many blocks it concerns:
// the flash-attention loop sample's 128 vector blocks cannot double-buffer UB (they were only in
// BlockProgram::notes, which nothing printed). `pto run --json` and `pto report` carry them too.
TEST_F(CliTest, CompileAndRunPrintTheCompilersNotesGroupedByBlock) {
    auto r =
        runCommand(pto(fmt::format("compile {} --record none -o {}", sample("flash_attention_loop"),
                                   shellQuote(out().string()))));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("  note    UB does not fit double-buffered (tload at 33:11"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("; single-buffered (128 blocks: flash_attention_loop_fused0_aiv0, "
                         "flash_attention_loop_fused0_aiv1, flash_attention_loop_fused1_aiv0, …)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  note    fuse-cube-vector: 64 cube-vector clusters"), std::string::npos)
        << r.out;
    auto run = runCommand(pto(fmt::format("run {} --timing-only --trace tasks --json -o {}",
                                          sample("gemm_4096"), shellQuote(out().string()))));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.out.find("\"notes\""), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("single-buffered (24 blocks: gemm_aic_0, gemm_aic_1, gemm_aic_2, …)"),
              std::string::npos)
        << run.out;
    // The trace keeps them (meta compile_notes): `pto report` of the run shows them too.
    auto report = runCommand(pto("report --exit-zero " + shellQuote(out().string())));
    ASSERT_EQ(report.exitCode, 0) << report.err;
    EXPECT_NE(report.out.find("compiler notes:\n  L0C does not fit double-buffered"),
              std::string::npos)
        << report.out;
}

// A run traced at --trace tasks has no instruction slices, so no pipe busy times: the report
// says so instead of 0 % pipes and a "latency (pipeline)" class; the same run at the default
// level is "compute" (its vector pipe 82 % busy).
// A run stopped by a fault: the report said "bound none: the trace holds no executed
// instructions" and nothing of the fault that pto run printed.
TEST_F(CliTest, TheReportOfARunStoppedByAFaultNamesTheFault) {
    auto run = runCommand(pto(fmt::format("run {} --fault drop-sync --trace full -o {}",
                                          sample("softmax"), shellQuote(out().string()))));
    ASSERT_EQ(run.exitCode, 1) << run.err;
    for (const char* format : {"text", "md", "json"}) {
        auto report = runCommand(pto(fmt::format("report --no-store --exit-zero --format {} {}",
                                                 format, shellQuote(out().string()))));
        EXPECT_EQ(report.exitCode, 0) << report.err;
        EXPECT_NE(report.out.find("overlapping live buffers"), std::string::npos) << format << "\n"
                                                                                  << report.out;
        EXPECT_EQ(report.out.find("no executed instructions"), std::string::npos) << format << "\n"
                                                                                  << report.out;
    }
}

TEST_F(CliTest, ATasksLevelTraceHasNoPipeTimesAndSaysSo) {
    ASSERT_EQ(runCommand(pto(fmt::format("run {} --trace tasks -o {}", sample("softmax"),
                                         shellQuote(out().string()))))
                  .exitCode,
              0);
    auto text = runCommand(pto("report --no-store " + shellQuote(out().string())));
    ASSERT_LE(text.exitCode, 1) << text.err;
    EXPECT_NE(text.out.find("  bound       unknown (no pipe times at --trace tasks)"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("  pipes       not recorded at this trace level"), std::string::npos)
        << text.out;
    EXPECT_EQ(text.out.find("ratio=0%"), std::string::npos) << text.out;
    const auto full = out().string() + ".full.db";
    ASSERT_EQ(
        runCommand(pto(fmt::format("run {} -o {}", sample("softmax"), shellQuote(full)))).exitCode,
        0);
    auto json = runCommand(pto("report --no-store --format json " + shellQuote(full)));
    EXPECT_NE(json.out.find("\"bound\": \"compute\""), std::string::npos) << json.out;
    // Compute at 9 % of the roof: the report says which unit is saturated (the roofline point
    // sits under the memory roof, left of the ridge, and read as a contradiction).
    EXPECT_NE(json.out.find("\"bound_reason\": \"V 82% busy, the unit saturated\""),
              std::string::npos)
        << json.out;
    auto fullText = runCommand(pto("report --no-store " + shellQuote(full)));
    EXPECT_NE(
        fullText.out.find("bound       compute (V 82% busy, the unit saturated; 5% of the roof"),
        std::string::npos)
        << fullText.out;
    // --top 0: no op table at all, not its header alone.
    auto none = runCommand(pto("report --no-store --top 0 " + shellQuote(full)));
    ASSERT_LE(none.exitCode, 1) << none.err;
    EXPECT_EQ(none.out.find("top ops by cycles"), std::string::npos) << none.out;
    EXPECT_NE(none.out.find("findings"), std::string::npos) << none.out;
}

// Nor has it op cycles: matmul %c showed "0 cycles, 250776 % of the roof, memory" (its roof
// divided by a 0-cycle span) in the text, JSON, Markdown and HTML reports, and `pto compare` of
// the same run at two levels "5291 -> 0, -100 %"; the stored metrics had 0 % pipe ratios the
// GUI drew. Now each says the ops are not recorded, and no ratio row is stored.
TEST_F(CliTest, ATasksLevelTraceHasNoOpCyclesAndSaysSo) {
    const std::string tasks = shellQuote(out().string());
    const std::string full = shellQuote(out().string() + ".full.db");
    ASSERT_EQ(runCommand(pto("run " + sample("matmul") + " --trace tasks -o " + tasks)).exitCode,
              0);
    ASSERT_EQ(runCommand(pto("run " + sample("matmul") + " -o " + full)).exitCode, 0);
    auto text = runCommand(pto("report --exit-zero " + tasks));
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("  ops         not recorded at this trace level"), std::string::npos)
        << text.out;
    EXPECT_EQ(text.out.find("top ops by cycles"), std::string::npos) << text.out;
    auto json = runCommand(pto("report --no-store --exit-zero --format json " + tasks));
    EXPECT_NE(json.out.find("\"top_ops\": []"), std::string::npos) << json.out;
    auto md = runCommand(pto("report --no-store --exit-zero --format md " + tasks));
    EXPECT_NE(md.out.find("Not recorded at this trace level"), std::string::npos) << md.out;
    auto html = runCommand(pto("export --format html " + tasks));
    EXPECT_NE(html.out.find("Op cycles are not recorded at this trace level"), std::string::npos);
    EXPECT_EQ(html.out.find("250776"), std::string::npos);
    auto compare = runCommand(pto("compare " + full + " " + tasks));
    ASSERT_EQ(compare.exitCode, 0) << compare.err;
    EXPECT_NE(compare.out.find("per-op spans need instruction slices in both runs; B was traced "
                               "at --trace tasks"),
              std::string::npos)
        << compare.out;
    EXPECT_EQ(compare.out.find("-100.0%"), std::string::npos) << compare.out;
    auto stored = runCommand(
        pto("query " + tasks + " \"SELECT count(*) FROM metric WHERE key LIKE '%_ratio'\""));
    EXPECT_NE(stored.out.find("--------\n0\n"), std::string::npos) << stored.out;
}

TEST_F(CliTest, PrintAfterAllAndStopAfter) {
    auto r = runCommand(
        pto(fmt::format("compile {} --print-after-all --stop-after tile", sample("softmax"))));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("IR after expand-tiles"), std::string::npos);
    EXPECT_NE(r.out.find("tload"), std::string::npos);
    EXPECT_EQ(r.out.find("IR after partition-blocks"), std::string::npos);
    EXPECT_EQ(r.out.find("  pto "), std::string::npos);
}

// --check-sync: a listing whose flags order every on-chip hazard passes; without one wait the
// check names the pair (exit 1) — the same pair kind the simulator then meets at run time.
TEST_F(CliTest, CheckSyncProvesAListingOrNamesItsUnorderedPair) {
    const std::string good =
        std::string(PTO_SOURCE_DIR) + "/tests/integration/run/programs/loop_copy.ptoasm";
    auto r = runCommand(pto(fmt::format("compile {} --record none --check-sync", good)));
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("  sync    every on-chip hazard of the 1 kernel is ordered by flags or "
                         "barriers"),
              std::string::npos)
        << r.out;
    std::ifstream in(good);
    std::string text, line;
    while (std::getline(in, line))
        if (line != "    MTE2 WAIT_FLAG     V->MTE2 1") text += line + "\n";
    const auto bad = m_dir / "no_wait.ptoasm";
    std::ofstream(bad) << text;
    r = runCommand(
        pto(fmt::format("compile {} --record none --check-sync", shellQuote(bad.string()))));
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("no_wait.ptoasm: sync check failed: kernel @k0: TCVT (pipe V, instr 6, "
                         "cols, iter 0) reads UB [0x0, 0x2000) and TLOAD (pipe MTE2, instr 2, "
                         "cols, iter 1) writes UB [0x0, 0x2000) are not ordered (WAR)"),
              std::string::npos)
        << r.err;
    auto run = runCommand(
        pto(fmt::format("run {} -o {}", shellQuote(bad.string()), shellQuote(out().string()))));
    EXPECT_NE(run.err.find("TLOAD (pipe MTE2, instr 12) writes UB [0x0, 0x2000)"),
              std::string::npos)
        << run.out << run.err;
    EXPECT_NE(run.err.find("TCVT (pipe V, instr 6)"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("reads UB [0x0, 0x2000)"), std::string::npos) << run.err;
    // The check needs the PTO program.
    r = runCommand(
        pto(fmt::format("compile {} --stop-after tile --check-sync", sample("softmax"))));
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("--check-sync needs the PTO program"), std::string::npos) << r.err;
}

TEST_F(CliTest, UnknownStopAfterIsAUsageError) {
    auto r = runCommand(pto(fmt::format("compile {} --stop-after nonsense", sample("softmax"))));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("unknown stage 'nonsense'"), std::string::npos) << r.err;
}

// --print-after with a name no pass has is refused as --stop-after is, listing the names (a
// typo such as expand-tile compiled everything and printed nothing, exit 0).
TEST_F(CliTest, UnknownPrintAfterIsAUsageError) {
    auto r =
        runCommand(pto(fmt::format("compile {} --print-after expand-tile", sample("softmax"))));
    EXPECT_EQ(r.exitCode, 2) << r.out;
    EXPECT_NE(r.err.find("unknown pass 'expand-tile' for --print-after (parse or a pass: verify, "
                         "inline-calls,"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(", expand-tiles, "), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("compiled"), std::string::npos) << r.out;
    auto stop = runCommand(pto(fmt::format("compile {} --stop-after bogus", sample("softmax"))));
    EXPECT_EQ(stop.exitCode, 2);
    EXPECT_NE(stop.err.find("(a level: tensor, tile, block, exec, pto; or a pass: verify, "),
              std::string::npos)
        << stop.err;
}

std::string tileProgram() {
    return fmt::format("{}/tests/integration/run/programs/tile_loop.pto", PTO_SOURCE_DIR);
}

// A Tile-level program starts at the Tile passes: stopping after or printing a Tensor pass or
// level is an error saying so (they were ignored: a full compile, or nothing printed, exit 0).
TEST_F(CliTest, ATileLevelProgramRefusesStagesItDoesNotGoThrough) {
    for (const char* option :
         {"--stop-after tensor", "--stop-after verify", "--stop-after expand-tiles",
          "--print-after verify", "--print-after dead-code"}) {
        auto r = runCommand(pto(fmt::format("compile {} {}", tileProgram(), option)));
        EXPECT_EQ(r.exitCode, 2) << option << "\n" << r.out;
        EXPECT_NE(r.err.find("a Tile-level program "), std::string::npos) << option << r.err;
        EXPECT_EQ(r.out.find("  pto "), std::string::npos) << option << r.out;
    }
    auto tensor = runCommand(pto(fmt::format("compile {} --stop-after tensor", tileProgram())));
    EXPECT_NE(tensor.err.find("--stop-after tensor: a Tile-level program has no tensor stage (it "
                              "starts at the tile level)"),
              std::string::npos)
        << tensor.err;
    auto verify = runCommand(pto(fmt::format("compile {} --print-after verify", tileProgram())));
    EXPECT_NE(verify.err.find("--print-after verify: a Tile-level program does not go through "
                              "verify, a pass of the tensor level (its lowering starts at the "
                              "tile level, with the passes assign-memory, "),
              std::string::npos)
        << verify.err;
    // The stages it has still work, and its summary has no Tensor level.
    auto ok = runCommand(pto(fmt::format("compile {} --print-after tile-dead-code --print-after "
                                         "parse --stop-after tile",
                                         tileProgram())));
    ASSERT_EQ(ok.exitCode, 0) << ok.err;
    EXPECT_NE(ok.out.find("IR after tile-dead-code"), std::string::npos) << ok.out;
    EXPECT_NE(ok.out.find("IR after parse"), std::string::npos) << ok.out;
    auto full = runCommand(pto(fmt::format("compile {}", tileProgram())));
    ASSERT_EQ(full.exitCode, 0) << full.err;
    EXPECT_EQ(full.out.find("  tensor "), std::string::npos) << full.out;
    EXPECT_NE(full.out.find("  tile    "), std::string::npos) << full.out;
}

// compile counts the listing's rows, run the instructions executed: the labels say which.
TEST_F(CliTest, CompileAndRunLabelTheirInstructionCounts) {
    auto compiled = runCommand(pto(fmt::format("compile {}", tileProgram())));
    ASSERT_EQ(compiled.exitCode, 0) << compiled.err;
    EXPECT_NE(compiled.out.find(" instructions (listing) in 1 kernel\n"), std::string::npos)
        << compiled.out;
    auto ran = runCommand(pto(fmt::format("run {} --record none", tileProgram())));
    ASSERT_EQ(ran.exitCode, 0) << ran.err;
    EXPECT_NE(ran.out.find(" executed in "), std::string::npos) << ran.out;
}

// A UTF-8 byte-order mark at the start of a file (as Windows editors save it) is skipped: it was
// "unexpected byte 0xef" at 1:1. Columns count after it.
TEST_F(CliTest, AByteOrderMarkIsSkipped) {
    const std::string body =
        "func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {\n  %y = exp %x\n  return %y\n}\n";
    auto r = compileText("\xEF\xBB\xBF" + body, "bom.pto");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    auto bad = compileText("\xEF\xBB\xBF$" + body, "bom.pto");
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("bom.pto:1:1: error: unexpected character '$'"), std::string::npos)
        << bad.err;
    // The excerpt under the error counts columns after the mark too: its caret sits under the
    // op the message names, and the mark is not printed.
    auto op = compileText("\xEF\xBB\xBF"
                          "func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> { %y = "
                          "expp %x\n  return %y\n}\n",
                          "bom.pto");
    EXPECT_EQ(op.exitCode, 2);
    EXPECT_NE(op.err.find("bom.pto:1:56: error: unknown op 'expp'"), std::string::npos) << op.err;
    EXPECT_NE(op.err.find("\n1 | func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> { %y = expp %x\n"
                          "  | " +
                          std::string(55, ' ') + "^\n"),
              std::string::npos)
        << op.err;
}

// --outputs naming a regular file, or a directory under one, is refused before anything is
// compiled or written (it was a raw "filesystem error: cannot create directories" after the
// whole run, leaving the trace behind).
TEST_F(CliTest, AnOutputsDirectoryThatCannotBeIsRefusedFirst) {
    const auto file = m_dir / "afile";
    std::ofstream(file) << "x";
    for (const auto& dir : {file, file / "sub"}) {
        auto r = runCommand(pto(fmt::format("run {} -o {} --outputs {}", sample("softmax"),
                                            shellQuote(out().string()), shellQuote(dir.string()))));
        EXPECT_EQ(r.exitCode, 2) << r.out;
        EXPECT_NE(r.err.find("--outputs " + dir.string() + ": "), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("filesystem error"), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("ran "), std::string::npos) << r.out;
        expectNoOutput();
    }
    auto r = runCommand(
        pto(fmt::format("run {} --outputs {}", sample("softmax"), shellQuote(file.string()))));
    EXPECT_NE(r.err.find("exists and is not a directory"), std::string::npos) << r.err;
    auto dump = runCommand(pto(fmt::format("run {} -o {} --dump {}", sample("softmax"),
                                           shellQuote(out().string()), shellQuote(file.string()))));
    EXPECT_EQ(dump.exitCode, 2);
    EXPECT_NE(dump.err.find("--dump " + file.string() + ": exists and is not a directory"),
              std::string::npos)
        << dump.err;
    expectNoOutput();
}

struct BadProgram {
    const char* name;
    const char* text;
    const char* expected; // a fragment of the message, which also names file:line
};

class CliBadProgramTest : public CliTest, public ::testing::WithParamInterface<BadProgram> {};

TEST_P(CliBadProgramTest, ExitsTwoWithMessageAndLeavesNoFile) {
    const BadProgram& p = GetParam();
    auto r = compileText(p.text);
    EXPECT_EQ(r.exitCode, 2) << r.out;
    EXPECT_NE(r.err.find(p.expected), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("bad.pto:"), std::string::npos) << r.err;
    expectNoOutput();
}

INSTANTIATE_TEST_SUITE_P(
    Programs, CliBadProgramTest,
    ::testing::Values(
        BadProgram{"malformed", "func @f(%x: tensor<4x4xf32> -> tensor<4x4xf32> {\n", "expected"},
        BadProgram{"unknown_op",
                   "func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {\n  %y = softmx %x\n  "
                   "return %y\n}\n",
                   "unknown op 'softmx'"},
        BadProgram{"shape_mismatch",
                   "func @f(%x: tensor<64x32xf32>, %y: tensor<32x32xf32>) -> "
                   "tensor<64x32xf32> {\n  %z = add %x, %y\n  return %z\n}\n",
                   "do not broadcast"},
        BadProgram{"tile_does_not_fit",
                   "func @f(%a: tensor<512x512xf16>, %b: tensor<512x512xf16>) -> "
                   "tensor<512x512xf32> {\n  cube_tile [256, 256], [64, 64], [256, 256]\n  %c = "
                   "matmul %a, %b\n  return %c\n}\n",
                   "L0"},
        BadProgram{"empty", "", "function"}),
    [](const auto& p) { return std::string(p.param.name); });

TEST_F(CliTest, MissingFileIsAnInputError) {
    auto r =
        runCommand(pto(fmt::format("compile {} -o {}", shellQuote((m_dir / "nope.pto").string()),
                                   shellQuote(out().string()))));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("nope.pto"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
    expectNoOutput();
}

TEST_F(CliTest, UnwritableOutputIsAnInputError) {
    auto r = runCommand(pto(fmt::format("compile {} -o {}", sample("softmax"),
                                        shellQuote((m_dir / "no/such/dir/out.db").string()))));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("out.db"), std::string::npos) << r.err;
}

TEST_F(CliTest, ExistingTraceSurvivesAFailedCompile) {
    ASSERT_EQ(runCommand(pto(fmt::format("compile {} -o {}", sample("softmax"),
                                         shellQuote(out().string()))))
                  .exitCode,
              0);
    auto before = std::filesystem::file_size(out());
    auto r = compileText("func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = bogus %x\n}\n");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(std::filesystem::file_size(out()), before);
    EXPECT_NO_THROW(tracedb::TraceReader::open(out()));
}

// -o naming a file that is no trace (the program itself, a note, a tune file) is refused and
// the file kept byte for byte: `pto run prog.pto -o prog.pto` replaced the source with a trace.
TEST_F(CliTest, AnOutputPathHoldingAnotherKindOfFileIsNotReplaced) {
    const auto program = m_dir / "prog.pto", notes = m_dir / "notes.txt", tune = m_dir / "t.db";
    std::filesystem::copy_file(sample("softmax"), program);
    std::ofstream(notes) << "hello";
    const std::string source = test::readFile(program);
    const std::vector<std::string> commands = {
        fmt::format("run {0} -o {0}", shellQuote(program.string())),
        fmt::format("compile {} -o {}", shellQuote(program.string()), shellQuote(notes.string())),
        fmt::format("diff --bisect {0} -o {0}", shellQuote(program.string()))};
    for (const std::string& command : commands) {
        auto r = runCommand(pto(command));
        EXPECT_EQ(r.exitCode, 2) << command;
        EXPECT_NE(r.err.find("exists and is not a trace file"), std::string::npos) << r.err;
    }
    EXPECT_EQ(test::readFile(program), source);
    EXPECT_EQ(test::readFile(notes), "hello");
    // A tune file is no trace either, and a trace no tune file.
    ASSERT_EQ(runCommand(pto(fmt::format("tune {} --space 'vec_tile = [8, 1024]' -o {}",
                                         shellQuote(program.string()), shellQuote(tune.string()))))
                  .exitCode,
              0);
    EXPECT_EQ(runCommand(pto(fmt::format("run {} -o {}", shellQuote(program.string()),
                                         shellQuote(tune.string()))))
                  .exitCode,
              2);
    ASSERT_EQ(runCommand(pto(fmt::format("run {} -o {}", shellQuote(program.string()),
                                         shellQuote(out().string()))))
                  .exitCode,
              0);
    auto overTrace =
        runCommand(pto(fmt::format("tune {} --space 'vec_tile = [8, 1024]' -o {}",
                                   shellQuote(program.string()), shellQuote(out().string()))));
    EXPECT_EQ(overTrace.exitCode, 2);
    EXPECT_NE(overTrace.err.find("is not a tune file"), std::string::npos) << overTrace.err;
    EXPECT_NO_THROW(tracedb::TraceReader::open(out())); // a trace is replaced by a trace only
}

TEST_F(CliTest, InfoRefusesFilesThatAreNotTraces) {
    auto text = m_dir / "notes.txt";
    std::ofstream(text) << "hello";
    auto r = runCommand(pto("info " + shellQuote(text.string())));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("notes.txt"), std::string::npos) << r.err;
    auto missing = runCommand(pto("info " + shellQuote((m_dir / "gone.db").string())));
    EXPECT_EQ(missing.exitCode, 2);
}

TEST_F(CliTest, BadFlagsAreUsageErrors) {
    EXPECT_EQ(runCommand(pto("compile")).exitCode, 2);
    EXPECT_EQ(runCommand(pto("frobnicate")).exitCode, 2);
    EXPECT_EQ(runCommand(pto("--help")).exitCode, 0);
}

// On a terminal `pto run` names each phase as it starts and the bar moves with it (util-linux
// `script` gives the command a pseudo-terminal); off a terminal nothing is drawn.
TEST_F(CliTest, RunProgressNamesEachPhaseOnATerminal) {
    const std::string run =
        pto(fmt::format("run {} -o {}", shellQuote(sample("matmul")), shellQuote(out().string())));
    auto onTerminal = runCommand(fmt::format("script -qec {} /dev/null", shellQuote(run)));
    ASSERT_EQ(onTerminal.exitCode, 0) << onTerminal.out << onTerminal.err;
    std::size_t at = 0;
    for (const char* phase : {"compiling (1/3)", "simulating (2/3)", "writing the trace (3/3)"}) {
        const std::size_t next = onTerminal.out.find(phase, at);
        ASSERT_NE(next, std::string::npos) << phase << " after offset " << at << ":\n"
                                           << onTerminal.out;
        at = next;
    }
    EXPECT_NE(onTerminal.out.find(" 67%"), std::string::npos) << onTerminal.out;
    auto piped = runCommand(run);
    ASSERT_EQ(piped.exitCode, 0) << piped.err;
    EXPECT_EQ(piped.err.find("compiling"), std::string::npos) << piped.err;
}

// --record: the same run, fewer stages. `levels` keeps the last stage of each level in full
// (nodes, instructions, the run's slices), `final` only the parsed program and the last Tile,
// Block, Exec and PTO stages (no row for the other passes), `none` keeps no stage and no run;
// cycles unchanged.
TEST_F(CliTest, RecordLevelsKeepFewerStagesAndTheSameRun) {
    auto run = [&](const std::string& level, const std::string& file) {
        auto r = runCommand(pto(fmt::format("run {} --seed 1 --record {} -o {}", sample("softmax"),
                                            level, shellQuote((m_dir / file).string()))));
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return r.out.substr(r.out.find("cycles"),
                            r.out.find('\n', r.out.find("cycles")) - r.out.find("cycles"));
    };
    auto count = [&](const std::string& file, const std::string& sql) {
        auto reader = tracedb::TraceReader::open(m_dir / file);
        return std::get<int64_t>(reader.query(sql).rows.at(0).at(0));
    };
    const std::string all = run("all", "all.db");
    EXPECT_EQ(run("levels", "levels.db"), all);
    EXPECT_EQ(run("final", "final.db"), all);
    EXPECT_EQ(run("none", "none.db"), all);
    const char* fullStages = "SELECT count(DISTINCT stage_id) FROM node";
    EXPECT_GT(count("all.db", fullStages), 5);
    // parse (the root of provenance) and the last stage of each of the five levels
    EXPECT_EQ(count("levels.db", fullStages), 6);
    EXPECT_EQ(count("levels.db", "SELECT count(*) FROM stage"),
              count("all.db", "SELECT count(*) FROM stage")); // every pass still named, timed
    EXPECT_EQ(count("levels.db", "SELECT count(*) FROM slice"),
              count("all.db", "SELECT count(*) FROM slice"));
    EXPECT_EQ(count("final.db", fullStages), 5);
    EXPECT_EQ(count("final.db", "SELECT count(*) FROM stage"), 5); // no row of other passes
    EXPECT_EQ(count("final.db", "SELECT count(*) FROM stage WHERE name IN ('tensor.parse', "
                                "'tile.tile-dead-code', 'block.insert-cross-flags', "
                                "'exec.build-exec-graph', 'pto.emit-pto')"),
              5);
    // The same instructions and run as with every stage recorded.
    EXPECT_EQ(count("final.db", "SELECT count(*) FROM instr"),
              count("all.db", "SELECT count(*) FROM instr"));
    EXPECT_EQ(count("final.db", "SELECT count(*) FROM slice"),
              count("all.db", "SELECT count(*) FROM slice"));
    EXPECT_EQ(count("none.db", "SELECT count(*) FROM stage"), 0);
    EXPECT_EQ(count("none.db", "SELECT count(*) FROM slice"), 0);
    auto bad = runCommand(pto("run " + sample("softmax") + " --record some"));
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("unknown record level 'some' (all, levels, final, none)"),
              std::string::npos)
        << bad.err;
}

// The trace file cannot grow past 4 MiB (a full disk, as far as write(2) tells): compile and run
// stop with the file named in the error, exit 2, and leave neither the trace nor its temp file.
TEST_F(CliTest, TraceWriteFailureIsAnErrorAndLeavesNoFile) {
    for (const char* command : {"compile", "run"}) {
        auto r = runCommand(fmt::format("trap '' XFSZ; ulimit -f 4096; {}",
                                        pto(fmt::format("{} {} -o {}", command, sample("attention"),
                                                        shellQuote(out().string())))));
        EXPECT_EQ(r.exitCode, 2) << command << ": " << r.err;
        EXPECT_NE(r.err.find(out().string()), std::string::npos) << r.err;
        expectNoOutput();
    }
}

// Where the kernel gives transparent huge pages only on request, pto re-executes itself once
// with glibc's malloc asking for them (cli/HugePages.h); PTO_HUGE_PAGES=0 or the user's own
// GLIBC_TUNABLES keep it as started. Seen from outside: the running process's environment.
TEST_F(CliTest, PtoAsksForHugePagesOnlyWhereTheKernelWantsItAsked) {
    std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(thp, modes);
    if (modes.find("[madvise]") == std::string::npos)
        GTEST_SKIP() << "THP mode is not madvise here: " << modes;
    ASSERT_EQ(compileText("func @f(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {\n"
                          "  %y = exp %x\n  return %y\n}\n",
                          "small.pto")
                  .exitCode,
              0);
    // A query that runs for seconds; its environment is read while it runs (same pid after exec).
    const std::string slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                             "WHERE x < 400000000) SELECT count(*) FROM c";
    auto tunablesOf = [&](const std::string& env) {
        const auto r = runCommand(fmt::format(
            "( {} {} query {} {} --timeout 20 >/dev/null 2>&1 & pid=$!; sleep 1; "
            "tr '\\0' '\\n' < /proc/$pid/environ | grep '^GLIBC_TUNABLES=' || echo none; "
            "kill $pid; wait $pid 2>/dev/null; true )",
            env, PTO_CLI, shellQuote(out().string()), shellQuote(slow)));
        return r.out;
    };
    EXPECT_EQ(tunablesOf("env -u GLIBC_TUNABLES -u PTO_HUGE_PAGES"),
              "GLIBC_TUNABLES=glibc.malloc.hugetlb=1\n");
    EXPECT_EQ(tunablesOf("env -u GLIBC_TUNABLES PTO_HUGE_PAGES=0"), "none\n");
    EXPECT_EQ(tunablesOf("env -u PTO_HUGE_PAGES GLIBC_TUNABLES=glibc.malloc.arena_max=2"),
              "GLIBC_TUNABLES=glibc.malloc.arena_max=2\n");
}

// A compile error shows the source line with a caret: an error of an op the compiler made
// from a composite (`cast %0` of an rms_norm) otherwise names nothing the user wrote.
TEST_F(CliTest, ACompileErrorShowsItsSourceLineWithACaret) {
    std::string program = "// rms_norm with a tile too big for UB\n"
                          "func @f(%x: tensor<128x4096xf16>, %w: tensor<4096xf16>)\n"
                          "    -> tensor<128x4096xf16> {\n"
                          "  vec_tile [64, 4096]\n"
                          "\t%y = rms_norm %x, %w {eps = 1e-06}\n"
                          "  return %y\n"
                          "}\n";
    auto r = compileText(program, "rms.pto");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("rms.pto:5:7: error: cast %0: vec tile 64x4096"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("\n5 | \t%y = rms_norm %x, %w {eps = 1e-06}\n  | \t     ^\n"),
              std::string::npos)
        << r.err;
    expectNoOutput();
    // A long line is cut around the column, and a program given on no readable file (a
    // deleted one) prints the error alone.
    std::string wide = "func @g(%x: tensor<4x4xf16>) -> tensor<4x4xf16> {\n  %y = add %x, %x" +
                       std::string(300, ' ') + "%z = bogus %x\n  return %y\n}\n";
    auto cut = compileText(wide, "wide.pto");
    EXPECT_EQ(cut.exitCode, 2);
    EXPECT_NE(cut.err.find("2 | …"), std::string::npos) << cut.err;
    EXPECT_NE(cut.err.find("%z = bogus %x"), std::string::npos) << cut.err;
}

// `pto expotr x.db` said "A subcommand is required"; `--set` of one key twice silently took
// the last (an arch file refuses a duplicate key).
TEST_F(CliTest, UnknownSubcommandsAndRepeatedSetKeysAreNamed) {
    auto typo = runCommand(pto("expotr x.db"));
    EXPECT_EQ(typo.exitCode, 2);
    EXPECT_NE(typo.err.find("'expotr' is not a pto subcommand; did you mean 'export'?"),
              std::string::npos)
        << typo.err;
    auto unknown = runCommand(pto("frobnicate"));
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.err.find("'frobnicate' is not a pto subcommand (pto --help"),
              std::string::npos)
        << unknown.err;
    auto twice = runCommand(pto("arch --set clock.freq=2GHz --set 'clock.freq = 3GHz'"));
    EXPECT_EQ(twice.exitCode, 2);
    EXPECT_NE(twice.err.find("'clock.freq' is set twice ('clock.freq=2GHz', then 'clock.freq = "
                             "3GHz'): give it once"),
              std::string::npos)
        << twice.err;
    EXPECT_EQ(runCommand(pto("arch --set clock.freq=2GHz --set hbm.bandwidth=2x")).exitCode, 0);
}

} // namespace
} // namespace pto
