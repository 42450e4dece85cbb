// The pass manager: errors raised deep in the lowering name the program file; the verifier runs
// where CompileOptions::verify says.
#include "compiler/Pipeline.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace pto {
namespace {

TEST(PassManager, ErrorsOfLatePassesNameTheProgramFile) {
    const std::string path = std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
    CompileState state = loadProgram(path);
    PassManager pm(state, CompileOptions{});
    pm.start();
    for (const char* pass :
         {"verify", "decompose-composites", "fold-constants", "dead-code", "expand-tiles",
          "assign-memory", "insert-copies", "tile-dead-code", "partition-blocks",
          "order-instructions", "allocate-buffers", "insert-sync"})
        ASSERT_TRUE(pm.run(pass)) << pass;
    try {
        // Ordering a block that already has its sync is an internal error of order-instructions,
        // a pass whose code does not know the file name.
        pm.run("order-instructions");
        FAIL() << "expected a CompileError";
    } catch (const CompileError& error) {
        EXPECT_EQ(error.file(), path);
        EXPECT_NE(std::string(error.what()).find("softmax.pto"), std::string::npos) << error.what();
        EXPECT_EQ(std::string(error.what()).find("<input>"), std::string::npos) << error.what();
    }
}

std::string softmaxPath() {
    return std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto";
}

void runThroughExpandTiles(PassManager& pm) {
    pm.start();
    for (const char* pass :
         {"verify", "decompose-composites", "fold-constants", "dead-code", "expand-tiles"})
        if (!pm.run(pass)) throw std::logic_error(pass);
}

// One elementwise tile op's result given the wrong dtype: the kind of defect a broken pass
// leaves, which the Tile verifier reports and the next passes do not trip over.
void breakOneElementwiseOp(Function& tile) {
    for (const Op& op : tile.ops())
        if (op.kind == OpKind::Add || op.kind == OpKind::Sub || op.kind == OpKind::Mul) {
            Type& t = tile.value(op.result).type;
            t.dtype = t.dtype == DType::F32 ? DType::F16 : DType::F32;
            return;
        }
    throw std::logic_error("no elementwise tile op to break");
}

CompileOptions verifying(VerifyStages verify) {
    CompileOptions o;
    o.verify = verify;
    return o;
}

// The softmax sample through expand-tiles, then broken (breakOneElementwiseOp).
struct BrokenAfterExpand {
    explicit BrokenAfterExpand(VerifyStages verify, PassManagerOptions pmOptions = {})
        : state(loadProgram(softmaxPath())), pm(state, verifying(verify), std::move(pmOptions)) {
        runThroughExpandTiles(pm);
        breakOneElementwiseOp(state.tile);
    }
    CompileState state;
    PassManager pm;
};

TEST(PassManager, EveryPassVerifiedNamesThePassAfterWhichTheFunctionIsBroken) {
    BrokenAfterExpand broken(VerifyStages::EachPass);
    EXPECT_THROW(broken.pm.run("assign-memory"), CompileError);
}

TEST(PassManager, ByDefaultTheBrokenFunctionIsCaughtAtTheEndOfItsLevel) {
    BrokenAfterExpand broken(VerifyStages::LevelEnds);
    ASSERT_EQ(CompileOptions{}.verify, VerifyStages::LevelEnds);
    for (const char* pass : {"assign-memory", "insert-copies"})
        EXPECT_NO_THROW(broken.pm.run(pass)) << pass;
    try {
        broken.pm.run("tile-dead-code"); // the Tile level's last pass
        FAIL() << "expected the verifier's CompileError";
    } catch (const CompileError& error) {
        EXPECT_EQ(error.file(), softmaxPath());
    }
}

TEST(PassManager, AStopPointInsideALevelIsVerified) {
    PassManagerOptions stop;
    stop.stopAfter = "assign-memory";
    BrokenAfterExpand broken(VerifyStages::LevelEnds, stop);
    EXPECT_THROW(broken.pm.run("assign-memory"), CompileError);
}

TEST(PassManager, ProbesVerifyNothing) {
    BrokenAfterExpand broken(VerifyStages::Off);
    for (const char* pass : {"assign-memory", "insert-copies", "tile-dead-code"})
        EXPECT_NO_THROW(broken.pm.run(pass)) << pass;
}

} // namespace
} // namespace pto
