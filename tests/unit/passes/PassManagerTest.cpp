// The pass manager: errors raised deep in the lowering name the program file.
#include "compiler/Pipeline.h"

#include <gtest/gtest.h>

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

} // namespace
} // namespace pto
