// The resource budget (compiler/ResourceBudget.h): the tile-op estimate against the real
// expansion of every sample, and each limit refusing a program before the memory it bounds is
// taken, with the op, the estimate and the flag in the message.
#include "compiler/ResourceBudget.h"
#include "compiler/Pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace pto {
namespace {

namespace fs = std::filesystem;

const std::string kRepro = std::string(PTO_SOURCE_DIR) + "/../shared/repro/reliability/";

// Runs the Tensor-level passes, then expand-tiles; returns the pass manager for more.
void runToTensor(PassManager& pm) {
    pm.start();
    for (const char* pass : {"verify", "inline-calls", "unroll-loops", "decompose-composites",
                             "fold-constants", "dead-code"})
        ASSERT_TRUE(pm.run(pass)) << pass;
}

std::string budgetMessage(CompileState& state, const CompileOptions& options) {
    PassManager pm(state, options);
    runToTensor(pm);
    try {
        pm.run("expand-tiles");
    } catch (const BudgetError& e) {
        EXPECT_TRUE(state.tileFunction().ops().empty()) << "expanded before refusing";
        return e.what();
    }
    return {};
}

TEST(ResourceBudget, EstimateTracksTheRealExpansionOfEverySample) {
    int samples = 0;
    for (const auto& entry : fs::directory_iterator(std::string(PTO_SOURCE_DIR) + "/samples")) {
        if (entry.path().extension() != ".pto") continue;
        // Unrolled at S = 32768 it is far over the default budget on purpose: its README line
        // raises the limits (until a loop body is lowered once, issue 15 item 2).
        if (entry.path().stem() == "flash_attention_long") continue;
        SCOPED_TRACE(entry.path().filename().string());
        CompileState state = loadProgram(entry.path().string());
        PassManager pm(state, CompileOptions{});
        runToTensor(pm);
        const TileOpEstimate e = estimateTileOps(state.tensor, TargetInfo{});
        ASSERT_TRUE(pm.run("expand-tiles"));
        const double real = double(state.tileFunction().ops().size());
        // Within a factor of four either way: good enough to stop a blow-up of orders of
        // magnitude, never far from what the lowering really does.
        EXPECT_GE(e.total, real / 4) << "real " << real << ", estimate " << e.total;
        EXPECT_LE(e.total, real * 4) << "real " << real << ", estimate " << e.total;
        EXPECT_LT(e.total, double(ResourceBudget::kDefaultMaxTileOps));
        ++samples;
    }
    EXPECT_GE(samples, 15);
}

TEST(ResourceBudget, EveryLimitAdmitsGemm4096) {
    CompileState state = loadProgram(std::string(PTO_SOURCE_DIR) + "/samples/gemm_4096.pto");
    CompileOptions options;
    compileProgram(state, options);
    ASSERT_EQ(state.kind, StageKind::Pto);
    EXPECT_LT(int64_t(state.tileFunction().ops().size()), options.budget.maxTileOps);
    EXPECT_LT(gmImageBytes(state.pto), options.budget.maxGmBytes);
    EXPECT_NO_THROW(checkGmBudget(state.pto, options.budget, state.file));
}

TEST(ResourceBudget, MatmulOfTheReproIsRefusedAtItsLineBeforeExpansion) {
    CompileState state = loadProgram(kRepro + "c1_oom_matmul_expand_tiles.pto");
    const std::string msg = budgetMessage(state, CompileOptions{});
    EXPECT_NE(msg.find("c1_oom_matmul_expand_tiles.pto:6:10:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("matmul %acc"), std::string::npos) << msg;
    EXPECT_NE(msg.find("16384x65536 by 65536x65536"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--max-tile-ops"), std::string::npos) << msg;
    EXPECT_NE(msg.find("budget of 1000000"), std::string::npos) << msg;
}

TEST(ResourceBudget, TinyVecTilesAreRefusedAndTheFlagValueIsHonoured) {
    const std::string text = "func @f(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {\n"
                             "  vec_tile [1, 8]\n"
                             "  %y = exp %x\n"
                             "  return %y\n"
                             "}\n";
    CompileOptions tight;
    tight.budget.maxTileOps = 10'000;
    CompileState refused = loadProgramText(text, "t.pto");
    const std::string msg = budgetMessage(refused, tight);
    EXPECT_NE(msg.find("t.pto:3:8:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("exp %y: 256x256 in 1x8 tiles"), std::string::npos) << msg;
    EXPECT_NE(msg.find("budget of 10000"), std::string::npos) << msg;

    // 8192 tiles of one load, one exp and one store: admitted by default, and the real count
    // stays within the estimate.
    CompileState admitted = loadProgramText(text, "t.pto");
    compileProgram(admitted, CompileOptions{});
    ASSERT_EQ(admitted.kind, StageKind::Pto);
    const double estimate = estimateTileOps(admitted.tensor, TargetInfo{}).total;
    EXPECT_LE(double(admitted.tileFunction().ops().size()),
              estimate + 1); // + the output's gm_tensor
    EXPECT_GE(double(admitted.tileFunction().ops().size()), estimate / 2);
}

TEST(ResourceBudget, HostMemoryOfTheCompileHasItsOwnLimit) {
    CompileOptions options;
    options.budget.maxMemoryBytes = 64 << 10; // 64 KiB: 25 tile ops at 2.5 KiB
    CompileState state = loadProgram(std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto");
    const std::string msg = budgetMessage(state, options);
    EXPECT_NE(msg.find("of host memory"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--max-memory"), std::string::npos) << msg;
}

TEST(ResourceBudget, InstructionsAreCountedAfterEmission) {
    CompileState state = loadProgram(std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto");
    CompileOptions options;
    options.budget.maxInstrs = 10;
    try {
        compileProgram(state, options);
        FAIL() << "expected a BudgetError";
    } catch (const BudgetError& e) {
        EXPECT_NE(std::string(e.what()).find("PTO instructions"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--max-instrs"), std::string::npos) << e.what();
    }
}

TEST(ResourceBudget, GmImageOfAListingIsBoundedAndOverflowSafe) {
    PtoProgram p;
    p.name = "big";
    GmTensor x;
    x.name = "x";
    x.dtype = DType::F32;
    x.shape = Shape{16777216, 16777216};
    x.role = GmRole::Input;
    p.gm.push_back(x);
    EXPECT_EQ(gmImageBytes(p), int64_t(1) << 50);
    try {
        checkGmBudget(p, ResourceBudget{}, "big.ptoasm");
        FAIL() << "expected a BudgetError";
    } catch (const BudgetError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("big.ptoasm"), std::string::npos) << msg;
        EXPECT_NE(msg.find("1 PiB"), std::string::npos) << msg;
        EXPECT_NE(msg.find("%x"), std::string::npos) << msg;
        EXPECT_NE(msg.find("--max-gm"), std::string::npos) << msg;
    }
    p.gm[0].shape = Shape{16};
    p.gm[0].addr = INT64_MAX - 8;
    EXPECT_EQ(gmImageBytes(p), INT64_MAX);
    EXPECT_THROW(checkGmBudget(p, ResourceBudget{}, "big.ptoasm"), BudgetError);
}

TEST(ResourceBudget, FormatsBytes) {
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBytes(96.0 * 1024 * 1024), "96 MiB");
    EXPECT_EQ(formatBytes(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
}

} // namespace
} // namespace pto
