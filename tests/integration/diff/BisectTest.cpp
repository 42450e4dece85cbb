// Bisection of whole compiles: clean programs pass every stage; each planted fault is found at
// the right pass, op and tile (and for the simulator, block, task and core).
#include "driver/Bisect.h"

#include "compiler/Pipeline.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

namespace pto {
namespace {

std::string sample(const std::string& name) {
    return std::string(PTO_SOURCE_DIR) + "/samples/" + name;
}

BisectReport bisect(const std::string& file, const std::string& fault = {},
                    const std::string& trace = {}) {
    BisectOptions o;
    o.program = file;
    o.tracePath = trace;
    if (!fault.empty()) o.fault = parseFaultSpec(fault);
    return bisectProgram(o);
}

const StageResult& firstStage(const BisectReport& r) {
    EXPECT_TRUE(r.firstDiverging.has_value()) << formatBisect(r);
    return r.stages.at(r.firstDiverging.value_or(0));
}

// The offset of the result of tile op `op` in the final Tile function of `file` compiled with
// `fault` (the Tile stage the planted op lives in).
std::vector<int64_t> offsetOfTileOp(const std::string& file, const std::string& fault, OpId op) {
    CompileState state = loadProgram(file);
    CompileOptions options;
    options.fault = parseFaultSpec(fault);
    PassManager pm(state, options);
    pm.start();
    lowerToPto(pm);
    const Function& tile = state.block.tile;
    const Shape& s = tile.value(tile.op(op).result).offset;
    return {s.begin(), s.end()};
}

// A small vector program whose every op result is stored directly.
std::string writeAddProgram(const test::TempDir& dir) {
    const std::string path = (dir / "add.pto").string();
    std::ofstream(path) << "// c = a + b on 64x256 f32 in 16-row tiles\n"
                           "func @add(%a: tensor<64x256xf32>, %b: tensor<64x256xf32>) -> "
                           "tensor<64x256xf32> {\n"
                           "  vec_tile [16, 256]\n"
                           "  %c = add %a, %b\n"
                           "  return %c\n"
                           "}\n";
    return path;
}

// A K = 2048 f16 matmul (summed in K tiles at Tile level) and an elementwise chain behind it.
std::string writeDriftProgram(const test::TempDir& dir) {
    const std::string path = (dir / "drift.pto").string();
    std::ofstream(path) << "// a K = 2048 matmul, then a max-subtracted and scaled copy\n"
                           "func @drift(%a: tensor<128x2048xf16>, %b: tensor<2048x128xf16>) -> "
                           "tensor<128x128xf32> {\n"
                           "  %c = matmul %a, %b\n"
                           "  %d = muls (sub %c, (reduce_max %c {axis = 1, keepdim})), 0.5\n"
                           "  return %d\n"
                           "}\n";
    return path;
}

TEST(Bisect, CleanSamplesPassEveryStage) {
    for (const char* s : {"softmax.pto", "matmul.pto", "rms_norm.pto", "gelu.pto"}) {
        BisectReport r = bisect(sample(s));
        EXPECT_TRUE(r.passed()) << formatBisect(r);
        EXPECT_FALSE(r.firstDiverging.has_value()) << s;
        ASSERT_FALSE(r.outputs.empty()) << s;
        const StageResult& sim = r.stages.back();
        EXPECT_EQ(sim.pass, "simulator");
        EXPECT_TRUE(sim.evaluated);
        EXPECT_GT(sim.compared, 0) << s;
    }
}

// The Tile interpreter sums a matmul in K tiles, the Tensor interpreter in one pass: the values
// they feed differ in the last bits (drift). Judged with the accumulation those values carry
// (validate/DriftChain.h), the clean programs pass every stage, drift counted, nothing failed —
// before, the first elementwise op behind the drift was a false divergence (mla_prolog, slower,
// is the planted case below).
TEST(Bisect, AccumulationOrderDriftIsNotADivergence) {
    test::TempDir dir("pto-bisect");
    const std::string drift = writeDriftProgram(dir);
    for (const std::string& s : {drift, sample("moe_dispatch_combine.pto"),
                                 sample("moe_gating.pto"), sample("sparse_flash_attention.pto")}) {
        BisectReport r = bisect(s);
        EXPECT_TRUE(r.passed()) << formatBisect(r);
        int64_t drifted = 0;
        for (const StageResult& st : r.stages) {
            EXPECT_EQ(st.failed, 0) << s << " " << st.pass;
            drifted += st.drift;
        }
        EXPECT_GT(drifted, 0) << s;
        for (const TensorComparison& c : r.outputs) EXPECT_TRUE(c.verdict.passed) << s;
    }
}

// A real fault behind that drift is still found, at the planted op, under the widened tolerance:
// the scale of the muls that follows the drifting matmul doubled.
// exp turns the matmul's order drift into a relative error |x| times larger: the final output is
// judged by that amplified K, as the stages are, not by the matmul's own K = 2048.
TEST(Bisect, AnOutputIsJudgedByTheDriftItsExpAmplifies) {
    test::TempDir dir("pto-bisect");
    const std::string path = (dir / "exp.pto").string();
    std::ofstream(path) << "// exp of a K = 2048 matmul (|x| up to ~60 on random inputs)\n"
                           "func @amp(%a: tensor<128x2048xf16>, %b: tensor<2048x128xf16>) -> "
                           "tensor<128x128xf32> {\n"
                           "  %d = exp (matmul %a, %b)\n"
                           "  return %d\n"
                           "}\n";
    BisectReport r = bisect(path);
    EXPECT_TRUE(r.passed()) << formatBisect(r);
    ASSERT_EQ(r.outputs.size(), 1u);
    const std::string& source = r.outputs[0].tolerance.source;
    const size_t at = source.find("K = ");
    ASSERT_NE(at, std::string::npos) << source;
    EXPECT_GT(std::stoll(source.substr(at + 4)), 20 * 2048) << source;
}

TEST(Bisect, AFaultPlantedBehindDriftIsFoundAtItsOp) {
    test::TempDir dir("pto-bisect");
    BisectReport r = bisect(writeDriftProgram(dir), "wrong-scale:0");
    const StageResult& st = firstStage(r);
    EXPECT_EQ(st.pass, "expand-tiles") << formatBisect(r);
    ASSERT_TRUE(st.first.has_value());
    EXPECT_EQ(st.first->op, r.planted->tileOp) << formatBisect(r);
    EXPECT_EQ(st.first->mnemonic, "muls");
    EXPECT_TRUE(st.first->introduced);
    EXPECT_NE(st.first->tolerance.source.find("K = 2048"), std::string::npos)
        << st.first->tolerance.source;
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_FALSE(r.outputs[0].verdict.passed);
    // The same in a DeepSeek sample: the 1/7168 of mla_prolog's RMSNorm mean, behind its
    // 7168-term sum of squares, halved.
    r = bisect(sample("mla_prolog.pto"), "wrong-scale:0");
    const StageResult& mla = firstStage(r);
    ASSERT_TRUE(mla.first.has_value());
    EXPECT_EQ(mla.first->op, r.planted->tileOp) << formatBisect(r);
    EXPECT_EQ(mla.first->mnemonic, "divs");
}

TEST(Bisect, ShiftTileOffsetIsFoundAtExpandTilesOnTheTload) {
    for (const char* s : {"softmax.pto", "matmul.pto"}) {
        const std::string fault = std::string("shift-tile-offset:") + (s[0] == 'm' ? "1" : "0");
        BisectReport r = bisect(sample(s), fault);
        ASSERT_TRUE(r.planted.has_value());
        const StageResult& st = firstStage(r);
        EXPECT_EQ(st.pass, "expand-tiles") << formatBisect(r);
        ASSERT_TRUE(st.first.has_value());
        EXPECT_EQ(st.first->mnemonic, "tload");
        EXPECT_EQ(st.first->op, r.planted->tileOp) << formatBisect(r);
        EXPECT_TRUE(st.first->introduced);
        EXPECT_FALSE(r.passed());
    }
}

TEST(Bisect, TruncateCastIsFoundAtExpandTilesOnTheCast) {
    BisectReport r = bisect(sample("softmax.pto"), "truncate-cast:0");
    const StageResult& st = firstStage(r);
    EXPECT_EQ(st.pass, "expand-tiles") << formatBisect(r);
    ASSERT_TRUE(st.first.has_value());
    EXPECT_EQ(st.first->mnemonic, "cast");
    EXPECT_EQ(st.first->op, r.planted->tileOp);
    EXPECT_EQ(st.first->loc.line, 10u);
    EXPECT_NE(st.first->reason.find("not bit-exact"), std::string::npos) << st.first->reason;
    EXPECT_EQ(st.first->offset,
              offsetOfTileOp(sample("softmax.pto"), "truncate-cast:0", r.planted->tileOp));
    // Earlier Tensor stages are clean.
    for (size_t i = 0; i < *r.firstDiverging; ++i) EXPECT_EQ(r.stages[i].failed, 0);
}

TEST(Bisect, DropSyncShowsUpOnlyInTheSimulator) {
    test::TempDir dir("pto-bisect");
    const std::string prog = writeAddProgram(dir);
    for (const char* fault : {"drop-sync:0", "drop-sync:1"}) {
        BisectReport r = bisect(prog, fault);
        const StageResult& st = firstStage(r);
        EXPECT_EQ(st.pass, "simulator") << formatBisect(r);
        EXPECT_NE(formatBisect(r).find("first diverges in: simulator (after emit-pto)"),
                  std::string::npos);
        ASSERT_TRUE(st.first.has_value());
        EXPECT_EQ(st.first->op, r.planted->tileOp) << formatBisect(r);
        EXPECT_EQ(st.first->mnemonic, "add");
        EXPECT_EQ(st.first->offset, offsetOfTileOp(prog, fault, r.planted->tileOp));
        EXPECT_EQ(st.first->block, r.planted->block);
        EXPECT_GE(st.first->core, 0);
        EXPECT_GE(st.first->task, 0);
    }
}

TEST(Bisect, ReuseLiveBufferShowsUpOnlyInTheSimulator) {
    test::TempDir dir("pto-bisect");
    const std::string prog = writeAddProgram(dir);
    BisectReport r = bisect(prog, "reuse-live-buffer:0");
    const StageResult& st = firstStage(r);
    EXPECT_EQ(st.pass, "simulator") << formatBisect(r);
    ASSERT_TRUE(st.first.has_value());
    EXPECT_EQ(st.first->op, r.planted->tileOp) << formatBisect(r);
    EXPECT_EQ(st.first->mnemonic, "add");
    EXPECT_EQ(st.first->offset, offsetOfTileOp(prog, "reuse-live-buffer:0", r.planted->tileOp));
    EXPECT_EQ(st.first->block, r.planted->block);
    EXPECT_GE(st.first->core, 0);
    EXPECT_TRUE(st.first->introduced);
    for (size_t i = 0; i + 1 < r.stages.size(); ++i) EXPECT_EQ(r.stages[i].failed, 0) << i;
}

TEST(Bisect, InheritedErrorsAreToldFromIntroducedOnes) {
    // The shifted load of the softmax input fails, and every later op of its tile inherits.
    BisectReport r = bisect(sample("softmax.pto"), "shift-tile-offset:0");
    const StageResult& st = firstStage(r);
    EXPECT_TRUE(st.first->introduced);
    EXPECT_GT(st.failed, 1);
    EXPECT_EQ(st.inherited, st.failed - 1) << formatBisect(r);
}

// A cast to f16 of a matmul's result: the Tile-level matmul sums K in another order than the
// reference, so the cast's inputs drift and its tolerance is widened to one f16 ulp — which a
// truncating cast also stays within. Drift rounds values across a midpoint both ways; the
// truncation moves every differing element toward zero, so it is named at the cast (it was
// found two ops later, at the next matmul or not at all).
TEST(Bisect, ATruncatingCastOfDriftedValuesIsFoundAtTheCast) {
    test::TempDir dir("pto-bisect");
    const std::string program = (dir / "cast.pto").string();
    std::ofstream(program) << "func @proj(%x: tensor<64x1024xf16>, %w: tensor<1024x128xf16>,\n"
                              "           %u: tensor<128x64xf16>) -> tensor<64x64xf32> {\n"
                              "  %h = matmul %x, %w\n"
                              "  %g = exp (muls %h, 0.03125)\n"
                              "  %o = matmul (cast %g : tensor<64x128xf16>), %u\n"
                              "  return %o\n"
                              "}\n";
    BisectReport clean = bisect(program);
    EXPECT_TRUE(clean.passed()) << formatBisect(clean);

    BisectReport r = bisect(program, "truncate-cast:0");
    ASSERT_TRUE(r.planted.has_value());
    const StageResult& st = firstStage(r);
    EXPECT_EQ(st.pass, "expand-tiles") << formatBisect(r);
    ASSERT_TRUE(st.first.has_value());
    EXPECT_EQ(st.first->mnemonic, "cast") << formatBisect(r);
    EXPECT_EQ(st.first->op, r.planted->tileOp);
    EXPECT_EQ(st.first->loc.line, 5u);
    EXPECT_TRUE(st.first->introduced);
    EXPECT_NE(st.first->reason.find("rounded toward zero"), std::string::npos) << st.first->reason;
}

// The looped flash attention at 2 heads: fuse-cube-vector hands QK and PV tiles through
// ping-pong GM workspaces, so iteration j + 2 rewrites what iteration j stored. The final GM
// holds only the last writes; comparing the earlier stores with it was a false divergence at
// the simulator (every tile of `matmul_acc` line 22 "failed" on the 8-head sample).
TEST(Bisect, RewrittenPingPongWorkspacesAreNotAFalseDivergence) {
    test::TempDir dir("pto-bisect");
    std::string program = (dir / "fa.pto").string();
    {
        std::ifstream in(sample("flash_attention_loop.pto"));
        std::string text((std::istreambuf_iterator<char>(in)), {});
        for (auto [from, to] : {std::pair{"8x1024", "2x1024"}, {"[8, 256, 128]", "[2, 256, 128]"}})
            for (size_t at; (at = text.find(from)) != std::string::npos;)
                text.replace(at, std::string(from).size(), to);
        std::ofstream(program) << text;
    }
    CompileState state = loadProgram(program);
    PassManager pm(state, CompileOptions{});
    pm.start();
    lowerToPto(pm);
    ASSERT_TRUE(std::any_of(state.pto.gm.begin(), state.pto.gm.end(), [](const GmTensor& t) {
        return t.name.find("_pp") != std::string::npos;
    })) << "the program no longer fuses with ping-pong workspaces; pick another";

    BisectReport r = bisect(program);
    EXPECT_TRUE(r.passed()) << formatBisect(r);
    const StageResult& sim = r.stages.back();
    EXPECT_EQ(sim.pass, "simulator");
    EXPECT_GT(sim.compared, 0);
    EXPECT_EQ(sim.failed, 0) << formatBisect(r);
    for (const TensorComparison& c : r.outputs) EXPECT_TRUE(c.verdict.passed);
}

TEST(Bisect, WritesDiffRowsIntoTheTrace) {
    test::TempDir dir("pto-bisect");
    const std::string trace = (dir / "b.db").string();
    BisectReport r = bisect(sample("softmax.pto"), "truncate-cast:0", trace);
    auto reader = tracedb::TraceReader::open(trace);
    EXPECT_FALSE(reader.stages().empty());
    bool sawBisect = false, sawTile = false;
    for (const tracedb::DiffRow& d : reader.diffs()) {
        if (d.kind == tracedb::DiffKind::Bisect) {
            sawBisect = true;
            EXPECT_EQ(d.verdict, "first_divergence");
            EXPECT_EQ(d.nodeId, std::optional<int64_t>(r.planted->tileOp));
            EXPECT_NE(d.detail.find("expand-tiles"), std::string::npos);
        }
        sawTile |= d.kind == tracedb::DiffKind::Tile;
    }
    EXPECT_TRUE(sawBisect);
    EXPECT_TRUE(sawTile);
    EXPECT_FALSE(reader.tensors().empty());
}

// A Tile-level program (a hand-written kernel) returns nothing: it is judged by what it stores
// into its arguments (y = 2x and the row sums z), after each Tile pass and after the simulator.
std::string tileLoop() {
    return std::string(PTO_SOURCE_DIR) + "/tests/integration/run/programs/tile_loop.pto";
}

TEST(Bisect, AHandWrittenKernelIsJudgedByWhatItStoresIntoItsArguments) {
    const BisectReport r = bisect(tileLoop());
    EXPECT_TRUE(r.passed()) << formatBisect(r);
    ASSERT_EQ(r.outputs.size(), 2u) << formatBisect(r);
    EXPECT_EQ(r.outputs[0].name, "y");
    EXPECT_EQ(r.outputs[1].name, "z");
    const StageResult& sim = r.stages.back();
    EXPECT_EQ(sim.compared, 2);
    EXPECT_EQ(r.stages.at(1).pass, "assign-memory");
    EXPECT_EQ(r.stages.at(1).compared, 2) << formatBisect(r);
}

TEST(Bisect, ABufferReusedWhileLiveInAHandWrittenKernelIsFoundAtItsStore) {
    const BisectReport r = bisect(tileLoop(), "reuse-live-buffer:0");
    EXPECT_FALSE(r.passed());
    const StageResult& st = firstStage(r);
    EXPECT_EQ(st.pass, "simulator");
    ASSERT_TRUE(st.first.has_value());
    EXPECT_EQ(st.first->value, "%z");
    EXPECT_EQ(st.first->mnemonic, "tstore");
    EXPECT_EQ(st.first->loc.line, 12); // `tstore %s, %z` after the loop
}

// A fault planted by a Tensor-to-Tile pass has no site in a Tile-level program: an input error
// naming the pass, not a clean compile that bisection would call a PASS.
TEST(Bisect, AFaultWhosePassAHandWrittenKernelSkipsIsAnInputError) {
    try {
        bisect(tileLoop(), "shift-tile-offset:0");
        ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("its pass expand-tiles does not run for this program"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Bisect, BadFaultSpecsAreInputErrors) {
    EXPECT_THROW(parseFaultSpec("drop-everything"), std::invalid_argument);
    EXPECT_THROW(parseFaultSpec("drop-sync:x"), std::invalid_argument);
    EXPECT_THROW(parseFaultSpec("drop-sync:-1"), std::invalid_argument);
    EXPECT_EQ(parseFaultSpec("truncate-cast:3").index, 3);
    EXPECT_THROW(bisect(sample("softmax.pto"), "truncate-cast:99"), std::invalid_argument);
}

} // namespace
} // namespace pto
